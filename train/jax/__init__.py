"""The JAX training backend: ``python -m train --backend jax``.

PPO self-play on the batched core (:mod:`allfours_env.batched`): rollouts and updates inside
``jax.jit``, no Python per decision. Modules: :mod:`~train.jax.settings` (the ``[jax]`` config
table; no JAX import), :mod:`~train.jax.network` (the actor and critic MLPs, Adam, and their arrays
in the project's checkpoint format), :mod:`~train.jax.ppo` (rollout, per-seat advantages, update),
:mod:`~train.jax.trainer` (the run). Everything but ``settings`` needs JAX (``pip install
'allfours[jax]'``) and is imported on first use. The run folder, checkpoints and policy files are
the SB3 backend's (:mod:`train.trainer`, :mod:`agents.policy_file`).
"""


def train(config, **kwargs):
    """Train ``config`` on the batched core (see :func:`train.jax.trainer.train`)."""
    from train.jax.trainer import train as run

    return run(config, **kwargs)
