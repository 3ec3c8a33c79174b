"""Pool tournaments played on different seeds into one sample: ``python -m evaluate.pool DIR DIR ...``.

A long measurement can run in pieces — one tournament per seed, on different machines or on
different days — and be pooled afterwards. Deal groups of different seeds are independent draws, so
the games of all pieces are one bigger sample of the same tournament::

    python -m evaluate pimc heuristic --preset shasta_sam --games 100 --seed 0 --out runs/ss0
    python -m evaluate pimc heuristic --preset shasta_sam --games 600 --seed 1 --out runs/ss1
    python -m evaluate.pool runs/ss0 runs/ss1

Each folder is one written by ``python -m evaluate``: its ``results.json`` says what was played and
its ``games.csv`` holds one row per game (both plain text, nothing is unpickled). The folders must
hold the same tournament — agents, specs, preset, players, rules, table size and schedule — on
different seeds (the same seed twice would count the same deals twice). The report gives the
leaderboard and the pairings over all complete deal groups (win rates with Wilson intervals,
margins with bootstrap intervals over deal groups, as :mod:`evaluate.stats` computes them for one
tournament). ``games.csv`` keeps no points by kind and no beg/gift/run counts, so those are not
pooled (shown as "–").

Exit status: 0 done; 2 bad input (one line on stderr naming the problem and the folder).
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from agents.cli import OneLineParser
from allfours_env.rules import Rules, RulesError
from evaluate.games import DECISIONS, GameSummary
from evaluate.report import markdown
from evaluate.schedule import make_tables
from evaluate.tournament import TournamentResult

PROG = "allfours-evaluate-pool"
#: The parts of ``results.json``'s config that must agree for tournaments to be pooled.
SAME_TOURNAMENT = ("agents", "specs", "preset", "players", "rules", "table_size", "schedule")


class PoolError(ValueError):
    """Folders that cannot be pooled: missing or malformed files, different tournaments, a seed twice."""


def read_config(folder: Path) -> dict[str, Any]:
    """The ``config`` of ``folder/results.json``."""
    path = folder / "results.json"
    try:
        config = json.loads(path.read_text(encoding="utf-8"))["config"]
    except FileNotFoundError:
        raise PoolError(f"{folder}: no results.json — give folders written by `python -m evaluate`") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, KeyError, TypeError) as err:
        raise PoolError(f"{path}: not a results file of `python -m evaluate` ({err})") from None
    missing = [key for key in (*SAME_TOURNAMENT, "seed") if key not in config]
    if missing:
        raise PoolError(f"{path}: the config lacks {', '.join(missing)}; rerun that tournament")
    return config


def read_games(folder: Path, labels: Sequence[str], sides: int, first_index: int,
               first_group: int) -> list[GameSummary]:
    """The games of ``folder/games.csv`` (``sides`` sides held by agents of ``labels``), numbered
    from ``first_index`` and their deal groups from ``first_group`` (so that the deal groups of
    different seeds stay apart)."""
    path = folder / "games.csv"
    games = []
    try:
        with path.open(newline="", encoding="utf-8") as handle:
            for row in csv.DictReader(handle):
                games.append(GameSummary(
                    index=first_index + len(games), table=int(row["table"]),
                    group=first_group + int(row["group"]), seating=int(row["seating"]),
                    sides=tuple(labels.index(row[f"side{s}_agent"]) for s in range(sides)),
                    scores=tuple(int(row[f"side{s}_score"]) for s in range(sides)),
                    winner=int(row["winner_side"]), hands=int(row["hands"]), deals=int(row["deals"]),
                    awards={}, decisions=((0,) * len(DECISIONS),) * sides, contracts=None,
                ))
    except FileNotFoundError:
        raise PoolError(f"{folder}: no games.csv — was that tournament saved (not --no-save)?") from None
    except (OSError, UnicodeDecodeError, csv.Error, KeyError, TypeError, ValueError) as err:
        raise PoolError(f"{path}: not a games file of `python -m evaluate` ({err!r})") from None
    return games


def pool(folders: Sequence[str | Path]) -> tuple[TournamentResult, list[int]]:
    """One :class:`~evaluate.tournament.TournamentResult` holding the games of every folder (see the
    module docstring for what must agree; its ``seed`` is the first folder's), and the seeds."""
    if not folders:
        raise PoolError("give at least one tournament folder")
    paths = [Path(folder) for folder in folders]
    configs = [read_config(path) for path in paths]
    first = configs[0]
    seen: dict[int, Path] = {}
    for path, config in zip(paths, configs):
        for key in SAME_TOURNAMENT:
            if config[key] != first[key]:
                raise PoolError(f"{path} is another tournament than {paths[0]}: its {key} differs "
                                f"({config[key]!r} vs {first[key]!r}); pool runs of one tournament only")
        if config["seed"] in seen:
            raise PoolError(f"{path} and {seen[config['seed']]} both used seed {config['seed']}: the same "
                            "deals would count twice; pool runs of different seeds")
        seen[config["seed"]] = path
    try:
        rules = Rules.from_dict(first["rules"])
    except (RulesError, TypeError, ValueError) as err:
        raise PoolError(f"{paths[0] / 'results.json'}: its rules do not load ({err})") from None
    labels = list(first["agents"])
    shape = make_tables(len(labels), rules.num_sides, 1, first["table_size"], first["schedule"])
    games: list[GameSummary] = []
    groups = 0
    for path in paths:
        run = read_games(path, labels, rules.num_sides, len(games), groups)
        for game in run:
            if not (0 <= game.table < len(shape) and 0 <= game.seating < len(shape[game.table].seatings)):
                raise PoolError(f"{path / 'games.csv'}: game {game.index - len(games)} names table "
                                f"{game.table}, seating {game.seating}, which this tournament lacks")
        games += run
        groups = max((game.group for game in run), default=groups - 1) + 1
    per_table = groups * len(shape[0].seatings)
    tables = make_tables(len(labels), rules.num_sides, per_table, first["table_size"], first["schedule"])
    result = TournamentResult(
        labels=labels, specs=list(first["specs"]), rules=rules, seed=first["seed"],
        games_per_table=per_table, table_size=first["table_size"], schedule=first["schedule"],
        tables=tables, games=games,
    )
    return result, [config["seed"] for config in configs]


def report(result: TournamentResult, seeds: Sequence[int]) -> str:
    """The Markdown report of a pooled result (no points by kind: see the module docstring)."""
    return markdown(result, kinds=False, seeds=f"seeds {', '.join(map(str, seeds))} pooled")


def parser() -> argparse.ArgumentParser:
    """The command-line options."""
    p = OneLineParser(prog=PROG, description="Pool the games of tournaments played on different seeds "
                      "(folders written by `python -m evaluate`) and report them as one sample.")
    p.add_argument("folders", nargs="+", metavar="DIR", help="tournament folders (results.json, games.csv)")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    args = parser().parse_args(argv)
    try:
        result, seeds = pool(args.folders)
    except PoolError as err:
        print(f"{PROG}: {err}", file=sys.stderr)
        return 2
    print(report(result, seeds), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
