"""Speed of the bare rules engine: random legal games, no observation encoding.

    python benchmarks/engine.py                 # every preset x player count
    python benchmarks/engine.py --decisions 300000 --repeats 7 --preset seven_up

For each preset and player count it plays whole games with uniformly random legal actions until
``--decisions`` decisions are made, ``--repeats`` times, and prints the median decisions/s, games/s
and hands/s (medians, because these machines are shared and noisy; a 26-trick stock hand or a long
auction game makes fewer games per second at the same decision rate). Random bidders in the auction
presets may never reach the target: a game stops at ``MAX_HANDS`` hands (docs/rules.md D23) and counts
as hands only. Where OpenSpiel is installed (``pip install open_spiel``) the same loop runs in the same
process for its C++ trick-taking games as a reference, and the ratio is printed.
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
from allfours_env.engine import GAME_OVER, MAX_HANDS  # noqa: E402

OPENSPIEL_GAMES = ("euchre", "hearts", "spades", "oh_hell")


def bench_allfours(rules: Rules, decisions: int, seed: int) -> tuple[float, float, float]:
    """Decisions/s, games/s and hands/s of random legal games, game after game until ``decisions``
    decisions are made. A game still undecided after ``MAX_HANDS`` hands stops there (random bidders
    in the auction presets are set back more than they score: their games may never end, D23); such
    games count as hands, not as games."""
    rng = random.Random(seed)
    choice = rng.choice
    made = games = hands = 0
    start = time.perf_counter()
    i = 0
    while made < decisions:
        game = Game(rules, seed=seed + i)
        i += 1
        legal_actions, apply = game.legal_actions, game.apply
        while game.phase != GAME_OVER:
            apply(choice(legal_actions()))
            made += 1
            if game.hand_number >= MAX_HANDS:
                break
        games += game.phase == GAME_OVER
        hands += game.hand_number + (game.phase == GAME_OVER)
    elapsed = time.perf_counter() - start
    return made / elapsed, games / elapsed, hands / elapsed


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


def median_of(fn, repeats: int) -> tuple[float, ...]:
    """The median of every rate ``fn`` returns over ``repeats`` runs, and the spread (max/min) of
    the first (decisions/s)."""
    runs = [fn(r) for r in range(repeats)]
    first = [r[0] for r in runs]
    return (*(statistics.median(r[k] for r in runs) for k in range(len(runs[0]))), max(first) / min(first))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--decisions", type=int, default=100_000,
                        help="random decisions per repetition (default 100,000), whole games")
    parser.add_argument("--games", type=int, default=200, help="OpenSpiel games per repetition (default 200)")
    parser.add_argument("--repeats", type=int, default=5, help="repetitions; the median is reported")
    parser.add_argument("--preset", choices=sorted(PRESETS), help="only this preset")
    parser.add_argument("--no-reference", action="store_true", help="skip OpenSpiel even if installed")
    args = parser.parse_args(argv)

    print(f"Random legal games, {args.decisions:,} decisions x {args.repeats} repetitions, median "
          f"(spread = max/min of decisions/s)")
    print(f"{'game':<30}{'decisions/s':>13}{'games/s':>10}{'hands/s':>10}{'spread':>8}")
    baseline = None
    for preset in PRESETS if args.preset is None else [args.preset]:
        for num_players in PRESETS[preset]["players"]:
            rules = Rules.make(preset, num_players)
            dps, gps, hps, spread = median_of(
                lambda r, rules=rules: bench_allfours(rules, args.decisions, 1000 * r), args.repeats
            )
            if (preset, num_players) == ("seven_up", 2):
                baseline = dps
            print(f"{f'allfours {preset} {num_players}p':<30}{dps:>13,.0f}{gps:>10,.0f}{hps:>10,.0f}"
                  f"{spread:>8.2f}")
    if args.no_reference:
        return
    try:
        import pyspiel  # noqa: F401
    except ImportError:
        print("(OpenSpiel not installed: `pip install open_spiel` to compare in the same run)")
        return
    for name in OPENSPIEL_GAMES:
        dps, gps, spread = median_of(lambda r, name=name: bench_openspiel(name, args.games, r), args.repeats)
        ratio = f"  seven_up 2p = {baseline / dps:.2f}x" if baseline else ""
        print(f"{f'openspiel {name}':<30}{dps:>13,.0f}{gps:>10,.0f}{'':>10}{spread:>8.2f}{ratio}")


if __name__ == "__main__":
    main()
