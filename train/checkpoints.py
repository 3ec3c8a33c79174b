"""Checkpoints of a training run: ``RUN/checkpoints/step_<N>.npz`` with ``step_<N>.json`` beside it.

A checkpoint is a policy file (:mod:`agents.policy_file`; ``ppo:RUN/checkpoints/step_N.npz`` plays
it) whose arrays also hold what resuming needs, all plain float arrays read without unpickling:

* the whole policy network, actor and critic, named as in its state dict;
* the optimiser's state, ``optimizer.<parameter>.<key>`` (:mod:`train.model`);
* the opponent pool's snapshots of the learner, ``pool.<k>.<actor layer>``, oldest first.

Its JSON adds ``"kind": "checkpoint"``, the config, seed and timesteps, the evaluation rows of that
step, the opponent mix in force and ``"training"`` (the update counter, the number of snapshots).
:func:`read_checkpoint` checks all of it before a run uses any of it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from agents import policy_file
from agents.base import AgentError
from agents.policy import NumpyActor, actor_from_sb3
from train.config import ConfigError, TrainConfig, from_dict
from train.model import restore_training_state, training_state

FOLDER = "checkpoints"
POOL_PREFIX = "pool."
_NAME = re.compile(r"step_(\d+)\.npz")


@dataclass
class Checkpoint:
    """A checkpoint read back and checked: where it is, its step, config, metadata and arrays."""

    path: Path
    step: int
    config: TrainConfig
    meta: dict[str, Any]
    arrays: dict[str, np.ndarray] = field(repr=False)

    @property
    def run(self) -> Path | None:
        """The run folder holding the checkpoint (``RUN/checkpoints/step_N.npz``), if it is in one."""
        return run_of(self.path)


def checkpoint_step(path: str | Path) -> int:
    """The timesteps of a ``step_<N>.npz`` checkpoint, from its name."""
    match = _NAME.fullmatch(Path(path).name)
    if not match:
        raise ConfigError(f"{path} is not named step_<timesteps>.npz: pass checkpoints of a run")
    return int(match.group(1))


def run_of(path: str | Path) -> Path | None:
    """The run folder of the checkpoint ``path``, or None when it is not inside one."""
    path = Path(path)
    return path.parent.parent if path.parent.name == FOLDER else None


def list_checkpoints(run: str | Path, since: int = 0) -> list[Path]:
    """The checkpoints of the run folder ``run`` from step ``since`` on, oldest first."""
    paths = [p for p in (Path(run) / FOLDER).glob("step_*.npz") if _NAME.fullmatch(p.name)]
    return sorted((p for p in paths if checkpoint_step(p) >= since), key=checkpoint_step)


def old_format_message(run: str | Path) -> str | None:
    """A message for a run folder whose checkpoints are the old pickled ``.zip`` files, else None."""
    if not list((Path(run) / FOLDER).glob("step_*.zip")):
        return None
    return (f"{run} holds checkpoints in the old format (Stable-Baselines3 .zip and .pool.pkl files, "
            f"which unpickle: they can run code), which are never opened. If you trust them, convert "
            f"the run once: python -m train.convert {run} --trust --out NEW_FOLDER")


def find(source: str | Path) -> Path:
    """The checkpoint named by ``source``: a ``step_<N>.npz`` file, or a run folder (its newest)."""
    source = Path(source)
    if source.is_dir():
        found = list_checkpoints(source)
        if found:
            return found[-1]
        raise ConfigError(old_format_message(source)
                          or f"no checkpoints in {source / FOLDER} (step_<N>.npz) to resume from")
    if not source.exists():
        raise ConfigError(f"no checkpoint or run folder {source}")
    if source.suffix == ".zip":
        raise ConfigError(old_format_message(run_of(source) or source.parent)
                          or f"{source} is an old Stable-Baselines3 .zip, which is never opened: "
                             f"convert it with python -m train.convert {source} --trust")
    checkpoint_step(source)
    return source


def snapshot_arrays(snapshots: list[NumpyActor]) -> dict[str, np.ndarray]:
    """The pool's snapshots as checkpoint arrays, ``pool.<k>.<actor layer>``."""
    return {f"{POOL_PREFIX}{k}.{name}": array for k, actor in enumerate(snapshots)
            for name, array in actor.to_arrays().items()}


def snapshots_from(checkpoint: Checkpoint) -> list[NumpyActor]:
    """The pool's snapshots stored in ``checkpoint`` (each has the learner's actor network)."""
    count = checkpoint.meta["training"]["snapshots"]
    network = checkpoint.meta["network"]
    snapshots = []
    for k in range(count):
        prefix = f"{POOL_PREFIX}{k}."
        arrays = {name[len(prefix):]: a for name, a in checkpoint.arrays.items() if name.startswith(prefix)}
        try:
            where = f"{checkpoint.path} (pool snapshot {k})"
            snapshots.append(NumpyActor.from_arrays(arrays, network, where))
        except AgentError as err:
            raise ConfigError(str(err)) from None
    return snapshots


def save_checkpoint(model, config: TrainConfig, out: Path, timesteps: int, metrics: dict[str, Any],
                    snapshots: list[NumpyActor]) -> Path:
    """Write ``checkpoints/step_<N>.npz`` (+ ``.json``) of the model, its optimiser and the pool."""
    folder = Path(out) / FOLDER
    folder.mkdir(parents=True, exist_ok=True)
    arrays, numbers = training_state(model)
    arrays.update(snapshot_arrays(snapshots))
    actor = actor_from_sb3(model.policy)
    meta = policy_file.header(actor.inputs, actor.hidden, actor.activation, config.game())
    meta |= {"kind": "checkpoint", "config": config.to_dict(), "seed": config.seed, "timesteps": timesteps,
             **metrics, "training": {**numbers, "snapshots": len(snapshots)}}
    return policy_file.write(folder / f"step_{timesteps}.npz", arrays, meta)


def saved_config(path: str | Path) -> Any:
    """The config saved in the metadata of the checkpoint ``path``, read as every policy file's
    metadata is (:func:`agents.policy_file.read_json`: bounded in size and depth); raises
    ConfigError, one line, when there is none."""
    meta_path = policy_file.metadata_path(path)
    try:
        meta = policy_file.read_json(meta_path, "checkpoint metadata")
    except AgentError as err:
        raise ConfigError(f"cannot resume from {path}: {err}") from None
    if not isinstance(meta, dict) or "config" not in meta:
        raise ConfigError(f"cannot resume from {path}: its metadata {meta_path.name} holds no config: "
                          f"the checkpoint is damaged")
    return meta["config"]


def read_checkpoint(path: str | Path) -> Checkpoint:
    """Read and check a checkpoint (raises ConfigError with one line saying what is wrong)."""
    path = Path(path)
    step = checkpoint_step(path)
    try:
        arrays, meta = policy_file.read(path)
    except AgentError as err:
        raise ConfigError(f"cannot use checkpoint {path}: {err}") from None
    training = meta.get("training")
    if meta.get("kind") != "checkpoint" or not isinstance(training, dict):
        raise ConfigError(f"{path} is not a training checkpoint (a policy file, maybe): resume from "
                          f"RUN/checkpoints/step_<N>.npz")
    if meta.get("timesteps") != step:
        raise ConfigError(f"{path} says it is at {meta.get('timesteps')!r} timesteps, its name {step}: "
                          f"the checkpoint is damaged")
    snapshots = training.get("snapshots")
    if not (isinstance(snapshots, int) and not isinstance(snapshots, bool) and snapshots >= 0):
        raise ConfigError(f"{path}: training.snapshots must be a whole number >= 0, got {snapshots!r}")
    try:
        config = from_dict(meta.get("config"))
    except ConfigError as err:
        raise ConfigError(f"{path} holds an unusable config: {err}") from None
    network = meta["network"]  # its actor's arrays are in the file: the model built is no larger
    if network["hidden"] != list(config.ppo.net_arch) or network["activation"] != config.ppo.activation:
        raise ConfigError(f"{path}: its network (hidden {network['hidden']}, {network['activation']}) is "
                          f"not the one its config builds (ppo.net_arch = {list(config.ppo.net_arch)}, "
                          f"ppo.activation = {config.ppo.activation!r}): the checkpoint is damaged")
    checkpoint = Checkpoint(path, step, config, meta, arrays)
    snapshots_from(checkpoint)  # every snapshot is checked before anything is written
    return checkpoint


def restore(model, checkpoint: Checkpoint, env) -> None:
    """Load ``checkpoint`` into a fresh model of its config and its snapshots into every pool."""
    restore_training_state(model, checkpoint.arrays, checkpoint.meta["training"], checkpoint.path)
    for actor in snapshots_from(checkpoint):
        env.env_method("add_snapshot", actor)
    model.num_timesteps = checkpoint.step

