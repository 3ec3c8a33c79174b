"""Python bots in the JAX backend's opponent pool: a rollout stepped from Python.

When ``opponents.mix`` (or its schedule) names an agent spec that cannot decide inside ``jit``
(``heuristic``, ``pimc:...``, ``ppo:FILE``: :func:`train.jax.ppo.python_bots`), the rollout is a
Python loop of ``jax.rollout_steps`` decisions (:class:`BotRollout`). Each decision is two jitted
calls over the whole batch — :meth:`~train.jax.ppo.Learner.choose` (the learner's, the snapshot's
and the random seats' actions, the learner's logits and value) and
:meth:`~train.jax.ppo.Learner.advance` (the batched core's step and the decision's record) — with
the bot seats deciding in between, as in ``evaluate``: from a
:class:`~allfours_env.knowledge.SeatView` of a reference game (:class:`allfours_env.engine.Game`)
that mirrors the batched game. The rows are stacked into the record the jitted rollout makes
(``[steps, games, ...]``), and the update is the same jitted :meth:`~train.jax.ppo.Learner.learn`.
A config whose mix has no Python bot keeps the rollout inside ``jit`` (``Learner.iterate``).

**Mirrors.** Only games with a bot seat are mirrored. The batched core deals from its key; after
each step the packs it dealt are read back from its state — the current deal's pack from each
card's position (``place``), an earlier deal of the same step (a pack thrown in) from
:meth:`~allfours_env.batched.core.Core.next_pack` at that deal's number — and handed to the mirror
(:meth:`Game.stack <allfours_env.engine.Game.stack>`) before it applies the same action, so both
deal the same cards and never run out of packs; a new game's mirror starts from the packs and
dealer of its first deal. After every step the mirror must have dealt as many packs as the batched
game and have the same seat to move (the batched core is exact to the reference: tests/batched),
else :class:`MirrorError`.

**Seeds.** The agent of every bot seat is reset at the start of each game with a seed drawn from
the rollout's key, so one seed fixes the whole run.

**Time** (:attr:`BotRollout.seconds`): ``choose`` and ``advance`` (the jitted calls, with the
transfers of what the bots and mirrors read), ``bots`` (the agents' decisions), ``mirrors`` (the
reference games), ``update`` (stacking the record, the bootstrap and the update).
"""

from __future__ import annotations

import time

import jax
import jax.numpy as jnp
import numpy as np

from agents.base import Agent, make_agent
from allfours_env.batched.env import RESET_DEALS
from allfours_env.engine import Game, IllegalActionError
from allfours_env.knowledge import SeatView
from allfours_env.seeding import derive_seed
from train.jax.ppo import BOT, Batch, Learner


class MirrorError(RuntimeError):
    """A reference game no longer follows its batched game (a bug, never a user's input)."""


def pack_of(place: np.ndarray, size: int) -> list[int]:
    """The pack whose card positions are ``place`` (int[53], 99 for a card not in it), top first."""
    return np.argsort(place, kind="stable")[:size].tolist()


def dealt_from(deals: int) -> int:
    """The deal number of a batched game's first pack, from its count ``deals``: 0 for a game of
    ``init``, :data:`~allfours_env.batched.env.RESET_DEALS` for one dealt by ``auto_reset``."""
    return RESET_DEALS if deals >= RESET_DEALS else 0


class BotRollout:
    """The rollout and update of a :class:`~train.jax.ppo.Learner` whose opponents include Python
    bots: :meth:`iterate` takes and returns what the learner's jitted ``iterate`` does."""

    def __init__(self, learner: Learner, seed: int) -> None:
        if not learner.bots:
            raise ValueError("BotRollout is for a learner with Python bots in its opponent mix")
        self.learner = learner
        self.rules = learner.env.rules
        self.seed = seed
        self.pack = learner.env.spec.pack
        games = learner.num_envs
        self.mirrors: list[Game | None] = [None] * games
        self.views: list[list[SeatView]] = [[] for _ in range(games)]
        self.agents: dict[tuple[int, int, int], Agent] = {}
        self.seat_agents: list[dict[int, Agent]] = [{} for _ in range(games)]
        self.observing = any(make_agent(spec, seed=0).needs_observation for spec in learner.bots)
        self.batch: Batch | None = None  # the games the mirrors follow
        self.seconds = dict.fromkeys(("choose", "bots", "advance", "mirrors", "update"), 0.0)
        self._choose = jax.jit(learner.choose)
        self._advance = jax.jit(learner.advance)
        self._bootstrap = jax.jit(learner.bootstrap)
        self._learn = jax.jit(learner.learn)
        core = learner.env.core
        self._packs = jax.jit(jax.vmap(lambda s, i: core.next_pack(s._replace(deals=i))))

    # ------------------------------------------------------------ the loop

    def iterate(self, params, opt, snapshot, probs, batch: Batch, key: jax.Array, learning_rate):
        """One rollout of ``jax.rollout_steps`` decisions in every game, then the update at
        ``learning_rate`` (see the module docstring). ``batch`` is the one the last call returned,
        or games just dealt by :meth:`Learner.start <train.jax.ppo.Learner.start>`."""
        rollout_key, update_key = jax.random.split(key)
        batch, record, bootstrap = self.rollout(params, snapshot, probs, batch, rollout_key)
        clock = time.perf_counter()
        params, opt, metrics = self._learn(params, opt, record, bootstrap, update_key, learning_rate)
        metrics = jax.device_get(metrics)
        self._tick("update", clock)
        return params, opt, batch, metrics

    def rollout(self, params, snapshot, probs, batch: Batch, key: jax.Array):
        """The rollout of :meth:`iterate`: the games after it, its record (as the jitted rollout's,
        ``[steps, games, ...]``) and every seat's bootstrap value."""
        learner = self.learner
        words = np.asarray(jax.random.key_data(key)).tolist()
        rng = np.random.default_rng(derive_seed(self.seed, "bots", *words))
        if batch is not self.batch:
            self.mirror_all(batch, rng)
        rows = []
        probs = jnp.asarray(probs)
        for step_key in learner.step_keys(key):
            clock = time.perf_counter()
            chosen = self._choose(params, snapshot, batch, step_key)
            wanted = {"who": chosen["who"], "seat": chosen["seat"], "action": chosen["action"],
                      "mask": chosen["mask"]}
            if self.observing:
                wanted["obs"] = chosen["obs"]
            host = jax.device_get(wanted)
            actions = host["action"]
            bot_games = np.nonzero(host["who"] >= BOT)[0]
            self._tick("choose", clock)
            if bot_games.size:
                clock = time.perf_counter()
                actions = actions.copy()
                for g in bot_games:
                    actions[g] = self.decide(int(g), int(host["seat"][g]), host)
                chosen = chosen | {"action": jnp.asarray(actions)}
                self._tick("bots", clock)
            clock = time.perf_counter()
            batch, row = self._advance(batch, chosen, probs, step_key)
            rows.append(row)
            state = batch.state
            after = jax.device_get({"deals": state.deals, "dealer": state.dealer, "hand": state.hand_number,
                                    "place": state.place, "player": state.current_player,
                                    "controllers": batch.controllers, "ended": row["game_end"]})
            self._tick("advance", clock)
            clock = time.perf_counter()
            self.follow(batch, actions, after, rng)
            self._tick("mirrors", clock)
        clock = time.perf_counter()
        record = jax.tree.map(lambda *xs: jnp.stack(xs), *rows)
        bootstrap = self._bootstrap(params, batch)
        self._tick("update", clock)
        self.batch = batch
        return batch, record, bootstrap

    def _tick(self, part: str, clock: float) -> None:
        self.seconds[part] += time.perf_counter() - clock

    # ------------------------------------------------------------ the bots

    def decide(self, g: int, seat: int, host: dict[str, np.ndarray]) -> int:
        """The action of the bot in ``seat`` of game ``g``, from its mirror (a legal one, else
        IllegalActionError as in ``evaluate``)."""
        agent = self.seat_agents[g][seat]
        mask = host["mask"][g]
        observation = None
        if agent.needs_observation:
            observation = {"observation": host["obs"][g], "action_mask": mask.astype(np.int8)}
        action = agent.act(observation, self.views[g][seat])
        if not (isinstance(action, (int, np.integer)) and 0 <= action < mask.size and mask[action]):
            raise IllegalActionError(f"agent {agent.name!r} in seat {seat} chose {action!r}, which is not "
                                     f"legal")
        return int(action)

    def agent(self, g: int, seat: int, index: int) -> Agent:
        """The agent of bot ``index`` for ``seat`` of game slot ``g`` (built once, reset every game)."""
        key = (g, seat, index)
        if key not in self.agents:
            spec = self.learner.bots[index]
            self.agents[key] = make_agent(spec, seed=derive_seed(self.seed, "jax-bot", g, seat, index))
        return self.agents[key]

    # ------------------------------------------------------------ the mirrors

    def mirror_all(self, batch: Batch, rng: np.random.Generator) -> None:
        """Mirror every game of ``batch`` with a bot seat (games just dealt)."""
        state = batch.state
        host = jax.device_get({"deals": state.deals, "dealer": state.dealer, "hand": state.hand_number,
                               "place": state.place, "player": state.current_player,
                               "controllers": batch.controllers})
        if (host["hand"] != 0).any():
            raise ValueError("BotRollout.iterate continues the batch it returned, or games just dealt")
        for g in range(self.learner.num_envs):
            self.mirrors[g] = None
            self.start_game(g, batch, host, rng)

    def follow(self, batch: Batch, actions: np.ndarray, host: dict[str, np.ndarray],
               rng: np.random.Generator) -> None:
        """Bring every mirror to its batched game after a step of ``actions``: hand it the packs
        dealt, apply the action; a game that ended is replaced by its successor's mirror."""
        ended = host["ended"]
        for g in np.nonzero(ended)[0]:
            self.mirrors[g] = None
            self.start_game(int(g), batch, host, rng)
        for g in np.nonzero(~ended)[0]:
            game = self.mirrors[g]
            if game is None:
                continue
            g = int(g)
            game.stack(self.packs(batch, host, g, len(game.decks)))
            game.apply(int(actions[g]))
            self.check(g, host)

    def start_game(self, g: int, batch: Batch, host: dict[str, np.ndarray], rng: np.random.Generator) -> None:
        """A mirror of the game just dealt in slot ``g`` if it has a bot seat, its bots reset."""
        bots = host["controllers"][g] - BOT
        if (bots < 0).all():
            return
        if host["hand"][g] != 0:
            raise MirrorError(f"game slot {g}: a new game is at hand {host['hand'][g]}, not its first")
        game = Game(self.rules, dealer=int(host["dealer"][g]), decks=self.packs(batch, host, g, 0))
        self.mirrors[g] = game
        self.views[g] = [SeatView(game, seat) for seat in range(self.rules.num_players)]
        self.seat_agents[g] = {}
        for seat in np.nonzero(bots >= 0)[0]:
            agent = self.agent(g, int(seat), int(bots[seat]))
            agent.reset(int(rng.integers(2**62)))
            self.seat_agents[g][int(seat)] = agent
        self.check(g, host)

    def packs(self, batch: Batch, host: dict[str, np.ndarray], g: int, first: int) -> list[list[int]]:
        """The packs game ``g`` dealt from its ``first``-th deal up to now: the current one from its
        cards' positions, any earlier one (dealt in the same step) from the batched core's key."""
        base = dealt_from(int(host["deals"][g]))
        deals = int(host["deals"][g]) - base
        out = []
        for number in range(base + first, base + deals - 1):
            index = jnp.full(self.learner.num_envs, number, jnp.int32)
            out.append(pack_of(np.asarray(self._packs(batch.state, index)[g]), self.pack))
        if deals > first:
            out.append(pack_of(host["place"][g], self.pack))
        return out

    def check(self, g: int, host: dict[str, np.ndarray]) -> None:
        """MirrorError unless game ``g``'s mirror has dealt as many packs as the batched game and
        has its seat to move."""
        game = self.mirrors[g]
        deals, player = int(host["deals"][g]), int(host["player"][g])
        deals -= dealt_from(deals)
        if len(game.decks) != deals or game.current_player != player:
            raise MirrorError(f"game slot {g}: the reference game dealt {len(game.decks)} packs and has seat "
                              f"{game.current_player} to move, the batched game {deals} and seat {player}")


__all__ = ["BotRollout", "MirrorError", "pack_of"]
