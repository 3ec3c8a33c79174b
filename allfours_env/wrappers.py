"""Single-agent and RLlib views of the All Fours AEC environment.

``SingleAgentEnv`` is a Gymnasium env for Stable-Baselines3 / sb3-contrib: the learner plays one
seat (or its whole side) and every other seat is played inside ``step`` by opponent policies. The
learner sees only its own decisions; its reward (the AEC rewards of its seat, see
:mod:`allfours_env.aec`) arrives at its next decision or at the end of the episode, so nothing
bootstraps across players (the loop that plays the other seats, :class:`allfours_env.seating.Seating`,
is the RLlib environment's too). ``action_masks()`` is what ``sb3_contrib.MaskablePPO`` asks for::

    from sb3_contrib import MaskablePPO
    from allfours_env.wrappers import SingleAgentEnv

    env = SingleAgentEnv(preset="seven_up", num_players=2, seed=0)   # opponents: random legal play
    model = MaskablePPO("MlpPolicy", env, seed=0).learn(10_000)

**Opponents.** ``opponents`` may be ``None`` (uniformly random legal moves, seeded by the env), a
policy used for every opponent seat, or a *pool*: any object with ``sample(rng) -> policy``, asked
for a fresh policy for each opponent seat at every reset (self-play with frozen snapshots, mixed
bots). A policy is either an object with ``act(observation, view) -> action`` — ``observation`` the
AEC observation dict of its seat, ``view`` the engine's :class:`~allfours_env.knowledge.SeatView` of
that seat (never another player's cards), as the ``agents`` package's bots implement — or a plain
callable ``policy(observation) -> action``.

**Episode ends.** The game (or, with ``episode="hand"``, the hand) is over: ``terminated=True``. A
game still undecided after ``max_hands`` hands (the AEC environment's cap, 500 by default; random
bidders in the auction presets get there): ``truncated=True``, ``terminated=False``, as Gymnasium
has it, with the reward the learner is still owed (with ``reward="points"`` the points of the hand
just finished; there is no win to pay) and an observation whose mask is all zeros.

**Partnerships.** With four players in partnerships, ``partner="learner"`` (default) lets the
learner decide for both seats of its side; pass a policy to have the partner played by it.

**Actions.** ``step`` takes exactly an integer action id 0–116: a Python ``int``, a numpy integer or
a 0-d numpy integer array (:func:`allfours_env.actions.as_action_id`). Anything else (``True``, ``0.9``,
``"1"``, ``None``) raises ``TypeError`` and an id out of range ``ValueError``, in either mode below:
nothing is coerced. ``step`` before ``reset()``, or after the episode has ended, raises
``RuntimeError`` saying to call ``reset()``.

**Illegal actions.** With ``illegal_action="terminate"`` (default, like PettingZoo's
``TerminateIllegalWrapper``) an id that is not legal in the position ends the episode with reward −1
and ``info["illegal_action"] = True`` (a warning is logged once); ``"raise"`` raises
:class:`~allfours_env.engine.IllegalActionError` instead.

**Privileged critic.** With ``critic_state=True`` the observation is the seat's own
(:data:`~allfours_env.observation.OBS_SIZE` entries) followed by the cards it cannot see
(:func:`allfours_env.hidden.hidden_cards`, :data:`~allfours_env.hidden.HIDDEN_SIZE` entries) — for
training a value network on the full state while the actor reads only the first part
(:class:`agents.critic_policy.PrivilegedCriticPolicy`). A policy that acts on the whole vector
cheats.

``RLlibActionMaskWrapper`` renames the observation keys to RLlib's new-stack action-masking
convention (``"observations"`` and ``"action_mask"``).
"""

from __future__ import annotations

import random
import warnings
from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo.utils.wrappers import BaseWrapper

from allfours_env.actions import as_action_id
from allfours_env.aec import raw_env
from allfours_env.engine import MAX_HANDS, IllegalActionError
from allfours_env.hidden import HIDDEN_SIZE, hidden_cards
from allfours_env.knowledge import SeatView
from allfours_env.observation import OBS_SIZE
from allfours_env.seating import TERMINATED, TRUNCATED, Seating, seat_policies


@runtime_checkable
class Policy(Protocol):
    """A player: chooses a legal action from its seat's observation and knowledge."""

    def act(self, observation: dict[str, np.ndarray], view: SeatView) -> int: ...


def random_legal_action(legal: Sequence[int], rng: random.Random | np.random.Generator) -> int:
    """The one rule of the random players: an action drawn uniformly among ``legal`` (the legal
    action ids, lowest first) by one draw of ``rng`` — ``randrange`` of a ``random.Random`` (the
    ``random`` agent's, :class:`agents.random_agent.RandomAgent`), ``integers`` of a numpy
    ``Generator`` (:class:`RandomPolicy`, the env's opponents). The same generator state gives the
    same action."""
    if isinstance(rng, np.random.Generator):
        return int(legal[rng.integers(len(legal))])
    return int(legal[rng.randrange(len(legal))])


class RandomPolicy:
    """Uniformly random legal actions (:func:`random_legal_action`) from its own seeded numpy
    generator."""

    def __init__(self, rng: np.random.Generator) -> None:
        self.rng = rng

    def act(self, observation: dict[str, np.ndarray], view: SeatView) -> int:
        return random_legal_action(np.flatnonzero(observation["action_mask"]), self.rng)


class SingleAgentEnv(gymnasium.Env):
    """One learner against opponents that move inside ``step`` (see the module docstring).

    ``learner_seat`` fixes the learner's seat; ``None`` (default) draws it at every reset so the
    learner meets every position. ``preset``, ``num_players``, ``episode``, ``reward`` and knob
    overrides and ``max_hands`` (the episode is truncated there) are those of
    :class:`~allfours_env.aec.raw_env`. ``critic_state=True`` appends the
    hidden cards to the observation (training a privileged critic; see the module docstring).
    """

    metadata = {"render_modes": ["ansi"]}

    def __init__(
        self,
        preset: str = "seven_up",
        num_players: int = 2,
        *,
        opponents: Any = None,
        partner: Any = "learner",
        learner_seat: int | None = None,
        seed: int | None = None,
        illegal_action: str = "terminate",
        episode: str = "game",
        reward: str | None = None,
        render_mode: str | None = None,
        critic_state: bool = False,
        max_hands: int | None = MAX_HANDS,
        **knob_overrides: Any,
    ) -> None:
        self.aec = raw_env(preset, num_players, render_mode=None, episode=episode, reward=reward,
                           max_hands=max_hands, **knob_overrides)
        self.render_mode = render_mode
        n = num_players
        if learner_seat is not None and not (isinstance(learner_seat, int) and 0 <= learner_seat < n):
            raise ValueError(f"learner_seat must be None or a seat 0..{n - 1}, got {learner_seat!r}")
        if illegal_action not in ("terminate", "raise"):
            raise ValueError(f"illegal_action={illegal_action!r}: use 'terminate' or 'raise'")
        if partner != "learner" and not (hasattr(partner, "act") or callable(partner)):
            raise TypeError("partner must be 'learner' or a policy (an object with act() or a callable)")
        if opponents is not None and not (
            hasattr(opponents, "act") or hasattr(opponents, "sample") or callable(opponents)
        ):
            raise TypeError("opponents must be None, a policy, or a pool with sample(rng)")
        self.opponents = opponents
        self.partner = partner
        self.learner_seat = learner_seat
        self.illegal_action = illegal_action
        if not isinstance(critic_state, bool):
            raise TypeError(f"critic_state must be True or False, got {critic_state!r}")
        self.critic_state = critic_state
        size = OBS_SIZE + HIDDEN_SIZE if critic_state else OBS_SIZE
        self.observation_space = spaces.Box(0.0, 1.0, (size,), np.float32)
        self.action_space = spaces.Discrete(self.aec.action_space("player_0").n)
        self._seed = seed
        self._warned_illegal = False
        self._seat = 0
        self._agent = self.aec.possible_agents[0]  # the learner seat's agent name
        self._seating = Seating(self.aec)  # the other seats, played inside step()
        self._observation: dict[str, np.ndarray] | None = None
        self._ended = False  # the episode is over: step() needs a reset() first

    # ------------------------------------------------------------------ gymnasium API

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        if seed is None and self._seed is not None:
            seed, self._seed = self._seed, None  # the constructor's seed applies to the first reset
        super().reset(seed=seed)
        aec_seed = int(self.np_random.integers(2**63)) if seed is not None else None
        self._seating.deal(aec_seed, options, self._seat_players)
        self._observation = self.aec.observe(self.aec.possible_agents[self._seating.to_move])
        self._ended = False
        return self._learner_observation(), self._info()

    def step(self, action: Any):
        if self._observation is None:
            raise RuntimeError("step() before reset(): call reset() to start the first episode")
        if self._ended:
            raise RuntimeError("the episode has ended (step returned terminated or truncated): call "
                               "reset() to start the next one")
        action = as_action_id(action)
        if not self._observation["action_mask"][action]:
            return self._illegal(action)
        seating = self._seating
        ending = seating.step(action)
        aec = self.aec
        # the seat to move (the learner's, or its partner's when it plays both), or at the end its own
        self._observation = aec.observe(self._agent if ending else aec.possible_agents[seating.to_move])
        self._ended = ending is not None
        return (self._learner_observation(), seating.take(self._agent), ending == TERMINATED,
                ending == TRUNCATED, self._info())  # TRUNCATED: the hand cap (max_hands)

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions as a bool array (sb3-contrib's MaskablePPO reads this)."""
        return self._observation["action_mask"].astype(bool)

    def render(self) -> str | None:
        if self.render_mode == "ansi":
            from allfours_env.render import render_table

            return render_table(self.aec.game, seat=self._seat)
        return None

    # ------------------------------------------------------------------ internals

    def _seat_players(self) -> dict[int, Any]:
        """Choose the learner's seat; a policy for every other seat it does not control."""
        n = self.aec.rules.num_players
        self._seat = self.learner_seat if self.learner_seat is not None else int(self.np_random.integers(n))
        self._agent = self.aec.possible_agents[self._seat]
        return seat_policies(self.aec.rules, self._seat, self.partner, self._draw_opponent)

    def _draw_opponent(self) -> Any:
        pool = self.opponents
        if pool is None:
            return RandomPolicy(np.random.default_rng(int(self.np_random.integers(2**63))))
        if hasattr(pool, "sample"):
            policy = pool.sample(self.np_random)
            if policy is None:
                raise TypeError("the opponent pool's sample() returned None: SingleAgentEnv needs a "
                                "policy for every opponent seat")
            return policy
        return pool

    def _illegal(self, action: int):
        if self.illegal_action == "raise":
            raise IllegalActionError(
                f"action {action} is not legal for the learner; legal: "
                f"{np.flatnonzero(self._observation['action_mask']).tolist()}"
            )
        if not self._warned_illegal:
            warnings.warn(
                f"illegal learner action {action}: the episode ends with reward -1 "
                "(use action_masks(), or illegal_action='raise' to fail loudly)",
                stacklevel=3,
            )
            self._warned_illegal = True
        info = self._info()
        info["illegal_action"] = True
        self._ended = True
        return self._learner_observation(), -1.0, True, False, info

    def _learner_observation(self) -> np.ndarray:
        """The learner seat's observation vector, with the hidden cards when ``critic_state``."""
        observation = self._observation["observation"]
        if not self.critic_state:
            return observation
        return np.concatenate([observation, hidden_cards(self.aec.game, self._seat)])

    def _info(self) -> dict[str, Any]:
        aec = self.aec
        return {"action_mask": self._observation["action_mask"], "seat": self._seat,
                "scores": aec.scores, "winner": aec.winner}


class RLlibActionMaskWrapper(BaseWrapper):
    """Rename the AEC observation keys to RLlib's new-stack masking convention:
    ``{"observations": ..., "action_mask": ...}`` (wrap ``raw_env`` or ``env``)."""

    def __init__(self, env) -> None:
        super().__init__(env)
        inner = env.observation_space(env.possible_agents[0])
        self._space = spaces.Dict(
            {"observations": inner["observation"], "action_mask": inner["action_mask"]}
        )

    def observation_space(self, agent: str) -> spaces.Dict:
        return self._space

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        observation = super().observe(agent)
        return {"observations": observation["observation"], "action_mask": observation["action_mask"]}
