"""The ``[jax]`` table of a training config: the batch and rollout of ``python -m train --backend jax``.

Read with the rest of the config by :mod:`train.config` (this module imports nothing from JAX)::

    [jax]
    num_envs = 256        # games played side by side in one batch (vmap over the batched core)
    rollout_steps = 32    # decisions of every game per rollout: a rollout is num_envs x rollout_steps
    minibatches = 4       # a minibatch is this fraction of the rollout, in learner decisions
    self_play = 1.0       # weight of the learner itself in an opponent seat, beside opponents.mix
    points_share = 0.0    # with reward = "win": each point also pays this share of reward = "points"
    anneal_lr = false     # the learning rate falls linearly from ppo.learning_rate to 0 at total_timesteps

``[ppo]``'s learning rate, gamma, gae_lambda, clip_range, ent_coef, vf_coef, max_grad_norm, n_epochs,
net_arch and activation mean what they mean for Stable-Baselines3; its ``n_steps`` and
``batch_size`` and the top-level ``n_envs`` and ``torch_threads`` are the SB3 backend's and are not
read (the rollout and minibatches are this table's). With ``anneal_lr`` each rollout's update uses
``ppo.learning_rate`` times the share of ``total_timesteps`` still to go (the learner steps done so
far, a resumed run included), as CleanRL's and PureJaxRL's PPO do by default; without it the rate
stays constant, as Stable-Baselines3's does.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from typing import Any

from train.checks import count_rule, is_number


@dataclasses.dataclass
class JaxSettings:
    """Settings of ``python -m train --backend jax`` (see the module docstring)."""

    num_envs: int = 256
    rollout_steps: int = 32
    minibatches: int = 4
    self_play: float = 1.0
    points_share: float = 0.0
    anneal_lr: bool = False


#: The upper bounds: far above a run that fits in memory (a rollout holds 1,251 floats per slot).
MAX_ENVS = 2**16
MAX_ROLLOUT_STEPS = 4096
MAX_MINIBATCHES = 4096

#: Each setting's check and what it accepts, in the form of :data:`train.config.RULES`.
RULES: dict[str, tuple[Callable[[Any], bool], str]] = {
    "jax.num_envs": count_rule(1, MAX_ENVS, "games per batch"),
    "jax.rollout_steps": count_rule(1, MAX_ROLLOUT_STEPS, "decisions per game and rollout"),
    "jax.minibatches": count_rule(1, MAX_MINIBATCHES, "minibatches"),
    "jax.self_play": (lambda v: is_number(v) and 0 <= v < math.inf, "a weight >= 0"),
    "jax.points_share": (lambda v: is_number(v) and 0 <= v < math.inf, "a share >= 0 (0: off)"),
    "jax.anneal_lr": (lambda v: isinstance(v, bool), "true or false"),
}


def learning_rate_at(learning_rate: float, steps: int, total_timesteps: int, anneal: bool) -> float:
    """The learning rate of the update after ``steps`` learner steps: ``learning_rate``, or with
    ``anneal`` that rate times the share of ``total_timesteps`` still to go (never below 0)."""
    if not anneal:
        return learning_rate
    return learning_rate * max(0.0, 1.0 - steps / total_timesteps)


def cross_checks(settings: JaxSettings, max_rollout: int) -> list[tuple[bool, str]]:
    """``(ok, message)`` for the settings that depend on each other (checked after :data:`RULES`)."""
    rollout = settings.num_envs * settings.rollout_steps
    return [
        (rollout <= max_rollout,
         f"jax.num_envs x jax.rollout_steps is the rollout held in memory: at most {max_rollout:,} "
         f"decisions, got {settings.num_envs:,} x {settings.rollout_steps:,} = {rollout:,}"),
        (rollout % settings.minibatches == 0 and rollout // settings.minibatches >= 2,
         f"jax.minibatches ({settings.minibatches}) must divide the rollout jax.num_envs x "
         f"jax.rollout_steps ({rollout:,}) into minibatches of at least 2 decisions"),
    ]
