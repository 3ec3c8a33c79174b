"""The working tree's ``heuristic`` against the ``heuristic`` of an older revision, on duplicate deals.

    python benchmarks/heuristic_revisions.py af9537b --preset seven_up --players 2 --games 2000
    python benchmarks/heuristic_revisions.py af9537b --preset auction_pitch --players 4 --games 2002

``agents/heuristic.py`` of the revision is read with ``git show`` and imported under another module
name, beside the working tree's; it runs on the working tree's ``allfours_env`` (a revision whose
heuristic needs an older core cannot be measured this way). The two play a duplicate tournament
(:func:`evaluate.run_tournament`: every seating of the two agents on the same deal groups), in this
process.

Printed, for the new heuristic: games, the win rate with its 95% Wilson interval, its fair share,
and the margin in points per hand (its sides' points per hand minus the old one's) with its 95%
bootstrap interval over deal groups. With four players each alone (the auctions) the seatings give
the new heuristic one, two or three of the four sides: its fair share of the games is then 25%, 50%
or 75% by seating, 50% over a whole deal group; the win rate is also printed by seating.
"""

from __future__ import annotations

import argparse
import importlib.util
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from agents.heuristic import HeuristicAgent  # noqa: E402
from evaluate import run_tournament  # noqa: E402
from evaluate.stats import wilson_interval  # noqa: E402

OLD_MODULE = "heuristic_before"


def old_heuristic_class(revision: str) -> type:
    """The ``HeuristicAgent`` class of ``agents/heuristic.py`` at ``revision``."""
    try:
        source = subprocess.run(["git", "-C", str(ROOT), "show", f"{revision}:agents/heuristic.py"],
                                check=True, capture_output=True, text=True).stdout
    except subprocess.CalledProcessError as err:
        sys.exit(f"heuristic_revisions.py: error: git cannot read agents/heuristic.py at {revision!r}: "
                 f"{err.stderr.strip()}")
    spec = importlib.util.spec_from_loader(OLD_MODULE, loader=None)
    module = importlib.util.module_from_spec(spec)
    sys.modules[OLD_MODULE] = module  # dataclasses look their module up
    exec(compile(source, f"{revision}:agents/heuristic.py", "exec"), module.__dict__)
    return module.HeuristicAgent


def by_seating(result, agent: int) -> list[tuple[int, int, int]]:
    """For each number of sides ``agent`` held: (sides, games, wins)."""
    tally: dict[int, list[int]] = defaultdict(lambda: [0, 0])
    for game in result.games:
        held = sum(1 for who in game.sides if who == agent)
        tally[held][0] += 1
        tally[held][1] += game.winning_agent == agent
    return [(held, games, wins) for held, (games, wins) in sorted(tally.items())]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("revision", help="the git revision whose heuristic is the old one")
    parser.add_argument("--preset", default="seven_up")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--games", type=int, default=200, help="games (rounded up to whole deal groups)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error("--games must be a whole number >= 1")
    old = old_heuristic_class(args.revision)(seed=0)
    old.name = f"heuristic@{args.revision}"
    new = HeuristicAgent(seed=0)
    result = run_tournament({"new": new, "old": old}, preset=args.preset, players=args.players,
                            games=args.games, seed=args.seed)
    numbers = result.result_for("new", "old")
    low, high = numbers["win_rate_ci"]
    margin_low, margin_high = numbers["margin_per_hand_ci"]
    num_sides = result.rules.num_sides
    seatings = by_seating(result, 0)
    fair = sum(games * held / num_sides for held, games, _ in seatings) / max(1, len(result.games))
    print(f"{args.preset} {args.players}p, seed {args.seed}: working tree's heuristic vs {args.revision}'s")
    print(f"games {numbers['games']}  win rate {numbers['win_rate']:.1%} ({low:.1%}-{high:.1%})  "
          f"fair share {fair:.1%}  margin/hand {numbers['margin_per_hand']:+.3f} "
          f"({margin_low:+.3f} to {margin_high:+.3f})")
    if len(seatings) > 1:
        for held, games, wins in seatings:
            lo, hi = wilson_interval(wins, games)
            print(f"  holding {held} of {num_sides} sides: {wins}/{games} = {wins / games:.1%} "
                  f"({lo:.1%}-{hi:.1%}), fair share {held / num_sides:.0%}")


if __name__ == "__main__":
    main()
