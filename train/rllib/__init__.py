"""The Ray RLlib training backend: ``python -m train --backend rllib``.

Modules: :mod:`~train.rllib.settings` (the ``[rllib]`` config table; no Ray import),
:mod:`~train.rllib.module` (the masked actor-critic RL module, and its actor in numpy),
:mod:`~train.rllib.league` (opponents inside the env runners), :mod:`~train.rllib.warm_start`
(imitation through the SB3 backend's code), :mod:`~train.rllib.trainer` (the run). Everything but
``settings`` needs Ray (``pip install 'allfours[rllib]'``) and is imported on first use. The run
folder, checkpoints and policy files are the SB3 backend's (:mod:`train.trainer`,
:mod:`agents.policy_file`), plus RLlib's own checkpoint folders.
"""


def train(config, **kwargs):
    """Train ``config`` on RLlib (see :func:`train.rllib.trainer.train`)."""
    from train.rllib.trainer import train as run

    return run(config, **kwargs)
