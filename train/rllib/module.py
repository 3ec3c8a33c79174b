"""The RL module the RLlib backend trains: a masked actor and a (possibly privileged) critic.

:class:`MaskedActorCriticModule` is a PyTorch ``RLModule`` for PPO on RLlib's new API stack. It
reads the observation dict of :class:`allfours_env.rllib_env.AllFoursMultiAgentEnv`:

* the **actor** is an MLP from ``"observations"`` to one logit per action; the logits of illegal
  actions (``"action_mask"`` 0) are replaced by the smallest float, so every distribution RLlib
  builds from them — sampling, argmax, log-probabilities, entropy, KL — puts no mass on them;
* the **critic** (``ValueFunctionAPI``) is a separate MLP of the same widths from
  ``"observations"``, followed by ``"critic"`` when the env has ``critic_state=True``: the cards
  the seat cannot see (a privileged critic, as :mod:`agents.critic_policy` for SB3). Its weights on
  those inputs start at zero. The actor never reads them.

Env runners build the inference-only version (actor only). ``model_config``: ``hidden`` (layer
widths, default ``[256, 256]``) and ``activation`` (``"relu"`` or ``"tanh"``). It plays the part
of RLlib's example ``ActionMaskingTorchRLModule`` and accepts int8 masks.

:func:`actor_from_state` copies the actor into numpy (:class:`agents.policy.NumpyActor`): the
league's snapshots, the evaluations and the policy files the backend writes all play with it.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.apis import InferenceOnlyAPI, ValueFunctionAPI
from ray.rllib.core.rl_module.torch import TorchRLModule
from ray.rllib.utils.torch_utils import FLOAT_MIN

from agents.policy import NumpyActor
from allfours_env.rllib_env import CRITIC_KEY, MASK_KEY, OBS_KEY

ACTIVATIONS = {"relu": torch.nn.ReLU, "tanh": torch.nn.Tanh}


def mlp(inputs: int, hidden: list[int], outputs: int, activation: str,
        out_gain: float) -> torch.nn.Sequential:
    """Linear layers of ``hidden`` widths with ``activation`` between them, orthogonally initialised
    (gain √2, the last layer ``out_gain``) with zero biases, as Stable-Baselines3 does for PPO."""
    layers: list[torch.nn.Module] = []
    width = inputs
    for size in hidden:
        layers += [torch.nn.Linear(width, size), ACTIVATIONS[activation]()]
        width = size
    layers.append(torch.nn.Linear(width, outputs))
    linears = [m for m in layers if isinstance(m, torch.nn.Linear)]
    for index, layer in enumerate(linears):
        torch.nn.init.orthogonal_(layer.weight, gain=out_gain if index == len(linears) - 1 else 2 ** 0.5)
        torch.nn.init.zeros_(layer.bias)
    return torch.nn.Sequential(*layers)


class MaskedActorCriticModule(TorchRLModule, ValueFunctionAPI, InferenceOnlyAPI):
    """Masked actor + critic for PPO (see the module docstring)."""

    def setup(self) -> None:
        config: dict[str, Any] = dict(self.model_config or {})
        self.hidden = list(config.get("hidden", [256, 256]))
        self.activation = config.get("activation", "relu")
        if self.activation not in ACTIVATIONS:
            raise ValueError(f"activation {self.activation!r}: use one of {sorted(ACTIVATIONS)}")
        spaces = self.observation_space.spaces
        inputs = spaces[OBS_KEY].shape[0]
        self.critic_inputs = spaces[CRITIC_KEY].shape[0] if CRITIC_KEY in spaces else 0
        self.actor = mlp(inputs, self.hidden, self.action_space.n, self.activation, 0.01)
        self.critic = mlp(inputs + self.critic_inputs, self.hidden, 1, self.activation, 1.0)
        if self.critic_inputs:
            with torch.no_grad():
                self.critic[0].weight[:, inputs:] = 0.0

    def get_non_inference_attributes(self) -> list[str]:
        return ["critic"]

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        observation = batch[Columns.OBS]
        logits = self.actor(observation[OBS_KEY])
        masked = logits.masked_fill(observation[MASK_KEY] == 0, FLOAT_MIN)
        return {Columns.ACTION_DIST_INPUTS: masked}

    def _forward_train(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        return self._forward(batch, **kwargs)

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> torch.Tensor:
        observation = batch[Columns.OBS]
        inputs = observation[OBS_KEY]
        if self.critic_inputs:
            inputs = torch.cat([inputs, observation[CRITIC_KEY]], dim=-1)
        return self.critic(inputs).squeeze(-1)


def actor_from_state(state: dict[str, Any], activation: str) -> NumpyActor:
    """The numpy actor (:class:`agents.policy.NumpyActor`) of a module's weights — ``actor.<i>.weight``
    and ``.bias`` entries, numpy arrays or tensors, as RLlib's ``get_weights`` returns them."""
    indices = sorted({int(key.split(".")[1]) for key in state if key.startswith("actor.")})
    layers = []
    for index in indices:
        weight, bias = (_numpy(state[f"actor.{index}.{part}"]) for part in ("weight", "bias"))
        layers.append((weight.T, bias))
    return NumpyActor(layers, activation)


def state_from_actor(actor: NumpyActor) -> dict[str, np.ndarray]:
    """The actor's weights as module state entries (what an inference-only module holds)."""
    state = {}
    for index, (weight, bias) in enumerate(actor.layers):
        state[f"actor.{2 * index}.weight"], state[f"actor.{2 * index}.bias"] = weight.T.copy(), bias.copy()
    return state


def _numpy(value: Any) -> np.ndarray:
    array = value.detach().cpu().numpy() if hasattr(value, "detach") else np.asarray(value)
    return np.asarray(array, np.float32)
