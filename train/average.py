"""Average the weights of several checkpoints of one training run into one policy.

PPO's policy wanders from update to update around a good region: checkpoints a few hundred
thousand steps apart win within noise of each other but disagree on many close decisions. The
element-wise mean of their weights (stochastic weight averaging, Izmailov et al. 2018) sits nearer
the middle of that region and plays more steadily than any single one of them; the checkpoints
must descend from one network (one run and its resumptions), or the mean is meaningless.

    python -m train.average runs/full runs/full_more --since 1000000 --out runs/averaged.npz

Each argument is a checkpoint ``step_<N>.npz`` or a run folder (all of its checkpoints from
``--since`` on). Checkpoints of another game or network are refused. The result is a policy file
(:mod:`agents.policy_file`: ``runs/averaged.npz`` and ``runs/averaged.json``, which names the
checkpoints averaged and holds the config of the newest); ``ppo:runs/averaged.npz`` plays it. Every
input and the output path are checked before anything is written; an existing file is never
overwritten. Bad input prints one line and exits with status 2.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import numpy as np

from agents import policy_file
from agents.base import AgentError
from agents.cli import OneLineParser
from agents.policy import NumpyActor, save_policy
from train.checkpoints import (
    Checkpoint,
    checkpoint_step,
    find,
    list_checkpoints,
    old_format_message,
    read_checkpoint,
)
from train.config import ConfigError, flatten
from train.model import load_policy_arrays, network_arrays
from train.runs import IDENTITY, check_writable

PROG = "python -m train.average"


def find_checkpoints(sources: list[str | Path], since: int = 0) -> list[Path]:
    """Expand checkpoint files and run folders into checkpoint files, oldest first; run folders
    contribute the checkpoints from timestep ``since`` on."""
    found: dict[int, Path] = {}
    for source in map(Path, sources):
        if source.is_dir():
            paths = list_checkpoints(source, since)
            if not paths:
                raise ConfigError(old_format_message(source)
                                  or f"{source} has no checkpoints/step_<N>.npz from step {since:,} on")
        else:
            paths = [find(source)]
        for path in paths:
            step = checkpoint_step(path)
            if step in found and found[step].resolve() != path.resolve():
                raise ConfigError(f"two checkpoints of step {step:,} ({found[step]} and {path}): "
                                  "average the checkpoints of one run and its resumptions")
            found[step] = path
    return [found[step] for step in sorted(found)]


def mean_weights(paths: list[Path]) -> tuple[Checkpoint, dict[str, np.ndarray]]:
    """The newest checkpoint of ``paths`` (read) and the element-wise mean of all their network
    weights. Raises ConfigError for a checkpoint that is unreadable, of another game or network."""
    if not paths:
        raise ConfigError("no checkpoints to average")
    newest = read_checkpoint(paths[-1])
    reference = network_arrays(newest.arrays)
    identity = {key: value for key, value in flatten(newest.config.to_dict()).items() if key in IDENTITY}
    total = {name: array.astype(np.float64) for name, array in reference.items()}
    for path in paths[:-1]:
        checkpoint = read_checkpoint(path)
        other = flatten(checkpoint.config.to_dict())
        for key, value in identity.items():
            if other[key] != value:
                raise ConfigError(f"{path} was trained with {key} = {other[key]!r}, {paths[-1]} with "
                                  f"{value!r}: average the checkpoints of one run and its resumptions")
        weights = network_arrays(checkpoint.arrays)
        if {n: a.shape for n, a in weights.items()} != {n: a.shape for n, a in total.items()}:
            raise ConfigError(f"{path} holds another network than {paths[-1]}: "
                              "average checkpoints of one run (same net_arch and privileged_critic)")
        for name, array in weights.items():
            total[name] += array
    return newest, {name: (total[name] / len(paths)).astype(reference[name].dtype) for name in total}


def averaged_actor(out: Path, since: int, *, log=print) -> tuple[NumpyActor, list[Path]]:
    """The weight average of the run ``out``'s checkpoints from step ``since`` on, as an actor (the
    final model of a backend that is not SB3's), and the checkpoints averaged."""
    paths = find_checkpoints([out], since)
    newest, weights = mean_weights(paths)
    log(f"final model: the weight average of {len(paths)} checkpoints")
    return NumpyActor.from_arrays(weights, newest.meta["network"], out), paths


def average_into(model, out: Path, since: int, *, log=print) -> list[Path]:
    """Replace ``model``'s weights by the average of the checkpoints of the run in ``out`` from
    step ``since`` on (the final one included); return the checkpoints averaged."""
    paths = find_checkpoints([out], since)
    load_policy_arrays(model, mean_weights(paths)[1], out)
    log(f"final model: the weight average of {len(paths)} checkpoints "
        f"(steps {checkpoint_step(paths[0]):,} to {checkpoint_step(paths[-1]):,})")
    return paths


def check_out(out: str | Path) -> Path:
    """The policy file ``out`` names, if it can be written there without overwriting anything."""
    out = Path(out)
    if out.suffix != policy_file.SUFFIX:
        raise ConfigError(f"--out {out}: a policy file ends in {policy_file.SUFFIX} (its metadata goes to "
                          f"the .json beside it), e.g. --out {out.with_suffix(policy_file.SUFFIX)}")
    for path in (out, policy_file.metadata_path(out)):
        if path.exists():
            raise ConfigError(f"--out {out}: {path} already exists; choose a new name "
                              f"(nothing is overwritten)")
    check_writable(out, "--out", folder=False)
    return out


def average_checkpoints(paths: list[Path], out: str | Path) -> Path:
    """Write the weight average of the checkpoints ``paths`` to the policy file ``out``."""
    out = check_out(out)
    newest, weights = mean_weights(paths)
    actor = NumpyActor.from_arrays(weights, newest.meta["network"], out)
    out.parent.mkdir(parents=True, exist_ok=True)
    return save_policy(out, actor, newest.config.game(), **_metadata(paths, newest))


def _metadata(paths: list[Path], newest: Checkpoint) -> dict[str, Any]:
    return {"description": f"weight average of {len(paths)} checkpoints "
                           f"(steps {checkpoint_step(paths[0]):,} to {checkpoint_step(paths[-1]):,})",
            "averaged": [str(p) for p in paths],
            "config": newest.config.to_dict(), "seed": newest.config.seed, "timesteps": newest.step}



def parser() -> argparse.ArgumentParser:
    p = OneLineParser(prog=PROG, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("sources", nargs="+", metavar="CHECKPOINT_OR_RUN",
                   help="checkpoint step_<N>.npz files and run folders")
    p.add_argument("--since", type=int, default=0,
                   help="from run folders, only checkpoints of at least this many timesteps")
    p.add_argument("--out", required=True, help="the averaged policy file (.npz; its .json beside it)")
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        if args.since < 0:
            raise ConfigError(f"--since must be a whole number of timesteps >= 0, got {args.since}")
        check_out(args.out)
        paths = find_checkpoints(args.sources, args.since)
        out = average_checkpoints(paths, args.out)
    except (ConfigError, AgentError) as err:
        print(f"{PROG}: error: {err}", file=sys.stderr)
        return 2
    print(f"averaged {len(paths)} checkpoints ({', '.join(p.stem for p in paths)}) into {out} "
          f"(+ {policy_file.metadata_path(out).name})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
