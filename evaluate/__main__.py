"""The command line: ``python -m evaluate AGENT AGENT ... [options]`` (also ``allfours-evaluate``).

    python -m evaluate random heuristic pimc --preset seven_up --players 2 --games 2000 \\
        --seed 0 --workers 2 --out runs/eval
    python -m evaluate random heuristic --games 2000 --ray auto    # deal groups as Ray tasks

``--games`` is the number of games **per pairing** (per table), counting every seating of a deal
group: at 2 players, 2000 games = 1000 deal groups each played twice with the seats swapped. It is
rounded up to whole deal groups (a note says so). Prints the Markdown report on stdout, a progress
bar with an ETA on stderr, and writes the files of :mod:`evaluate.report` into ``--out``.

Exit status: 0 done; 2 bad input (one line on stderr naming the problem); 1 a game failed (e.g. an
agent chose an illegal action); 130 interrupted with Ctrl-C (the finished games are reported and
saved).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

from evaluate.schedule import SCHEDULES
from evaluate.tournament import BACKENDS, Tournament, TournamentError

PROG = "allfours-evaluate"


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line on stderr (and exit status 2)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{PROG}: error: {message} (see --help)\n")


def parser() -> argparse.ArgumentParser:
    """The command-line options."""
    p = _Parser(
        prog=PROG,
        description="Duplicate tournament between All Fours agents: every pairing plays the same deals "
        "with the seats rotated; prints a leaderboard and saves JSON, CSV and a plot.",
    )
    p.add_argument("agents", nargs="+", metavar="AGENT",
                   help="agent specs: random, heuristic, pimc, pimc:samples=16, ppo:path/to/model.zip")
    p.add_argument("--preset", default="seven_up", help="rules preset (default: seven_up)")
    p.add_argument("--players", type=int, default=2, help="players per game, 2-4 (default: 2)")
    p.add_argument("--rule", action="append", default=[], metavar="KNOB=VALUE",
                   help="override a rules knob, e.g. --rule target_points=11 (repeatable)")
    p.add_argument("--games", type=int, default=1000,
                   help="games per pairing, all seatings of a deal group counted (default: 1000)")
    p.add_argument("--seed", type=int, default=0, help="tournament seed (default: 0)")
    p.add_argument("--workers", type=int, default=None,
                   help="worker processes (Ray: tasks at once); results do not depend on it "
                   "(default: CPU count; Ray: the cluster's CPUs)")
    p.add_argument("--backend", choices=BACKENDS, default="local",
                   help="local worker processes, or deal groups as Ray tasks (needs allfours[rllib]; "
                   "same results)")
    p.add_argument("--ray", default=None, metavar="ADDRESS",
                   help="run on the Ray cluster at ADDRESS ('auto': the one `ray start` began on this "
                   "machine, HOST:PORT, ray://HOST:PORT); implies --backend ray")
    p.add_argument("--out", default=None, metavar="DIR",
                   help="folder for results.json, *.csv, results.png (default: runs/evaluate/"
                   "<preset>-<players>p-seed<seed>)")
    p.add_argument("--records", action="store_true", help="also save every game record (records.jsonl)")
    p.add_argument("--no-plot", action="store_true", help="do not draw results.png")
    p.add_argument("--no-save", action="store_true", help="print the report only, write no files")
    p.add_argument("--table-size", type=int, default=None,
                   help="agents per game (3-player games: 2 = pairs such as A,A,B; 3 = three agents; "
                   "default: as many as there are sides, at most the number of agents)")
    p.add_argument("--schedule", choices=SCHEDULES, default="round-robin",
                   help="round-robin (every table) or first-vs-rest (the first agent against the others)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
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


def _run(args: argparse.Namespace) -> int:
    """Set up, run, report and save a tournament from parsed arguments; returns the exit status."""
    backend = "ray" if args.ray is not None else args.backend
    workers = args.workers if args.workers is not None or backend == "ray" else os.cpu_count() or 1
    try:
        if workers is not None and workers < 1:
            raise TournamentError(f"--workers must be at least 1, got {workers}")
        tournament = Tournament(
            args.agents, preset=args.preset, players=args.players, knobs=parse_knobs(args.rule),
            games=args.games, seed=args.seed, table_size=args.table_size, schedule=args.schedule,
            records=args.records,
        )
    except TournamentError as err:
        print(f"{PROG}: error: {err}", file=sys.stderr)
        return 2
    if backend == "ray":
        from evaluate.ray_backend import RayUnavailable, init_ray

        try:
            args.ray_started = init_ray(args.ray or "")  # main() disconnects
        except RayUnavailable as err:
            print(f"{PROG}: error: {err}", file=sys.stderr)
            return 2
    if tournament.games_per_table != args.games:
        seatings = len(tournament.tables[0].seatings)
        print(f"{PROG}: note: --games {args.games} rounded up to {tournament.games_per_table} per pairing "
              f"(whole deal groups of {seatings} seatings)", file=sys.stderr)
    try:
        result = tournament.run(workers=workers, progress=not args.quiet, backend=backend,
                                address=args.ray or "")
    except Exception as err:  # a game failed in an agent; say which, without a traceback
        print(f"{PROG}: error: a game failed: {type(err).__name__}: {err}", file=sys.stderr)
        return 1
    if not result.games:
        print(f"{PROG}: interrupted before any deal group finished; nothing to report", file=sys.stderr)
        return 130
    from evaluate.report import markdown, save

    print(markdown(result), end="")
    if not args.no_save:
        out = args.out or os.path.join("runs", "evaluate", f"{args.preset}-{args.players}p-seed{args.seed}")
        try:
            paths = save(result, out, plot=not args.no_plot)
        except OSError as err:
            print(f"{PROG}: error: cannot write results to {out}: {err}", file=sys.stderr)
            return 1
        print(f"{PROG}: wrote {', '.join(p.name for p in paths)} to {out}", file=sys.stderr)
    print(f"{PROG}: {len(result.games):,} games in {result.elapsed_s:.1f} s "
          f"({result.games_per_second:,.0f} games/s, {result.workers} worker(s))", file=sys.stderr)
    if result.interrupted:
        used = result.summary()["games_used"]
        print(f"{PROG}: interrupted by Ctrl-C: kept {len(result.games):,} finished games of "
              f"{result.planned_games:,} ({used:,} in complete deal groups are in the statistics)",
              file=sys.stderr)
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
