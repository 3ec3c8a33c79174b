"""Pool tournaments played on different seeds into one sample: ``python -m evaluate.pool DIR DIR ...``.

A long measurement can run in pieces — one tournament per seed, on different machines or on
different days — and be pooled afterwards. Deal groups of different seeds are independent draws, so
the games of all pieces are one bigger sample of the same tournament::

    python -m evaluate pimc heuristic --preset shasta_sam --games 100 --seed 0 --out runs/ss0
    python -m evaluate pimc heuristic --preset shasta_sam --games 600 --seed 1 --out runs/ss1
    python -m evaluate.pool runs/ss0 runs/ss1                  # prints the pooled report
    python -m evaluate.pool runs/ss0 runs/ss1 --out runs/ss    # and saves it like one tournament

Each folder is one written by ``python -m evaluate``: its ``results.json`` says what was played and
its ``games.csv`` holds one row per game (both plain text, nothing is unpickled). The folders must
hold the same tournament — agents, specs, preset, players, rules, table size and schedule — on
different seeds (the same seed twice would count the same deals twice). The report gives the
leaderboard and the pairings over all complete deal groups (win rates with Wilson intervals,
margins with bootstrap intervals over deal groups, as :mod:`evaluate.stats` computes them for one
tournament), and the points by kind, the bidding (beg/gift/run; bid, contracts, made) likewise —
unless a folder was written by a version whose ``games.csv`` kept only the scores: then those are
left out (shown as "–", no table of points by kind).

With ``--out`` the pooled result is saved as a tournament's (its ``results.json`` config lists the
``pooled_seeds``; its run's ``elapsed_s`` sums the pieces' and ``workers`` is the most any used), so
it can be pooled again with runs of further seeds — never with one of its own.

Exit status: 0 done; 2 bad input (one line on stderr naming the problem and the folder, nothing
written); 1 the results could not be written.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from agents.cli import OneLineParser
from allfours_env.rules import Rules, RulesError
from evaluate.games import CONTRACT_FIELDS, DECISIONS, GameSummary
from evaluate.output import OutputFolder
from evaluate.report import markdown, save
from evaluate.schedule import first_copies, make_tables
from evaluate.tournament import TournamentError, TournamentResult

PROG = "allfours-evaluate-pool"
#: The parts of ``results.json``'s config that must agree for tournaments to be pooled.
SAME_TOURNAMENT = ("agents", "specs", "preset", "players", "rules", "table_size", "schedule")


class PoolError(ValueError):
    """Folders that cannot be pooled: missing or malformed files, different tournaments, a seed twice."""


def read_results(folder: Path) -> tuple[dict[str, Any], float, int]:
    """The ``config`` of ``folder/results.json``, and the seconds and workers its run took."""
    path = folder / "results.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        config, run = data["config"], data.get("run", {})
        seconds, workers = float(run.get("elapsed_s", 0.0)), int(run.get("workers", 1))
    except FileNotFoundError:
        raise PoolError(f"{folder}: no results.json — give folders written by `python -m evaluate`") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, KeyError, TypeError, ValueError,
            AttributeError) as err:
        raise PoolError(f"{path}: not a results file of `python -m evaluate` ({err})") from None
    missing = [key for key in (*SAME_TOURNAMENT, "seed") if key not in config]
    if missing:
        raise PoolError(f"{path}: the config lacks {', '.join(missing)}; rerun that tournament")
    return config, seconds, workers


def read_games(folder: Path, labels: Sequence[str], sides: int, first_index: int,
               first_group: int) -> tuple[list[GameSummary], bool]:
    """The games of ``folder/games.csv`` (``sides`` sides held by agents of ``labels``), numbered
    from ``first_index`` and their deal groups from ``first_group`` (so that the deal groups of
    different seeds stay apart), and whether the file holds the points by kind, decisions and
    contracts of each side (files of older versions hold only scores)."""
    path = folder / "games.csv"
    games = []
    try:
        with path.open(newline="", encoding="utf-8") as handle:
            reader = csv.DictReader(handle)
            columns = reader.fieldnames or []
            kinds = [column.removeprefix("side0_points_") for column in columns
                     if column.startswith("side0_points_")]
            contracts = "side0_contracts_won" in columns
            for row in reader:
                index = first_index + len(games)
                games.append(_game(row, kinds, contracts, labels, sides, index, first_group))
    except FileNotFoundError:
        raise PoolError(f"{folder}: no games.csv — was that tournament saved (not --no-save)?") from None
    except (OSError, UnicodeDecodeError, csv.Error, KeyError, TypeError, ValueError) as err:
        raise PoolError(f"{path}: not a games file of `python -m evaluate` ({err!r})") from None
    return games, bool(kinds)


def _game(row: dict[str, str], kinds: Sequence[str], contracts: bool, labels: Sequence[str], sides: int,
          index: int, first_group: int) -> GameSummary:
    """One row of ``games.csv`` (see :func:`evaluate.report.game_rows`; ``kinds``: the kinds of point
    its columns hold, ``contracts``: whether it holds contracts) as a game summary; an empty or
    missing count is 0, a kind nobody scored in the game is left out as the game left it out."""
    def count(column: str) -> int:
        return int(row.get(column) or 0)

    return GameSummary(
        index=index, table=int(row["table"]), group=first_group + int(row["group"]),
        seating=int(row["seating"]),
        sides=tuple(labels.index(row[f"side{s}_agent"]) for s in range(sides)),
        scores=tuple(int(row[f"side{s}_score"]) for s in range(sides)),
        winner=int(row["winner_side"]), hands=int(row["hands"]), deals=int(row["deals"]),
        awards={kind: tuple(count(f"side{s}_points_{kind}") for s in range(sides))
                for kind in kinds if row[f"side0_points_{kind}"]},
        decisions=tuple(tuple(count(f"side{s}_decisions_{name}") for name in DECISIONS)
                        for s in range(sides)),
        contracts=tuple(tuple(count(f"side{s}_contracts_{name}") for name in CONTRACT_FIELDS)
                        for s in range(sides)) if contracts else None,
    )


def _without_details(game: GameSummary) -> GameSummary:
    """``game`` with its points by kind, decisions and contracts unknown (pooled with a folder of
    an older version, which kept none of them)."""
    return replace(game, awards={}, decisions=((0,) * len(DECISIONS),) * len(game.sides), contracts=None)


def pool(folders: Sequence[str | Path]) -> tuple[TournamentResult, bool]:
    """One :class:`~evaluate.tournament.TournamentResult` holding the games of every folder (see the
    module docstring for what must agree; its ``seed`` is the first folder's, its ``pooled_seeds``
    all of them), and whether every folder kept the points by kind, decisions and contracts (else
    none are used)."""
    if not folders:
        raise PoolError("give at least one tournament folder")
    paths = [Path(folder) for folder in folders]
    results = [read_results(path) for path in paths]
    configs = [config for config, _, _ in results]
    first = configs[0]
    seen: dict[int, Path] = {}
    for path, config in zip(paths, configs):
        for key in SAME_TOURNAMENT:
            if config[key] != first[key]:
                raise PoolError(f"{path} is another tournament than {paths[0]}: its {key} differs "
                                f"({config[key]!r} vs {first[key]!r}); pool runs of one tournament only")
        for seed in seeds_of(config):
            if seed in seen:
                raise PoolError(f"{path} and {seen[seed]} both hold the games of seed {seed}: the same "
                                "deals would count twice; pool runs of different seeds")
            seen[seed] = path
    try:
        rules = Rules.from_dict(first["rules"])
    except (RulesError, TypeError, ValueError) as err:
        raise PoolError(f"{paths[0] / 'results.json'}: its rules do not load ({err})") from None
    labels = list(first["agents"])
    copies = first_copies(first["specs"], first["table_size"])
    shape = make_tables(len(labels), rules.num_sides, 1, first["table_size"], first["schedule"], copies)
    games: list[GameSummary] = []
    groups = 0
    detailed = True
    for path in paths:
        run, details = read_games(path, labels, rules.num_sides, len(games), groups)
        detailed = detailed and details
        for game in run:
            if not (0 <= game.table < len(shape) and 0 <= game.seating < len(shape[game.table].seatings)):
                raise PoolError(f"{path / 'games.csv'}: game {game.index - len(games)} names table "
                                f"{game.table}, seating {game.seating}, which this tournament lacks")
        games += run
        groups = max((game.group for game in run), default=groups - 1) + 1
    if not detailed:
        games = [_without_details(game) for game in games]
    per_table = groups * len(shape[0].seatings)
    tables = make_tables(len(labels), rules.num_sides, per_table, first["table_size"], first["schedule"],
                         copies)
    result = TournamentResult(
        labels=labels, specs=list(first["specs"]), rules=rules, seed=first["seed"],
        games_per_table=per_table, table_size=first["table_size"], schedule=first["schedule"],
        tables=tables, games=games, pooled_seeds=tuple(seen),
        elapsed_s=sum(seconds for _, seconds, _ in results),
        workers=max(workers for _, _, workers in results),
    )
    return result, detailed


def seeds_of(config: dict[str, Any]) -> list[int]:
    """The seeds whose games a tournament folder holds: its own, or those it pooled."""
    return list(config.get("pooled_seeds") or [config["seed"]])


def parser() -> argparse.ArgumentParser:
    """The command-line options."""
    p = OneLineParser(prog=PROG, description="Pool the games of tournaments played on different seeds "
                      "(folders written by `python -m evaluate`) and report them as one sample.")
    p.add_argument("folders", nargs="+", metavar="DIR", help="tournament folders (results.json, games.csv)")
    p.add_argument("--out", metavar="DIR", default=None,
                   help="also save the pooled result there (results.json, *.csv, results.png, as "
                   "`python -m evaluate` does; it can be pooled again); refused if it holds results")
    p.add_argument("--overwrite", action="store_true", help="let the pooled result replace those in --out")
    p.add_argument("--no-plot", action="store_true", help="do not draw results.png")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    args = parser().parse_args(argv)
    try:
        if args.overwrite and args.out is None:
            raise PoolError("--overwrite replaces the results in --out DIR: give --out")
        if args.out is not None and any(Path(args.out).resolve() == Path(f).resolve() for f in args.folders):
            raise PoolError(f"--out {args.out} is one of the folders pooled: give a new folder")
        result, detailed = pool(args.folders)
        folder = OutputFolder.given(args.out, overwrite=args.overwrite) if args.out is not None else None
    except (PoolError, TournamentError) as err:
        print(f"{PROG}: error: {err}", file=sys.stderr)
        return 2
    print(markdown(result, kinds=detailed), end="")
    if folder is not None:
        try:
            paths = save(result, folder.path, plot=not args.no_plot)
        except OSError as err:
            folder.release()
            print(f"{PROG}: error: cannot write results to {folder.path}: {err}", file=sys.stderr)
            return 1
        print(f"{PROG}: wrote {', '.join(p.name for p in paths)} to {folder.path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
