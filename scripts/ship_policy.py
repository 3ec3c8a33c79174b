"""Ship a training run's policy: score it with the publication command and write its files.

    python scripts/ship_policy.py runs/blind_all_fours_2p --note "wall time 51 min 2 s, quiet 2-core machine"
    python scripts/ship_policy.py runs/af_2p --config all_fours_2p \\
        --made-as "python -m train --backend jax --config don_2p --set preset=all_fours --out runs/af_2p"

A shipped policy is ``agents/policies/<preset>_<players>p.npz`` with a ``.json`` beside it that
says how to make it again (``reproduce``: the config of ``train/configs/``, which must hold the
run's own settings but for the output folder) and how it scores (``evaluation``): the publication
commands, the heuristic row again on ``--seeds`` other deal sets beside the run's own final table,
and whether it meets the bar a shipped policy aims for, with ``heuristic``'s own rate against
``random`` beside the policy's. Everything is checked before the first game, and no shipped file is
replaced without ``--replace``.

The publication table of a two-sided game (two players, or four in partnerships) is one command,
``python -m evaluate ppo:agents/policies/NAME.npz random heuristic --schedule first-vs-rest --games
2000 --seed 0 ...``; the bar is 55% against ``heuristic`` with the interval above 50%. In a game of
more sides (the four-player auctions, every player alone) a table of three different agents would
not measure the policy against either bot, so each bot gets its own command, the policy in one seat
and copies of the bot in the others (``ppo:... heuristic heuristic heuristic``: the policy at each
of the 4 sides of a deal, fair share 25%), as a training run's evaluation seats it; the bar is 1.25x
the fair share with the interval above the fair share, and a margin per hand with its interval above 0.
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
from agents.endgame import check_cards  # noqa: E402
from agents.policy_file import read_json, read_metadata  # noqa: E402
from allfours_env.rules import Rules  # noqa: E402
from evaluate import run_tournament  # noqa: E402
from train.checkpoints import checkpoint_step  # noqa: E402
from train.config import ConfigError, from_dict, load  # noqa: E402

BAR = 0.55  #: two sides: the win rate against heuristic a shipped policy aims for, its interval above 1/2
FFA_BAR = 1.25  #: more sides: the multiple of the fair share it aims for, interval and margin above it
BOTS = ("random", "heuristic")
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
    p.add_argument("--endgame", type=int, default=0,
                   help="the policy plays the last N cards of a hand by search (agents/endgame.py), "
                        "scored so and written into its .json (default: 0, the network alone)")
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
    try:  # as the run's config loads (a setting the run predates at its default), as --resume reads it
        ran = from_dict(read_json(args.run / "config.json", "run config")).to_dict()
    except ConfigError as err:
        raise ShipError(f"{args.run / 'config.json'}: {err}") from None
    differ = sorted(k for k in set(settings) | set(ran) if k != "out" and settings.get(k) != ran.get(k))
    if differ:
        raise ShipError(f"the run's settings differ from config {recipe!r} in {', '.join(differ)}: ship a "
                        f"run of that recipe, or name the right one with --config")
    for suffix in (".npz", ".json"):
        target = args.dest / f"{name}{suffix}"
        if target.exists() and not args.replace:
            raise ShipError(f"{target} exists: pass --replace to ship this run in its place")
    check_cards(args.endgame, "--endgame")
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


def num_sides(game: dict[str, Any]) -> int:
    """Sides of the policy's game: players, or partnerships."""
    return Rules.make(game["preset"], game["num_players"]).num_sides


def field(label: str, spec: str, bot: str, sides: int) -> dict[str, str]:
    """The agents of a table of ``label`` against ``bot``: one each with two sides; with more, copies
    of ``bot`` in every other side (labelled as the evaluation tool labels repeated specs)."""
    return {label: spec, bot: bot, **{f"{bot}#{n}": bot for n in range(2, sides)}}


def commands(agent: str, opponent: str | None, game: dict[str, Any], games: int,
             workers: int | None) -> list[str]:
    """The ``python -m evaluate`` lines that score ``agent`` against the bots (or ``opponent`` alone):
    one first-vs-rest table with two sides, one table per bot with more (see the module docstring)."""
    sides = num_sides(game)
    tail = f"--games {games} --seed 0 --preset {game['preset']} --players {game['num_players']}"
    tail += f" --workers {workers}" if workers else ""
    bots = [opponent] if opponent else list(BOTS)
    if sides == 2:
        return [f"python -m evaluate {agent} {' '.join(bots)} --schedule first-vs-rest {tail}"]
    return [f"python -m evaluate {agent} {' '.join([bot] * (sides - 1))} {tail}" for bot in bots]


def score(args: argparse.Namespace, label: str, game: dict[str, Any], model: str) -> dict[str, Any]:
    """The publication tables of the agent ``model`` (a spec) under ``label``, the other deal sets
    and heuristic's own rate against random."""
    sides = num_sides(game)
    options = dict(preset=game["preset"], players=game["num_players"], games=args.games, workers=args.workers)
    if sides == 2:
        table = run_tournament({label: model, **{bot: bot for bot in BOTS}}, seed=0, schedule="first-vs-rest",
                               **options)
        rows = {bot: row(table.result_for(label, bot)) for bot in BOTS}
    else:
        tables = {bot: run_tournament(field(label, model, bot, sides), seed=0, **options) for bot in BOTS}
        rows = {bot: row(table.result_for(label, bot)) for bot, table in tables.items()}
    others = {}
    for seed in args.seeds:
        result = run_tournament(field(label, model, "heuristic", sides), seed=seed, **options)
        others[f"seed {seed}"] = round(result.win_rate(label, "heuristic"), 3)
    bot = run_tournament(field("heuristic", "heuristic", "random", sides), seed=0, **options)
    return {"rows": rows, "others": others,
            "heuristic_vs_random": round(bot.win_rate("heuristic", "random"), 3)}


def bar_text(rows: dict[str, Any], mean: float, sets: int, bot: float, game: dict[str, Any],
             games: int) -> str:
    """Whether the publication table meets the bar, in a sentence with the figures that decide it."""
    sides = num_sides(game)
    share = 1 / sides
    aim, floor = (BAR, 0.5) if sides == 2 else (FFA_BAR * share, share)
    heuristic = rows["heuristic"]
    rate, (low, _) = heuristic["win_rate"], heuristic["win_rate_ci"]
    margin_low = heuristic["margin_per_hand_ci"][0]
    goal = (f"the {aim:.0%} against heuristic that a shipped policy aims for" if sides == 2 else
            f"the {aim:.2%} against {sides - 1} copies of heuristic that a shipped policy aims for "
            f"({FFA_BAR}x the fair share of {share:.0%}, with a margin per hand above 0)")
    if rate < aim:
        verdict = f"{goal} is missed by {100 * (aim - rate):.1f} points on these deals"
    elif low <= floor:
        verdict = f"{goal} is missed: the interval reaches down to {low:.1%}, not above {floor:.0%}"
    elif sides > 2 and margin_low <= 0:
        verdict = f"{goal} is missed: the margin's interval reaches down to {margin_low:+.3f}"
    else:
        verdict = f"{goal} is met ({rate:.1%}, interval from {low:.1%})"
    command = " and ".join(commands("heuristic", "random", game, games, None))
    total = sets * heuristic["games"]
    return (f"{verdict} ({mean:.1%} over the {sets} deal sets, {total:,} games); against random it "
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
    rows = scored["rows"]
    final = meta.get("final_eval", {}).get("heuristic")
    others = dict(scored["others"])
    if final is not None and final.get("games") == rows["heuristic"]["games"]:
        others["run final"] = round(final["win_rate"], 3)
    sets = [rows["heuristic"]["win_rate"], *others.values()]
    lines = commands(f"ppo:agents/policies/{name}.npz", None, game, args.games, args.workers)
    note = f"the heuristic row of the same tables with --seed {', '.join(map(str, args.seeds))}"
    if "run final" in others:
        note += ", and the run's own final table (as many games on other deals)"
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
        "commands": lines, **rows,
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
    scored = score(args, f"ppo:agents/policies/{name}.npz", game,
                   f"ppo:{args.run / 'model.npz'},endgame={args.endgame}")
    shipped = metadata(args, meta, recipe, name, scored)
    if args.endgame:
        shipped["play"] = {"endgame": args.endgame}
    args.dest.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(args.run / "model.npz", args.dest / f"{name}.npz")
    (args.dest / f"{name}.json").write_text(json.dumps(shipped, indent=1) + "\n")
    print(json.dumps(shipped["evaluation"], indent=1))
    print(f"shipped {args.dest / name}.npz and .json")
    return 0


if __name__ == "__main__":
    sys.exit(main())
