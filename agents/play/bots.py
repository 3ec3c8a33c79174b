"""The bots at a table with a person: :class:`BotSeats` asks each bot seat's agent for its move,
with the seat's :class:`~allfours_env.knowledge.SeatView` and — for an agent that reads one — its
AEC observation kept up to date by a :class:`~allfours_env.observation.SeatEncoder`. The terminal
game (:mod:`agents.play.ui`) and the browser (:mod:`serve`) both drive their bots through it.
"""

from __future__ import annotations

import numpy as np

from agents.base import Agent
from allfours_env.actions import NUM_ACTIONS
from allfours_env.engine import Game
from allfours_env.knowledge import SeatView
from allfours_env.observation import SeatEncoder


class BotSeats:
    """``bots[s]`` decides for seat ``s`` of ``game`` (every seat a person does not play)."""

    def __init__(self, game: Game, bots: dict[int, Agent]) -> None:
        self.game = game
        self.bots = bots
        self._views = {s: SeatView(game, s) for s in bots}
        self._encoders: dict[int, SeatEncoder] = {}
        for s, agent in bots.items():
            if agent.needs_observation:
                self._encoders[s] = SeatEncoder(game.rules, s)
                self._encoders[s].reset(game)

    def act(self, seat: int) -> int:
        """The decision of the bot at ``seat``, which is to move (with the AEC observation if its
        agent reads one)."""
        game = self.game
        observation = None
        if seat in self._encoders:
            mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
            mask[list(game.legal_actions())] = 1
            observation = {"observation": self._encoders[seat].update().copy(), "action_mask": mask}
        return self.bots[seat].act(observation, self._views[seat])
