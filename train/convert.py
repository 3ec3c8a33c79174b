"""Convert old Stable-Baselines3 files you trust into policy files and checkpoints that hold no pickle.

Policies and checkpoints used to be Stable-Baselines3 ``.zip`` files, and opponent pools
``step_N.pool.pkl`` files. Both hold pickled Python objects: **opening one runs whatever code its
author put in it**. No other tool of this project opens them. This command does — only with
``--trust``, and only for files whose source you trust (ones you trained yourself)::

    python -m train.convert old_model.zip --trust       # -> old_model-converted.npz + its .json
    python -m train.convert old_model.zip --trust --out policy.npz --preset seven_up --players 2
    python -m train.convert runs/old_run --trust --out runs/old_run_v2   # a whole run, to resume it

A model ``.zip`` becomes a policy file (:mod:`agents.policy_file`); the game it was trained for
comes from the ``.json`` beside it (its ``config``) or from ``--preset``/``--players``, and the rest
of that JSON is kept (which is why the default output is ``<name>-converted.npz``: its own JSON
must not take the old one's place). A run folder becomes a new run folder: every checkpoint with its optimiser
state and opponent pool, ``model.zip``, and the files that need no conversion (config, learning
curve, final evaluation, TensorBoard logs). Nothing existing is overwritten.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path
from typing import Any

from agents import policy_file
from agents.base import AgentError
from agents.cli import OneLineParser
from agents.policy import actor_from_sb3, save_policy
from allfours_env.rules import Rules, RulesError
from train.checkpoints import FOLDER, snapshot_arrays
from train.config import ConfigError, from_dict
from train.model import training_state
from train.runs import check_writable

PROG = "python -m train.convert"
COPIED = ("config.json", "eval.csv", "learning_curve.png", "final_eval", "tb")
HEADER_KEYS = ("format", "version", "network", "observation_layout", "trained_for")


def load_trusted_model(path: Path):
    """Unpickle a Stable-Baselines3 MaskablePPO ``.zip`` (this runs any code it holds)."""
    from sb3_contrib import MaskablePPO

    try:
        return MaskablePPO.load(path, device="cpu")
    except Exception as err:  # noqa: BLE001 - any unreadable file is reported the same way
        raise ConfigError(f"{path} could not be read as a MaskablePPO model "
                          f"({type(err).__name__}: {err})") from None


def old_metadata(path: Path) -> dict[str, Any]:
    """The JSON written beside an old ``.zip`` (empty if there is none)."""
    meta = path.with_suffix(".json")
    if not meta.is_file():
        return {}
    try:
        data = policy_file.read_json(meta, "metadata of a model")
    except AgentError as err:
        raise ConfigError(str(err)) from None
    return data if isinstance(data, dict) else {}


def trained_for(meta: dict[str, Any], preset: str | None, players: int | None,
                source: Path) -> dict[str, Any]:
    """The game a converted policy was trained for: ``--preset``/``--players``, else its config."""
    config = meta.get("config") if isinstance(meta.get("config"), dict) else {}
    game = {"preset": preset or config.get("preset"), "num_players": players or config.get("num_players"),
            "knobs": config.get("knobs") or {}}
    if game["preset"] is None or game["num_players"] is None:
        raise ConfigError(f"{source} has no JSON beside it saying which game it was trained for: "
                          f"give --preset and --players")
    try:
        Rules.make(game["preset"], game["num_players"], **game["knobs"])
    except (RulesError, TypeError) as err:
        raise ConfigError(f"{source}: the game it was trained for is not playable here: {err}") from None
    return game


def convert_model(source: Path, out: Path, preset: str | None = None, players: int | None = None) -> Path:
    """Convert the trusted model ``source`` (``.zip``) into the policy file ``out``."""
    meta = old_metadata(source)
    game = trained_for(meta, preset, players, source)
    model = load_trusted_model(source)
    try:
        actor = actor_from_sb3(model.policy)
    except AgentError as err:
        raise ConfigError(f"{source}: {err}") from None
    kept = {key: value for key, value in meta.items() if key not in HEADER_KEYS}
    kept["converted_from"] = f"{source.name} (Stable-Baselines3 .zip, unpickled with --trust)"
    return save_policy(out, actor, game, **kept)


def convert_checkpoint(source: Path, folder: Path) -> Path:
    """Convert a trusted old checkpoint ``step_N.zip`` (+ ``.json``, ``.pool.pkl``) into ``folder``."""
    import pickle

    meta = old_metadata(source)
    try:
        config = from_dict(meta["config"])
    except (KeyError, ConfigError) as err:
        raise ConfigError(f"{source.with_suffix('.json')} holds no usable config ({err})") from None
    model = load_trusted_model(source)
    arrays, numbers = training_state(model)
    pool_file = source.with_name(source.stem + ".pool.pkl")
    pools = pickle.loads(pool_file.read_bytes()) if pool_file.is_file() else []  # trusted: see --trust
    snapshots = list(pools[0].snapshots) if pools else []
    arrays.update(snapshot_arrays(snapshots))
    actor = actor_from_sb3(model.policy)
    header = policy_file.header(actor.inputs, actor.hidden, actor.activation, config.game())
    kept = {key: value for key, value in meta.items() if key not in HEADER_KEYS}
    new = header | kept | {"kind": "checkpoint", "config": config.to_dict(),
                           "timesteps": int(meta.get("timesteps", model.num_timesteps)),
                           "training": {**numbers, "snapshots": len(snapshots)}}
    return policy_file.write(folder / f"{source.stem}.npz", arrays, new)


def convert_run(source: Path, out: Path) -> list[Path]:
    """Convert the trusted old run folder ``source`` into the new run folder ``out``."""
    zips = sorted((source / FOLDER).glob("step_*.zip"))
    if not zips:
        raise ConfigError(f"{source} has no old checkpoints ({FOLDER}/step_<N>.zip) to convert")
    (out / FOLDER).mkdir(parents=True)
    written = [convert_checkpoint(path, out / FOLDER) for path in zips]
    if (source / "model.zip").is_file():
        written.append(convert_model(source / "model.zip", out / "model.npz"))
    for name in COPIED:
        if (source / name).is_dir():
            shutil.copytree(source / name, out / name)
        elif (source / name).is_file():
            shutil.copy2(source / name, out / name)
    return written



def default_policy_path(source: Path) -> Path:
    """Where a converted model goes without ``--out``: ``NAME-converted.npz`` beside ``NAME.zip``, so
    that its JSON does not collide with the old model's ``NAME.json`` (read, kept, never replaced)."""
    return source.with_name(f"{source.stem}-converted{policy_file.SUFFIX}")


def parser() -> argparse.ArgumentParser:
    p = OneLineParser(prog=PROG, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("source", help="an old model .zip, or an old run folder")
    p.add_argument("--trust", action="store_true",
                   help="required: converting unpickles the files, which runs any code they hold")
    p.add_argument("--out", help="the policy file (.npz) or, for a run, the new run folder "
                                 "(default for a model: NAME-converted.npz beside NAME.zip)")
    p.add_argument("--preset", help="the preset the model was trained for (default: from its JSON)")
    p.add_argument("--players", type=int, help="the players it was trained for (default: from its JSON)")
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    source = Path(args.source)
    try:
        if not args.trust:
            raise ConfigError(f"converting {source} unpickles it, which runs any code it holds: only "
                              f"convert files whose source you trust, and say so with --trust")
        if source.is_dir():
            if not args.out:
                raise ConfigError("converting a run needs --out NEW_FOLDER for the converted run")
            out = Path(args.out)
            if out.exists():
                raise ConfigError(f"--out {out} already exists: name a new folder (nothing is overwritten)")
            check_writable(out, "--out")
            written = convert_run(source, out)
        elif source.is_file():
            out = Path(args.out) if args.out else default_policy_path(source)
            if out.suffix != policy_file.SUFFIX:
                raise ConfigError(f"--out {out}: a policy file ends in {policy_file.SUFFIX}")
            for path in (out, policy_file.metadata_path(out)):
                if path.exists():
                    raise ConfigError(f"{path} already exists: choose another --out (nothing is overwritten)")
            check_writable(out, "--out", folder=False)
            out.parent.mkdir(parents=True, exist_ok=True)
            written = [convert_model(source, out, args.preset, args.players)]
        else:
            raise ConfigError(f"no file or run folder {source}")
    except (ConfigError, AgentError) as err:
        print(f"{PROG}: error: {err}", file=sys.stderr)
        return 2
    print(f"converted {source} into {', '.join(str(p) for p in written)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
