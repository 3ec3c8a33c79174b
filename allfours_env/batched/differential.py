"""The differential check: the batched core against the reference AEC env, decision by decision.

:func:`compare` deals the same packs to both (``init(key, decks=..., dealer=...)`` and
``reset(options={"decks": ..., "dealer": ...})``), plays the same random legal actions in both, and
compares at every decision: the seat to move, the legal mask, that seat's observation (equal, entry
for entry), the step's rewards, the scores, terminated and truncated; at the end of a game every
seat's observation. Used by tests/batched (a few hundred games) and scripts/batched_differential.py
(long runs).

Games are numbered; game ``i``'s packs, first dealer, keys and random actions come from ``(seed, i)``
alone, so a range of games gives the same results however it is split into calls, and whatever the
``batch``. The batched side steps ``batch`` games at once (``vmap``), and a game that ends hands its
slot to the next game of the range (no batch waits for its longest game); the reference side is a
``raw_env`` per game. Each step fetches from the device only the fields compared, and the
comparisons run on all slots at once (numpy).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from allfours_env.actions import NUM_ACTIONS
from allfours_env.aec import raw_env
from allfours_env.batched.env import make
from allfours_env.observation import OBS_SIZE

#: Packs stacked per game: far more deals than a game between random players takes before its end
#: or the hand cap given (a game that runs out of them stops being compared: counted apart).
DECKS_PER_GAME = 64


@dataclass
class Report:
    """What a comparison found: games and decisions compared, games that ran out of stacked packs,
    games with a mismatch, the mismatches (each one line, the first 20)."""

    config: str
    games: int = 0
    decisions: int = 0
    out_of_packs: int = 0
    mismatched_games: int = 0
    mismatches: list[str] = field(default_factory=list)

    def add(self, other: Report) -> None:
        """Count ``other``'s games (of the same configuration) in this report."""
        self.games += other.games
        self.decisions += other.decisions
        self.out_of_packs += other.out_of_packs
        self.mismatched_games += other.mismatched_games
        self.mismatches += other.mismatches[:max(0, 20 - len(self.mismatches))]


@dataclass
class _Game:
    """One game in a slot: its number, its reference env, its random player, its decisions so far."""

    index: int
    ref: Any
    rng: np.random.Generator
    decisions: int = 0
    failed: bool = False


def deal(seed: int, index: int, pack: int, num_players: int) -> tuple[np.random.Generator, np.ndarray, int]:
    """Game ``index``'s random player (a generator seeded by ``(seed, index)``), its stacked packs
    (int32[DECKS_PER_GAME, pack], each a permutation of the card ids) and its first dealer."""
    rng = np.random.default_rng([seed, index])
    decks = rng.permuted(np.tile(np.arange(pack, dtype=np.int32), (DECKS_PER_GAME, 1)), axis=1)
    return rng, decks, int(rng.integers(num_players))


def compare(preset: str, num_players: int, games: int, seed: int, *, first: int = 0, batch: int = 256,
            max_hands: int | None = 40, reward: str | None = None, env: Any = None, **knobs: Any) -> Report:
    """Play games ``first .. first + games - 1`` (random legal actions) in both engines and compare
    them (see the module docstring), ``batch`` of them stepped together. ``seed`` (at least 0) fixes
    every game. ``env`` may pass an already made batched env (its compiled functions are reused; without
    it the configuration's env is made once and kept for later calls)."""
    if games < 1 or batch < 1 or seed < 0 or first < 0:
        raise ValueError(f"compare needs games >= 1, batch >= 1, seed >= 0 and first >= 0; got "
                         f"games={games}, batch={batch}, seed={seed}, first={first}")
    if env is None:
        env = _env(preset, num_players, max_hands, reward, tuple(sorted(knobs.items())))
    report = Report(f"{preset} {num_players}p {knobs or ''}".strip())
    fns = _compiled(env)
    pack, n = env.spec.pack, num_players
    base = jax.random.PRNGKey(seed)
    upcoming, stop = first, first + games

    def new_game(index: int) -> tuple[_Game, np.ndarray, int]:
        rng, decks, dealer = deal(seed, index, pack, n)
        ref = raw_env(preset, n, max_hands=max_hands, reward=reward, **knobs)
        ref.reset(seed=seed * 100003 + index, options={"decks": decks.tolist(), "dealer": dealer})
        return _Game(index, ref, rng), decks, dealer

    width = min(batch, games)
    lanes = min(width, 8)  # games dealt or ended per call of put and observe_all
    state = fns.blank(width)
    slots: list[_Game | None] = [None] * width
    ref_seat = np.zeros(width, np.int32)
    ref_rewards = np.zeros((width, n), np.float64)
    ref_scores = np.zeros(state.scores.shape, np.int64)
    ref_over = np.zeros((width, 2), bool)  # terminated, truncated
    ref_mask = np.zeros((width, NUM_ACTIONS), bool)
    ref_obs = np.zeros((width, OBS_SIZE), np.float32)
    actions = np.zeros(width, np.int32)
    free = list(range(width))
    while True:
        free = free[:stop - upcoming]
        for start in range(0, len(free), lanes):  # deal the next games into the free slots
            group = free[start:start + lanes]
            new = [new_game(upcoming + k) for k in range(len(group))]
            pad = lanes - len(group)
            decks = np.stack([d for _, d, _ in new] + [new[0][1]] * pad)  # a padding game is dropped
            state = fns.put(state, np.array(group + [width] * pad, np.int32), base,
                            np.arange(upcoming, upcoming + lanes, dtype=np.int32), decks,
                            np.array([k for _, _, k in new] + [0] * pad, np.int32))
            for s, (game, _, _) in zip(group, new):
                slots[s] = game
            upcoming += len(group)
        if all(g is None for g in slots):
            break
        host = jax.device_get((state.current_player, state.legal_action_mask, state.observation,
                               state.rewards, state.scores, state.terminated, state.truncated,
                               state.deals, state.phase))
        seat_b, mask_b, obs_b, rewards_b, scores_b, term_b, trunc_b, deals_b, phase_b = host
        live, ended = [], []
        for s, g in enumerate(slots):
            if g is None:
                continue
            if int(deals_b[s]) > DECKS_PER_GAME:  # the games part ways: not compared further
                report.out_of_packs += 1
                ended.append(s)
                continue
            ref = g.ref
            agent = ref.agent_selection
            ref_rewards[s] = [ref.rewards[a] for a in ref.possible_agents]
            ref_scores[s] = ref.scores
            terminated, truncated = ref.terminations[agent], ref.truncations[agent]
            ref_over[s] = terminated, truncated
            if not (terminated or truncated):
                ref_seat[s] = ref.possible_agents.index(agent)
                seen = ref.observe(agent)
                ref_mask[s] = seen["action_mask"]
                ref_obs[s] = seen["observation"]
            live.append(s)
        idx = np.array(live, dtype=np.intp)
        over = ref_over[idx].any(axis=1)
        checks = {
            "rewards": np.isclose(ref_rewards[idx], rewards_b[idx], rtol=1e-6, atol=1e-6).all(axis=1),
            "scores": (ref_scores[idx] == scores_b[idx]).all(axis=1),
            "terminated": ref_over[idx, 0] == term_b[idx],
            "truncated": ref_over[idx, 1] == trunc_b[idx],
            "seat to move": over | (ref_seat[idx] == seat_b[idx]),
            "legal mask": over | (ref_mask[idx] == mask_b[idx]).all(axis=1),
            "observation": over | (ref_obs[idx] == obs_b[idx]).all(axis=1),
        }
        ok = np.logical_and.reduce(list(checks.values()))
        finals = _final_observations(fns, state, idx[ok & over], lanes)
        for j, s in enumerate(live):
            g = slots[s]
            if not ok[j]:
                for what, passed in checks.items():
                    if not passed[j]:
                        if what == "observation":
                            where = np.nonzero(ref_obs[s] != obs_b[s])[0][:8]
                            what = (f"observation (entries {where.tolist()}: reference "
                                    f"{ref_obs[s][where].tolist()}, batched {obs_b[s][where].tolist()}; "
                                    f"phase {int(phase_b[s])})")
                        _mismatch(report, g, what)
            elif over[j]:
                for other, agent in enumerate(g.ref.possible_agents):
                    if not np.array_equal(g.ref.observe(agent)["observation"], finals[s][other]):
                        _mismatch(report, g, f"final observation of seat {other}")
            if not ok[j] or over[j]:
                report.games += 1
                report.mismatched_games += g.failed
                ended.append(s)
                continue
            legal = np.flatnonzero(ref_mask[s])
            action = int(legal[int(g.rng.random() * len(legal))])
            actions[s] = action
            g.ref.step(action)
            g.decisions += 1
            report.decisions += 1
        for s in ended:
            slots[s] = None
        free = ended
        state = fns.step(state, actions)  # a finished game's slot is stepped, then dealt anew
    return report


def _final_observations(fns: _Functions, state: Any, slots: np.ndarray, lanes: int) -> dict[int, np.ndarray]:
    """Every seat's observation (float32[players, 1251]) of the games in ``slots``, ``lanes`` per call."""
    finals = {}
    for start in range(0, len(slots), lanes):
        group = slots[start:start + lanes].tolist()
        seen = np.asarray(fns.observe_all(state, np.array(group + [0] * (lanes - len(group)), np.int32)))
        finals.update(zip(group, seen))
    return finals


def _mismatch(report: Report, game: _Game, what: str) -> None:
    game.failed = True
    if len(report.mismatches) < 20:
        where = f"game {game.index} decision {game.decisions}"
        report.mismatches.append(f"{report.config} {where}: {what} differs")


@dataclass(frozen=True)
class _Functions:
    """An env's functions for :func:`compare` (batched states: every field with a leading axis):
    ``blank(B)`` a state of ``B`` empty slots; ``put(state, slot[L], key, index[L], decks[L],
    dealer[L])`` deals games into those slots (game ``i``'s key ``fold_in(key, i)``; a slot out of
    range drops its game; the state passed is consumed); ``step(state, action[B])``;
    ``observe_all(state, slot[L])`` every seat's observation of the games in those slots."""

    env: Any
    blank: Any
    put: Any
    step: Any
    observe_all: Any


def _make_functions(env: Any) -> _Functions:
    seats = jnp.arange(env.num_players)
    pack = env.spec.pack

    def init(key: jax.Array, index: jax.Array, decks: jax.Array, dealer: jax.Array) -> Any:
        return jax.vmap(lambda i, d, k: env.init(jax.random.fold_in(key, i), d, k))(index, decks, dealer)

    def blank(width: int) -> Any:
        slots = jnp.zeros(width, jnp.int32)
        decks = jnp.zeros((width, DECKS_PER_GAME, pack), jnp.int32)
        shapes = jax.eval_shape(init, jax.random.PRNGKey(0), slots, decks, slots)
        return jax.tree.map(lambda x: jnp.zeros(x.shape, x.dtype), shapes)

    def put(state: Any, slot: jax.Array, key: jax.Array, index: jax.Array, decks: jax.Array,
            dealer: jax.Array) -> Any:
        new = init(key, index, decks, dealer)
        return jax.tree.map(lambda x, y: x.at[slot].set(y, mode="drop"), state, new)

    def observe_all(state: Any, slot: jax.Array) -> jax.Array:
        some = jax.tree.map(lambda x: x[slot], state)
        return jax.vmap(lambda one: jax.vmap(lambda seat: env.observe(one, seat))(seats))(some)

    return _Functions(env, blank, jax.jit(put, donate_argnums=0), jax.jit(jax.vmap(env.step)),
                      jax.jit(observe_all))


@lru_cache(maxsize=8)
def _env(preset: str, num_players: int, max_hands: int | None, reward: str | None, knobs: tuple) -> Any:
    """The batched env of a configuration, made once (and compiled once) for all calls of :func:`compare`."""
    return make(preset, num_players, max_hands=max_hands, reward=reward, **dict(knobs))


_COMPILED: dict[int, _Functions] = {}


def _compiled(env: Any) -> _Functions:
    """The env's functions for :func:`compare`, made once per env."""
    found = _COMPILED.get(id(env))
    if found is None or found.env is not env:
        found = _make_functions(env)
        _COMPILED[id(env)] = found
    return found
