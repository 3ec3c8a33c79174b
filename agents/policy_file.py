"""Policy files: a network's weights that load without running any code, and what it was made for.

A policy is two files side by side, ``NAME.npz`` and ``NAME.json``:

* ``NAME.npz`` holds the weights as plain float arrays in numpy's ``.npz`` format (``np.savez``),
  read member by member without unpickling anything: opening one cannot run code, whoever made it,
  and each member's npy header is checked before its array is allocated (a float type; no more
  bytes than the member holds; an actor layer's shape what the metadata's network says). The actor's
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

The JSON is at most :data:`MAX_METADATA_BYTES` and nests at most :data:`MAX_METADATA_DEPTH` levels;
``trained_for`` must name a game this version can build (else the header is corrupt).

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
import math
import os
import zipfile
import zlib
from pathlib import Path
from typing import Any

import numpy as np

from agents.base import AgentError
from allfours_env.actions import NUM_ACTIONS
from allfours_env.observation import OBS_LAYOUT, OBS_SIZE
from allfours_env.rules import Rules, RulesError
from allfours_env.values import is_whole

FORMAT = "allfours-policy"
VERSION = 1
SUFFIX = ".npz"
ACTIVATIONS = ("tanh", "relu", "leaky_relu", "elu")
#: The most bytes a policy's metadata may hold and the deepest its JSON may nest: far more than
#: allfours writes (a few kB, nested four levels), far less than would exhaust memory or the stack.
MAX_METADATA_BYTES = 4 * 2**20
MAX_METADATA_DEPTH = 32
#: The most bytes one stored byte of a zip member can stand for, by compression method (deflate
#: cannot do better than 1032:1); a member whose zip directory claims more is damaged.
_MAX_RATIO = {zipfile.ZIP_STORED: 1, zipfile.ZIP_DEFLATED: 1032}
_CHUNK = 2**22

_CONVERT = "python -m train.convert {path} --trust"
_DAMAGED = "the file is damaged or was not written by allfours"


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


def read(path: str | Path, actor_only: bool = False) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """The checked arrays and metadata of the policy file (or checkpoint) ``path``: every policy
    file and checkpoint is read here. With ``actor_only``, only the actor's arrays are loaded (the
    headers of all are checked). Raises :class:`AgentError`, one line saying why it cannot be used."""
    path = Path(path)
    _check_weights_file(path)
    meta = read_metadata(path)
    names = None
    if actor_only:
        names = {name for pair in actor_names(len(meta["network"]["hidden"]) + 1) for name in pair}
    return _read_arrays(path, meta["network"], names), meta


def read_metadata(path: str | Path) -> dict[str, Any]:
    """The checked metadata of the weights file ``path`` (raises :class:`AgentError` saying why it
    cannot be used)."""
    meta_path = metadata_path(path)
    if not meta_path.is_file():
        raise AgentError(f"{path} has no metadata file {meta_path.name} beside it: a policy is "
                         f"NAME{SUFFIX} and NAME.json together")
    meta = read_json(meta_path)
    check_header(meta, meta_path)
    return meta


def read_json(path: str | Path, what: str = "policy metadata") -> Any:
    """The JSON document in ``path``, if it has at most :data:`MAX_METADATA_BYTES` and nests at most
    :data:`MAX_METADATA_DEPTH` levels (raises :class:`AgentError`, one line naming the file)."""
    path = Path(path)
    try:
        with path.open("rb") as handle:
            raw = handle.read(MAX_METADATA_BYTES + 1)
            size = len(raw) if len(raw) <= MAX_METADATA_BYTES else os.fstat(handle.fileno()).st_size
    except OSError as err:
        raise AgentError(f"{path} cannot be read ({err.strerror or err})") from None
    if size > MAX_METADATA_BYTES:
        raise AgentError(f"{path} is not valid {what}: it is {size:,} bytes, more than the "
                         f"{MAX_METADATA_BYTES:,} allfours reads — {_DAMAGED}")
    try:
        data, too_deep = json.loads(raw.decode("utf-8")), False
    except RecursionError:  # deeper than the parser goes
        data, too_deep = None, True
    except (UnicodeDecodeError, ValueError) as err:
        raise AgentError(f"{path} is not readable JSON ({err}): the file is damaged") from None
    if too_deep or _depth(data) > MAX_METADATA_DEPTH:
        raise AgentError(f"{path} is not valid {what}: its JSON nests deeper than {MAX_METADATA_DEPTH} "
                         f"levels — {_DAMAGED}")
    return data


def _depth(value: Any) -> int:
    """How deeply the lists and objects of a JSON value nest (without recursing), at most one level
    past :data:`MAX_METADATA_DEPTH`."""
    deepest, stack = 0, [(value, 1)]
    while stack and deepest <= MAX_METADATA_DEPTH:
        item, depth = stack.pop()
        if isinstance(item, (dict, list)):
            deepest = max(deepest, depth)
            stack.extend((child, depth + 1) for child in (item.values() if isinstance(item, dict) else item))
    return deepest


def check_header(meta: Any, where: str | Path) -> None:
    """Raise :class:`AgentError` unless ``meta`` is metadata of a policy this version can play."""
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise AgentError(f"{where} is not the metadata of an allfours policy (no \"format\": \"{FORMAT}\")")
    if meta.get("version") != VERSION:
        raise AgentError(f"{where} is policy format version {meta.get('version')!r}; this version of "
                         f"allfours reads version {VERSION}: upgrade allfours")
    network = meta.get("network")
    if not (isinstance(network, dict) and is_whole(network.get("inputs")) and network["inputs"] > 0
            and isinstance(network.get("hidden"), list)
            and all(is_whole(w) and w > 0 for w in network["hidden"])
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
            and is_whole(trained_for.get("num_players")) and isinstance(trained_for.get("knobs", {}), dict)):
        raise AgentError(f"{where}: \"trained_for\" must give the preset, num_players and knobs the "
                         f"policy was trained for; got {trained_for!r}")
    try:
        Rules.make(trained_for["preset"], trained_for["num_players"], **trained_for.get("knobs", {}))
    except (RulesError, TypeError, ValueError) as err:
        raise AgentError(f"{where} has a corrupt header: its \"trained_for\" names no game allfours can "
                         f"play ({err}) — the file is damaged, or was made by a newer allfours") from None


def read_arrays(path: str | Path, network: dict[str, Any] | None = None) -> dict[str, np.ndarray]:
    """Every array of the weights file ``path``, read without unpickling anything; each must be a
    finite float array no larger than the file holds and, given the metadata's ``network``, each
    actor layer of the shape it says (raises :class:`AgentError` saying what is wrong)."""
    path = Path(path)
    _check_weights_file(path)
    return _read_arrays(path, network)


def _check_weights_file(path: Path) -> None:
    if not path.is_file():
        raise AgentError(f"no policy file at {path}: train one with `python -m train` or check the path")
    refuse_pickled(path)
    if not zipfile.is_zipfile(path):
        raise AgentError(f"{path} is not a policy weights file ({SUFFIX}): it may be damaged")


def _read_arrays(path: Path, network: dict[str, Any] | None, names: set[str] | None = None
                 ) -> dict[str, np.ndarray]:
    """The arrays of ``path`` (those in ``names``, if given); every member's header checked."""
    shapes = actor_shapes(network) if network else {}
    widths = [network["inputs"], *network["hidden"], network["actions"]] if network else []
    arrays: dict[str, np.ndarray] = {}
    try:
        with zipfile.ZipFile(path) as archive:
            length = path.stat().st_size
            seen = set()
            for info in archive.infolist():
                if info.filename in seen:
                    raise AgentError(f"{path} is not a valid policy file: it holds member "
                                     f"{info.filename!r} twice — {_DAMAGED}")
                seen.add(info.filename)
                _read_member(archive, info, path, length, (shapes, widths), names, arrays)
    except AgentError:
        raise
    except (OSError, EOFError, zipfile.BadZipFile, zlib.error, KeyError, RuntimeError, ValueError,
            TypeError) as err:
        raise AgentError(f"{path} is not a policy weights file ({SUFFIX}) or is damaged: "
                         f"{type(err).__name__}: {err}") from None
    for name, array in arrays.items():
        if not np.all(np.isfinite(array)):
            raise AgentError(f"{path}: array {name!r} holds NaN or infinite values")
    return arrays


def _read_member(archive: zipfile.ZipFile, info: zipfile.ZipInfo, path: Path, length: int,
                 network: tuple[dict[str, tuple[int, ...]], list[int]], names: set[str] | None,
                 arrays: dict[str, np.ndarray]) -> None:
    """Check the npy header of the member ``info`` against the zip and the ``network`` (the actor's
    shapes and widths) before anything is allocated; then, if ``names`` wants it (or is None), read
    its array into ``arrays``."""
    bad = f"{path} is not a valid policy file: member {info.filename!r}"
    if not info.filename.endswith(".npy"):
        raise AgentError(f"{bad} is not a numpy array (.npy) — {_DAMAGED}")
    name = info.filename[:-len(".npy")]
    ratio = _MAX_RATIO.get(info.compress_type)
    if ratio is None:
        raise AgentError(f"{bad} is compressed with zip method {info.compress_type}; a policy file's "
                         f"arrays are stored or deflated (np.savez, np.savez_compressed) — {_DAMAGED}")
    if info.header_offset + info.compress_size > length or info.file_size > info.compress_size * ratio:
        raise AgentError(f"{bad}: the zip directory says it holds {info.file_size:,} bytes in "
                         f"{info.compress_size:,}, more than the whole file ({length:,} bytes) can — "
                         f"{_DAMAGED}")
    with archive.open(info) as member:
        version = np.lib.format.read_magic(member)
        if version == (1, 0):
            shape, fortran_order, dtype = np.lib.format.read_array_header_1_0(member)
        elif version == (2, 0):
            shape, fortran_order, dtype = np.lib.format.read_array_header_2_0(member)
        else:
            raise AgentError(f"{bad} is in npy format {version}, which holds no float arrays — {_DAMAGED}")
        if dtype.hasobject:
            raise AgentError(f"{path} holds pickled objects, which are never loaded (they can run "
                             f"code): a policy file holds plain arrays only")
        if dtype.kind != "f":
            raise AgentError(f"{path}: array {name!r} has type {dtype}, not a float type: "
                             f"the file is damaged or not a policy")
        if any(n < 0 for n in shape):
            raise AgentError(f"{bad} declares shape {shape}, which no array has — {_DAMAGED}")
        wanted = _actor_shape(name, network[0])
        if wanted is not None and shape != wanted:
            raise AgentError(f"{path}: array {name!r} has shape {shape}; the network {network[1]} "
                             f"of its metadata needs {wanted}: the .npz and .json do not belong together, "
                             f"or {_DAMAGED}")
        size = math.prod(shape) * dtype.itemsize
        held = info.file_size - member.tell()
        if size > held:
            raise AgentError(f"{bad} declares shape {shape} but holds {max(held, 0):,} bytes — {_DAMAGED}")
        if names is not None and name not in names:
            return
        data = bytearray()
        while len(data) < size:  # memory grows with the bytes that really arrive
            chunk = member.read(min(size - len(data), _CHUNK))
            if not chunk:
                raise AgentError(f"{bad} ends after {len(data):,} of the {size:,} bytes of its shape "
                                 f"{shape} — {_DAMAGED}")
            data += chunk
    array = np.frombuffer(data, dtype=dtype)
    arrays[name] = array.reshape(shape[::-1]).T if fortran_order else array.reshape(shape)


def actor_shapes(network: dict[str, Any]) -> dict[str, tuple[int, ...]]:
    """The shape of each of the actor's arrays (named as in :func:`actor_names`) for ``network``."""
    widths = [network["inputs"], *network["hidden"], network["actions"]]
    shapes = {}
    for (weight_name, bias_name), n_in, n_out in zip(actor_names(len(widths) - 1), widths, widths[1:]):
        shapes[weight_name], shapes[bias_name] = (n_out, n_in), (n_out,)
    return shapes


def _actor_shape(name: str, shapes: dict[str, tuple[int, ...]]) -> tuple[int, ...] | None:
    """The shape ``shapes`` gives the array ``name``: an actor layer's own name, or one that ends
    in it (a checkpoint's pool snapshots, ``pool.<k>.<layer>``); None for any other array."""
    if name in shapes:
        return shapes[name]
    return next((shape for layer, shape in shapes.items() if name.endswith("." + layer)), None)


def actor_layers(arrays: dict[str, np.ndarray], network: dict[str, Any], where: str | Path
                 ) -> list[tuple[np.ndarray, np.ndarray]]:
    """The actor's (weight, bias) pairs from ``arrays``, shapes checked against ``network``."""
    widths = [network["inputs"], *network["hidden"], network["actions"]]
    shapes = actor_shapes(network)
    layers = []
    for weight_name, bias_name in actor_names(len(widths) - 1):
        for name in (weight_name, bias_name):
            if name not in arrays:
                raise AgentError(f"{where} lacks the array {name!r} of its network {widths}")
            if arrays[name].shape != shapes[name]:
                raise AgentError(f"{where}: array {name!r} has shape {arrays[name].shape}, the network "
                                 f"{widths} needs {shapes[name]}")
        layers.append((arrays[weight_name], arrays[bias_name]))
    return layers


def write(path: str | Path, arrays: dict[str, np.ndarray], meta: dict[str, Any]) -> Path:
    """Write ``arrays`` to ``path`` (``.npz``) and ``meta`` (starting with :func:`header`) beside it,
    each first to a ``.part`` file moved into place when whole (the ``.npz`` last), so that an
    interrupted write never leaves a half-written file under either name."""
    path = Path(path)
    check_header(meta, path)
    arrays = {name: np.asarray(array) for name, array in arrays.items()}
    odd = [name for name, array in arrays.items() if array.dtype.kind != "f"]
    if odd:  # anything else could be pickled by numpy, and would not load back
        raise ValueError(f"a policy file holds float arrays only, not {odd[0]!r} ({arrays[odd[0]].dtype})")
    text = json.dumps(meta, indent=1) + "\n"
    meta_path = metadata_path(path)
    parts = [path.with_name(path.name + ".part"), meta_path.with_name(meta_path.name + ".part")]
    try:  # written aside, then moved into place, the .npz last: an interrupted write leaves no file
        with parts[0].open("wb") as handle:
            np.savez(handle, **arrays)
        parts[1].write_text(text)
        os.replace(parts[1], meta_path)
        os.replace(parts[0], path)
    finally:
        for part in parts:
            part.unlink(missing_ok=True)
    return path
