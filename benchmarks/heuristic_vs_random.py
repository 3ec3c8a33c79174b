"""Win rate of the rule-based ``heuristic`` bot against ``random``, seats swapped on the same deals.

    python benchmarks/heuristic_vs_random.py                          # seven_up, 2 players, 1000 seeds
    python benchmarks/heuristic_vs_random.py --preset trinidad --players 4 --seeds 500
    python benchmarks/heuristic_vs_random.py --preset seven_up --players 3 --seeds 700 --jobs 4

Every seed is played once per seat rotation of the heuristic side: with 2 players (and with 4, in
partnerships) the heuristic holds side 0 and then side 1 of ``play_game(rules, players, seed=s)``;
with 3 players it takes each seat in turn against two random players. The same seed gives the same
first dealer and the same packs as long as the dealing order does not diverge, so the luck of the deal
is largely shared by both sides. Results are reproducible: they depend only on the seeds.

Printed: games won by the heuristic, the win rate with its 95% Wilson interval, the mean points per
hand of the heuristic side and of one opponent side, and the heuristic's mean decision time.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from multiprocessing import Pool
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agents.arena import play_game  # noqa: E402
from agents.base import make_agent  # noqa: E402
from allfours_env import Rules  # noqa: E402


class _Timed:
    """Wraps an agent and adds up the time it spends deciding."""

    def __init__(self, agent):
        self.agent = agent
        self.name = agent.name
        self.needs_observation = agent.needs_observation
        self.seconds = 0.0
        self.decisions = 0

    def reset(self, seed=None):
        self.agent.reset(seed)

    def act(self, observation, view):
        start = time.perf_counter()
        action = self.agent.act(observation, view)
        self.seconds += time.perf_counter() - start
        self.decisions += 1
        return action


def wilson(wins: int, games: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a win rate."""
    if games == 0:
        return 0.0, 1.0
    p = wins / games
    denom = 1 + z * z / games
    centre = (p + z * z / (2 * games)) / denom
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / denom
    return centre - half, centre + half


def _seatings(num_players: int, rules: Rules) -> list[tuple[int, list[int]]]:
    """(heuristic side, heuristic seats) for each rotation played per seed."""
    sides = {}
    for seat in range(num_players):
        sides.setdefault(rules.side_of(seat), []).append(seat)
    return sorted(sides.items())


def play_seeds(args: tuple[str, int, int, int]) -> tuple[int, int, int, int, int, float, int]:
    """Play seeds ``[start, stop)``; return (games, wins, own points, opponent points, hands,
    decision seconds, decisions)."""
    preset, num_players, start, stop = args
    rules = Rules.make(preset, num_players)
    heuristic = _Timed(make_agent("heuristic"))
    rnd = make_agent("random")
    games = wins = own = opp = hands = 0
    for seed in range(start, stop):
        for side, seats in _seatings(num_players, rules):
            players = [heuristic if s in seats else rnd for s in range(num_players)]
            game = play_game(rules, players, seed=seed)
            games += 1
            wins += game.winner == side
            gained = [0] * rules.num_sides
            for award in game.awards:
                gained[award.side] += award.points
            own += gained[side]
            opp += gained[1 - side] if side == 0 else gained[0]
            hands += len(game.decks)
    return games, wins, own, opp, hands, heuristic.seconds, heuristic.decisions


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--preset", default="seven_up")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--seeds", type=int, default=1000, help="seeds played (games = seeds x seatings)")
    parser.add_argument("--first-seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=1, help="worker processes (results do not change)")
    args = parser.parse_args(argv)

    stop = args.first_seed + args.seeds
    chunk = max(1, args.seeds // (4 * args.jobs))
    starts = range(args.first_seed, stop, chunk)
    tasks = [(args.preset, args.players, s, min(s + chunk, stop)) for s in starts]
    begin = time.perf_counter()
    if args.jobs > 1:
        with Pool(args.jobs) as pool:
            results = pool.map(play_seeds, tasks)
    else:
        results = [play_seeds(task) for task in tasks]
    wall = time.perf_counter() - begin
    games, wins, own, opp, hands, seconds, decisions = (sum(col) for col in zip(*results))
    low, high = wilson(wins, games)
    print(f"{args.preset} {args.players}p: heuristic vs random, seeds {args.first_seed}..{stop - 1}, "
          f"{games} games (every seed once per heuristic seating)")
    print(f"  heuristic won {wins}/{games} = {wins / games:.1%}  "
          f"(95% Wilson interval {low:.1%} .. {high:.1%})")
    print(f"  points per hand: heuristic side {own / hands:.2f}, an opponent side {opp / hands:.2f} "
          f"({hands} hands dealt)")
    print(f"  heuristic decision time: {1e6 * seconds / max(decisions, 1):.0f} us mean over {decisions} "
          f"decisions; wall {wall:.0f} s")


if __name__ == "__main__":
    main()
