"""``batched.make`` and :class:`Env`: the pgx-style entry points of the batched core."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from allfours_env.actions import NUM_ACTIONS
from allfours_env.batched.core import OVER_P, Core, State
from allfours_env.batched.spec import check_options, spec_of
from allfours_env.cards import parse_deck
from allfours_env.engine import MAX_HANDS
from allfours_env.observation import OBS_SIZE
from allfours_env.rules import Rules
from allfours_env.values import is_number

#: The deal count a game dealt by :func:`auto_reset` starts from: past any stacked packs (fresh
#: deals only); its i-th pack is the one of deal number RESET_DEALS + i.
RESET_DEALS = 1 << 20


def make(preset: str = "seven_up", num_players: int = 2, *, episode: str = "game", reward: str | None = None,
         max_hands: int | None = MAX_HANDS, points_share: float = 0.0, **knobs: Any) -> Env:
    """The batched environment of ``preset`` for ``num_players`` with knob overrides, as
    ``allfours_env.env(preset, num_players, episode=..., reward=..., max_hands=..., **knobs)`` plays
    it (``points_share``, a training reward with no AEC counterpart: :class:`Env`). Bad values raise
    :class:`~allfours_env.rules.RulesError` or ``ValueError`` (one line naming the value and the fix)
    before anything is compiled."""
    rules = Rules.make(preset, num_players, **knobs)
    reward = check_options(episode, reward, max_hands)
    return Env(rules, reward=reward, max_hands=max_hands, points_share=points_share)


class Env:
    """One configuration of the rules as pure functions (pgx's convention).

    ``init(key, decks=None, dealer=None)`` deals a new game; ``step(state, action, key=None)``
    makes the decision ``action`` of ``state.current_player`` and runs chance to the next decision;
    ``observe(state, seat)`` is any seat's observation. All three are pure and may be wrapped in
    ``jax.jit`` and ``jax.vmap``. An illegal action ends the game: its player gets -1, the others 0
    (PettingZoo's ``TerminateIllegalWrapper``); a step on a finished game changes nothing and pays
    nothing.

    ``points_share`` (with ``reward="win"``, for training): every award also pays this share of
    what ``reward="points"`` would pay for it — the game's +1 / −1/(sides−1) plus, say, a tenth of
    each point's zero-sum pay. 0 (the default) is the AEC env's ``reward="win"`` exactly."""

    def __init__(self, rules: Rules, *, reward: str = "win", max_hands: int | None = MAX_HANDS,
                 points_share: float = 0.0) -> None:
        if not (is_number(points_share) and points_share >= 0):
            raise ValueError(f"points_share must be a number >= 0, got {points_share!r}")
        if points_share and reward != "win":
            raise ValueError(f"points_share={points_share!r} needs reward='win' (reward={reward!r} pays "
                             f"every point already)")
        self.rules = rules
        self.spec = spec_of(rules, reward=reward, max_hands=max_hands, points_share=points_share)
        self.core = Core(self.spec)
        self.num_players = rules.num_players
        self.num_actions = NUM_ACTIONS
        self.observation_shape = (OBS_SIZE,)

    def init(self, key: jax.Array, decks: Any = None, dealer: Any = None) -> State:
        """A new game, dealt and run to its first decision. ``decks`` (shape ``(deals, 52)``, or 53
        with the joker; card ids, ``deck[0]`` the top card) are the packs of the first deals, one per
        deal, redeals included, as ``reset(options={"decks": ...})``; after them the deals come from
        ``key``. ``dealer`` is the first dealer's seat (default: drawn from ``key``)."""
        core = self.core
        pack = self.spec.pack
        if decks is None:
            stacked = jnp.zeros((0, pack), jnp.int32)
        else:
            stacked = self._check_decks(decks)
        key, dealer_key = jax.random.split(key)
        if dealer is None:
            dealer = jax.random.randint(dealer_key, (), 0, self.num_players, dtype=jnp.int32)
        elif isinstance(dealer, (int, np.integer)):
            if isinstance(dealer, bool) or not 0 <= int(dealer) < self.num_players:
                raise ValueError(f"dealer must be a seat number 0..{self.num_players - 1}, got {dealer!r}")
        return core.finish(core.start_hand(core.blank(key, stacked, dealer)))  # a deal ends in a decision

    def _check_decks(self, decks: Any) -> jax.Array:
        """``decks`` as int32[deals, pack], each checked to be a whole pack (when concrete)."""
        if any(isinstance(leaf, jax.core.Tracer) for leaf in jax.tree.leaves(decks)):
            return jnp.asarray(decks, jnp.int32)  # traced (under jit or vmap): checked by the caller
        pack = self.spec.pack
        rows = [parse_deck([int(c) for c in np.asarray(d).tolist()] if not isinstance(d[0], str) else d,
                           size=pack) for d in decks]
        if not rows:
            return jnp.zeros((0, pack), jnp.int32)
        return jnp.asarray(np.array(rows, dtype=np.int32))

    def step(self, state: State, action: Any, key: jax.Array | None = None, *, finish: bool = True) -> State:
        """``state.current_player`` makes decision ``action``; chance runs to the next decision. A
        ``key`` given replaces the state's key for the deals from here on. (``finish=False`` returns
        the state without its mask and observation (:meth:`Core.without_view`) and leaves them,
        terminated and truncated to the caller: :func:`auto_reset`.)"""
        core = self.core
        s = core.without_view(state)._replace(rewards=jnp.zeros_like(state.rewards))
        if key is not None:
            s = s._replace(key=key)
        action = jnp.asarray(action, jnp.int32)
        known = (action >= 0) & (action < NUM_ACTIONS)
        legal = state.legal_action_mask[jnp.clip(action, 0, NUM_ACTIONS - 1)] & known
        done = state.terminated | state.truncated
        out = core.apply(s, jnp.clip(action, 0, NUM_ACTIONS - 1), legal & ~done)
        seat = jnp.arange(self.num_players) == s.current_player
        illegal = ~legal & ~done
        out = out._replace(terminated=out.terminated | illegal,
                           rewards=jnp.where(illegal & seat, -1.0, out.rewards).astype(jnp.float32))
        if not finish:
            return out
        # A finished game keeps its view; an illegal action ends the game with the last observation.
        view = core.finish(out)
        fresh = legal & ~done
        return view._replace(
            terminated=jnp.where(fresh, view.terminated, out.terminated),
            truncated=jnp.where(fresh, view.truncated, out.truncated),
            legal_action_mask=jnp.where(fresh, view.legal_action_mask, done & state.legal_action_mask),
            observation=jnp.where(fresh, view.observation, state.observation))

    def observe(self, state: State, seat: Any) -> jax.Array:
        """float32[1251]: ``seat``'s observation (:mod:`allfours_env.observation`)."""
        return self.core.observer.observe(state, seat)


def random_action(key: jax.Array, legal_action_mask: jax.Array) -> jax.Array:
    """int32[...]: a uniformly random legal action for each mask (bool[..., 117]), as a random
    player draws it inside ``jit``: one random integer below the count of legal actions per mask,
    then that legal action in id order (a cumulative count) — far cheaper on CPU than
    ``jax.random.categorical`` over 117 masked logits, which draws a random number per action. A mask
    with no legal action (a finished game) gives action 0."""
    mask = jnp.asarray(legal_action_mask, bool)
    count = mask.sum(axis=-1, dtype=jnp.int32)
    pick = jax.random.randint(key, count.shape, 0, jnp.maximum(count, 1), dtype=jnp.int32)
    rank = jnp.cumsum(mask, axis=-1, dtype=jnp.int32)
    return jnp.argmax(mask & (rank == (pick + 1)[..., None]), axis=-1).astype(jnp.int32)


StepResult = tuple[State, jax.Array, jax.Array, jax.Array]


def auto_reset(env: Env) -> Callable[[State, jax.Array, jax.Array], StepResult]:
    """A step for training loops: ``step(state, action, key) -> (state, rewards, terminated,
    truncated)`` where a game that ended (or was truncated) in this step is replaced by a new game
    dealt from ``key`` (a random first dealer); ``rewards``, ``terminated`` and ``truncated`` are the
    step's (the finished game's), the state returned is the next decision's. ``jit``- and
    ``vmap``-able. The new game is dealt inside the step's own chance loop, so that the observation
    and the mask are built once per step."""
    core = env.core

    def step(state: State, action: jax.Array, key: jax.Array) -> StepResult:
        step_key, reset_key, dealer_key = jax.random.split(key, 3)
        after = env.step(state, action, step_key, finish=False)
        terminated = after.terminated | (after.phase == OVER_P)
        truncated = ~terminated & core.truncated(after)
        done = terminated | truncated
        dealer = jax.random.randint(dealer_key, (), 0, env.num_players, dtype=jnp.int32)
        nxt = core.finish(core.chance(core.restart(after, done, reset_key, dealer, RESET_DEALS)))
        return nxt, after.rewards, terminated, truncated

    return step
