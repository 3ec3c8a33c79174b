"""Long differential runs of the batched core against the reference AEC env.

    python scripts/batched_differential.py                       # 10,000 games per preset x players
    python scripts/batched_differential.py --games 500 --preset seven_up --workers 2

Every configuration (each preset at each of its player counts) plays ``--games`` random games in both
engines with the same packs and actions, ``--batch`` of them stepped together, and every decision is
compared (allfours_env.batched.differential). Game ``i`` of a configuration depends only on ``--seed``
and ``i``, so the figures do not depend on ``--batch``, ``--chunk`` or ``--workers``. ``--workers``
processes take whole configurations; each prints a progress line per ``--chunk`` games, and each
configuration's row (games, decisions, games that ran out of stacked packs — not compared further —,
games with a mismatch, seconds; the first mismatches below it) is printed when it finishes. Exits 1 on
any mismatch.
"""

from __future__ import annotations

import argparse
import multiprocessing
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from allfours_env import PRESETS  # noqa: E402

Config = tuple[str, int]


def run_config(preset: str, players: int, games: int, seed: int, max_hands: int, batch: int,
               chunk: int) -> tuple[Config, object, float]:
    """Compare ``games`` games of one configuration, ``chunk`` per call (a progress line after each);
    its report and the seconds it took."""
    from allfours_env.batched import make
    from allfours_env.batched.differential import Report, compare

    start = time.perf_counter()
    env = make(preset, players, max_hands=max_hands)
    total = Report(f"{preset} {players}p")
    for first in range(0, games, chunk):
        count = min(chunk, games - first)
        report = compare(preset, players, count, seed, first=first, batch=batch, max_hands=max_hands, env=env)
        total.add(report)
        print(f"    {preset} {players}p games {first:,}-{first + count - 1:,}: {report.games:,} compared, "
              f"{report.decisions:,} decisions, {report.out_of_packs:,} out of packs, "
              f"{report.mismatched_games:,} with a mismatch ({time.perf_counter() - start:.0f} s so far)",
              flush=True)
    return (preset, players), total, time.perf_counter() - start


def _run(args: tuple) -> tuple[Config, object, float]:
    return run_config(*args)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=10_000, help="games per configuration")
    parser.add_argument("--batch", type=int, default=512, help="games stepped together")
    parser.add_argument("--chunk", type=int, default=1_000, help="games per progress line")
    parser.add_argument("--workers", type=int, default=1, help="processes, each taking whole configurations")
    parser.add_argument("--seed", type=int, default=0, help="fixes every game (at least 0)")
    parser.add_argument("--max-hands", type=int, default=40, help="the hand cap of both engines")
    parser.add_argument("--preset", action="append", choices=sorted(PRESETS), help="only these presets")
    args = parser.parse_args(argv)
    if min(args.games, args.batch, args.chunk, args.workers, args.max_hands) < 1:
        parser.error("--games, --batch, --chunk, --workers and --max-hands must be at least 1")
    if args.seed < 0:
        parser.error(f"--seed must be at least 0, got {args.seed}")
    jobs = [(preset, players, args.games, args.seed, args.max_hands, args.batch, args.chunk)
            for preset in args.preset or list(PRESETS) for players in PRESETS[preset]["players"]]
    print(f"{'configuration':<24}{'games':>8}{'decisions':>12}{'out of packs':>14}{'mismatched':>12}"
          f"{'seconds':>9}", flush=True)
    failed = False
    if args.workers == 1:
        results = map(_run, jobs)
    else:  # spawned (not forked) workers: JAX runs threads
        pool = multiprocessing.get_context("spawn").Pool(min(args.workers, len(jobs)))
        results = pool.imap_unordered(_run, jobs)
    for (preset, players), report, seconds in results:
        print(f"{f'{preset} {players}p':<24}{report.games:>8,}{report.decisions:>12,}"
              f"{report.out_of_packs:>14,}{report.mismatched_games:>12,}{seconds:>9.0f}", flush=True)
        for line in report.mismatches[:5]:
            print("   ", line, flush=True)
        failed |= report.mismatched_games > 0
    if args.workers > 1:
        pool.close()
        pool.join()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
