"""One player made of several: each kind of decision is delegated to another agent.

``make_agent("split:bid=pimc,play=heuristic")`` bids like ``pimc`` (stand or beg, gift or run,
and the auction bids of later presets), and discards and plays its cards like ``heuristic``. It
answers questions such as "what is each bot's bidding worth?" in a tournament, and makes a
teacher for imitation that takes each kind of decision from the bot that is best at it. The parts
are agent specs — ``ppo:path.npz`` or one option like ``pimc:samples=16`` included; a part with
several options cannot be written in one spec (the commas separate the parts) — and ``discard``
defaults to the ``play`` agent.
"""

from __future__ import annotations

import numpy as np

from agents.base import Agent, AgentError, make_agent
from allfours_env.actions import DISCARD_BASE, PASS, PLAY_BASE
from allfours_env.knowledge import SeatView


def decision_kind(mask: np.ndarray) -> str:
    """``"bid"``, ``"discard"`` or ``"play"``: what the legal actions of ``mask`` decide."""
    legal = np.flatnonzero(mask)
    if legal[-1] < DISCARD_BASE or legal[0] >= PASS:
        return "bid"
    if legal[-1] < PLAY_BASE:
        return "discard"
    return "play"


class SplitAgent(Agent):
    """Bids with ``bid``, discards with ``discard`` (default: ``play``), plays with ``play``."""

    needs_observation = True  # the legal actions tell the kind of decision

    def __init__(self, seed: int | None = None, bid: str = "heuristic", play: str = "heuristic",
                 discard: str | None = None) -> None:
        super().__init__(seed)
        specs = {"bid": bid, "discard": play if discard is None else discard, "play": play}
        for kind, spec in specs.items():
            if not isinstance(spec, str):
                raise AgentError(f"split: {kind}={spec!r} must be an agent spec such as 'pimc'")
        self.parts = {kind: make_agent(spec, seed=self._seed_of(seed, i))
                      for i, (kind, spec) in enumerate(specs.items())}
        self.name = "split:" + ",".join(f"{k}={v}" for k, v in specs.items())

    @staticmethod
    def _seed_of(seed: int | None, index: int) -> int | None:
        return None if seed is None else seed * 3 + index

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        for index, part in enumerate(self.parts.values()):
            part.reset(self._seed_of(seed, index))

    def act(self, observation: dict[str, np.ndarray] | None, view: SeatView) -> int:
        if observation is None:
            raise AgentError("split reads the legal actions from the observation: pass the AEC "
                             "observation dict")
        return self.parts[decision_kind(observation["action_mask"])].act(observation, view)
