"""The uniformly random legal player."""

from __future__ import annotations

import numpy as np

from agents.base import Agent
from allfours_env.knowledge import SeatView
from allfours_env.wrappers import random_legal_action


class RandomAgent(Agent):
    """Chooses uniformly among the legal actions, from its own seeded generator (the rule is
    :func:`allfours_env.wrappers.random_legal_action`, the env's random opponents' too)."""

    name = "random"

    def act(self, observation: dict[str, np.ndarray] | None, view: SeatView) -> int:
        return random_legal_action(view.legal_actions(), self.rng)
