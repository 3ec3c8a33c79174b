"""Long differential runs of the batched core against the reference AEC env.

    python scripts/batched_differential.py                       # 10,000 games per preset x players
    python scripts/batched_differential.py --games 500 --preset seven_up

Every configuration (each preset at each of its player counts) plays ``--games`` random games in both
engines with the same packs and actions, in chunks of ``--chunk`` games stepped together, and every
decision is compared (allfours_env.batched.differential). Prints games, decisions, games that ran out
of stacked packs (not compared further) and mismatches per configuration; exits 1 on any mismatch.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

# Compile fast: this checks results, not speed (XLA's backend optimisations cost most of a compile).
os.environ.setdefault("XLA_FLAGS", "--xla_backend_optimization_level=0")

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from allfours_env import PRESETS  # noqa: E402
from allfours_env.batched import make  # noqa: E402
from allfours_env.batched.differential import compare  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=10_000, help="games per configuration")
    parser.add_argument("--chunk", type=int, default=500, help="games stepped together")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--max-hands", type=int, default=40, help="the hand cap of both engines")
    parser.add_argument("--preset", action="append", choices=sorted(PRESETS), help="only these presets")
    args = parser.parse_args(argv)
    if args.games < 1 or args.chunk < 1:
        parser.error("--games and --chunk must be at least 1")
    print(f"{'configuration':<24}{'games':>8}{'decisions':>12}{'out of packs':>14}{'mismatches':>12}"
          f"{'seconds':>9}")
    failed = False
    for preset in args.preset or list(PRESETS):
        for players in PRESETS[preset]["players"]:
            env = make(preset, players, max_hands=args.max_hands)
            start = time.perf_counter()
            games = decisions = out = 0
            mismatches: list[str] = []
            for first in range(0, args.games, args.chunk):
                count = min(args.chunk, args.games - first)
                report = compare(preset, players, count, seed=args.seed * 1_000_003 + first,
                                 max_hands=args.max_hands, env=env)
                games += report.games
                decisions += report.decisions
                out += report.out_of_packs
                mismatches += report.mismatches
            seconds = time.perf_counter() - start
            print(f"{f'{preset} {players}p':<24}{games:>8,}{decisions:>12,}{out:>14,}{len(mismatches):>12,}"
                  f"{seconds:>9.0f}", flush=True)
            for line in mismatches[:5]:
                print("   ", line)
            failed |= bool(mismatches)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
