"""The learner: a MaskablePPO model built from a config, and its training state as plain arrays.

:func:`new_model` builds the model (with :class:`agents.critic_policy.PrivilegedCriticPolicy` when
``ppo.privileged_critic``). :func:`training_state` and :func:`restore_training_state` turn what a
resumed run needs — the whole policy network (actor and critic, named as in its state dict), Adam's
step counts and moment estimates (``optimizer.<parameter>.<key>``) and the update counter — into
named float arrays and a few numbers, and back: checkpoints never hold a pickled object. Everything
else a run needs (the schedules, the seeds) comes from its config.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from allfours_env.observation import OBS_SIZE
from train.config import ConfigError, TrainConfig

#: The per-parameter state of torch's Adam (without amsgrad), which SB3's policies use.
ADAM_KEYS = ("step", "exp_avg", "exp_avg_sq")
OPTIMIZER_PREFIX = "optimizer."
#: Array name prefixes of a checkpoint that are not network weights (the pool: train.checkpoints).
STATE_PREFIXES = (OPTIMIZER_PREFIX, "pool.")


def new_model(config: TrainConfig, env, out: Path):
    """A fresh MaskablePPO learner for ``config`` on ``env``, logging to ``out/tb``."""
    import torch
    from sb3_contrib import MaskablePPO

    ppo = config.ppo
    activation = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}[ppo.activation]
    policy_kwargs: dict[str, Any] = {"net_arch": list(ppo.net_arch), "activation_fn": activation}
    policy: Any = "MlpPolicy"
    if ppo.privileged_critic:
        from agents.critic_policy import PrivilegedCriticPolicy

        policy = PrivilegedCriticPolicy
        policy_kwargs["actor_inputs"] = OBS_SIZE
    return MaskablePPO(
        policy,
        env,
        learning_rate=ppo.learning_rate,
        n_steps=ppo.n_steps,
        batch_size=ppo.batch_size,
        n_epochs=ppo.n_epochs,
        gamma=ppo.gamma,
        gae_lambda=ppo.gae_lambda,
        clip_range=ppo.clip_range,
        ent_coef=ppo.ent_coef,
        vf_coef=ppo.vf_coef,
        max_grad_norm=ppo.max_grad_norm,
        policy_kwargs=policy_kwargs,
        tensorboard_log=str(out / "tb"),
        seed=config.seed,
        device="cpu",
        verbose=0,
    )


def policy_arrays(model) -> dict[str, np.ndarray]:
    """The whole policy network (actor and critic) as arrays named as in its state dict."""
    return {name: tensor.detach().cpu().numpy().copy() for name, tensor in model.policy.state_dict().items()}


def network_arrays(arrays: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The network weights among a checkpoint's arrays (not the optimiser's, not the pool's)."""
    return {name: array for name, array in arrays.items() if not name.startswith(STATE_PREFIXES)}


def training_state(model) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """Everything resuming needs from ``model``: named float arrays and JSON numbers."""
    arrays = policy_arrays(model)
    for index, state in model.policy.optimizer.state_dict()["state"].items():
        for key in ADAM_KEYS:
            arrays[f"{OPTIMIZER_PREFIX}{index}.{key}"] = state[key].detach().cpu().numpy().copy()
    return arrays, {"n_updates": int(model._n_updates)}


def load_policy_arrays(model, arrays: dict[str, np.ndarray], where: str | Path) -> None:
    """Put the network weights of ``arrays`` into ``model``; raises ConfigError for another network."""
    import torch

    expected = model.policy.state_dict()
    wrong = sorted(set(network_arrays(arrays)) ^ set(expected)) + [name for name in expected if name in arrays
                                             and arrays[name].shape != tuple(expected[name].shape)]
    if wrong:
        raise ConfigError(f"{where} holds another network than this config's (ppo.net_arch, ppo.activation, "
                          f"ppo.privileged_critic): {wrong[0]!r} differs")
    model.policy.load_state_dict({name: torch.as_tensor(arrays[name]) for name in expected})


def restore_training_state(model, arrays: dict[str, np.ndarray], numbers: dict[str, Any],
                           where: str | Path) -> None:
    """Load a :func:`training_state` into a fresh :func:`new_model` of the same config; raises
    ConfigError, naming the problem, for arrays of another network or a damaged optimiser state."""
    import torch

    load_policy_arrays(model, arrays, where)
    optimizer = model.policy.optimizer
    saved = optimizer.state_dict()
    shapes = [tuple(p.shape) for group in optimizer.param_groups for p in group["params"]]
    indices = [index for group in saved["param_groups"] for index in group["params"]]
    state = {}
    for index, shape in zip(indices, shapes):
        entry = {key: arrays.get(f"{OPTIMIZER_PREFIX}{index}.{key}") for key in ADAM_KEYS}
        if all(value is None for value in entry.values()):
            continue
        for key, value in entry.items():
            if value is None or value.shape != (() if key == "step" else shape):
                raise ConfigError(f"{where}: the optimiser state of parameter {index} is missing or has "
                                  f"the wrong shape ({key}): the checkpoint is damaged")
        state[index] = {key: torch.tensor(value) for key, value in entry.items()}
    known = {f"{OPTIMIZER_PREFIX}{i}.{key}" for i in indices for key in ADAM_KEYS}
    stray = sorted(n for n in arrays if n.startswith(OPTIMIZER_PREFIX) and n not in known)
    if stray or (state and len(state) != len(indices)):
        raise ConfigError(f"{where}: the optimiser state does not match the network "
                          f"({stray[0] if stray else 'some parameters lack it'}): the checkpoint is damaged")
    n_updates = numbers.get("n_updates")
    if not (isinstance(n_updates, int) and not isinstance(n_updates, bool) and n_updates >= 0):
        raise ConfigError(f"{where}: training.n_updates must be a whole number >= 0, got {n_updates!r}")
    saved["state"] = state
    optimizer.load_state_dict(saved)
    model._n_updates = n_updates
