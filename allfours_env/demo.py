"""A demo game between random players, printed hand by hand.

    python -m allfours_env.demo --preset trinidad --players 4 --seed 3
"""

from __future__ import annotations

import argparse
import random

from allfours_env.engine import Game
from allfours_env.events import EventKind
from allfours_env.render import describe_event, render_table
from allfours_env.rules import PRESETS, Rules, RulesError


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m allfours_env.demo", description=__doc__)
    parser.add_argument("--preset", default="seven_up", help=f"one of {', '.join(sorted(PRESETS))}")
    parser.add_argument("--players", type=int, default=2, help="number of players (2-4)")
    parser.add_argument("--seed", type=int, default=0, help="seed for the deals and the players")
    args = parser.parse_args(argv)
    try:
        rules = Rules.make(args.preset, args.players)
    except RulesError as err:
        parser.error(str(err))
    game = Game(rules, seed=args.seed)
    rng = random.Random(args.seed)
    shown = 0
    while True:
        for event in game.log[shown:]:
            if event.kind == EventKind.DEAL:
                print()
            line = describe_event(game, event)
            if line:
                print(line)
        shown = len(game.log)
        if game.is_over:
            break
        game.apply(rng.choice(game.legal_actions()))
    print()
    print(render_table(game))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
