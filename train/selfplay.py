"""Self-play opponents: a pool of baseline bots and frozen snapshots of the learner.

The pool lives inside every environment worker (it pickles); the trainer adds a snapshot of the
learner every few rollouts through ``VecEnv.env_method("add_snapshot", actor)``. At every episode
the single-agent env asks the pool for one policy per opponent seat (:meth:`OpponentPool.sample`),
drawn by the configured weights from the registered bots and the stored snapshots.
"""

from __future__ import annotations

import numpy as np

from agents.base import Agent, make_agent
from agents.policy import NumpyActor, SnapshotAgent


class OpponentPool:
    """Weighted mix of agent specs and learner snapshots (``"snapshot"`` in ``mix``)."""

    def __init__(self, mix: dict[str, float], pool_size: int = 8) -> None:
        self.mix = dict(mix)
        self.pool_size = pool_size
        self.snapshots: list[NumpyActor] = []
        self.added = 0

    def set_mix(self, mix: dict[str, float]) -> None:
        """Change the weights of the opponent kinds (a curriculum step); snapshots are kept."""
        self.mix = dict(mix)

    def add_snapshot(self, actor: NumpyActor) -> None:
        """Keep a frozen copy of the learner (the oldest is dropped beyond ``pool_size``)."""
        self.snapshots.append(actor)
        self.added += 1
        del self.snapshots[: -self.pool_size]

    def kinds(self) -> tuple[list[str], np.ndarray]:
        """The opponent kinds on offer now and their probabilities."""
        kinds = [k for k, w in self.mix.items() if w > 0 and (k != "snapshot" or self.snapshots)]
        if not kinds:  # only snapshots were asked for and none exists yet: play random meanwhile
            return ["random"], np.ones(1)
        weights = np.array([self.mix[k] for k in kinds], dtype=float)
        return kinds, weights / weights.sum()

    def sample(self, rng: np.random.Generator) -> Agent:
        """A freshly seeded opponent for one seat of one episode."""
        kinds, probs = self.kinds()
        kind = kinds[int(rng.choice(len(kinds), p=probs))]
        seed = int(rng.integers(2**63))
        if kind == "snapshot":
            actor = self.snapshots[int(rng.integers(len(self.snapshots)))]
            return SnapshotAgent(actor, seed=seed, deterministic=False)
        agent = make_agent(kind, seed=seed)
        agent.reset(seed)
        return agent
