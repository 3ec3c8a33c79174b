"""The ``[rllib]`` table of a training config: where and how wide the RLlib backend runs.

Read with the rest of the config by :mod:`train.config` (this module imports nothing from Ray)::

    [rllib]
    address = ""                  # "" starts a local Ray instance; "auto", "HOST:6379", "ray://HOST:10001"
    num_env_runners = 1           # sampling actors, anywhere in the cluster (0: sample in the driver)
    num_envs_per_env_runner = 8   # games stepped side by side in each runner (one batched forward pass)
    num_cpus_per_env_runner = 1
    num_learners = 0              # 0: the learner runs in the driver; N: N learner actors (DDP)
    num_gpus_per_learner = 0      # GPUs per learner (fractions need num_learners >= 1)
    self_play = 0.0               # weight of the learner itself as an opponent, beside opponents.mix

The other sections mean what they mean for Stable-Baselines3 where it makes sense (see
:mod:`train.rllib.trainer` for the mapping of ``[ppo]``, ``n_envs`` and ``[opponents]``).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from typing import Any

from train.checks import count_rule, is_number


@dataclasses.dataclass
class RLlibSettings:
    """Settings of ``python -m train --backend rllib`` (see the module docstring)."""

    address: str = ""
    num_env_runners: int = 1
    num_envs_per_env_runner: int = 8
    num_cpus_per_env_runner: float = 1.0
    num_learners: int = 0
    num_gpus_per_learner: float = 0.0
    self_play: float = 0.0


#: The upper bounds of the counts: far above any cluster, so that a typo is one line, not a request
#: Ray waits on for ever.
MAX_ACTORS = 4096
MAX_ENVS_PER_RUNNER = 4096
MAX_RESOURCES = 256


def _number(low: float, strict: bool, high: float) -> Callable[[Any], bool]:
    """A rule's test for a finite number above ``low`` (or from it, unless ``strict``) up to ``high``."""
    return lambda value: is_number(value) and (value > low if strict else value >= low) and value <= high


#: Each setting's check and what it accepts, in the form of :data:`train.config.RULES`.
RULES: dict[str, tuple[Callable[[Any], bool], str]] = {
    "rllib.address": (lambda v: isinstance(v, str),
                      '"" (start Ray here), "auto", "HOST:PORT" or "ray://HOST:PORT"'),
    "rllib.num_env_runners": count_rule(0, MAX_ACTORS, "env runners (Ray actors)"),
    "rllib.num_envs_per_env_runner": count_rule(1, MAX_ENVS_PER_RUNNER, "games per env runner"),
    "rllib.num_cpus_per_env_runner": (_number(0, strict=True, high=MAX_RESOURCES),
                                      f"a number of CPUs > 0 and at most {MAX_RESOURCES}"),
    "rllib.num_learners": count_rule(0, MAX_ACTORS, "learner actors"),
    "rllib.num_gpus_per_learner": (_number(0, strict=False, high=MAX_RESOURCES),
                                   f"a number of GPUs from 0 to {MAX_RESOURCES}"),
    "rllib.self_play": (_number(0, strict=False, high=math.inf), "a weight >= 0"),
}


def cross_checks(settings: RLlibSettings) -> list[tuple[bool, str]]:
    """``(ok, message)`` for the settings that depend on each other (checked after :data:`RULES`)."""
    return [
        (settings.num_learners >= 1 or settings.num_gpus_per_learner in (0, 1),
         "rllib.num_gpus_per_learner must be 0 or 1 with num_learners = 0 (the learner in the driver); "
         "fractions need num_learners >= 1"),
    ]
