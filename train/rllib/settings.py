"""The ``[rllib]`` table of a training config: where and how wide the RLlib backend runs.

Read with the rest of the config by :mod:`train.config` (this module imports nothing from Ray)::

    [rllib]
    address = ""                  # "" starts a local Ray instance; "auto", "HOST:6379", "ray://HOST:10001"
    num_env_runners = 1           # sampling actors (a CPU each), anywhere in the cluster
    num_envs_per_env_runner = 8   # games stepped side by side in each runner (one batched forward pass)
    num_cpus_per_env_runner = 1
    num_learners = 0              # 0: the learner runs in the driver; N: N learner actors (DDP)
    num_gpus_per_learner = 0      # GPUs per learner actor (fractions allowed); needs num_learners >= 1
    self_play = 0.0               # weight of the learner itself as an opponent, beside opponents.mix

The other sections mean what they mean for Stable-Baselines3 where it makes sense (see
:mod:`train.rllib.trainer` for the mapping of ``[ppo]``, ``n_envs`` and ``[opponents]``).
"""

from __future__ import annotations

import dataclasses
from typing import Any


@dataclasses.dataclass
class RLlibSettings:
    """Settings of ``python -m train --backend rllib`` (see the module docstring)."""

    address: str = ""
    num_env_runners: int = 1
    num_envs_per_env_runner: int = 8
    num_cpus_per_env_runner: int = 1
    num_learners: int = 0
    num_gpus_per_learner: float = 0.0
    self_play: float = 0.0


def checks(settings: RLlibSettings) -> list[tuple[bool, str]]:
    """``(ok, message)`` for every value of the table (:func:`train.config.validate` raises the first
    failed one)."""
    return [
        (isinstance(settings.address, str),
         'rllib.address must be a string: "" (start Ray locally), "auto", "HOST:PORT" or "ray://HOST:PORT"'),
        (_whole(settings.num_env_runners, 0), "rllib.num_env_runners must be a whole number >= 0"),
        (_whole(settings.num_envs_per_env_runner, 1),
         "rllib.num_envs_per_env_runner must be a whole number >= 1"),
        (_number(settings.num_cpus_per_env_runner) and settings.num_cpus_per_env_runner > 0,
         "rllib.num_cpus_per_env_runner must be a number > 0"),
        (_whole(settings.num_learners, 0), "rllib.num_learners must be a whole number >= 0"),
        (_number(settings.num_gpus_per_learner) and settings.num_gpus_per_learner >= 0,
         "rllib.num_gpus_per_learner must be a number >= 0"),
        (_whole(settings.num_learners, 1) or settings.num_gpus_per_learner in (0, 1),
         "rllib.num_gpus_per_learner must be 0 or 1 with num_learners = 0 (the learner in the driver); "
         "fractions need num_learners >= 1"),
        (_number(settings.self_play) and settings.self_play >= 0, "rllib.self_play must be a weight >= 0"),
    ]


def _whole(value: Any, low: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= low


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)
