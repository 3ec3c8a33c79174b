"""How long the bots think: milliseconds per decision, by agent and game.

    python benchmarks/agents.py                                   # pimc and heuristic, three games
    python benchmarks/agents.py --agents pimc --games 20 --cases seven_up:2 trinidad:4

Each agent plays ``--games`` games against ``heuristic`` (seats alternating) and every one of its
decisions is timed, forced ones (a single legal action) included, as a player experiences them. The
mean, the median and the 95th percentile are printed; ``--repeats`` runs the whole measurement
several times and reports the median of the means (the machines are shared and noisy).
``--clock process`` times each decision in the process's CPU time instead of the wall clock: on a
machine shared with other work the wall clock counts the time others held the cores too.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agents import make_agent  # noqa: E402
from agents.arena import play_game  # noqa: E402
from allfours_env import Rules  # noqa: E402

CLOCKS = {"wall": time.perf_counter, "process": time.process_time}


class Timed:
    """Wraps an agent and records how long each of its decisions takes by ``clock``."""

    def __init__(self, agent, clock=time.perf_counter) -> None:
        self.agent = agent
        self.clock = clock
        self.name = agent.name
        self.needs_observation = agent.needs_observation
        self.times: list[float] = []

    def reset(self, seed=None) -> None:
        self.agent.reset(seed)

    def act(self, observation, view):
        start = self.clock()
        action = self.agent.act(observation, view)
        self.times.append(self.clock() - start)
        return action


def measure(spec: str, preset: str, players: int, games: int, seed: int,
            clock=time.perf_counter) -> list[float]:
    """Decision times (seconds, by ``clock``) of ``spec`` over ``games`` games against the heuristic
    bot."""
    rules = Rules.make(preset, players)
    timed = Timed(make_agent(spec, seed=seed), clock)
    other = make_agent("heuristic", seed=seed + 1)
    for game in range(games):
        side = game % 2
        seats = [timed if rules.side_of(s) % 2 == side else other for s in range(players)]
        if players == 3:  # one seat for the measured agent, rotating
            seats = [timed if s == game % 3 else other for s in range(3)]
        play_game(rules, seats, seed=seed + game)
    return timed.times


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--agents", nargs="+", default=["pimc", "heuristic"])
    parser.add_argument("--cases", nargs="+", default=["seven_up:2", "seven_up:3", "trinidad:4"],
                        help="preset:players pairs")
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--clock", choices=sorted(CLOCKS), default="wall",
                        help="wall: elapsed time; process: this process's CPU time (a shared machine)")
    args = parser.parse_args(argv)
    wide = max(14, *(len(spec) + 2 for spec in args.agents))  # the agent column fits its longest spec
    game_wide = max(14, *(len(case) + 2 for case in args.cases))
    print(f"{'agent':<{wide}}{'game':<{game_wide}}{'decisions':>10}{'mean ms':>10}"
          f"{'median ms':>11}{'p95 ms':>9}")
    for spec in args.agents:
        for case in args.cases:
            preset, players = case.split(":")
            runs = [measure(spec, preset, int(players), args.games, args.seed + 1000 * r, CLOCKS[args.clock])
                    for r in range(args.repeats)]
            times = sorted(t for run in runs for t in run)
            mean = statistics.median(statistics.fmean(run) for run in runs)
            p95 = times[int(0.95 * (len(times) - 1))]
            print(f"{spec:<{wide}}{case:<{game_wide}}{len(times):>10}{mean * 1e3:>10.1f}"
                  f"{statistics.median(times) * 1e3:>11.2f}{p95 * 1e3:>9.1f}")


if __name__ == "__main__":
    main()
