"""Ship a training run's policy: score it with the publication command and write its files.

    python scripts/ship_policy.py runs/blind_all_fours_2p --note "wall time 51 min 2 s, quiet 2-core machine"
    python scripts/ship_policy.py runs/af_2p --config all_fours_2p \\
        --made-as "python -m train --backend jax --config don_2p --set preset=all_fours --out runs/af_2p"

A shipped policy is ``agents/policies/<preset>_<players>p.npz`` with a ``.json`` beside it that
says how to make it again (``reproduce``: the config of ``train/configs/``, which must hold the
run's own settings but for the output folder) and how it scores (``evaluation``): the publication
command (``python -m evaluate ppo:agents/policies/NAME.npz random heuristic --schedule first-vs-rest
--games 2000 --seed 0 ...``), the heuristic row of the same command on ``--seeds`` other deal sets
beside the run's own final table, and whether it meets the bar a shipped policy aims for (55%
against ``heuristic`` with the interval above 50%; ``heuristic``'s own rate against ``random`` beside
the policy's). Everything is checked before the first game, and no shipped file is replaced
without ``--replace``. Games with more than two sides (the four-player auctions) are refused: their
publication table is not settled yet.
"""

from __future__ import annotations

import argparse
import datetime
import json
import shutil
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from agents.base import AgentError  # noqa: E402
from agents.policy_file import read_json, read_metadata  # noqa: E402
from allfours_env.rules import Rules  # noqa: E402
from evaluate import run_tournament  # noqa: E402
from train.checkpoints import checkpoint_step  # noqa: E402
from train.config import ConfigError, load  # noqa: E402

BAR = 0.55  #: the win rate against heuristic a shipped policy aims for, its interval above 1/2
BACKENDS = {"jax": "JAX", "sb3": "Stable-Baselines3", "rllib": "RLlib"}
KEYS = ("format", "version", "network", "observation_layout", "trained_for")


class ShipError(ValueError):
    """A run that cannot be shipped as asked; the message names the problem and the fix."""


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="ship_policy.py", description=__doc__.split("\n\n")[0])
    p.add_argument("run", type=Path, help="the run's output folder (model.npz, model.json, config.json)")
    p.add_argument("--config", help="the recipe in train/configs (default: the policy's name, "
                                    "<preset>_<players>p)")
    p.add_argument("--made-as", default="", help="the command the run was made with, if not the recipe's")
    p.add_argument("--note", default="", help="added to the provenance (wall time, machine)")
    p.add_argument("--seeds", type=int, nargs="*", default=[1, 2, 3], help="other deal sets (default: 1 2 3)")
    p.add_argument("--games", type=int, default=2000,
                   help="games per opponent (default: 2000, the publication size)")
    p.add_argument("--workers", type=int, default=2, help="worker processes (default: 2)")
    p.add_argument("--dest", type=Path, default=ROOT / "agents" / "policies",
                   help="where shipped policies live")
    p.add_argument("--replace", action="store_true", help="replace a policy already shipped under that name")
    return p


def checked(args: argparse.Namespace) -> tuple[dict[str, Any], str, str]:
    """The run's metadata, its recipe's name and the policy's name, or a :class:`ShipError` (or
    ``AgentError``) saying why the run cannot be shipped as asked."""
    for file in ("model.npz", "model.json", "config.json"):
        if not (args.run / file).is_file():
            raise ShipError(f"{args.run / file} not found: give the output folder of a finished training run")
    meta = read_metadata(args.run / "model.npz")
    game = meta["trained_for"]
    name = f"{game['preset']}_{game['num_players']}p"
    if game["knobs"]:
        raise ShipError(f"the run changes rules knobs ({game['knobs']}): a shipped policy plays its "
                        f"preset as it is")
    recipe = args.config or name
    try:
        settings = load(recipe).to_dict()
    except ConfigError as err:
        raise ShipError(f"{err} (name the run's recipe with --config)") from None
    ran = read_json(args.run / "config.json", "run config")
    differ = sorted(k for k in set(settings) | set(ran) if k != "out" and settings.get(k) != ran.get(k))
    if differ:
        raise ShipError(f"the run's settings differ from config {recipe!r} in {', '.join(differ)}: ship a "
                        f"run of that recipe, or name the right one with --config")
    if Rules.make(game["preset"], game["num_players"]).num_sides != 2:
        raise ShipError(f"{name}: games of more than two sides have no publication table yet")
    for suffix in (".npz", ".json"):
        target = args.dest / f"{name}{suffix}"
        if target.exists() and not args.replace:
            raise ShipError(f"{target} exists: pass --replace to ship this run in its place")
    if args.games < 2 or any(seed == 0 for seed in args.seeds):
        raise ShipError("--games must be at least 2 and --seeds must not repeat seed 0 (the publication "
                        "deals)")
    return meta, recipe, name


def row(numbers: dict[str, Any]) -> dict[str, Any]:
    """A result row as the policy file keeps it: games, win rate and margin, rounded."""
    return {"games": numbers["games"], "win_rate": round(numbers["win_rate"], 3),
            "win_rate_ci": [round(x, 3) for x in numbers["win_rate_ci"]],
            "margin_per_hand": round(numbers["margin_per_hand"], 3),
            "margin_per_hand_ci": [round(x, 3) for x in numbers["margin_per_hand_ci"]]}


def score(args: argparse.Namespace, label: str, game: dict[str, Any]) -> dict[str, Any]:
    """The publication table, the other deal sets and heuristic's own rate against random."""
    model = f"ppo:{args.run / 'model.npz'}"
    options = dict(preset=game["preset"], players=game["num_players"], games=args.games,
                   workers=args.workers, schedule="first-vs-rest")
    table = run_tournament({label: model, "random": "random", "heuristic": "heuristic"}, seed=0, **options)
    rows = {opponent: row(table.result_for(label, opponent)) for opponent in ("random", "heuristic")}
    pair = {label: model, "heuristic": "heuristic"}
    others = {}
    for seed in args.seeds:
        result = run_tournament(pair, seed=seed, **options)
        others[f"seed {seed}"] = round(result.win_rate(label, "heuristic"), 3)
    bot = run_tournament(["heuristic", "random"], seed=0, **options).win_rate("heuristic", "random")
    return {"rows": rows, "others": others, "heuristic_vs_random": round(bot, 3)}


def bar_text(rows: dict[str, Any], mean: float, sets: int, bot: float, game: dict[str, Any],
             games: int) -> str:
    """Whether the publication table meets the bar, in a sentence with the figures that decide it."""
    rate, (low, _) = rows["heuristic"]["win_rate"], rows["heuristic"]["win_rate_ci"]
    if rate >= BAR and low > 0.5:
        verdict = (f"the 55% against heuristic that a shipped policy aims for is met ({rate:.1%}, interval "
                   f"from {low:.1%})")
    else:
        verdict = (f"the 55% against heuristic that a shipped policy aims for is missed by "
                   f"{100 * (BAR - rate):.1f} points on these deals" if rate < BAR else
                   f"the interval against heuristic reaches down to {low:.1%}, not above 50%")
    command = (f"python -m evaluate heuristic random --schedule first-vs-rest --games {games} --seed 0 "
               f"--preset {game['preset']} --players {game['num_players']}")
    return (f"{verdict} ({mean:.1%} over the {sets} deal sets, {sets * games:,} games); against random it "
            f"wins {rows['random']['win_rate']:.1%}, heuristic {bot:.1%} ({command})")


def steps_label(steps: int) -> str:
    """Learner steps in millions, as the docs write them (8.5M)."""
    return f"{steps / 1e6:.1f}M"


def metadata(args: argparse.Namespace, meta: dict[str, Any], recipe: str, name: str,
             scored: dict[str, Any]) -> dict[str, Any]:
    """The shipped policy's ``.json``."""
    game = meta["trained_for"]
    averaged = sorted(checkpoint_step(path) for path in meta.get("averaged", []))
    backend = meta.get("backend", "sb3")
    reproduce = f"python -m train {'' if backend == 'sb3' else f'--backend {backend} '}--config {recipe}"
    weights = (f"the weight average of its checkpoints from {steps_label(averaged[0])} to "
               f"{steps_label(averaged[-1])} steps" if averaged else "its final weights")
    day = datetime.date.fromtimestamp((args.run / "model.npz").stat().st_mtime).isoformat()
    made = f", made as `{args.made_as}` (the same settings but the output folder)" if args.made_as else ""
    devices = ", ".join(meta.get("devices", ["cpu"]))
    provenance = (f"one run of `{reproduce}` on {day}{made}: {steps_label(meta['timesteps'])} learner steps "
                  f"at {meta.get('learner_steps_per_s', 0):,.0f} steps/s on {devices}")
    if averaged:
        provenance += (f", final weights = mean of the {len(averaged)} checkpoints from "
                       f"{steps_label(averaged[0])} on")
    if args.note:
        provenance += f"; {args.note}"
    final = meta.get("final_eval", {}).get("heuristic")
    others = dict(scored["others"])
    if final is not None and final.get("games") == args.games:
        others["run final"] = round(final["win_rate"], 3)
    rows = scored["rows"]
    sets = [rows["heuristic"]["win_rate"], *others.values()]
    command = (f"python -m evaluate ppo:agents/policies/{name}.npz random heuristic --schedule first-vs-rest "
               f"--games {args.games} --seed 0 --preset {game['preset']} --players {game['num_players']} "
               f"--workers {args.workers}")
    note = f"the heuristic row of the same command with --seed {', '.join(map(str, args.seeds))}"
    if "run final" in others:
        note += f", and the run's own final table (another {args.games:,} deals)"
    shipped = {key: meta[key] for key in KEYS}
    shipped.update({
        "description": f"PPO policy for {game['preset']}, {game['num_players']} players, trained on the "
                       f"{BACKENDS[backend]} backend "
                       f"with train/configs/{recipe}.toml ({weights})",
        "reproduce": reproduce,
        "config": load(recipe).to_dict(),
        "seed": meta["seed"],
        "timesteps": meta["timesteps"],
    })
    if averaged:
        shipped["averaged_steps"] = averaged
    shipped["provenance"] = provenance
    shipped["evaluation"] = {
        "command": command, **rows,
        "other_deal_sets": {"note": note, "heuristic": others},
        "bar": bar_text(rows, sum(sets) / len(sets), len(sets), scored["heuristic_vs_random"], game,
                        args.games),
    }
    return shipped


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        meta, recipe, name = checked(args)
    except (ShipError, AgentError) as err:
        print(f"ship_policy.py: error: {err}", file=sys.stderr)
        return 2
    game = meta["trained_for"]
    scored = score(args, f"ppo:agents/policies/{name}.npz", game)
    shipped = metadata(args, meta, recipe, name, scored)
    args.dest.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(args.run / "model.npz", args.dest / f"{name}.npz")
    (args.dest / f"{name}.json").write_text(json.dumps(shipped, indent=1) + "\n")
    print(json.dumps(shipped["evaluation"], indent=1))
    print(f"shipped {args.dest / name}.npz and .json")
    return 0


if __name__ == "__main__":
    sys.exit(main())
