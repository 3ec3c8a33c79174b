"""What a bot's decisions gain over ``heuristic``'s, one decision at a time: a quick screen.

    python scripts/decision_gain.py pimc pimc:bids=search --preset auction_pitch --players 4
    python scripts/decision_gain.py pimc:samples=32 --preset pitch_with_joker --players 4 --positions 400
    python scripts/decision_gain.py pimc --preset trinidad --players 4 --decisions beg,gift_or_run

Whole games are a slow way to compare two versions of a search bot: 504 four-player games take 20
minutes of both cores and still leave an interval of ±4 points. This screen asks a narrower
question. It plays games of ``heuristic`` against itself (seed ``--seed``) and stops at
``--positions`` of their decisions (one seat's turn with a choice, in the phases of ``--decisions``:
by default the bids, the pitch and the card play; ``beg`` and ``gift_or_run`` add the stand/beg and
the gift/run). At each, every AGENT decides from the seat's view; where it chooses otherwise than
``heuristic``, both actions are played out in the real deal — every seat then plays as ``heuristic``
to the end of the hand — and the difference of their values for the seat's side is the decision's
gain, in two currencies: the hand's points (the side's points minus the others' mean) and the
search's value (the same, but ±10 where the hand ends the game: ``agents.pimc.side_value``; far
noisier, as one won or lost game outweighs many points). Each agent's line gives how often it
deviates, the mean gain a deviation brings with its standard error, and the gain per decision (the
mean gain times the deviation rate).

The positions and their play-outs are the same for every agent, so their gains are paired. It
measures a one-step improvement over ``heuristic`` (the rest of the hand is ``heuristic``'s): a screen
to choose which version deserves the games of the evaluation tool, not a substitute for them.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agents import make_agent  # noqa: E402
from agents.pimc import side_value  # noqa: E402
from allfours_env import Rules  # noqa: E402
from allfours_env.engine import Game  # noqa: E402
from allfours_env.events import Phase  # noqa: E402
from allfours_env.knowledge import SeatView  # noqa: E402

SCREENED = (Phase.BID, Phase.PLAY)  # the decisions screened by default: the auction, the pitch, the card play
#: The phases ``--decisions`` may name.
PHASES = (Phase.BEG, Phase.GIFT_OR_RUN, Phase.BID, Phase.PLAY)
_MAX_STEPS = 500
#: Games of self-play without a decision in the screened phases before the screen gives up.
_BARREN_GAMES = 20


def positions(rules: Rules, count: int, seed: int, phases: tuple[Phase, ...] = SCREENED) -> list[Game]:
    """``count`` decisions of ``heuristic`` self-play with a choice in ``phases``, as copies of the
    game. A ValueError when games go by without one (a phase the preset does not have)."""
    found: list[Game] = []
    game_seed, barren = seed, 0
    while len(found) < count:
        if barren == _BARREN_GAMES:
            raise ValueError(f"{_BARREN_GAMES} games of {rules.preset} had no decision with a choice in "
                             f"{', '.join(phase.label for phase in phases)}: screen phases this preset has")
        before = len(found)
        players = [make_agent("heuristic", seed=game_seed * 16 + s) for s in range(rules.num_players)]
        game = Game(rules, seed=game_seed)
        while game.phase != Phase.GAME_OVER and len(found) < count:
            seat = game.current_player
            view = SeatView(game, seat)
            if game.phase in phases and len(view.legal_actions()) > 1:
                found.append(game.copy())
            game.apply(players[seat].act(None, view))
        barren = barren + 1 if len(found) == before else 0
        game_seed += 1_000_003
    return found


def play_out(position: Game, action: int, side: int) -> tuple[float, float]:
    """The values for ``side`` of ``action`` in ``position``, every seat then playing as ``heuristic``
    to the end of the hand: (the hand's points, the search's value)."""
    game = position.copy()
    before, deal = list(game.scores), len(game.decks)
    game.apply(action)
    rollout = make_agent("heuristic", seed=0)
    for _ in range(_MAX_STEPS):
        if game.phase in (Phase.GAME_OVER, Phase.HAND_OVER) or len(game.decks) != deal:
            gained = [after - start for after, start in zip(game.scores, before)]
            points = gained[side] - (sum(gained) - gained[side]) / (game.num_sides - 1)
            return points, side_value(before, game, side)
        game.apply(rollout.act(None, SeatView(game, game.current_player)))
    raise AssertionError("the play-out did not finish the hand")


def screen(specs: list[str], rules: Rules, count: int, seed: int, phases: tuple[Phase, ...] = SCREENED
           ) -> tuple[list[list[tuple[float, float]]], list[float]]:
    """For each agent of ``specs``: the (points, value) gain of each of its decisions that differs
    from ``heuristic``'s over ``count`` positions in ``phases`` (module docstring), and its CPU
    seconds deciding."""
    agents = [make_agent(spec, seed=seed) for spec in specs]
    reference = make_agent("heuristic", seed=seed)
    gains: list[list[tuple[float, float]]] = [[] for _ in agents]
    seconds = [0.0] * len(agents)
    for game in positions(rules, count, seed, phases):
        seat = game.current_player
        side = rules.side_of(seat)
        usual = reference.act(None, SeatView(game, seat))
        kept: dict[int, tuple[float, float]] = {}
        for i, agent in enumerate(agents):
            start = time.process_time()
            choice = agent.act(None, SeatView(game, seat))
            seconds[i] += time.process_time() - start
            if choice == usual:
                continue
            for action in (usual, choice):
                if action not in kept:
                    kept[action] = play_out(game, action, side)
            gains[i].append((kept[choice][0] - kept[usual][0], kept[choice][1] - kept[usual][1]))
    return gains, seconds


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("agents", nargs="+", metavar="AGENT", help="agent specs to screen")
    parser.add_argument("--preset", default="auction_pitch")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--positions", type=int, default=300, help="decisions screened (default 300)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--decisions", default="bid,play",
                        help="phases screened, comma-separated: beg, gift_or_run, bid, play "
                             "(default bid,play)")
    args = parser.parse_args(argv)
    if args.positions < 1:
        parser.error(f"--positions must be >= 1, got {args.positions}")
    names = {phase.label: phase for phase in PHASES}
    asked = [name.strip() for name in args.decisions.split(",")]
    unknown = [name for name in asked if name not in names]
    if unknown:
        parser.error(f"--decisions: unknown phase {', '.join(unknown) or repr(args.decisions)}; "
                     f"name some of {', '.join(names)}, comma-separated")
    phases = tuple(names[name] for name in dict.fromkeys(asked))
    try:
        rules = Rules.make(args.preset, args.players)
        for spec in args.agents:
            make_agent(spec)
    except ValueError as error:
        parser.error(str(error))
    try:
        gains, seconds = screen(args.agents, rules, args.positions, args.seed, phases)
    except ValueError as error:
        parser.error(str(error))
    count = args.positions
    print(f"{args.preset} {args.players}p, {count} decisions of heuristic self-play "
          f"({', '.join(phase.label for phase in phases)}), seed {args.seed}")
    print(f"{'agent':36} {'deviates':>9} {'currency':>9} {'gain/deviation (SE)':>20} {'gain/decision':>14} "
          f"{'ms/decision':>12}")
    for spec, found, spent in zip(args.agents, gains, seconds):
        for currency, values in (("points", [g[0] for g in found]), ("value", [g[1] for g in found])):
            mean = statistics.fmean(values) if values else 0.0
            error = statistics.stdev(values) / len(values) ** 0.5 if len(values) > 1 else float("nan")
            print(f"{spec if currency == 'points' else '':36} {len(values) / count:9.1%} {currency:>9} "
                  f"{mean:+11.3f} ({error:.3f}) {mean * len(values) / count:+14.4f} "
                  f"{1000 * spent / count:12.1f}")


if __name__ == "__main__":
    main()
