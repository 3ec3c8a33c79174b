"""Where a run lives, and every check of its input before anything is written.

A run is a folder (``out``): a new folder, an empty one, or one that holds an earlier run — which
is moved aside (``out.<date-time>``) whole: runs never overwrite each other. A folder is a run when
its ``config.json`` is a run's config (:func:`is_run`); any other folder that is not empty is
refused, so that a run never writes over (or appends to) files of the same names that are not its
own. ``--resume`` continues a run from a checkpoint:

* ``python -m train --resume RUN`` continues *that* run, in its folder, from its newest checkpoint
  and with its own saved config (:func:`resume_config`); ``--set``/``--timesteps`` change only what
  may change mid-run (not :data:`IDENTITY`) — raise ``total_timesteps`` to train further;
* with ``--out NEW`` it branches instead: a new run in ``NEW`` that starts from the checkpoint and may
  change its game, reward or seed too (fine-tuning). Neither may change the network
  (:data:`NETWORK`) or the warm start (``imitation.*``), which is over.

:func:`prepare` checks everything — the config's types and ranges, the output folder (a folder,
writable, new, empty or a run), the checkpoint (readable, of this game and network, not behind a
later one of its run), every agent spec (model files loaded), the cached imitation data — and only
then does the trainer build anything; :func:`open_folder` is the first write.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agents.base import AgentError, make_agent
from agents.cli import write_problem
from agents.policy import warn_unfit
from agents.policy_file import read_json
from allfours_env.rules import Rules
from train import checkpoints
from train.config import (
    ConfigError,
    TrainConfig,
    agent_specs,
    apply_override,
    flatten,
    from_dict,
    load_dict,
    validate,
)

#: The settings that shape the network: a checkpoint's weights fit no other.
NETWORK = ("ppo.net_arch", "ppo.activation", "ppo.privileged_critic")
#: What makes a run the run it is (with its network): continuing it in place keeps them.
IDENTITY = ("preset", "num_players", "knobs", "episode", "reward", "seed", *NETWORK)
#: Settings every run's ``config.json`` has held, in every version: what makes a folder a run.
RUN_SIGNATURE = ("preset", "num_players", "total_timesteps", "out", "ppo")


@dataclass
class Start:
    """A checked run, ready to build: its folder, the checkpoint it resumes (if any), whether it
    continues that checkpoint's own run in place, and the cached imitation data (if any)."""

    out: Path
    checkpoint: checkpoints.Checkpoint | None = None
    continues: bool = False
    dataset: tuple[dict[str, Any], str] | None = None


def check_writable(path: Path, what: str, folder: bool = True) -> None:
    """Raise ConfigError unless ``path`` (a folder, or a file when ``folder`` is False) can be
    created or written: a file can be created (and is removed again) in the nearest existing folder
    (:func:`agents.cli.write_problem`)."""
    path = Path(path)
    if path.exists():
        if folder and not path.is_dir():
            raise ConfigError(f"{what} {path} is a file, not a folder: give a folder path")
        if not folder and path.is_dir():
            raise ConfigError(f"{what} {path} is a folder: give a file path")
    parent = path if folder and path.is_dir() else path.parent
    while not parent.exists():
        parent = parent.parent
    if not parent.is_dir():
        raise ConfigError(f"{what} {path}: {parent} is a file, so nothing can be written below it")
    problem = None if os.access(parent, os.W_OK | os.X_OK) else "permission denied or read-only"
    problem = problem or write_problem(parent)  # os.access says yes to root, and for /proc
    if problem:
        raise ConfigError(f"{what} {path}: cannot write in {parent} ({problem}): choose another path")


def is_run(folder: Path) -> bool:
    """Whether ``folder`` holds a training run: its ``config.json`` is a run's config (a table with
    :data:`RUN_SIGNATURE`'s settings) — not merely a file of that name."""
    path = Path(folder) / "config.json"
    if not path.is_file():
        return False
    try:
        data = read_json(path, "run config")
    except AgentError:
        return False
    return isinstance(data, dict) and all(key in data for key in RUN_SIGNATURE)


def check_new_run_folder(out: Path) -> None:
    """Raise ConfigError if ``out`` is a folder that is neither empty nor a run (:func:`is_run`): a
    run would write its files (``model.npz``, ``eval.csv`` ...) over those of the same names there."""
    if not out.is_dir():
        return
    try:
        names = sorted(entry.name for entry in out.iterdir())
    except OSError as err:
        raise ConfigError(f"out {out}: cannot list the folder ({err.strerror or err}): choose another "
                          f"path") from None
    if names and not is_run(out):
        shown = ", ".join(names[:5]) + (f", ... ({len(names)} entries)" if len(names) > 5 else "")
        raise ConfigError(f"out {out} holds files that are not an allfours run ({shown}): choose an "
                          f"empty or new folder")


def resume_config(resume: str | Path, config_name: str | None, overrides: list[str]) -> TrainConfig:
    """The config of ``python -m train --resume RESUME``: the checkpoint's own saved config (or the
    named config file), with ``overrides``; its ``out`` is the checkpoint's run folder unless an
    override names one (a branch)."""
    path = checkpoints.find(resume)
    meta_path = path.with_suffix(".json")
    data = load_dict(config_name) if config_name else checkpoints.saved_config(path)
    if not isinstance(data, dict):
        raise ConfigError(f"cannot resume from {path}: {meta_path.name} holds no config table")
    if not any(item.partition("=")[0] == "out" for item in overrides):
        run = checkpoints.run_of(path)
        if run is None:
            raise ConfigError(f"{path} is not inside a run folder (RUN/checkpoints/step_N.npz): give "
                              f"--out for the run that continues from it")
        data = {**data, "out": str(run)}
    for item in overrides:
        apply_override(data, item)
    return from_dict(data)


def refused_changes(saved: TrainConfig, config: TrainConfig, branch: bool) -> list[str]:
    """The settings ``config`` changes from the checkpoint's ``saved`` config that a resumed run may
    not change: the network and the warm start, and when it continues in place its identity."""
    old, new = flatten(saved.to_dict()), flatten(config.to_dict())
    fixed = NETWORK if branch else IDENTITY
    return [key for key in new if (key in fixed or key.startswith("imitation.")) and old[key] != new[key]]


def prepare(config: TrainConfig, resume: str | Path | None = None) -> Start:
    """Check everything about a run before anything is built or written (see the module docstring);
    raises ConfigError with one line naming the problem."""
    from train import imitation

    validate(config)
    out = Path(config.out)
    check_writable(out, "out")
    start = Start(out=out)
    if resume:
        checkpoint = checkpoints.read_checkpoint(checkpoints.find(resume))
        run = checkpoint.run
        start.continues = run is not None and out.resolve() == run.resolve()
        changed = refused_changes(checkpoint.config, config, branch=not start.continues)
        if changed:
            key = changed[0]
            was, asked = flatten(checkpoint.config.to_dict())[key], flatten(config.to_dict())[key]
            why = ("its network is fixed" if key in NETWORK else "its warm start is over"
                   if key.startswith("imitation.") else
                   "another one is another run: branch a new run from it with --out NEW_FOLDER")
            raise ConfigError(f"--resume {checkpoint.path}: the run has {key} = {was!r} (asked: {asked!r}); "
                              f"{why}")
        if checkpoint.step >= config.total_timesteps:
            raise ConfigError(f"the checkpoint is at {checkpoint.step:,} timesteps and total_timesteps is "
                              f"{config.total_timesteps:,}: raise total_timesteps (--timesteps N) "
                              f"to train further")
        if start.continues:
            newest = checkpoints.list_checkpoints(run)[-1]
            if newest.resolve() != checkpoint.path.resolve():
                raise ConfigError(f"{checkpoint.path.name} is not the newest checkpoint of {run} "
                                  f"({newest.name} is): continuing from it there would overwrite the later "
                                  f"ones; give --out NEW_FOLDER to branch a new run from it")
        start.checkpoint = checkpoint
    if not start.continues:
        check_new_run_folder(out)
        if is_run(out):
            check_writable(out.parent, "out")  # the earlier run is moved aside
    check_agents(config)
    if not resume and config.imitation.teacher:
        start.dataset = imitation.check_dataset(config)
    return start


def check_agents(config: TrainConfig) -> None:
    """Build every agent the config names (loading model files) and warn about a policy trained for
    another game; raises ConfigError naming the setting of an agent that cannot be built."""
    rules = Rules.make(config.preset, config.num_players, **config.knobs)
    agents = []
    for where, spec in agent_specs(config):
        try:
            agents.append(make_agent(spec, seed=0))
        except AgentError as err:
            raise ConfigError(f"{where} {spec!r}: {err}") from None
        except ImportError as err:
            raise ConfigError(f"{where} {spec!r} is not available in this installation: {err}") from None
    warn_unfit(agents, rules)


def open_folder(start: Start, config: TrainConfig, *, log=print) -> None:
    """The run's first write: move an earlier run out of the way (unless this one continues it),
    create the folder and save ``config.json``. :func:`prepare` has refused any other folder that is
    not empty."""
    out = start.out
    if not start.continues and is_run(out):
        stamp = time.strftime("%Y%m%d-%H%M%S")
        kept = out.with_name(f"{out.name}.{stamp}")
        for number in range(2, 1000):
            if not kept.exists():
                break
            kept = out.with_name(f"{out.name}.{stamp}-{number}")
        out.rename(kept)  # a new run never mixes with (or deletes) an earlier one
        log(f"an earlier run was in {out}: moved it to {kept}")
    out.mkdir(parents=True, exist_ok=True)
    (out / "config.json").write_text(json.dumps(config.to_dict(), indent=1))


def drop_torn_checkpoint(out: Path, since: int = 0, *, log=print) -> Path | None:
    """After Ctrl-C: remove the newest checkpoint of the run ``out`` (one after step ``since``, so
    written by this process) if its metadata is missing or not whole — the interrupt came while it
    was being saved — so that ``--resume`` continues from the one before; returns it, or None."""
    found = checkpoints.list_checkpoints(out)
    if not found or checkpoints.checkpoint_step(found[-1]) <= since:
        return None
    newest = found[-1]
    meta = newest.with_suffix(".json")
    try:
        json.loads(meta.read_text())
        return None
    except (OSError, UnicodeDecodeError, ValueError):
        pass
    for path in (newest, meta):
        path.unlink(missing_ok=True)
    log(f"removed {newest}: it was being written when training was interrupted")
    return newest
