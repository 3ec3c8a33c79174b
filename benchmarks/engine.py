"""Speed of the bare rules engine: random legal games, no observation encoding.

    python benchmarks/engine.py                 # every preset x player count
    python benchmarks/engine.py --games 3000 --repeats 7 --preset seven_up

For each preset and player count it plays ``--games`` games with uniformly random legal actions,
``--repeats`` times, and prints the median decisions/s and games/s (medians, because these machines
are shared and noisy). Where OpenSpiel is installed (``pip install open_spiel``) the same loop runs
in the same process for its C++ trick-taking games as a reference, and the ratio is printed.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from allfours_env import PRESETS, Game, Rules  # noqa: E402
from allfours_env.engine import GAME_OVER  # noqa: E402

OPENSPIEL_GAMES = ("euchre", "hearts", "spades", "oh_hell")


def bench_allfours(rules: Rules, games: int, seed: int) -> tuple[float, float]:
    """Decisions/s and games/s of ``games`` random legal games."""
    rng = random.Random(seed)
    choice = rng.choice
    decisions = 0
    start = time.perf_counter()
    for i in range(games):
        game = Game(rules, seed=seed + i)
        legal_actions, apply = game.legal_actions, game.apply
        while game.phase != GAME_OVER:
            apply(choice(legal_actions()))
            decisions += 1
    elapsed = time.perf_counter() - start
    return decisions / elapsed, games / elapsed


def bench_openspiel(name: str, games: int, seed: int) -> tuple[float, float]:
    """The same loop over an OpenSpiel game; chance outcomes are sampled, not counted as decisions."""
    import pyspiel

    game = pyspiel.load_game(name)
    rng = random.Random(seed)
    choice = rng.choice
    decisions = 0
    start = time.perf_counter()
    for _ in range(games):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(choice(outcomes)[0])
            else:
                state.apply_action(choice(state.legal_actions()))
                decisions += 1
    elapsed = time.perf_counter() - start
    return decisions / elapsed, games / elapsed


def median_of(fn, repeats: int) -> tuple[float, float, float]:
    """Median decisions/s, median games/s, and the spread (max/min of decisions/s)."""
    runs = [fn(r) for r in range(repeats)]
    dps = [r[0] for r in runs]
    return statistics.median(dps), statistics.median(r[1] for r in runs), max(dps) / min(dps)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, default=2000, help="games per repetition (default 2000)")
    parser.add_argument("--repeats", type=int, default=5, help="repetitions; the median is reported")
    parser.add_argument("--preset", choices=sorted(PRESETS), help="only this preset")
    parser.add_argument("--no-reference", action="store_true", help="skip OpenSpiel even if installed")
    args = parser.parse_args(argv)

    print(f"Random legal games, {args.games} games x {args.repeats} repetitions, median (spread = max/min)")
    print(f"{'game':<28}{'decisions/s':>14}{'games/s':>11}{'spread':>8}")
    baseline = None
    for preset in sorted(PRESETS) if args.preset is None else [args.preset]:
        for num_players in PRESETS[preset]["players"]:
            rules = Rules.make(preset, num_players)
            dps, gps, spread = median_of(
                lambda r, rules=rules: bench_allfours(rules, args.games, 1000 * r), args.repeats
            )
            if (preset, num_players) == ("seven_up", 2):
                baseline = dps
            print(f"{f'allfours {preset} {num_players}p':<28}{dps:>14,.0f}{gps:>11,.0f}{spread:>8.2f}")
    if args.no_reference:
        return
    try:
        import pyspiel  # noqa: F401
    except ImportError:
        print("(OpenSpiel not installed: `pip install open_spiel` to compare in the same run)")
        return
    for name in OPENSPIEL_GAMES:
        games = max(1, args.games // 10)
        dps, gps, spread = median_of(
            lambda r, name=name, games=games: bench_openspiel(name, games, r), args.repeats
        )
        ratio = f"  seven_up 2p = {baseline / dps:.2f}x" if baseline else ""
        print(f"{f'openspiel {name}':<28}{dps:>14,.0f}{gps:>11,.0f}{spread:>8.2f}{ratio}")


if __name__ == "__main__":
    main()
