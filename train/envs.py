"""The self-play environments of a run: one :class:`SelfPlayEnv` per worker process.

Each environment is the single-agent wrapper (:class:`allfours_env.wrappers.SingleAgentEnv`) with
its own opponent pool (:class:`train.selfplay.OpponentPool`), seeded from the run's seed and its
rank; the trainer reaches the pools through ``VecEnv.env_method`` (snapshots, the mix in force).

Ctrl-C: the worker processes ignore SIGINT (a terminal sends it to every process of the group), so
only the trainer is interrupted; it then closes the workers in order (:func:`close_vec_env`).
"""

from __future__ import annotations

import signal

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


def _ignoring_sigint(build):
    """``build``, run in a worker process, after making that process ignore Ctrl-C (SIGINT)."""

    def in_worker():
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        return build()

    return in_worker


def make_vec_env(config: TrainConfig):
    """One process per environment when there are several (a core each), else in-process."""
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    factories = [make_env(config, rank) for rank in range(config.n_envs)]
    if config.n_envs == 1:
        return DummyVecEnv(factories)
    return SubprocVecEnv([_ignoring_sigint(build) for build in factories], start_method="fork")


#: What a pipe to a worker process that has gone raises.
GONE = (BrokenPipeError, ConnectionResetError, EOFError)


def close_vec_env(env, interrupted: bool = False) -> None:
    """Close the environments (and their worker processes). After Ctrl-C a step may be half-done
    (some workers' results read, others not: SB3's own ``close`` would then wait forever for a
    result already read) or a worker gone: every worker is told to close as far as it still can be,
    waited for a bounded time and stopped, instead of a hang or a second traceback over the first."""
    if not interrupted or not hasattr(env, "remotes"):
        env.close()
        return
    for remote in env.remotes:
        try:
            remote.send(("close", None))
        except GONE + (OSError,):
            pass
    for process in env.processes:
        process.join(timeout=5)
        if process.is_alive():
            process.terminate()
            process.join(timeout=5)
    for remote in env.remotes:
        remote.close()
    env.closed = True
