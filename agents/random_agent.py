"""The uniformly random legal player."""

from __future__ import annotations

import numpy as np

from agents.base import Agent
from allfours_env.knowledge import SeatView


class RandomAgent(Agent):
    """Chooses uniformly among the legal actions, from its own seeded generator."""

    name = "random"

    def act(self, observation: dict[str, np.ndarray] | None, view: SeatView) -> int:
        legal = view.legal_actions()
        return legal[self.rng.randrange(len(legal))]
