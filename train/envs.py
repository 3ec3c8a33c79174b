"""The self-play environments of a run: one :class:`SelfPlayEnv` per worker process.

Each environment is the single-agent wrapper (:class:`allfours_env.wrappers.SingleAgentEnv`) with
its own opponent pool (:class:`train.selfplay.OpponentPool`), seeded from the run's seed and its
rank; the trainer reaches the pools through ``VecEnv.env_method`` (snapshots, the mix in force).
"""

from __future__ import annotations

from agents.base import make_agent
from allfours_env.seeding import derive_seed
from allfours_env.wrappers import SingleAgentEnv
from train.config import TrainConfig
from train.selfplay import OpponentPool


class SelfPlayEnv(SingleAgentEnv):
    """The single-agent env with an opponent pool the trainer can add snapshots to."""

    def add_snapshot(self, actor) -> None:
        self.opponents.add_snapshot(actor)

    def set_mix(self, mix) -> None:
        self.opponents.set_mix(mix)

    def pool_size(self) -> int:
        return len(self.opponents.snapshots)


def make_env(config: TrainConfig, rank: int):
    """A factory for environment ``rank`` (seeded from the run's seed and the rank)."""

    def build():
        from stable_baselines3.common.monitor import Monitor

        partner = config.opponents.partner
        if partner != "learner":
            partner = make_agent(partner, seed=derive_seed(config.seed, "partner", rank))
        env = SelfPlayEnv(
            config.preset,
            config.num_players,
            opponents=OpponentPool(config.opponents.mix, config.opponents.pool_size),
            partner=partner,
            seed=derive_seed(config.seed, "env", rank),
            episode=config.episode,
            reward=config.reward,
            critic_state=config.ppo.privileged_critic,
            **config.knobs,
        )
        return Monitor(env)

    return build


def make_vec_env(config: TrainConfig):
    """One process per environment when there are several (a core each), else in-process."""
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    factories = [make_env(config, rank) for rank in range(config.n_envs)]
    if config.n_envs == 1:
        return DummyVecEnv(factories)
    return SubprocVecEnv(factories, start_method="fork")
