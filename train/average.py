"""Average the weights of several checkpoints of one training run into one policy.

PPO's policy wanders from update to update around a good region: checkpoints a few hundred
thousand steps apart win within noise of each other but disagree on many close decisions. The
element-wise mean of their weights (stochastic weight averaging, Izmailov et al. 2018) sits nearer
the middle of that region and plays more steadily than any single one of them; the checkpoints
must descend from one network (one run and its resumptions), or the mean is meaningless.

    python -m train.average runs/full runs/full_more --since 1000000 --out runs/averaged.zip

Each argument is a checkpoint ``.zip`` or a run folder (all of its ``checkpoints/step_<N>.zip``
from ``--since`` on). The result is a MaskablePPO file like any checkpoint (``ppo:runs/averaged.zip``
plays it) with a ``.json`` beside it naming the checkpoints averaged and the config of the newest.
"""

from __future__ import annotations

import argparse
import json
import sys
import zipfile
from pathlib import Path
from typing import Any

from train.config import ConfigError


def checkpoint_step(path: Path) -> int:
    """The timesteps of a ``step_<N>.zip`` checkpoint, from its name."""
    try:
        return int(path.stem.split("_", 1)[1])
    except (IndexError, ValueError):
        raise ConfigError(f"{path} is not named step_<timesteps>.zip: pass checkpoints of a run") from None


def find_checkpoints(sources: list[str | Path], since: int = 0) -> list[Path]:
    """Expand checkpoint files and run folders into checkpoint files, oldest first; run folders
    contribute the checkpoints from timestep ``since`` on."""
    found: dict[int, Path] = {}
    for source in map(Path, sources):
        if source.is_dir():
            paths = [p for p in source.glob("checkpoints/step_*.zip") if checkpoint_step(p) >= since]
            if not paths:
                raise ConfigError(f"{source} has no checkpoints/step_<N>.zip from step {since:,} on")
        elif source.is_file():
            paths = [source]
        else:
            raise ConfigError(f"no checkpoint or run folder {source}")
        for path in paths:
            step = checkpoint_step(path)
            if step in found and found[step].resolve() != path.resolve():
                raise ConfigError(f"two checkpoints of step {step:,} ({found[step]} and {path}): "
                                  "average the checkpoints of one run and its resumptions")
            found[step] = path
    return [found[step] for step in sorted(found)]


def _load(path: Path):
    from sb3_contrib import MaskablePPO

    if not zipfile.is_zipfile(path):
        raise ConfigError(f"{path} is not a checkpoint (.zip) file, or corrupt")
    try:
        return MaskablePPO.load(path, device="cpu")
    except Exception as err:  # noqa: BLE001 - report any unreadable checkpoint the same way
        raise ConfigError(f"cannot read {path}: {type(err).__name__}: {err}") from None


def mean_weights(paths: list[Path]) -> tuple[Any, dict[str, Any]]:
    """The newest checkpoint of ``paths`` (loaded) and the element-wise mean of all their policy
    weights. Raises ConfigError for a checkpoint that is unreadable or holds another network."""
    if not paths:
        raise ConfigError("no checkpoints to average")
    paths = [Path(p) for p in paths]
    model = _load(paths[-1])
    reference = model.policy.state_dict()
    total = {name: tensor.detach().double().clone() for name, tensor in reference.items()}
    for path in paths[:-1]:
        weights = _load(path).policy.state_dict()
        if {name: t.shape for name, t in weights.items()} != {name: t.shape for name, t in total.items()}:
            raise ConfigError(f"{path} holds another network than {paths[-1]}: "
                              "average checkpoints of one run (same net_arch and privileged_critic)")
        for name, tensor in weights.items():
            total[name] += tensor.double()
    return model, {name: (total[name] / len(paths)).to(reference[name].dtype) for name in total}


def average_checkpoints(paths: list[Path], out: str | Path) -> Path:
    """Write the weight average of the checkpoints ``paths`` to ``out`` (+ ``.json``); the newest
    checkpoint supplies everything but the policy weights."""
    paths = [Path(p) for p in paths]
    model, weights = mean_weights(paths)
    model.policy.load_state_dict(weights)
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    model.save(out)
    out.with_suffix(".json").write_text(json.dumps(_metadata(paths), indent=1))
    return out


def _metadata(paths: list[Path]) -> dict[str, Any]:
    newest = paths[-1].with_suffix(".json")
    meta = json.loads(newest.read_text()) if newest.is_file() else {}
    return {"description": f"weight average of {len(paths)} checkpoints "
                           f"(steps {checkpoint_step(paths[0]):,} to {checkpoint_step(paths[-1]):,})",
            "averaged": [str(p) for p in paths],
            "config": meta.get("config"), "seed": meta.get("seed"),
            "timesteps": meta.get("timesteps", checkpoint_step(paths[-1]))}


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m train.average", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("sources", nargs="+", metavar="CHECKPOINT_OR_RUN",
                   help="checkpoint .zip files and run folders")
    p.add_argument("--since", type=int, default=0,
                   help="from run folders, only checkpoints of at least this many timesteps")
    p.add_argument("--out", required=True, help="the averaged model (.zip)")
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        paths = find_checkpoints(args.sources, args.since)
        out = average_checkpoints(paths, args.out)
    except ConfigError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    print(f"averaged {len(paths)} checkpoints ({', '.join(p.stem for p in paths)}) into {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
