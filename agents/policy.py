"""Learned policies as agents: MaskablePPO models (``ppo:path/to/model.zip``) and frozen snapshots.

The actor network of an sb3-contrib ``MaskablePPO`` model is copied into numpy (:class:`NumpyActor`),
so a policy decides in a few microseconds, without torch threads, in any process — tournaments and
self-play opponents use it. Actions are the argmax of the masked logits (``deterministic=True``,
the default) or sampled from the masked softmax with the agent's own seeded generator.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from agents.base import Agent, AgentError
from allfours_env.actions import NUM_ACTIONS
from allfours_env.knowledge import SeatView
from allfours_env.observation import OBS_SIZE, OBS_SIZE_V1

_ACTIVATIONS = {
    "Tanh": np.tanh,
    "ReLU": lambda x: np.maximum(x, 0.0),
    "LeakyReLU": lambda x: np.where(x > 0, x, 0.01 * x),
    "ELU": lambda x: np.where(x > 0, x, np.expm1(x)),
}


class NumpyActor:
    """The actor path of an SB3 MLP policy (observation -> hidden layers -> action logits)."""

    def __init__(self, layers: list[tuple[np.ndarray, np.ndarray]], activation: str) -> None:
        if activation not in _ACTIVATIONS:
            raise AgentError(f"unsupported activation {activation!r}: one of {', '.join(_ACTIVATIONS)}")
        self.layers = [(np.asarray(w, np.float32), np.asarray(b, np.float32)) for w, b in layers]
        self.activation = activation
        self._act = _ACTIVATIONS[activation]
        self.inputs = self.layers[0][0].shape[0]

    def logits(self, observation: np.ndarray) -> np.ndarray:
        """The action logits for an observation: the network reads its first ``inputs`` entries (a
        policy of layout version 1 reads the 749 that version 2 keeps unchanged)."""
        x = np.asarray(observation, np.float32)[..., : self.inputs]
        last = len(self.layers) - 1
        for i, (weight, bias) in enumerate(self.layers):
            x = x @ weight + bias
            if i < last:
                x = self._act(x)
        return x

    def __getstate__(self) -> dict[str, Any]:
        return {"layers": self.layers, "activation": self.activation}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["layers"], state["activation"])


def actor_from_sb3(policy: Any) -> NumpyActor:
    """Copy the actor of an SB3 ``ActorCriticPolicy`` with an MLP extractor into numpy."""
    import torch

    layers = []
    modules = list(policy.mlp_extractor.policy_net) + [policy.action_net]
    activation = None
    for module in modules:
        if isinstance(module, torch.nn.Linear):
            layers.append((module.weight.detach().cpu().numpy().T.copy(),
                           module.bias.detach().cpu().numpy().copy()))
        else:
            activation = type(module).__name__
    return NumpyActor(layers, activation or "Tanh")


def choose(actor: NumpyActor, observation: dict[str, np.ndarray], deterministic: bool, rng) -> int:
    """The masked argmax of the actor's logits, or a sample of the masked softmax drawn with
    ``rng`` (a ``random.Random``)."""
    mask = observation["action_mask"].astype(bool)
    logits = np.where(mask, actor.logits(observation["observation"]), -np.inf)
    if deterministic:
        return int(np.argmax(logits))
    probs = np.exp(logits - logits.max())
    cumulative = np.cumsum(probs)
    index = int(np.searchsorted(cumulative, rng.random() * cumulative[-1], side="right"))
    legal = np.flatnonzero(mask)
    return index if index < NUM_ACTIONS and mask[index] else int(legal[-1])


class SnapshotAgent(Agent):
    """A frozen copy of a policy (self-play opponents, pools)."""

    needs_observation = True

    def __init__(self, actor: NumpyActor, seed: int | None = None, deterministic: bool = False,
                 name: str = "snapshot") -> None:
        super().__init__(seed)
        self.actor = actor
        self.deterministic = deterministic
        self.name = name

    def act(self, observation: dict[str, np.ndarray] | None, view: SeatView) -> int:
        if observation is None:
            raise AgentError(f"{self.name} reads the observation: pass the AEC observation dict")
        return choose(self.actor, observation, self.deterministic, self.rng)


def load_model(path: str | Path):
    """Load a MaskablePPO zip, turning every failure into an :class:`AgentError` that says why."""
    path = Path(path)
    if not path.is_file():
        raise AgentError(f"no policy file at {path}: train one with `python -m train` or check the path")
    if not zipfile.is_zipfile(path):
        raise AgentError(f"{path} is not a MaskablePPO model (.zip) file: it may be corrupt")
    try:
        from sb3_contrib import MaskablePPO
    except ImportError:
        raise AgentError(
            "loading a trained policy needs sb3-contrib: pip install 'allfours[train]'"
        ) from None
    try:
        model = MaskablePPO.load(path, device="cpu")
    except Exception as err:  # noqa: BLE001 - any failure to read the file is reported the same way
        raise AgentError(f"{path} could not be loaded as a MaskablePPO model ({type(err).__name__}: "
                         f"{err}); it may be corrupt or from an incompatible version") from None
    shape = getattr(model.observation_space, "shape", None)
    # a privileged critic (agents.critic_policy) sees more than the actor; the actor must fit OBS_SIZE
    actor_inputs = getattr(model.policy, "actor_inputs", shape[0] if shape else None)
    if actor_inputs not in (OBS_SIZE_V1, OBS_SIZE) or getattr(model.action_space, "n", None) != NUM_ACTIONS:
        raise AgentError(
            f"{path} was trained for observations {shape} and {getattr(model.action_space, 'n', '?')} "
            f"actions; this version of allfours uses ({OBS_SIZE},) and {NUM_ACTIONS}"
        )
    return model


def read_metadata(path: str | Path) -> dict[str, Any]:
    """The ``<model>.json`` written beside a trained model (config, seed, results), if any."""
    meta = Path(path).with_suffix(".json")
    if not meta.is_file():
        return {}
    try:
        return json.loads(meta.read_text())
    except json.JSONDecodeError as err:
        raise AgentError(f"{meta} is not valid JSON: {err}") from None


class PPOAgent(Agent):
    """A trained MaskablePPO policy: ``make_agent("ppo:path/to/model.zip")``."""

    needs_observation = True

    def __init__(self, path: str, seed: int | None = None, deterministic: bool = True) -> None:
        super().__init__(seed)
        model = load_model(path)
        self.actor = actor_from_sb3(model.policy)
        self.path = str(path)
        self.metadata = read_metadata(path)
        self.deterministic = deterministic
        self.name = f"ppo:{path}"

    def act(self, observation: dict[str, np.ndarray] | None, view: SeatView) -> int:
        if observation is None:
            raise AgentError("a PPO policy reads the observation: pass the AEC observation dict")
        return choose(self.actor, observation, self.deterministic, self.rng)
