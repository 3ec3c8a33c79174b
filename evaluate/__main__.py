"""The command line: ``python -m evaluate AGENT AGENT ... [options]`` (also ``allfours-evaluate``).

    python -m evaluate random heuristic pimc --preset seven_up --players 2 --games 2000 \\
        --seed 0 --workers 2 --out runs/eval
    python -m evaluate random heuristic --games 2000 --ray auto    # deal groups as Ray tasks

``--games`` is the number of games **per pairing** (per table), counting every seating of a deal
group: at 2 players, 2000 games = 1000 deal groups each played twice with the seats swapped. It is
rounded up to whole deal groups (a note says so); the deal groups are generated as they are played,
so memory does not grow with ``--games``. Prints the Markdown report on stdout, its progress on
stderr (:mod:`evaluate.progress`: a bar on a terminal, a line every 30 s in a log), and writes the
files of :mod:`evaluate.report` into ``--out``, or without it into a new folder under
``runs/evaluate/`` (:mod:`evaluate.output`: a folder that holds results is refused unless
``--overwrite``; every input, the folder included, is checked before the first game).

Exit status: 0 done; 2 bad input (one line on stderr naming the problem, nothing written); 1 a game
failed (e.g. an agent chose an illegal action: one line names the error and the game; the games that
had finished are reported and saved) or the results could not be written; 130 interrupted with Ctrl-C
(the finished games are reported and saved).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from typing import Any

from agents.cli import MAX_GAMES, MAX_WORKERS, OneLineParser, count
from evaluate.games import describe_failure
from evaluate.output import OutputFolder
from evaluate.progress import format_duration, format_rate, interval
from evaluate.schedule import SCHEDULES
from evaluate.tournament import BACKENDS, Tournament, TournamentError

PROG = "allfours-evaluate"


def parser() -> argparse.ArgumentParser:
    """The command-line options."""
    p = OneLineParser(
        prog=PROG,
        description="Duplicate tournament between All Fours agents: every pairing plays the same deals "
        "with the seats rotated; prints a leaderboard and saves JSON, CSV and a plot.",
    )
    p.add_argument("agents", nargs="+", metavar="AGENT",
                   help="agent specs: random, heuristic, pimc, pimc:samples=16, ppo:path/to/model.npz")
    p.add_argument("--preset", default="seven_up", help="rules preset (default: seven_up)")
    p.add_argument("--players", type=int, default=2, help="players per game, 2-4 (default: 2)")
    p.add_argument("--rule", action="append", default=[], metavar="KNOB=VALUE",
                   help="override a rules knob, e.g. --rule target_points=11 (repeatable)")
    p.add_argument("--games", type=count(1, MAX_GAMES), default=1000,
                   help=f"games per pairing, all seatings of a deal group counted, at most {MAX_GAMES:,} "
                   f"(default: 1000)")
    p.add_argument("--seed", type=int, default=None, help="tournament seed (default: 0)")
    p.add_argument("--workers", type=count(1, MAX_WORKERS), default=None,
                   help=f"worker processes (Ray: tasks at once), at most {MAX_WORKERS}; results do not "
                   "depend on it (default: CPU count; Ray: the cluster's CPUs)")
    p.add_argument("--backend", choices=BACKENDS, default="local",
                   help="local worker processes, or deal groups as Ray tasks (needs allfours[rllib]; "
                   "same results)")
    p.add_argument("--ray", default=None, metavar="ADDRESS",
                   help="run on the Ray cluster at ADDRESS ('auto': the one `ray start` began on this "
                   "machine, HOST:PORT, ray://HOST:PORT); implies --backend ray")
    p.add_argument("--out", default=None, metavar="DIR",
                   help="folder for results.json, *.csv, results.png; refused if it holds results "
                   "(default: a new folder runs/evaluate/<agents>-<preset>-<players>p-seed<seed>[-N])")
    p.add_argument("--overwrite", action="store_true",
                   help="let the results of this run replace those already in --out DIR")
    p.add_argument("--records", action="store_true", help="also save every game record (records.jsonl)")
    p.add_argument("--no-plot", action="store_true", help="do not draw results.png")
    p.add_argument("--no-save", action="store_true", help="print the report only, write no files")
    p.add_argument("--table-size", type=int, default=None,
                   help="agents per game (3-player games: 2 = pairs such as A,A,B; 3 = three agents; "
                   "default: as many as there are sides, at most the number of agents)")
    p.add_argument("--schedule", choices=SCHEDULES, default="round-robin",
                   help="round-robin (every table) or first-vs-rest (the first agent against the others)")
    p.add_argument("--quiet", action="store_true",
                   help="no progress (a bar on a terminal; in a log a line every 30 s, or every "
                   "ALLFOURS_PROGRESS_SECONDS)")
    return p


def parse_knobs(items: Sequence[str]) -> dict[str, Any]:
    """``["target_points=11", 'turnup_scores={"J": 2}']`` -> knob dict (values read as JSON, else
    text)."""
    knobs = {}
    for item in items:
        key, eq, text = item.partition("=")
        if not eq or not key:
            raise TournamentError(f"--rule {item!r} must look like knob=value, e.g. target_points=11")
        try:
            knobs[key] = json.loads(text)
        except json.JSONDecodeError:
            knobs[key] = text
    return knobs


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    args = parser().parse_args(argv)
    try:
        return _run(args)
    except KeyboardInterrupt:  # outside the games (which handle it): while starting or writing
        print(f"{PROG}: interrupted by Ctrl-C", file=sys.stderr)
        return 130
    finally:
        if getattr(args, "ray_started", False):
            import ray

            ray.shutdown()


def check_options(args: argparse.Namespace) -> None:
    """Options that contradict each other or are out of range (TournamentError)."""
    if args.workers is not None and args.workers < 1:
        raise TournamentError(f"--workers must be at least 1, got {args.workers}")
    if args.out is not None and not args.out.strip():
        raise TournamentError("--out needs a folder name, got an empty one")
    if args.no_save:
        clash = [name for name, given in (("--out", args.out is not None), ("--overwrite", args.overwrite),
                                          ("--records", args.records)) if given]
        if clash:
            raise TournamentError(f"--no-save writes no files: drop {' and '.join(clash)}, or --no-save")
    elif args.overwrite and args.out is None:
        raise TournamentError("--overwrite replaces the results in --out DIR: give --out (without it, "
                              "every run gets a new folder)")


def _run(args: argparse.Namespace) -> int:
    """Set up, run, report and save a tournament from parsed arguments; returns the exit status."""
    backend = args.backend = "ray" if args.ray is not None else args.backend
    if args.workers is None and backend == "local":
        args.workers = min(os.cpu_count() or 1, MAX_WORKERS)
    try:
        check_options(args)
        if not args.quiet:
            try:
                interval()  # a bad ALLFOURS_PROGRESS_SECONDS is bad input, refused before any game
            except ValueError as err:
                raise TournamentError(str(err)) from None
        tournament = Tournament(
            args.agents, preset=args.preset, players=args.players, knobs=parse_knobs(args.rule),
            games=args.games, seed=0 if args.seed is None else args.seed, table_size=args.table_size,
            schedule=args.schedule, records=args.records,
            seed_note="seed 0 (default)" if args.seed is None else "",
        )
        if backend == "ray":  # connect before any folder is made: an unreachable cluster is bad input
            from evaluate.ray_backend import RayUnavailable, init_ray

            try:
                args.ray_started = init_ray(args.ray or "")  # main() disconnects
            except RayUnavailable as err:
                raise TournamentError(str(err)) from None
        folder = None
        if not args.no_save:
            if args.out is not None:
                folder = OutputFolder.given(args.out, overwrite=args.overwrite)
            else:
                folder = OutputFolder.new(tournament.labels, tournament.rules, tournament.seed)
    except TournamentError as err:
        print(f"{PROG}: error: {err}", file=sys.stderr)
        return 2
    saved = False
    try:
        status, saved = _play_and_save(args, tournament, folder)
        return status
    finally:
        if folder is not None and not saved:
            folder.release()


def _play_and_save(args: argparse.Namespace, tournament: Tournament,
                   folder: OutputFolder | None) -> tuple[int, bool]:
    """Run a checked tournament, print its report and save its files into ``folder``; returns the
    exit status and whether files were saved."""
    if tournament.games_per_table != args.games:
        seatings = len(tournament.tables[0].seatings)
        print(f"{PROG}: note: --games {args.games} rounded up to {tournament.games_per_table} per pairing "
              f"(whole deal groups of {seatings} seatings)", file=sys.stderr)
    try:
        result = tournament.run(workers=args.workers, progress=not args.quiet, backend=args.backend,
                                address=args.ray or "", on_error="stop")
    except Exception as err:  # outside the games: say what, without a traceback
        print(f"{PROG}: error: {describe_failure(err)}", file=sys.stderr)
        return 1, False
    if not result.games:
        if result.error:
            print(f"{PROG}: error: a game failed: {result.error}; no game had finished, nothing saved",
                  file=sys.stderr)
            return 1, False
        print(f"{PROG}: interrupted before any deal group finished; nothing to report", file=sys.stderr)
        return 130, False
    from evaluate.report import markdown, save

    print(markdown(result), end="")
    saved = folder is not None
    if folder is not None:
        try:
            paths = save(result, folder.path, plot=not args.no_plot)
        except OSError as err:
            print(f"{PROG}: error: cannot write results to {folder.path}: {err}", file=sys.stderr)
            return 1, True
        print(f"{PROG}: wrote {', '.join(p.name for p in paths)} to {folder.path}", file=sys.stderr)
    print(f"{PROG}: {len(result.games):,} games in {format_duration(result.elapsed_s)} "
          f"({format_rate(result.games_per_second, 'game')}, {result.workers} worker(s))", file=sys.stderr)
    if result.interrupted or result.error:
        used = result.summary()["games_used"]
        kept = (f"kept {len(result.games):,} finished games of {result.planned_games:,} ({used:,} in "
                f"complete deal groups are in the statistics)")
        if result.error:
            print(f"{PROG}: error: a game failed: {result.error}; {kept}", file=sys.stderr)
            return 1, saved
        print(f"{PROG}: interrupted by Ctrl-C: {kept}", file=sys.stderr)
        return 130, saved
    return 0, saved


if __name__ == "__main__":
    sys.exit(main())
