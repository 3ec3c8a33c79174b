"""The learner's actor out of RLlib: numpy weights, a policy file that needs neither Ray nor pickle.

:func:`actor_from_state` turns the weights of :class:`train.rllib.module.MaskedActorCriticModule`
(its ``actor`` MLP, as RLlib's ``get_weights`` returns them) into an
:class:`agents.policy.NumpyActor` — what self-play snapshots, the training's evaluations and every
agent built from a policy file play with. :func:`save_policy` writes it to disk.

File format (interim, until the project's own pickle-free policy format lands in
:mod:`agents.policy`): ``<name>.npz`` holding ``w0, b0, w1, b1, …`` (input-major weight matrices
and biases of each linear layer, float32) and ``activation`` (a string), read with
``numpy.load(..., allow_pickle=False)``; metadata in ``<name>.json`` beside it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from agents.policy import NumpyActor

_ACTIVATION_NAMES = {"relu": "ReLU", "tanh": "Tanh"}


def actor_from_state(state: dict[str, Any], activation: str) -> NumpyActor:
    """The numpy actor of a module state dict (``actor.<i>.weight``/``actor.<i>.bias`` entries,
    numpy arrays or torch tensors); ``activation`` is the module's (``relu`` or ``tanh``)."""
    indices = sorted({int(key.split(".")[1]) for key in state if key.startswith("actor.")})
    layers = []
    for index in indices:
        weight = np.asarray(_numpy(state[f"actor.{index}.weight"]), np.float32)
        bias = np.asarray(_numpy(state[f"actor.{index}.bias"]), np.float32)
        layers.append((weight.T.copy(), bias.copy()))
    return NumpyActor(layers, _ACTIVATION_NAMES[activation])


def _numpy(value: Any) -> np.ndarray:
    return value.detach().cpu().numpy() if hasattr(value, "detach") else np.asarray(value)


def save_policy(actor: NumpyActor, path: str | Path, metadata: dict[str, Any] | None = None) -> Path:
    """Write ``actor`` to ``path`` (``.npz``) and ``metadata`` to the ``.json`` beside it."""
    path = Path(path)
    arrays = {}
    for index, (weight, bias) in enumerate(actor.layers):
        arrays[f"w{index}"], arrays[f"b{index}"] = weight, bias
    np.savez(path, activation=np.array(actor.activation), **arrays)
    if metadata is not None:
        path.with_suffix(".json").write_text(json.dumps(metadata, indent=1))
    return path


def load_policy(path: str | Path) -> NumpyActor:
    """Read a policy written by :func:`save_policy` (no pickle involved)."""
    with np.load(path, allow_pickle=False) as stored:
        count = sum(1 for key in stored.files if key.startswith("w"))
        layers = [(stored[f"w{i}"], stored[f"b{i}"]) for i in range(count)]
        return NumpyActor(layers, str(stored["activation"]))


def save_snapshots(actors: list[NumpyActor], path: str | Path) -> Path:
    """Write a list of actors (the league's snapshots) to one ``.npz`` file."""
    arrays: dict[str, np.ndarray] = {"count": np.array(len(actors))}
    for n, actor in enumerate(actors):
        arrays[f"s{n}_activation"] = np.array(actor.activation)
        for index, (weight, bias) in enumerate(actor.layers):
            arrays[f"s{n}_w{index}"], arrays[f"s{n}_b{index}"] = weight, bias
    np.savez(path, **arrays)
    return Path(path)


def load_snapshots(path: str | Path) -> list[NumpyActor]:
    """Read the actors written by :func:`save_snapshots`."""
    with np.load(path, allow_pickle=False) as stored:
        actors = []
        for n in range(int(stored["count"])):
            count = sum(1 for key in stored.files if key.startswith(f"s{n}_w"))
            layers = [(stored[f"s{n}_w{i}"], stored[f"s{n}_b{i}"]) for i in range(count)]
            actors.append(NumpyActor(layers, str(stored[f"s{n}_activation"])))
        return actors
