"""The differential check: the batched core against the reference AEC env, decision by decision.

:func:`compare` deals the same packs to both (``init(key, decks=..., dealer=...)`` and
``reset(options={"decks": ..., "dealer": ...})``), plays the same random legal actions in both, and
compares at every decision: the seat to move, the legal mask, that seat's observation (equal, entry
for entry), the step's rewards, the scores, terminated and truncated; at the end of a game every
seat's observation. The batched side steps all games at once (``vmap``); the reference side one
game after another. Used by tests/batched (a few hundred games) and scripts/batched_differential.py
(long runs).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import jax
import numpy as np

from allfours_env.aec import raw_env
from allfours_env.batched.env import make

#: Packs stacked per game: far more deals than a game between random players takes before its end
#: or the hand cap given (a game that runs out of them stops being compared: counted apart).
DECKS_PER_GAME = 64


@dataclass
class Report:
    """What a comparison found: games and decisions compared, mismatches (each one line)."""

    config: str
    games: int = 0
    decisions: int = 0
    out_of_packs: int = 0
    mismatches: list[str] = field(default_factory=list)


def _check(report: Report, game: int, step: int, what: str, ok: bool) -> bool:
    if not ok and len(report.mismatches) < 20:
        report.mismatches.append(f"{report.config} game {game} decision {step}: {what} differs")
    return ok


def compare(preset: str, num_players: int, games: int, seed: int, *, max_hands: int | None = 40,
            reward: str | None = None, env: Any = None, **knobs: Any) -> Report:
    """Play ``games`` random games of the configuration in both engines and compare them (see the
    module docstring). ``env`` may pass an already made batched env (its compiled functions are
    reused)."""
    benv = env if env is not None else make(preset, num_players, max_hands=max_hands, reward=reward, **knobs)
    report = Report(f"{preset} {num_players}p {knobs or ''}".strip())
    rng = np.random.default_rng(seed)
    pack = benv.spec.pack
    decks = np.stack([np.stack([rng.permutation(pack) for _ in range(DECKS_PER_GAME)]) for _ in range(games)])
    dealers = rng.integers(0, num_players, games)
    keys = jax.random.split(jax.random.PRNGKey(seed), games)
    init, step, observe = _compiled(benv)
    state = init(keys, decks.astype(np.int32), dealers.astype(np.int32))
    refs = []
    for g in range(games):
        ref = raw_env(preset, num_players, max_hands=max_hands, reward=reward, **knobs)
        options = {"decks": decks[g].tolist(), "dealer": int(dealers[g])}
        ref.reset(seed=int(seed * 100003 + g), options=options)
        refs.append(ref)
    active = np.ones(games, dtype=bool)
    decision = 0
    while active.any():
        host = jax.device_get(state)
        actions = np.zeros(games, dtype=np.int32)
        for g in np.nonzero(active)[0]:
            ref = refs[g]
            if int(host.deals[g]) > DECKS_PER_GAME:
                report.out_of_packs += 1
                active[g] = False
                continue
            agent = ref.agent_selection
            seat = ref.possible_agents.index(agent)
            over = ref.terminations[agent] or ref.truncations[agent]
            rewards = np.array([ref.rewards[a] for a in ref.possible_agents])
            same = np.allclose(rewards, host.rewards[g], rtol=1e-6, atol=1e-6)
            ok = _check(report, g, decision, "rewards", same)
            ok &= _check(report, g, decision, "scores", tuple(ref.scores) == tuple(host.scores[g].tolist()))
            ok &= _check(report, g, decision, "terminated",
                         bool(ref.terminations[agent]) == bool(host.terminated[g]))
            same = bool(ref.truncations[agent]) == bool(host.truncated[g])
            ok &= _check(report, g, decision, "truncated", same)
            if over:
                for other in range(num_players):
                    seen = ref.observe(ref.possible_agents[other])["observation"]
                    mine = np.asarray(observe(_index(state, g), other))
                    ok &= _check(report, g, decision, f"final observation of seat {other}",
                                 np.array_equal(seen, mine))
                report.games += 1
                active[g] = False
                continue
            ok &= _check(report, g, decision, "seat to move", seat == int(host.current_player[g]))
            seen = ref.observe(agent)
            ok &= _check(report, g, decision, "legal mask",
                         np.array_equal(seen["action_mask"].astype(bool), host.legal_action_mask[g]))
            diff = np.nonzero(seen["observation"] != host.observation[g])[0]
            where = diff[:8]
            what = (f"observation (entries {where.tolist()}: "
                    f"reference {seen['observation'][where].tolist()}, "
                    f"batched {host.observation[g][where].tolist()}; phase {int(host.phase[g])})")
            ok &= _check(report, g, decision, what, not diff.size)
            if not ok:
                active[g] = False
                report.games += 1
                continue
            legal = np.nonzero(seen["action_mask"])[0]
            action = int(rng.choice(legal))
            actions[g] = action
            ref.step(action)
            report.decisions += 1
        if not active.any():
            break
        state = step(state, actions)
        decision += 1
    return report


def _index(state: Any, g: int) -> Any:
    return jax.tree.map(lambda x: x[g], state)


_COMPILED: dict[int, tuple] = {}


def _compiled(env: Any) -> tuple:
    """The env's vmapped, jitted init, step and (unbatched) observe, made once per env."""
    found = _COMPILED.get(id(env))
    if found is None or found[0] is not env:
        found = (env, jax.jit(jax.vmap(env.init)), jax.jit(jax.vmap(env.step)), jax.jit(env.observe))
        _COMPILED[id(env)] = found
    return found[1:]
