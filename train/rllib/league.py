"""Who the learner meets while RLlib samples: the opponent pool inside every env runner's envs.

The learner's module (``"learner"``) plays the RLlib agents of
:class:`~allfours_env.rllib_env.AllFoursMultiAgentEnv`; every other seat is played inside the env
by an opponent drawn at each reset from a :class:`LeaguePool`: the configured mix of baseline bots
and frozen snapshots of the learner (numpy copies, :class:`train.selfplay.OpponentPool`), plus —
with ``rllib.self_play`` — the learner's own module (the seat is left to RLlib; both sides train).

Snapshots are sent to every env runner, local or remote, by :func:`add_snapshot`; the league's
state has a version number, and a runner that missed an update (one restarted after a failure)
is sent the whole state again (:func:`sync`). Nothing here is pickled to disk: the trainer saves
the snapshots as numpy arrays beside each checkpoint.
"""

from __future__ import annotations

from typing import Any

from agents.base import make_agent
from agents.policy import NumpyActor
from allfours_env.rllib_env import AllFoursMultiAgentEnv
from allfours_env.seeding import derive_seed
from train.selfplay import OpponentPool

ENV_NAME = "allfours_league"
#: The mix key of the learner itself (a seat left to RLlib).
SELF = "learner"


class LeaguePool:
    """An :class:`OpponentPool` plus the learner itself as a possible opponent (weight
    ``self_play``): :meth:`sample` returns ``None`` for such a seat, which the env leaves to RLlib."""

    def __init__(self, mix: dict[str, float], pool_size: int, self_play: float = 0.0) -> None:
        self.pool = OpponentPool(mix, pool_size)
        self.self_play = float(self_play)
        self.version = 0

    @property
    def snapshots(self) -> list[NumpyActor]:
        return self.pool.snapshots

    def set_mix(self, mix: dict[str, float]) -> None:
        self.pool.set_mix(mix)

    def add_snapshot(self, actor: NumpyActor) -> None:
        self.pool.add_snapshot(actor)

    def sample(self, rng) -> Any:
        """``None`` (the learner's module) with probability ``self_play`` over the total weight on
        offer now, else an opponent of the pool's mix."""
        if self.self_play > 0:
            pool = self.pool
            offered = sum(w for k, w in pool.mix.items() if w > 0 and (k != "snapshot" or pool.snapshots))
            if offered == 0 or rng.random() < self.self_play / (self.self_play + offered):
                return None
        return self.pool.sample(rng)


def make_env(env_config: dict[str, Any]) -> AllFoursMultiAgentEnv:
    """RLlib's env creator (registered as :data:`ENV_NAME`): the adapter with a :class:`LeaguePool`
    built from ``env_config["league"]`` (``mix``, ``pool_size``, ``self_play``, ``partner``, ``seed``)."""
    config = dict(env_config)
    league = config.pop("league", None)
    if league is not None:
        config["opponents"] = LeaguePool(league["mix"], league["pool_size"], league["self_play"])
        if league["partner"] != "learner":
            index = (getattr(env_config, "worker_index", 0), getattr(env_config, "vector_index", 0))
            seed = derive_seed(league["seed"], "partner", *index)
            config["partner"] = make_agent(league["partner"], seed=seed)
    return AllFoursMultiAgentEnv(config)


def register() -> None:
    """Register :func:`make_env` with Ray's env registry under :data:`ENV_NAME`."""
    from ray.tune.registry import register_env

    register_env(ENV_NAME, make_env)


def _pools(runner) -> list[LeaguePool]:
    env = getattr(runner, "env", None)
    if env is None:  # the driver's env runner holds no env when there are remote ones
        return []
    return [sub.unwrapped.opponents for sub in env.envs if isinstance(sub.unwrapped.opponents, LeaguePool)]


def _update(runner, version: int, mix: dict[str, float], snapshots: list[NumpyActor], full: bool) -> bool:
    """Runner side: apply an update; False when the runner's league is not at ``version - 1``."""
    pools = _pools(runner)
    if not full and any(pool.version != version - 1 for pool in pools):
        return False
    for pool in pools:
        if full:
            pool.pool.snapshots.clear()
        for actor in snapshots:
            pool.add_snapshot(actor)
        pool.set_mix(mix)
        pool.version = version
    return True


class League:
    """The driver's copy of the league state, and its updates to the env runners."""

    def __init__(self, mix: dict[str, float], pool_size: int) -> None:
        self.mix = dict(mix)
        self.pool_size = pool_size
        self.snapshots: list[NumpyActor] = []
        self.version = 0

    def update(self, algo, *, mix: dict[str, float] | None = None,
               snapshot: NumpyActor | None = None) -> None:
        """Change the mix and/or add a snapshot, on every env runner."""
        if mix is not None:
            self.mix = dict(mix)
        new = [snapshot] if snapshot is not None else []
        self.snapshots = (self.snapshots + new)[-self.pool_size:]
        self.version += 1
        version, current = self.version, self.mix
        replies = algo.env_runner_group.foreach_env_runner(
            lambda runner: _update(runner, version, current, new, False), local_env_runner=True)
        if not all(replies):
            self.sync(algo)

    def sync(self, algo) -> None:
        """Send the whole state to every env runner (after a restore or a runner restart)."""
        version, mix, snapshots = self.version, self.mix, self.snapshots
        algo.env_runner_group.foreach_env_runner(
            lambda runner: _update(runner, version, mix, snapshots, True), local_env_runner=True)
