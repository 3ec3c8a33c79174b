"""All Fours as a Ray RLlib ``MultiAgentEnv`` (new API stack), turn-based.

Needs Ray RLlib (``pip install 'allfours[rllib]'``); nothing else in ``allfours_env`` imports this
module, so the core stays numpy + Gymnasium + PettingZoo::

    from allfours_env.rllib_env import AllFoursMultiAgentEnv

    env = AllFoursMultiAgentEnv({"preset": "seven_up", "num_players": 2})
    observations, infos = env.reset(seed=0)          # {"player_1": {...}}: only the agent to move
    agent, = observations
    mask = observations[agent]["action_mask"]
    observations, rewards, terminateds, truncateds, infos = env.step({agent: int(mask.argmax())})

**Config** (a dict; RLlib passes ``env_config``): ``preset``, ``num_players``, ``episode``,
``reward``, ``max_hands`` and ``knobs`` (a dict of rule overrides) as for
:class:`allfours_env.aec.raw_env`; ``opponents``, ``partner`` and ``learner_seat`` (below);
``critic_state`` (bool); ``illegal_action``. An unknown key or a bad value raises ``ValueError``
naming it.

**Agents and turns.** Agents are ``player_0 … player_{n-1}``. Every ``reset`` and ``step`` returns
an observation only for the agent to move next (the same agent again during a multi-card discard),
and ``step`` takes that agent's action alone. Observations are
``{"observations": float32 (OBS_SIZE,), "action_mask": int8 (117,)}`` — the keys RLlib's
action-masking RL modules read — and, with ``critic_state=True``, ``"critic"``: the cards the seat
cannot see (:func:`allfours_env.hidden.hidden_cards`) for a privileged critic; an acting policy must
never read it.

**Rewards** are those of the AEC environment (see :mod:`allfours_env.aec`), summed per agent while
it waits: an agent receives everything paid to it since its previous decision together with its
next observation; what is paid before an agent's first decision arrives after that decision (as
:class:`~allfours_env.wrappers.SingleAgentEnv` does). An episode that ends before anyone could act (a
turn-up that wins the game) is skipped: ``reset`` deals on.

**Episode ends.** When the game (or, with ``episode="hand"``, the hand) is over, every agent that
acted in the episode gets a final observation (all-zero mask), its remaining reward and
``terminated=True``; ``terminateds["__all__"]`` is True, ``truncateds["__all__"]`` False. A game
still undecided after ``max_hands`` hands (the AEC environment's cap, 500 by default, ``None`` for
none; random bidders in the auction presets get there) is *truncated*, as the AEC environment has
it: every agent that acted gets a final observation (all-zero mask; a truncation's observation is
what RLlib bootstraps the value from), what it is still owed (with ``reward="points"`` the points of
the hand just finished; there is no win to pay), and ``truncateds == {"__all__": True}``,
``terminateds == {"__all__": False}`` — no per-agent flags, which would make Ray 2.60's
``MultiAgentEpisode`` call the episode terminated and drop the value bootstrap; every agent's own
episode is then truncated. The loop that plays the seats inside the env and tells the two ends
apart is :class:`allfours_env.seating.Seating`, shared with
:class:`~allfours_env.wrappers.SingleAgentEnv`.

**Opponents inside the environment.** ``opponents=None`` (default): every seat is an RLlib agent
(the policy mapping function decides which module plays each). Otherwise only the *learner's* seat
— drawn at every reset from the env's seeded generator, or fixed by ``learner_seat`` — and, with
``partner="learner"`` (default), its partner are RLlib agents; every other seat is played inside
``step`` by a policy: ``opponents`` is a policy for every such seat, or a pool with
``sample(rng)`` asked for each seat at every reset (as for
:class:`~allfours_env.wrappers.SingleAgentEnv`: objects with ``act(observation, view)`` or plain
callables, given the AEC observation dict and the seat's
:class:`~allfours_env.knowledge.SeatView`). A pool that returns ``None`` for a seat leaves it to
RLlib too (self-play against the learner's own module). ``partner`` may also be a policy.

**Actions** are checked by :func:`allfours_env.actions.as_action_id` (an integer id 0–116; anything
else raises ``TypeError``/``ValueError``). ``step`` before ``reset()`` or after the episode's end
raises ``RuntimeError``.

**Illegal actions.** With ``illegal_action="terminate"`` (default, like PettingZoo's
``TerminateIllegalWrapper``; RLlib's own env checker steps with unmasked random actions) an id
that is not legal in the position ends the episode: the offender gets −1 on top of what it was owed and
``infos[agent]["illegal_action"] = True``, the others what they were owed. ``"raise"`` raises
:class:`~allfours_env.engine.IllegalActionError` naming the action and the legal ones — the trainer
uses it, since with a masking module none can happen and a bug must not train silently.

**Seeding.** ``reset(seed=s)`` fixes the deals, the learner's seat and the opponents drawn (their
own generators are seeded from the env's); ``reset()`` continues the stream. RLlib seeds every
env of every env runner from ``config.debugging(seed=...)``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from ray.rllib.env.multi_agent_env import MultiAgentEnv

from allfours_env.actions import as_action_id
from allfours_env.aec import raw_env
from allfours_env.engine import MAX_HANDS, IllegalActionError
from allfours_env.hidden import HIDDEN_SIZE, hidden_cards
from allfours_env.seating import TERMINATED, Seating, seat_policies

CONFIG_KEYS = ("preset", "num_players", "episode", "reward", "max_hands", "knobs", "opponents",
               "partner", "learner_seat", "critic_state", "illegal_action")
#: Observation keys: the seat's information state and its legal actions (RLlib's masking convention).
OBS_KEY, MASK_KEY, CRITIC_KEY = "observations", "action_mask", "critic"


class AllFoursMultiAgentEnv(MultiAgentEnv):
    """The turn-based RLlib view of the All Fours AEC environment (see the module docstring)."""

    def __init__(self, config: dict[str, Any] | None = None) -> None:
        super().__init__()
        config = dict(config or {})
        unknown = sorted(set(config) - set(CONFIG_KEYS))
        if unknown:
            raise ValueError(f"unknown env_config key(s) {unknown}: the keys are {list(CONFIG_KEYS)}")
        knobs = config.get("knobs") or {}
        if not isinstance(knobs, dict):
            raise ValueError(f"env_config 'knobs' must be a dict of rule overrides, got {knobs!r}")
        self.aec = raw_env(config.get("preset", "seven_up"), config.get("num_players", 2),
                           episode=config.get("episode", "game"), reward=config.get("reward"),
                           max_hands=config.get("max_hands", MAX_HANDS), **knobs)
        n = self.aec.rules.num_players
        self.opponents = config.get("opponents")
        self.partner = config.get("partner", "learner")
        self.learner_seat = config.get("learner_seat")
        self.critic_state = config.get("critic_state", False)
        self.illegal_action = config.get("illegal_action", "terminate")
        if self.learner_seat is not None and not (
                isinstance(self.learner_seat, int) and 0 <= self.learner_seat < n):
            raise ValueError(f"learner_seat must be None or a seat 0..{n - 1}, got {self.learner_seat!r}")
        opponents = self.opponents
        if opponents is not None and not (
                hasattr(opponents, "act") or hasattr(opponents, "sample") or callable(opponents)):
            raise ValueError("opponents must be None (every seat an RLlib agent), a policy, or a pool "
                             "with sample(rng)")
        if self.partner != "learner" and not (hasattr(self.partner, "act") or callable(self.partner)):
            raise ValueError("partner must be 'learner' or a policy (an object with act() or a callable)")
        if not isinstance(self.critic_state, bool):
            raise ValueError(f"critic_state must be True or False, got {self.critic_state!r}")
        if self.illegal_action not in ("terminate", "raise"):
            raise ValueError(f"illegal_action={self.illegal_action!r}: use 'terminate' or 'raise'")

        self.possible_agents = list(self.aec.possible_agents)
        self.agents = []
        inner = self.aec.observation_space(self.possible_agents[0])
        entries = {OBS_KEY: inner["observation"], MASK_KEY: inner["action_mask"]}
        if self.critic_state:
            entries[CRITIC_KEY] = spaces.Box(0.0, 1.0, (HIDDEN_SIZE,), np.float32)
        space = spaces.Dict(entries)
        action_space = self.aec.action_space(self.possible_agents[0])
        self.observation_spaces = dict.fromkeys(self.possible_agents, space)
        self.action_spaces = dict.fromkeys(self.possible_agents, action_space)
        self._seating = Seating(self.aec)  # the seats played inside the env; rewards owed to agents
        self._acted: set[str] = set()       # RLlib agents that acted this episode
        self._to_move: str | None = None

    # ------------------------------------------------------------------ RLlib API

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        super().reset(seed=seed, options=options)  # seeds self.np_random when a seed is given
        aec_seed = int(self.np_random.integers(2**63)) if seed is not None else None
        seating = self._seating
        seating.deal(aec_seed, options, self._seat_players)
        self._acted = set()
        agent = self._to_move = self.possible_agents[seating.to_move]
        return {agent: self._observe(agent)}, {}

    def step(self, action_dict: dict[str, Any]):
        agent = self._to_move
        if agent is None:
            raise RuntimeError("call reset() before step(), and again once an episode has ended")
        if set(action_dict) != {agent}:
            raise ValueError(f"{agent} is to move: step() takes {{{agent!r}: action}}, got the agents "
                             f"{sorted(action_dict)}")
        action = as_action_id(action_dict[agent])
        seat = self.aec.game.current_player
        legal = self.aec.game.legal_action_bits()
        if not legal >> action & 1:
            if self.illegal_action == "raise":
                raise IllegalActionError(
                    f"{agent} (seat {seat}) chose {action!r}, which is not legal; legal: "
                    f"{[a for a in range(legal.bit_length()) if legal >> a & 1]} (use a masking RL module)")
            self._acted.add(agent)
            self._seating.owed[agent] -= 1.0
            return self._end(TERMINATED, {agent: {"illegal_action": True}})
        self._acted.add(agent)
        seating = self._seating
        ending = seating.step(action)
        if ending is not None:
            return self._end(ending, {})
        nxt = self._to_move = self.possible_agents[seating.to_move]
        rewards = {nxt: seating.take(nxt)} if nxt in self._acted else {}
        return {nxt: self._observe(nxt)}, rewards, {"__all__": False}, {"__all__": False}, {}

    def _end(self, ending: str, infos: dict[str, Any]):
        """The last step of an episode (``ending``: terminated or truncated): a final observation and
        reward for every agent that acted. A truncation sets ``"__all__"`` alone: Ray 2.60's
        ``MultiAgentEpisode`` declares an episode in which every agent is marked done *terminated*,
        truncated flags included, and would then not bootstrap the values."""
        self._to_move = None
        done = sorted(self._acted, key=self.possible_agents.index)
        observations = {a: self._observe(a) for a in done}
        rewards = {a: self._seating.take(a) for a in done}
        if ending == TERMINATED:
            return (observations, rewards, dict.fromkeys(done, True) | {"__all__": True},
                    {"__all__": False}, infos)
        return observations, rewards, {"__all__": False}, {"__all__": True}, infos

    def render(self) -> str:
        """The table as text, every hand shown (a spectator's view)."""
        from allfours_env.render import render_table

        return render_table(self.aec._require_game())

    # ------------------------------------------------------------------ internals

    def _seat_players(self) -> dict[int, Any]:
        """Choose which seats RLlib plays this episode (``self.agents``); a policy for every other
        seat. A pool that returns ``None`` leaves that seat to RLlib (self-play)."""
        if self.opponents is None:
            policies = {}
        else:
            rng = self.np_random
            n = self.aec.rules.num_players
            learner = self.learner_seat if self.learner_seat is not None else int(rng.integers(n))
            opponents = self.opponents
            draw = (lambda: opponents.sample(rng)) if hasattr(opponents, "sample") else (lambda: opponents)
            policies = seat_policies(self.aec.rules, learner, self.partner, draw)
        self.agents = [a for s, a in enumerate(self.possible_agents) if s not in policies]
        return policies

    def _observe(self, agent: str) -> dict[str, np.ndarray]:
        observation = self.aec.observe(agent)
        out = {OBS_KEY: observation["observation"], MASK_KEY: observation["action_mask"]}
        if self.critic_state:
            out[CRITIC_KEY] = hidden_cards(self.aec.game, self.possible_agents.index(agent))
        return out


__all__ = ["AllFoursMultiAgentEnv", "CRITIC_KEY", "MASK_KEY", "OBS_KEY"]
