"""Learn All Fours policies: MaskablePPO self-play on the single-agent wrapper.

``python -m train`` (or ``allfours-train``) runs ``train/configs/quick.toml``; see
:mod:`train.config` for the settings, :mod:`train.trainer` for what a run does and writes,
:mod:`train.runs` for resuming, :mod:`train.average` for checkpoint averaging and
:mod:`train.convert` for old Stable-Baselines3 files.
"""

from train.config import ConfigError, TrainConfig, load

__all__ = ["ConfigError", "TrainConfig", "load", "run"]


def run(config: TrainConfig, **kwargs):
    """Train ``config`` (see :func:`train.trainer.train`)."""
    from train.trainer import train

    return train(config, **kwargs)
