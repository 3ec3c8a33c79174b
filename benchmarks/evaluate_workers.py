"""How tournaments scale with worker processes: games/s with ``--workers 1`` and ``--workers N``.

    python benchmarks/evaluate_workers.py                          # heuristic vs random, 1 vs 2 workers
    python benchmarks/evaluate_workers.py --agents pimc:samples=4 heuristic --games 200 --workers 1 2

The same tournament (same agents, games and seed) is run with each worker count, ``--repeats``
times, alternating the counts so that load on a shared machine hits them alike; the median games/s
and its ratio to one worker are printed. The results must be identical whatever the worker count
(the script checks it), so the comparison is like for like.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from evaluate import run_tournament  # noqa: E402


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--agents", nargs="+", default=["heuristic", "random"], help="agent specs")
    parser.add_argument("--games", type=int, default=4000, help="games per pairing")
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2], help="worker counts to compare")
    parser.add_argument("--repeats", type=int, default=3, help="repetitions; medians are reported")
    parser.add_argument("--preset", default="seven_up")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    rates: dict[int, list[float]] = {w: [] for w in args.workers}
    outcomes: dict[int, list] = {}
    for _ in range(args.repeats):
        for workers in args.workers:
            result = run_tournament(args.agents, preset=args.preset, players=args.players,
                                    games=args.games, seed=args.seed, workers=workers)
            rates[workers].append(result.games_per_second)
            outcomes.setdefault(workers, [g.to_tuple() for g in result.games])
    reference = outcomes[args.workers[0]]
    if any(outcome != reference for outcome in outcomes.values()):
        raise SystemExit("results differ between worker counts: tournaments are not reproducible")

    print(f"{' vs '.join(args.agents)}, {args.preset} {args.players}p, {args.games} games x "
          f"{args.repeats}, median games/s (identical results for every worker count)")
    base = statistics.median(rates[args.workers[0]])
    for workers in args.workers:
        rate = statistics.median(rates[workers])
        print(f"  workers={workers}: {rate:8,.1f} games/s   {rate / base:4.2f}x")


if __name__ == "__main__":
    main()
