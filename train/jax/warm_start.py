"""The imitation warm start of the JAX backend, through the one the SB3 backend uses.

:func:`train.imitation.warm_start` (teacher data, cached datasets, behaviour cloning of the actor
and fitting of the critic to the hands' returns, DAgger rounds) fits a MaskablePPO policy of the
config's network. Its state dict names the actor's and critic's layers exactly as the JAX
learner's arrays do (:func:`train.jax.network.named`), so the fitted weights become the JAX
learner's (:func:`warm_start`); Adam starts afresh for PPO. It runs before JAX computes anything
(the data are recorded in worker processes, which are forked).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from train.config import TrainConfig


def warm_start(config: TrainConfig, cached, out: Path, *, log=print, progress: bool = True
               ) -> dict[str, np.ndarray]:
    """The network after imitating ``config.imitation.teacher`` (``cached``: the checked dataset of
    :func:`train.imitation.check_dataset`), as arrays that :func:`train.jax.network.params_from`
    reads; no JAX computation happens here."""
    import torch
    from stable_baselines3.common.vec_env import DummyVecEnv

    from train.envs import make_env
    from train.imitation import warm_start as fit
    from train.model import new_model, policy_arrays

    torch.manual_seed(config.seed)
    env = DummyVecEnv([make_env(config, 0)])  # its spaces only: the model never steps it
    try:
        model = new_model(config, env, out)
        fit(model, config, cached, log=log, progress=progress)
        return policy_arrays(model)
    finally:
        env.close()
