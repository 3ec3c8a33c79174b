"""The seats a learner does not control, played inside its environment's ``step``.

:class:`~allfours_env.wrappers.SingleAgentEnv` (Stable-Baselines3) and
:class:`~allfours_env.rllib_env.AllFoursMultiAgentEnv` (RLlib) both put an outside learner at some
seats of the AEC environment (:class:`~allfours_env.aec.raw_env`) and play every other seat by a
policy. :class:`Seating` is that loop, shared so that the two cannot drift apart: it deals (dealing
on when a deal ends before any learner seat could act), plays the inside seats until a learner seat
is to move, keeps each learner seat's reward account, and says how the episode ended —
:data:`TERMINATED` (the game, or the hand with ``episode="hand"``, is over) or :data:`TRUNCATED`
(the AEC environment's ``max_hands`` cap) — which each wrapper reports in its own API. Checking an
action, illegal-action handling and observations stay with the wrappers.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from allfours_env.knowledge import SeatView

#: How :meth:`Seating.advance` says the episode is over (``None``: a learner seat is to move).
TERMINATED, TRUNCATED = "terminated", "truncated"
#: Consecutive deals that may end before any learner seat acts before :meth:`Seating.deal` gives up.
MAX_SKIPPED = 100


def call_policy(policy: Any, observation: dict[str, np.ndarray], view: SeatView) -> int:
    """The action of ``policy``: ``policy.act(observation, view)``, or ``policy(observation)`` for a
    plain callable."""
    if hasattr(policy, "act"):
        return policy.act(observation, view)
    return policy(observation)


def seat_policies(rules: Any, learner: int, partner: Any, draw: Callable[[], Any]) -> dict[int, Any]:
    """A policy for every seat the learner does not control. The learner plays ``learner`` and, with
    ``partner="learner"``, its partners; otherwise ``partner`` plays them. Every opponent seat gets
    ``draw()``, asked in seat order — ``None`` leaves that seat to the learner too."""
    side = rules.side_of(learner)
    policies = {}
    for seat in range(rules.num_players):
        if seat == learner:
            continue
        if rules.side_of(seat) == side:
            if partner != "learner":
                policies[seat] = partner
            continue
        policy = draw()
        if policy is not None:
            policies[seat] = policy
    return policies


class Seating:
    """The AEC environment ``aec`` with its seats split between the learner and inside policies.

    ``policies`` maps each inside seat to its policy; every other seat is the learner's, and
    ``owed[agent]`` is the AEC reward paid to such a seat since it was last taken by :meth:`take`.
    """

    def __init__(self, aec: Any) -> None:
        self.aec = aec
        self.policies: dict[int, Any] = {}
        self.owed: dict[str, float] = {}

    def deal(self, seed: int | None, options: dict[str, Any] | None,
             seat_players: Callable[[], dict[int, Any]]) -> None:
        """Reset the AEC environment and play the inside seats up to the first decision of a learner
        seat. ``seat_players()``, called after every AEC reset, returns the inside seats' policies. A
        deal that ends before any learner seat could act (a turn-up that wins the game, E3) is dealt
        on from the same generator; :data:`MAX_SKIPPED` of them in a row raise ``RuntimeError``."""
        aec = self.aec
        for _ in range(MAX_SKIPPED):
            aec.reset(seed=seed, options=options)
            self.policies = seat_players()
            self.owed = {agent: 0.0 for seat, agent in enumerate(aec.possible_agents)
                         if seat not in self.policies}
            self.collect()  # a turn-up may score before anyone moves (P1)
            if self.advance() is None:
                return
            seed, options = None, None
        raise RuntimeError(f"{MAX_SKIPPED} episodes in a row ended before the learner's first "
                           "decision: check target_points and turnup_scores")

    def step(self, action: int) -> str | None:
        """Play the learner seat's legal ``action``, then the inside seats (:meth:`advance`)."""
        self.aec.step(action)
        self.collect()
        return self.advance()

    def advance(self) -> str | None:
        """Let the inside seats move until a learner seat is to move (``None``) or the episode is over
        (:data:`TERMINATED` or :data:`TRUNCATED`)."""
        aec = self.aec
        policies = self.policies
        while True:
            if all(aec.terminations.values()):
                return TERMINATED
            if all(aec.truncations.values()):
                return TRUNCATED
            seat = aec.game.current_player
            policy = policies.get(seat)
            if policy is None:
                return None
            aec.step(call_policy(policy, aec.observe(aec.possible_agents[seat]), SeatView(aec.game, seat)))
            self.collect()

    def collect(self) -> None:
        """Add the rewards of the last AEC step to every learner seat's account."""
        rewards = self.aec.rewards
        owed = self.owed
        for agent in owed:
            owed[agent] += rewards[agent]

    def take(self, agent: str) -> float:
        """The reward owed to ``agent``, its account emptied."""
        reward, self.owed[agent] = self.owed[agent], 0.0
        return reward

    @property
    def to_move(self) -> int:
        """The seat to move (a learner seat once :meth:`advance` has returned ``None``)."""
        return self.aec.game.current_player


__all__ = ["MAX_SKIPPED", "TERMINATED", "TRUNCATED", "Seating", "call_policy", "seat_policies"]
