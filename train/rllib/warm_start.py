"""The imitation warm start for the RLlib module, through the one the SB3 backend uses.

:func:`train.imitation.warm_start` (teacher data, cached datasets, behaviour cloning, DAgger
rounds) fits an SB3 policy. :class:`SB3PolicyView` shows a
:class:`~train.rllib.module.MaskedActorCriticModule` through the few members it uses —
``evaluate_actions``, ``get_distribution``, ``observation_space``, ``mlp_extractor.policy_net`` and
``action_net`` — so the RLlib backend warm-starts with the same code and data, and the fitted
weights go to the learner afterwards (:func:`warm_start`).
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import numpy as np
import torch
from gymnasium import spaces
from ray.rllib.utils.torch_utils import FLOAT_MIN

from allfours_env.observation import OBS_SIZE


class SB3PolicyView(torch.nn.Module):
    """An SB3-policy face on the RLlib module (the parameters are the module's own)."""

    def __init__(self, module) -> None:
        super().__init__()
        self.module = module
        width = OBS_SIZE + module.critic_inputs
        self.observation_space = spaces.Box(0.0, 1.0, (width,), np.float32)
        self.mlp_extractor = SimpleNamespace(policy_net=module.actor[:-1])
        self.action_net = module.actor[-1]

    def _distribution(self, obs: torch.Tensor, action_masks: Any) -> torch.distributions.Categorical:
        mask = torch.as_tensor(np.asarray(action_masks))
        logits = self.module.actor(obs[..., :OBS_SIZE]).masked_fill(~mask.bool(), FLOAT_MIN)
        return torch.distributions.Categorical(logits=logits)

    def evaluate_actions(self, obs: torch.Tensor, actions: torch.Tensor, action_masks: Any):
        distribution = self._distribution(obs, action_masks)
        critic_input = obs if self.module.critic_inputs else obs[..., :OBS_SIZE]
        values = self.module.critic(critic_input)
        return values, distribution.log_prob(actions), distribution.entropy()

    def get_distribution(self, obs: torch.Tensor, action_masks: Any) -> SimpleNamespace:
        return SimpleNamespace(distribution=self._distribution(obs, action_masks))


def warm_start(spec, config, cached=None, *, log=print, progress: bool = True) -> dict[str, np.ndarray]:
    """Build the learner's module from ``spec`` (an ``RLModuleSpec`` with its spaces), fit it to
    the configured teacher (``config.imitation``; ``cached``: the checked dataset of
    :func:`train.imitation.check_dataset`), and return its weights (numpy state dict)."""
    from train.imitation import warm_start as fit

    torch.manual_seed(config.seed)
    module = spec.build()
    fit(SimpleNamespace(policy=SB3PolicyView(module)), config, cached, log=log, progress=progress)
    return {key: value.detach().cpu().numpy() for key, value in module.state_dict().items()}
