"""Learn All Fours policies: MaskablePPO self-play on the single-agent wrapper.

``python -m train`` (or ``allfours-train``) runs ``train/configs/quick.toml``; see
:mod:`train.config` for the settings and :mod:`train.trainer` for what a run writes.
"""

from train.config import ConfigError, TrainConfig, load

__all__ = ["ConfigError", "TrainConfig", "load", "run"]


def run(config: TrainConfig, **kwargs):
    """Train ``config`` (see :func:`train.trainer.train`)."""
    from train.trainer import train

    return train(config, **kwargs)
