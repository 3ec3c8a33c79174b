"""# All Fours — PettingZoo AEC environment (``all_fours_v0``)

```python
import allfours_env

env = allfours_env.env(preset="seven_up", num_players=2)   # any preset, 2-4 players, knob overrides
env.reset(seed=0)
for agent in env.agent_iter():
    observation, reward, termination, truncation, info = env.last()
    action = None if termination or truncation else env.action_space(agent).sample(observation["action_mask"])
    env.step(action)
```

| | |
| --- | --- |
| agents | ``player_0 … player_{n-1}``, ``n`` = 2, 3 or 4 (the preset's K1) |
| actions | ``Discrete(117)``, identical for every preset and player count |
| observation | ``{"observation": Box(0, 1, (1251,), float32), "action_mask": Box(0, 1, (117,), int8)}`` |
| import | ``allfours_env.env(...)`` (wrapped) or ``allfours_env.raw_env(...)`` |
| registry | ``pettingzoo.make("aec", "allfours/AllFours-v0")`` once ``allfours_env`` is imported |

**Creation.** ``env(preset="seven_up", num_players=2, render_mode=None, episode="game", reward=None,
max_hands=500, render_seat=None, **knob_overrides)``, positionally or by keyword. ``preset`` is one
of ``seven_up``, ``all_fours``, ``trinidad``, ``blind_all_fours`` (beg and run), ``california_jack``,
``shasta_sam`` (the stock), ``auction_pitch``, ``pitch_with_joker`` (the auction) and ``don``; any knob of
docs/rules.md §4 can be overridden by keyword (``target_points=11``). Bad values raise
:class:`~allfours_env.rules.RulesError` naming the allowed ones. ``env()`` wraps ``raw_env`` in
``TerminateIllegalWrapper`` (an illegal move ends the game, the offender gets −1),
``AssertOutOfBoundsWrapper`` (here :class:`CheckedActionWrapper`, its subclass that says what is wrong
with an action instead of asserting) and ``OrderEnforcingWrapper``.

**Episodes.** ``episode="game"`` (default): one episode is one game to the target — or, where it is
still undecided after ``max_hands`` hands, truncated (every agent's ``truncation`` is True, no reward;
random bidders in the auction presets are set back more than they score and may never reach the
target; ``None`` lifts the cap).
``episode="hand"``: one episode is one hand; ``reset()`` then deals the next hand of the same game
(scores carry over) until the game is over, and a new game after that; ``reset(seed=...)`` or
``reset(options=...)`` always starts a new game.

**Every decision is a step.** Eldest's stand/beg, the dealer's gift/run, each single-card discard
(the same agent acts again until it holds its hand size again), each bid of the auction (every seat
once, eldest first, ``pass`` alone included), each card played (the pitcher's first card fixes trump).
Dealing, turning up, drawing from the stock and scoring happen inside ``step``. A decision with one
legal action is still a step.

**Actions** (ids never change between presets, player counts or versions):

| ids | action | phase |
| --- | --- | --- |
| 0, 1 | ``stand``, ``beg`` | beg (eldest) |
| 2, 3 | ``gift``, ``run`` | gift_or_run (dealer) |
| 4–56 | ``discard XX``: card id ``a − 4`` (56 = joker) | discard |
| 57–109 | ``play XX``: card id ``a − 57`` (109 = joker) | play |
| 110 | ``pass`` | bid (auction presets) |
| 111–115 | ``bid 1`` … ``bid 5`` (up to ``bid_max``) | bid |
| 116 | ``hold`` (the dealer takes the highest bid) | bid |

Card id = ``suit * 13 + rank`` with suits C D H S and ranks 2 … A. ``raw_env.action_to_str(i)`` and
``raw_env.str_to_action("play AS")`` convert.

**What ``step`` accepts** (:func:`as_action_id`): exactly an integer id 0–116 — a Python ``int``, a
numpy integer (``np.int32``, ``np.int64``) or a 0-d numpy integer array (what
``model.predict`` returns). Anything else — ``True``, ``0.9``, ``"1"``, ``None`` for an agent still
to move — raises ``TypeError``, an id out of range raises ``ValueError``, naming the value, in
``raw_env`` and ``env()`` alike; nothing is coerced. A legal-but-wrong move is different: ``env()``
ends the game for the offender (−1), ``raw_env`` raises
:class:`~allfours_env.engine.IllegalActionError`. ``step`` before ``reset()`` raises (``RuntimeError``
in ``raw_env``, PettingZoo's ``AssertionError`` in ``env()``); once the episode is over an agent is
stepped with ``None`` (PettingZoo's dead step), anything else raises ``ValueError``, and ``raw_env``
raises ``RuntimeError`` when no agent is left (``env()`` warns, as PettingZoo does).

**Observation.** The acting seat's information state with perfect recall of the current hand,
seat-relative, the same 1251 floats for every preset and player count (the first 749 are those of
the first version's beg-and-run presets, the first 1027 those before the counted entries, unchanged:
a policy trained on a prefix reads that prefix); the index table is in
:mod:`allfours_env.observation`. The mask is exactly the engine's legal set for the agent to move and
all zeros for every other agent.

**Rewards** (zero-sum, except that ``env()`` gives an illegal move −1 and every other agent 0).
``reward="win"`` (default for ``episode="game"``): at the end of the game
each player of the winning side gets +1 and each other player −1/(sides − 1): 2 players +1/−1;
3 players +1/−0.5/−0.5; 4 players in partnerships +1, +1, −1, −1. ``reward="points"`` (default for
``episode="hand"``): whenever a side scores ``p`` points (turn-up, gift, High, Low, Jack, the nine,
the joker, Game, a voided hand's −p, a setback's −contract), its players get ``+p`` and every other
player ``−p/(sides − 1)``. In ``hand`` episodes ``reward="win"`` pays only when the game ends within
that hand.

**Reset.** ``reset(seed=None, options=None)``; ``options`` may hold ``dealer`` (the first dealer's
seat), ``decks`` (a list of packs of 52 card strings — 53 with the joker —, ``deck[0]`` the top card,
consumed one per deal,
redeals included; after them deals come from the seeded RNG) and ``scores`` (starting scores per
side). A seeded reset fixes everything; ``reset()`` without a seed continues the RNG stream.

**State for scripts and tests** (read-only, on ``raw_env`` / ``env.unwrapped``): ``game`` (the engine),
``scores``, ``winner``, ``phase``, ``record`` (the JSON game record).

**Rendering.** ``render_mode="ansi"``: ``render()`` returns the table as text with every hand shown
(a spectator's view); ``"human"`` prints it after every step. ``render_seat`` (a seat number or an
agent name, ``"player_1"``) renders that seat's view instead: its own hand and discards, the others'
card counts only, the stock's top card only where it lies face up (no face-down card of
``shasta_sam``) — what :mod:`allfours_env.visibility` lets that seat see (a front end showing one
player's screen wants this). ``render()`` takes no argument either way (PettingZoo's contract).

**Versions.** ``AllFours-v0`` first held seven_up, all_fours, trinidad and blind_all_fours;
california_jack, shasta_sam, auction_pitch, pitch_with_joker and don came later, with the bid
actions, 278 observation entries after the first 749 and ``max_hands`` — all appended, so that
every earlier action id and observation entry keeps its meaning.
"""

from __future__ import annotations

import warnings
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle, seeding
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from allfours_env import ENV_ID, actions
from allfours_env.engine import MAX_HANDS, Game
from allfours_env.events import EventKind, Phase
from allfours_env.observation import OBS_SIZE, SeatEncoder
from allfours_env.render import render_table
from allfours_env.rules import Rules

EPISODES = ("game", "hand")
REWARDS = ("win", "points")
RESET_OPTIONS = ("dealer", "decks", "scores")


def env(*args: Any, **kwargs: Any) -> AECEnv:
    """The All Fours AEC environment behind PettingZoo's standard wrappers (see the module doc);
    the arguments are those of :class:`raw_env`: ``env("seven_up", 3, target_points=11)``."""
    wrapped: AECEnv = raw_env(*args, **kwargs)
    wrapped = wrappers.TerminateIllegalWrapper(wrapped, illegal_reward=-1)
    wrapped = CheckedActionWrapper(wrapped)
    wrapped = wrappers.OrderEnforcingWrapper(wrapped)
    return wrapped


class CheckedActionWrapper(wrappers.AssertOutOfBoundsWrapper):
    """PettingZoo's ``AssertOutOfBoundsWrapper`` that says what is wrong: an action for an agent still
    to move must pass :func:`as_action_id` (``TypeError`` / ``ValueError`` naming it), checked before
    ``TerminateIllegalWrapper`` indexes the action mask with it (where ``True`` used to select the
    whole mask). ``None`` for an agent whose episode has ended passes, as in PettingZoo."""

    def __init__(self, env: AECEnv) -> None:
        super().__init__(env)
        self._raw = env.unwrapped

    def step(self, action: Any) -> None:
        raw = self._raw
        if raw.game is not None and raw.agents:
            agent = raw.agent_selection
            if not (raw.terminations[agent] or raw.truncations[agent]):
                raw.check_action(action)
        self.env.step(action)


class raw_env(AECEnv, EzPickle):  # noqa: N801 (PettingZoo's naming convention)
    """The unwrapped All Fours AEC environment (see the module docstring)."""

    metadata = {
        "name": "all_fours_v0",
        "render_modes": ["human", "ansi"],
        "is_parallelizable": False,
        "render_fps": 1,
    }

    action_to_str = staticmethod(actions.action_to_str)
    str_to_action = staticmethod(actions.str_to_action)

    def __init__(
        self,
        preset: str = "seven_up",
        num_players: int = 2,
        render_mode: str | None = None,
        episode: str = "game",
        reward: str | None = None,
        max_hands: int | None = MAX_HANDS,
        render_seat: int | str | None = None,
        **knob_overrides: Any,
    ) -> None:
        EzPickle.__init__(self, preset, num_players, render_mode, episode, reward, max_hands, render_seat,
                          **knob_overrides)
        super().__init__()
        self.rules = Rules.make(preset, num_players, **knob_overrides)
        if max_hands is not None and (not isinstance(max_hands, int) or isinstance(max_hands, bool)
                                      or max_hands < 1):
            raise ValueError(f"max_hands must be None or a whole number >= 1, got {max_hands!r}")
        self.max_hands = max_hands
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode={render_mode!r} is not supported: use None, 'human' or 'ansi'")
        if episode not in EPISODES:
            raise ValueError(f"episode={episode!r} is not allowed: use 'game' or 'hand'")
        if reward is None:
            reward = "win" if episode == "game" else "points"
        if reward not in REWARDS:
            raise ValueError(f"reward={reward!r} is not allowed: use 'win' or 'points'")
        self.render_mode = render_mode
        self.render_seat = _render_seat(render_seat, self.rules.num_players)
        self.episode = episode
        self.reward_mode = reward
        n = self.rules.num_players
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self.agents = []
        self._seat = {agent: i for i, agent in enumerate(self.possible_agents)}
        self._observation_space = spaces.Dict(
            {
                "observation": spaces.Box(0.0, 1.0, (OBS_SIZE,), np.float32),
                "action_mask": spaces.Box(0, 1, (actions.NUM_ACTIONS,), np.int8),
            }
        )
        self._action_space = spaces.Discrete(actions.NUM_ACTIONS)
        self._encoders = [SeatEncoder(self.rules, seat) for seat in range(n)]
        self._sides = [self.rules.side_of(seat) for seat in range(n)]
        num_sides = self.rules.num_sides
        self._loser_share = 1.0 / (num_sides - 1)
        self._zero_mask = np.zeros(actions.NUM_ACTIONS, dtype=np.int8)
        # One reusable mask buffer per seat, and the legal-action bit set it holds: a seat's legal
        # set changes by a few actions between its decisions, so observe() rewrites only those.
        self._masks = [np.zeros(actions.NUM_ACTIONS, dtype=np.int8) for _ in range(n)]
        self._mask_views = [memoryview(mask) for mask in self._masks]
        self._mask_bits = [0] * n
        self._rewards_paid = False
        self._truncated = False
        self.np_random, _ = seeding.np_random(None)
        self.game: Game | None = None

    # ------------------------------------------------------------------ spaces

    def observation_space(self, agent: str) -> spaces.Dict:
        return self._observation_space

    def action_space(self, agent: str) -> spaces.Discrete:
        return self._action_space

    # ------------------------------------------------------------------ reset / step

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            self.np_random, _ = seeding.np_random(seed)
        options = dict(options or {})
        unknown = sorted(set(options) - set(RESET_OPTIONS))
        if unknown:  # a warning, not an error: PettingZoo's api_test passes made-up options
            warnings.warn(
                f"reset() ignores unknown option(s) {unknown}: the options are {', '.join(RESET_OPTIONS)}",
                stacklevel=2,
            )
            options = {k: v for k, v in options.items() if k in RESET_OPTIONS}
        game = self.game
        if (
            self.episode == "hand"
            and seed is None
            and not options
            and game is not None
            and game.phase == Phase.HAND_OVER
        ):
            seen = len(game.log)
            game.next_hand()
        else:
            seen = 0
            game = Game(
                self.rules,
                seed=int(self.np_random.integers(2**63)),
                dealer=options.get("dealer"),
                decks=options.get("decks"),
                scores=options.get("scores"),
                stop_after_hand=self.episode == "hand",
            )
            self.game = game
            for encoder in self._encoders:
                encoder.reset(game)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self._truncated = False
        self.infos = {agent: {} for agent in self.agents}
        self._rewards_paid = False
        if self._pay_rewards(seen):  # a turn-up can score before anyone acts (P1)
            self._accumulate_rewards()
        if game.current_player >= 0:
            self.agent_selection = self.possible_agents[game.current_player]
        else:  # the game ended before any decision (a winning turn-up, E3)
            self.agent_selection = self.possible_agents[game.eldest]
            self.terminations = dict.fromkeys(self.agents, True)

    def step(self, action: Any) -> None:
        if self.game is None:
            raise RuntimeError("step() before reset(): call reset() to deal the first game")
        if not self.agents:
            raise RuntimeError("the episode is over and every agent has left it: call reset() to play on")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            if action is not None:
                raise ValueError(
                    f"{agent}'s episode has ended: step(None) takes it out of the game (PettingZoo's "
                    f"dead step), reset() starts a new episode; got action {action!r}"
                )
            self._was_dead_step(action)
            return
        if type(action) is not int or not 0 <= action < actions.NUM_ACTIONS:
            action = self.check_action(action)
        game = self.game
        seen = len(game.log)
        game.apply(action)
        self._cumulative_rewards[agent] = 0.0
        if self._rewards_paid:  # clear last step's rewards
            for name in self.rewards:
                self.rewards[name] = 0.0
            self._rewards_paid = False
        if self._pay_rewards(seen):
            self._accumulate_rewards()
        if game.current_player >= 0:
            self.agent_selection = self.possible_agents[game.current_player]
            if self.episode == "game" and self.max_hands is not None and game.hand_number >= self.max_hands:
                self.truncations = dict.fromkeys(self.agents, True)  # the safety cap (MAX_HANDS)
                self._truncated = True
        else:
            self.terminations = dict.fromkeys(self.agents, True)
            self.agent_selection = self.possible_agents[(self._seat[agent] + 1) % game.n]
        if self.render_mode == "human":
            self.render()

    def check_action(self, action: Any) -> int:
        """The action id of the agent to move, checked by :func:`as_action_id`; ``None`` gets its own
        message (it is the action of an agent whose episode has ended)."""
        if action is None:
            raise TypeError(
                f"step(None) is only for an agent whose episode has ended; {self.agent_selection} is "
                f"to move: give an action id 0..{actions.NUM_ACTIONS - 1} from its action mask"
            )
        return actions.as_action_id(action)

    def _pay_rewards(self, since: int) -> bool:
        """Turn the awards logged since index ``since`` (or the win) into rewards (zero-sum);
        return whether any reward was paid."""
        game = self.game
        if self.reward_mode == "points":
            for kind, side, value in game.log[since:]:
                if kind == EventKind.AWARD:
                    self._pay_side(side, float(value.points))
        elif game.phase == Phase.GAME_OVER and len(game.log) - 1 >= since:  # the game ended just now
            self._pay_side(game.winner, 1.0)
        return self._rewards_paid

    def _pay_side(self, side: int, value: float) -> None:
        self._rewards_paid = True
        rewards = self.rewards
        loss = value * self._loser_share
        for seat, agent in enumerate(self.possible_agents):
            rewards[agent] += value if self._sides[seat] == side else -loss

    # ------------------------------------------------------------------ observations

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self._seat[agent]
        observation = self._encoders[seat].update().copy()
        game = self.game
        if seat != game.current_player or self._truncated:
            return {"observation": observation, "action_mask": self._zero_mask.copy()}
        bits = game.legal_action_bits()
        changed = bits ^ self._mask_bits[seat]
        if changed:
            buffer = self._mask_views[seat]
            while changed:
                low = changed & -changed
                buffer[low.bit_length() - 1] = 1 if bits & low else 0
                changed ^= low
            self._mask_bits[seat] = bits
        return {"observation": observation, "action_mask": self._masks[seat].copy()}

    # ------------------------------------------------------------------ public state

    @property
    def scores(self) -> list[int]:
        """Each side's score (side ``s`` holds ``player_s``, and ``player_{s+2}`` in partnerships): a
        list, as ``game.scores`` and the game record have it, copied so that changing it changes
        nothing in the game."""
        return list(self._require_game().scores)

    @property
    def winner(self) -> int | None:
        """The winning side, or ``None`` while the game goes on."""
        return self._require_game().winner

    @property
    def phase(self) -> str:
        """The engine's phase: beg, gift_or_run, bid, discard, play, hand_over or game_over."""
        return self._require_game().phase_name

    @property
    def record(self) -> dict[str, Any]:
        """The JSON game record of the current game (see :mod:`allfours_env.record`)."""
        return self._require_game().record()

    def _require_game(self) -> Game:
        if self.game is None:
            raise RuntimeError("call reset() before reading the game state")
        return self.game

    # ------------------------------------------------------------------ rendering

    def render(self) -> str | None:
        if self.render_mode is None:
            gymnasium.logger.warn("You are calling render() without a render_mode; use 'ansi' or 'human'.")
            return None
        text = render_table(self._require_game(), seat=self.render_seat)
        if self.render_mode == "ansi":
            return text
        print(text + "\n")
        return None

    def close(self) -> None:
        """Nothing to release (no window, no files)."""


def _render_seat(value: int | str | None, n: int) -> int | None:
    """``render_seat`` as a seat number (``None``: the spectator's view)."""
    if value is None:
        return None
    if isinstance(value, str) and value.startswith("player_") and value[7:].isdigit():
        seat = int(value[7:])
    elif isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
        seat = int(value)
    else:
        seat = -1
    if not 0 <= seat < n:
        raise ValueError(f"render_seat must be None, a seat 0..{n - 1} or an agent name "
                         f"'player_0'..'player_{n - 1}', got {value!r}")
    return seat


__all__ = ["ENV_ID", "CheckedActionWrapper", "env", "raw_env"]
