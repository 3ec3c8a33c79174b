"""Policy files: a network's weights that load without running any code, and what it was made for.

A policy is two files side by side, ``NAME.npz`` and ``NAME.json``:

* ``NAME.npz`` holds the weights as plain float arrays in numpy's ``.npz`` format, read with
  ``np.load(path, allow_pickle=False)``: opening one cannot run code, whoever made it. The actor's
  layers are named as in a Stable-Baselines3 policy's state dict, in torch's (outputs, inputs)
  orientation: ``mlp_extractor.policy_net.0.weight`` / ``.bias`` for the first hidden layer,
  ``mlp_extractor.policy_net.2.*`` for the second, ..., ``action_net.*`` for the logits. A training
  checkpoint (:mod:`train.checkpoints`) is a policy file with more arrays: the critic, the optimiser
  state and the opponent pool.
* ``NAME.json`` holds the metadata::

      {"format": "allfours-policy", "version": 1,
       "network": {"inputs": 749, "hidden": [256, 256], "activation": "relu", "actions": 117},
       "observation_layout": 1,
       "trained_for": {"preset": "seven_up", "num_players": 2, "knobs": {}},
       ...}        # and anything else: training config, seed, timesteps, evaluations, description

``inputs`` is how many leading entries of the observation (:mod:`allfours_env.observation`) the
network reads. New presets only ever append entries to the observation, so a policy keeps working
when :data:`~allfours_env.observation.OBS_SIZE` grows; ``observation_layout`` numbers the meaning of
the entries (:data:`OBS_LAYOUT`), and a file of another layout, or one that needs more entries than
this version's observation has, is refused with a clear message.

Policies used to be Stable-Baselines3 ``.zip`` files, which hold pickled Python objects: opening one
runs whatever code its author put in it. They are never opened here; ``python -m train.convert
OLD.zip --trust`` converts one whose source you trust.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from agents.base import AgentError
from allfours_env.actions import NUM_ACTIONS
from allfours_env.observation import OBS_LAYOUT, OBS_SIZE

FORMAT = "allfours-policy"
VERSION = 1
SUFFIX = ".npz"
ACTIVATIONS = ("tanh", "relu", "leaky_relu", "elu")

_CONVERT = "python -m train.convert {path} --trust"


def metadata_path(path: str | Path) -> Path:
    """The ``.json`` metadata file of the policy (or checkpoint) weights at ``path``."""
    return Path(path).with_suffix(".json")


def actor_names(depth: int) -> list[tuple[str, str]]:
    """The (weight, bias) array names of the actor's ``depth`` linear layers, input side first."""
    hidden = [(f"mlp_extractor.policy_net.{2 * i}.weight", f"mlp_extractor.policy_net.{2 * i}.bias")
              for i in range(depth - 1)]
    return hidden + [("action_net.weight", "action_net.bias")]


def header(inputs: int, hidden: list[int], activation: str, trained_for: dict[str, Any]) -> dict[str, Any]:
    """The metadata keys every policy file starts with (see the module docstring)."""
    return {"format": FORMAT, "version": VERSION,
            "network": {"inputs": inputs, "hidden": list(hidden), "activation": activation,
                        "actions": NUM_ACTIONS},
            "observation_layout": OBS_LAYOUT,
            "trained_for": trained_for}


def refuse_pickled(path: Path) -> None:
    """Raise a clear :class:`AgentError` for a Stable-Baselines3 ``.zip`` (which would unpickle)."""
    if path.suffix == ".zip" or (path.is_file() and zipfile.is_zipfile(path) and _is_sb3_zip(path)):
        raise AgentError(
            f"{path} is a Stable-Baselines3 .zip, the old policy format: opening it unpickles Python "
            f"objects, which can run any code its author put in it, so it is not opened. If you trust "
            f"its source, convert it once: {_CONVERT.format(path=path)}"
        )


def _is_sb3_zip(path: Path) -> bool:
    try:
        with zipfile.ZipFile(path) as archive:
            return "data" in archive.namelist()
    except (zipfile.BadZipFile, OSError):
        return False


def read_metadata(path: str | Path) -> dict[str, Any]:
    """The checked metadata of the weights file ``path`` (raises :class:`AgentError` saying why it
    cannot be used)."""
    meta_path = metadata_path(path)
    if not meta_path.is_file():
        raise AgentError(f"{path} has no metadata file {meta_path.name} beside it: a policy is "
                         f"NAME{SUFFIX} and NAME.json together")
    try:
        meta = json.loads(meta_path.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise AgentError(f"{meta_path} is not readable JSON ({err}): the file is damaged") from None
    check_header(meta, meta_path)
    return meta


def check_header(meta: Any, where: str | Path) -> None:
    """Raise :class:`AgentError` unless ``meta`` is metadata of a policy this version can play."""
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise AgentError(f"{where} is not the metadata of an allfours policy (no \"format\": \"{FORMAT}\")")
    if meta.get("version") != VERSION:
        raise AgentError(f"{where} is policy format version {meta.get('version')!r}; this version of "
                         f"allfours reads version {VERSION}: upgrade allfours")
    network = meta.get("network")
    if not (isinstance(network, dict) and _whole(network.get("inputs")) and network["inputs"] > 0
            and isinstance(network.get("hidden"), list)
            and all(_whole(w) and w > 0 for w in network["hidden"])
            and network.get("activation") in ACTIVATIONS and network.get("actions") == NUM_ACTIONS):
        raise AgentError(f"{where}: \"network\" must give inputs, hidden widths, an activation "
                         f"({', '.join(ACTIVATIONS)}) and actions = {NUM_ACTIONS}; got {network!r}")
    if meta.get("observation_layout") != OBS_LAYOUT:
        raise AgentError(f"{where} reads observation layout {meta.get('observation_layout')!r}; this "
                         f"version of allfours has layout {OBS_LAYOUT}")
    if network["inputs"] > OBS_SIZE:
        raise AgentError(f"{where} reads {network['inputs']} observation entries; this version of "
                         f"allfours has {OBS_SIZE}: upgrade allfours")
    trained_for = meta.get("trained_for")
    if not (isinstance(trained_for, dict) and isinstance(trained_for.get("preset"), str)
            and _whole(trained_for.get("num_players")) and isinstance(trained_for.get("knobs", {}), dict)):
        raise AgentError(f"{where}: \"trained_for\" must give the preset, num_players and knobs the "
                         f"policy was trained for; got {trained_for!r}")


def read_arrays(path: str | Path) -> dict[str, np.ndarray]:
    """Every array of the weights file ``path``, read without unpickling anything; each must be a
    finite float array (raises :class:`AgentError` saying what is wrong)."""
    path = Path(path)
    if not path.is_file():
        raise AgentError(f"no policy file at {path}: train one with `python -m train` or check the path")
    refuse_pickled(path)
    if not zipfile.is_zipfile(path):
        raise AgentError(f"{path} is not a policy weights file ({SUFFIX}): it may be damaged")
    try:
        with np.load(path, allow_pickle=False) as stored:
            arrays = {name: stored[name] for name in stored.files}
    except ValueError as err:
        if "allow_pickle" in str(err):
            raise AgentError(f"{path} holds pickled objects, which are never loaded (they can run "
                             f"code): a policy file holds plain arrays only") from None
        raise AgentError(f"{path} is not a policy weights file ({SUFFIX}) or is damaged: {err}") from None
    except (OSError, EOFError, zipfile.BadZipFile, KeyError, RuntimeError) as err:
        raise AgentError(f"{path} is not a policy weights file ({SUFFIX}) or is damaged: "
                         f"{type(err).__name__}: {err}") from None
    for name, array in arrays.items():
        if array.dtype.kind != "f":
            raise AgentError(f"{path}: array {name!r} has type {array.dtype}, not a float type: "
                             f"the file is damaged or not a policy")
        if not np.all(np.isfinite(array)):
            raise AgentError(f"{path}: array {name!r} holds NaN or infinite values")
    return arrays


def actor_layers(arrays: dict[str, np.ndarray], network: dict[str, Any], where: str | Path
                 ) -> list[tuple[np.ndarray, np.ndarray]]:
    """The actor's (weight, bias) pairs from ``arrays``, shapes checked against ``network``."""
    widths = [network["inputs"], *network["hidden"], network["actions"]]
    layers = []
    for (weight_name, bias_name), n_in, n_out in zip(actor_names(len(widths) - 1), widths, widths[1:]):
        for name, shape in ((weight_name, (n_out, n_in)), (bias_name, (n_out,))):
            if name not in arrays:
                raise AgentError(f"{where} lacks the array {name!r} of its network {widths}")
            if arrays[name].shape != shape:
                raise AgentError(f"{where}: array {name!r} has shape {arrays[name].shape}, the network "
                                 f"{widths} needs {shape}")
        layers.append((arrays[weight_name], arrays[bias_name]))
    return layers


def write(path: str | Path, arrays: dict[str, np.ndarray], meta: dict[str, Any]) -> Path:
    """Write ``arrays`` to ``path`` (``.npz``) and ``meta`` (starting with :func:`header`) beside it."""
    path = Path(path)
    check_header(meta, path)
    arrays = {name: np.asarray(array) for name, array in arrays.items()}
    odd = [name for name, array in arrays.items() if array.dtype.kind != "f"]
    if odd:  # anything else could be pickled by numpy, and would not load back
        raise ValueError(f"a policy file holds float arrays only, not {odd[0]!r} ({arrays[odd[0]].dtype})")
    with path.open("wb") as handle:
        np.savez(handle, **arrays)
    metadata_path(path).write_text(json.dumps(meta, indent=1) + "\n")
    return path


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
