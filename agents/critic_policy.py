"""A MaskablePPO policy whose critic sees the hidden cards and whose actor does not.

Trained on :class:`~allfours_env.wrappers.SingleAgentEnv` with ``critic_state=True``, the
observation is the seat's own vector (``actor_inputs`` entries) followed by the hidden cards
(:mod:`allfours_env.hidden`). :class:`PrivilegedCriticPolicy` feeds the whole vector to the value
network — its estimates no longer carry the luck of the unseen cards, so PPO's advantages are far
less noisy — and only the first ``actor_inputs`` entries to the policy network, so the trained
actor is an ordinary policy over the seat's observation: :func:`agents.policy.actor_from_sb3` copies
it like any other, and it plays without ever seeing another hand.

The critic's weights on the hidden inputs start at zero: a critic fitted beforehand (the
imitation warm start, which has no hidden cards) starts PPO unchanged and learns to use them.
"""

from __future__ import annotations

from typing import Any

import torch
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.torch_layers import MlpExtractor


class ActorSlicingExtractor(MlpExtractor):
    """Separate actor and critic MLPs; the actor reads only the first ``actor_inputs`` features."""

    def __init__(self, feature_dim: int, net_arch: list[int], activation_fn: type[torch.nn.Module],
                 actor_inputs: int, device: str = "auto") -> None:
        if not isinstance(net_arch, list):
            raise ValueError("a privileged critic needs separate actor and critic layers: "
                             f"give net_arch as a list of widths, got {net_arch!r}")
        super().__init__(feature_dim, net_arch, activation_fn, device)
        self.actor_inputs = actor_inputs
        self.policy_net = MlpExtractor(actor_inputs, net_arch, activation_fn, device).policy_net

    def forward(self, features: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.forward_actor(features), self.forward_critic(features)

    def forward_actor(self, features: torch.Tensor) -> torch.Tensor:
        return self.policy_net(features[..., :self.actor_inputs])


class PrivilegedCriticPolicy(MaskableActorCriticPolicy):
    """MaskablePPO policy: the actor sees the first ``actor_inputs`` observation entries, the
    critic all of them (see the module docstring)."""

    def __init__(self, *args: Any, actor_inputs: int, **kwargs: Any) -> None:
        self.actor_inputs = actor_inputs
        super().__init__(*args, **kwargs)

    def _build_mlp_extractor(self) -> None:
        self.mlp_extractor = ActorSlicingExtractor(self.features_dim, self.net_arch, self.activation_fn,
                                                   self.actor_inputs, device=self.device)

    def _build(self, lr_schedule) -> None:
        super()._build(lr_schedule)
        first = self.mlp_extractor.value_net[0]
        with torch.no_grad():
            first.weight[:, self.actor_inputs:] = 0.0

    def _get_constructor_parameters(self) -> dict[str, Any]:
        data = super()._get_constructor_parameters()
        data["actor_inputs"] = self.actor_inputs
        return data
