"""Play All Fours in the terminal against the bots.

    python -m agents.play --preset seven_up --players 2 --opponent pimc
    allfours-play --preset trinidad --players 4 --opponent heuristic --partner pimc:samples=8

You play one seat (``--seat``, default 0); every other seat is played by an agent spec: one spec for
all of them (``--opponent heuristic``) or one per opponent seat in turn order
(``--opponent random,pimc`` or ``--opponent random --opponent pimc``); with four players in
partnerships your partner is played by ``--partner`` (default: the first opponent spec).

You see only what your seat may see (:func:`allfours_env.render.render_table` and
:func:`allfours_env.render.describe_event` with your seat): your hand, the turn-ups, the current trick,
trump, scores, everyone's card counts and the public history of the hand — never another player's
cards or discards, nor the stock. At each decision the legal moves are listed with numbers: type
the number, or the move as text (``play AS``, ``AS``, ``a♠``, ``10h``, ``beg``, ``run``). ``h`` or
``?`` shows help, ``t`` the table, ``l`` the hand so far, ``q`` quits. At the end the game record can
be saved (``--save-record game.json`` saves it without asking); :func:`allfours_env.replay` replays it.

For scripts and tests, :func:`main` takes ``input_fn`` (called with the prompt, returns a line;
``EOFError`` quits) and ``output`` (a text stream), and :class:`TerminalGame` can be driven directly.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any, TextIO

import numpy as np

from agents.base import Agent, AgentError, available_agents, make_agent, parse_spec
from agents.policy import warn_unfit
from allfours_env.actions import (
    BEG,
    DISCARD_BASE,
    GIFT,
    NUM_ACTIONS,
    PLAY_BASE,
    RUN,
    STAND,
    action_card,
)
from allfours_env.cards import NUM_RANKS, RANKS, SUIT_NAMES, SUIT_SYMBOLS, SUITS, card_str
from allfours_env.engine import Game
from allfours_env.events import EventKind, Phase
from allfours_env.knowledge import SeatView
from allfours_env.observation import SeatEncoder
from allfours_env.record import save_record
from allfours_env.render import (
    describe_event,
    pretty_action,
    pretty_card,
    pretty_cards,
    render_table,
    side_name,
)
from allfours_env.rules import PRESETS, Rules, RulesError
from allfours_env.seeding import derive_seed

QUIT_WORDS = ("q", "quit", "exit")
HELP_WORDS = ("h", "?", "help")
TABLE_WORDS = ("t", "table")
LOG_WORDS = ("l", "log", "history")
_WORD_ACTIONS = {"stand": STAND, "beg": BEG, "gift": GIFT, "give": GIFT, "run": RUN}
_KIND_ORDER = ("high", "low", "jack", "hang_jack", "game", "turnup", "gift", "void")
_SUIT_LETTERS = {"♣": "C", "♧": "C", "♦": "D", "♢": "D", "♥": "H", "♡": "H", "♠": "S", "♤": "S"}
_PHASE_HELP = {
    "beg": "You are eldest: 'stand' keeps the proposed trump, 'beg' asks the dealer for another one.",
    "gift_or_run": "You are the dealer and eldest begged: 'gift' gives the point(s) and keeps the "
                   "proposed trump, 'run' deals three more cards each and turns up a new trump.",
    "discard": "You hold more cards than the hand size: discard one card at a time, face down.",
    "play": "Play a card. Holding a card of the suit led you must follow suit or trump (R3); "
            "otherwise any card.",
}


class Quit(Exception):
    """The player asked to stop (``q``, end of input, Ctrl-C)."""


def _sort_key(action: int) -> tuple[int, int]:
    """Moves in the order the hand is shown: spades, hearts, diamonds, clubs, high card first."""
    card = action_card(action)
    return (0, action) if card is None else (1, -card)


def parse_card_text(text: str) -> int | None:
    """A card typed by a person: ``AS``, ``as``, ``A♠``, ``10h``, ``Th``, ``10 ♥``; None if not a card."""
    text = "".join(text.split())
    for symbol, letter in _SUIT_LETTERS.items():
        text = text.replace(symbol, letter)
    text = text.upper()
    if text.startswith("10"):
        text = "T" + text[2:]
    if len(text) != 2 or text[0] not in RANKS or text[1] not in SUITS:
        return None
    return SUITS.index(text[1]) * NUM_RANKS + RANKS.index(text[0])


class TerminalGame:
    """One game in the terminal: the human at ``seat``, ``bots[s]`` deciding for every other seat.

    ``input_fn(prompt) -> str`` reads a line (``EOFError`` or ``KeyboardInterrupt`` quit); everything
    shown goes to ``output``, one :meth:`write` per line. :meth:`run` returns ``True`` when the
    game was played to its end and ``False`` when the player quit.
    """

    def __init__(
        self,
        game: Game,
        seat: int,
        bots: dict[int, Agent],
        *,
        input_fn: Callable[[str], str] = input,
        output: TextIO | None = None,
        delay: float = 0.0,
    ) -> None:
        if not 0 <= seat < game.n:
            raise ValueError(f"seat must be 0..{game.n - 1}, got {seat!r}")
        missing = [s for s in range(game.n) if s != seat and s not in bots]
        if missing:
            raise ValueError(f"no agent for seat(s) {missing}")
        self.game = game
        self.seat = seat
        self.bots = bots
        self.input_fn = input_fn
        self.output = sys.stdout if output is None else output
        self.delay = delay
        self.intro: list[str] = []  # lines shown before the game starts (set by setup)
        self.shown = 0  # log events already described
        self._scores = list(game.initial_scores)  # running scores as the events are described
        self._views = {s: SeatView(game, s) for s in bots}
        self._encoders: dict[int, SeatEncoder] = {}
        for s, agent in bots.items():
            if agent.needs_observation:
                self._encoders[s] = SeatEncoder(game.rules, s)
                self._encoders[s].reset(game)

    # ------------------------------------------------------------------ output

    def write(self, text: str = "") -> None:
        """Show one line (or block) to the player."""
        self.output.write(text + "\n")
        self.output.flush()

    def table(self) -> str:
        """The table as the player's seat sees it, the player's own seat marked."""
        game, seat = self.game, self.seat
        text = render_table(game, seat=seat)
        text = text.replace(f" player_{seat}: ", f" player_{seat} (you): ", 1)
        partner = self.partner_seat()
        if partner is not None:
            text = text.replace(f" player_{partner}: ", f" player_{partner} (partner): ", 1)
        return text

    def partner_seat(self) -> int | None:
        """The seat of the player's partner, with four players in partnerships."""
        game = self.game
        for s in range(game.n):
            if s != self.seat and game.sides[s] == game.sides[self.seat]:
                return s
        return None

    def show_events(self) -> None:
        """Describe every log event not yet shown, as the player's seat may see it."""
        game = self.game
        dealt = False
        for event in game.log[self.shown:]:
            kind, who, value = event
            if kind == EventKind.DEAL:
                self.write()
                dealt = True
            elif kind == EventKind.AWARD:
                self._scores[who] += value[1]
            line = describe_event(game, event, seat=self.seat)
            if line:
                self.write(line)
            if kind == EventKind.HAND_END:
                scores = ", ".join(f"{side_name(game, s)} {p}" for s, p in enumerate(self._scores))
                self.write(f"— end of hand {value + 1}: {scores} —")
        self.shown = len(game.log)
        if dealt and not game.is_over:
            self.write(f"your hand: {pretty_cards(game.hands[self.seat])}")

    def hand_history(self) -> str:
        """The current hand so far, as the player's seat saw it."""
        lines = [describe_event(self.game, event, seat=self.seat) for event in self.game.hand_log()]
        return "\n".join(line for line in lines if line)

    def moves(self) -> list[int]:
        """The player's legal moves, in the order they are listed (numbered from 1)."""
        return sorted(self.game.legal_actions(), key=_sort_key)

    def move_list(self) -> str:
        items = [f"{i}) {pretty_action(a)}" for i, a in enumerate(self.moves(), 1)]
        lines, line = [], "  "
        for item in items:
            if len(line) + len(item) > 76 and line.strip():
                lines.append(line.rstrip())
                line = "  "
            line += item + "   "
        lines.append(line.rstrip())
        return "\n".join(lines)

    def help_text(self) -> str:
        moves = self.moves()
        example = pretty_action(moves[0])
        card = action_card(moves[0])
        by_card = ""
        if card is not None:  # examples from the player's own cards only
            text = card_str(card)
            by_card = f", or just the card: '{text}', '{pretty_card(card).lower()}', '{text.lower()}'"
        return "\n".join([
            _PHASE_HELP.get(self.game.phase_name, ""),
            f"Type a move's number (1-{len(moves)}) or its text ('{example}'{by_card}).",
            "Cards are rank then suit: ranks 2-9, 10 (or T), J, Q, K, A; suits C ♣, D ♦, H ♥, S ♠.",
            "Other keys: h or ? this help, t the table, l this hand so far, q quit.",
        ])

    # ------------------------------------------------------------------ input

    def parse_move(self, text: str) -> tuple[int | None, str]:
        """The legal action a typed line means, or ``(None, why not)``."""
        moves = self.moves()
        text = text.strip()
        low = text.lower()
        if low.isdigit():
            number = int(low)
            if 1 <= number <= len(moves):
                return moves[number - 1], ""
            return None, f"there is no move {number}: choose 1-{len(moves)}"
        if low in _WORD_ACTIONS:
            action = _WORD_ACTIONS[low]
            if action in moves:
                return action, ""
            if action == GIFT and self.game.phase == Phase.GIFT_OR_RUN:
                return None, "the gift is not allowed here (K8: it would win the game for a player): run"
            return None, f"'{low}' is not a move now"
        verb, _, rest = low.partition(" ")
        if verb in ("play", "discard", "p", "d"):
            verb = {"p": "play", "d": "discard"}.get(verb, verb)
            card = parse_card_text(rest)
        else:
            verb, card = "", parse_card_text(text)
        if card is None:
            return None, f"'{text}' is not a move"
        phase = self.game.phase
        wanted = "play" if phase == Phase.PLAY else "discard" if phase == Phase.DISCARD else ""
        if not wanted:
            return None, "no card is played or discarded now"
        if verb and verb != wanted:
            return None, f"you {wanted} now, you do not {verb}"
        if not self.game.hands[self.seat] >> card & 1:
            return None, f"{pretty_card(card)} is not in your hand"
        action = (PLAY_BASE if wanted == "play" else DISCARD_BASE) + card
        if action not in moves:
            led, trump = self.game.trick_cards[0] // NUM_RANKS, self.game.trump
            if card // NUM_RANKS not in (led, trump):
                return None, (f"{pretty_card(card)} cannot be played now: you hold {SUIT_NAMES[led]}, so "
                              f"follow with {SUIT_SYMBOLS[led]} or trump with {SUIT_SYMBOLS[trump]} (R3)")
            return None, f"{pretty_card(card)} cannot be played now: no under-trumping here (K15)"
        return action, ""

    def ask(self) -> int:
        """Show the table and the legal moves; read lines until one is a legal move."""
        self.write()
        self.write(self.table())
        self.write(f"your move ({self.game.phase_name}):")
        self.write(self.move_list())
        while True:
            try:
                text = self.input_fn("> ")
            except (EOFError, KeyboardInterrupt):
                raise Quit from None
            if text is None:
                raise Quit
            word = text.strip().lower()
            if word in QUIT_WORDS:
                raise Quit
            if word in HELP_WORDS:
                self.write(self.help_text())
                self.write(self.move_list())
                continue
            if word in TABLE_WORDS:
                self.write(self.table())
                self.write(self.move_list())
                continue
            if word in LOG_WORDS:
                self.write(self.hand_history())
                self.write(self.move_list())
                continue
            if not word:
                self.write(f"type a move's number (1-{len(self.moves())}), or h for help")
                continue
            action, why = self.parse_move(text)
            if action is not None:
                return action
            self.write(f"{why}. Type a number 1-{len(self.moves())} or a move from the list "
                       f"(h for help, q to quit):")
            self.write(self.move_list())

    # ------------------------------------------------------------------ the game

    def bot_move(self, seat: int) -> int:
        game = self.game
        observation = None
        if seat in self._encoders:
            mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
            mask[list(game.legal_actions())] = 1
            observation = {"observation": self._encoders[seat].update().copy(), "action_mask": mask}
        return self.bots[seat].act(observation, self._views[seat])

    def run(self) -> bool:
        """Play to the end of the game (True) or until the player quits (False)."""
        game = self.game
        self.show_events()
        try:
            while not game.is_over:
                seat = game.current_player
                if seat == self.seat:
                    action = self.ask()
                else:
                    if self.delay:
                        time.sleep(self.delay)
                    action = self.bot_move(seat)
                game.apply(action)
                self.show_events()
        except Quit:
            return False
        return True

    def result(self) -> str:
        """The final result and the points of each kind, per side."""
        game = self.game
        mine = game.sides[self.seat]
        who = "You" if game.rules.num_sides == game.n else f"Your side ({side_name(game, mine)})"
        verdict = "won" if game.winner == mine else "lost"
        lines = [f"{who} {verdict}: " + ", ".join(
            f"{side_name(game, s)} {p}" for s, p in enumerate(game.scores))]
        kinds: dict[str, list[int]] = {kind: [0] * game.num_sides for kind in _KIND_ORDER}
        for _, kind, side, points in game.awards:
            kinds.setdefault(kind, [0] * game.num_sides)[side] += points
        kinds = {kind: points for kind, points in kinds.items() if any(points)}
        if kinds:
            width = max(len(side_name(game, s)) for s in range(game.num_sides))
            lines.append("points by kind: " + ", ".join(kinds))
            for s in range(game.num_sides):
                cells = "  ".join(f"{k} {kinds[k][s]}" for k in kinds)
                lines.append(f"  {side_name(game, s):<{width}}  {cells}")
        return "\n".join(lines)


# ---------------------------------------------------------------------- command line


def split_specs(values: Sequence[str]) -> list[str]:
    """Agent specs from ``--opponent`` values: each value may list several, comma-separated; a
    ``key=value`` item continues the spec before it (``pimc:samples=8,max_nodes=5000,random``)."""
    specs: list[str] = []
    for value in values:
        for item in value.split(","):
            item = item.strip()
            if not item:
                continue
            if specs and "=" in item and ":" not in item and not specs[-1].startswith("ppo:"):
                specs[-1] += "," + item
            else:
                specs.append(item)
    return specs


def seat_specs(rules: Rules, seat: int, opponents: list[str], partner: str | None) -> dict[int, str]:
    """The agent spec of every seat but ``seat``: opponents in turn order, the partner apart."""
    n = rules.num_players
    others = [(seat + i) % n for i in range(1, n)]
    partner_seats = [s for s in others if rules.side_of(s) == rules.side_of(seat)]
    opponent_seats = [s for s in others if s not in partner_seats]
    if not opponents:
        raise AgentError("give at least one opponent agent")
    if len(opponents) == 1:
        opponents = opponents * len(opponent_seats)
    if len(opponents) != len(opponent_seats):
        raise AgentError(
            f"{len(opponents)} opponent specs for {len(opponent_seats)} opponent seat(s) "
            f"({', '.join(f'player_{s}' for s in opponent_seats)}): give one spec, or one per seat"
        )
    specs = dict(zip(opponent_seats, opponents))
    for s in partner_seats:
        specs[s] = partner or opponents[0]
    return specs


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m agents.play",
        description="Play All Fours in the terminal against the bots. At each decision type the "
                    "number of a move or its text ('play AS', 'AS', 'beg'); h for help, q to quit.",
    )
    parser.add_argument("--preset", default="seven_up", help=f"one of {', '.join(sorted(PRESETS))}")
    parser.add_argument("--players", type=int, default=2, help="number of players (2-4)")
    parser.add_argument("--seat", type=int, default=0, help="your seat, 0..players-1 (default 0)")
    parser.add_argument(
        "--opponent", action="append", metavar="SPEC",
        help=f"the agent(s) you play against: {', '.join(available_agents())}, pimc:samples=8, "
             f"ppo:path/to/model.zip; one for every opponent seat, or a comma-separated list with one "
             f"per opponent seat in turn order (default pimc)",
    )
    parser.add_argument("--partner", metavar="SPEC",
                        help="your partner's agent with 4 players in partnerships (default: the opponent's)")
    parser.add_argument("--target", type=int, help="points to win (default: the preset's)")
    parser.add_argument("--seed", type=int, help="seed of the deals and the bots (default: a random one)")
    parser.add_argument("--save-record", metavar="PATH", help="save the game record (JSON) to PATH")
    parser.add_argument("--delay", type=float, default=0.0, help="seconds to wait before each bot move")
    return parser


def main(
    argv: Sequence[str] | None = None,
    *,
    input_fn: Callable[[str], str] = input,
    output: TextIO | None = None,
) -> int:
    """Run the terminal game; return the exit status (0: played or quit, 2: bad arguments)."""
    if output is None:
        output = sys.stdout
        if hasattr(output, "reconfigure"):  # a terminal without UTF-8 shows '?' for a suit symbol
            output.reconfigure(errors="replace")
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:
        return int(exit_.code or 0)
    try:
        session = setup(args, input_fn=input_fn, output=output)
    except (RulesError, AgentError, ValueError, ImportError) as err:
        print(f"allfours-play: {err}", file=sys.stderr)
        return 2
    return play(session, args.save_record, input_fn)


def setup(args: argparse.Namespace, *, input_fn: Callable[[str], str], output: TextIO) -> TerminalGame:
    """Build the rules, the bots and the game from parsed arguments (errors raise); :func:`play`
    runs it."""
    knobs: dict[str, Any] = {} if args.target is None else {"target_points": args.target}
    rules = Rules.make(args.preset, args.players, **knobs)
    if not 0 <= args.seat < rules.num_players:
        raise ValueError(f"--seat must be 0..{rules.num_players - 1}, got {args.seat}")
    if args.delay < 0:
        raise ValueError(f"--delay must be >= 0, got {args.delay}")
    opponents = split_specs(args.opponent or ["pimc"])
    partner = split_specs([args.partner]) if args.partner else []
    if len(partner) > 1:
        raise AgentError(f"--partner takes one agent spec, got {args.partner!r}")
    specs = seat_specs(rules, args.seat, opponents, partner[0] if partner else None)
    for spec in set(specs.values()):
        parse_spec(spec)
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**31)
    bots = {}
    for s, spec in specs.items():
        bots[s] = make_agent(spec, seed=derive_seed(seed, "build", s))
        bots[s].reset(derive_seed(seed, "agent", s))
    warn_unfit(bots.values(), rules)  # a policy trained for another game: one line on stderr
    game = Game(rules, seed=seed)
    session = TerminalGame(game, args.seat, bots, input_fn=input_fn, output=output, delay=args.delay)
    direction = "clockwise" if rules.direction == "cw" else "anticlockwise"
    session.intro = [
        f"All Fours: {rules.preset}, {rules.num_players} players, {rules.target_points} points to win, "
        f"{direction}; seed {seed} (play these deals again with --seed {seed}).",
        f"You are player_{args.seat}. " + ", ".join(
            f"player_{s}{' (partner)' if rules.side_of(s) == rules.side_of(args.seat) else ''}: {spec}"
            for s, spec in sorted(specs.items())) + ".",
        "Type a move's number or its text (h for help, q to quit).",
    ]
    return session


def play(session: TerminalGame, save_path: str | None, input_fn: Callable[[str], str]) -> int:
    """Run a set-up game, then show the result and save (or offer to save) the record."""
    for line in session.intro:
        session.write(line)
    try:
        finished = session.run()
    except KeyboardInterrupt:
        finished = False
    game = session.game
    if not finished:
        session.write("")
        session.write("You quit; the game was not finished. Scores: " + ", ".join(
            f"{side_name(game, s)} {p}" for s, p in enumerate(game.scores)) + ".")
        if save_path:
            _save(session, save_path, "unfinished game record")
        return 0
    session.write("")
    session.write(session.table())
    session.write(session.result())
    if save_path is None:
        try:
            answer = input_fn("save the game record? file name (Enter to skip): ").strip()
        except (EOFError, KeyboardInterrupt):
            answer = ""
        if answer.lower() not in ("", "n", "no", *QUIT_WORDS):
            save_path = answer
    if save_path:
        _save(session, save_path, "game record")
    return 0


def _save(session: TerminalGame, path: str, what: str) -> None:
    try:
        save_record(session.game.record(), path)
    except OSError as err:
        session.write(f"could not save the {what} to {path}: {err}")
        return
    session.write(f"{what} saved to {path} (allfours_env.replay(allfours_env.load_record(path)) replays it)")


if __name__ == "__main__":
    raise SystemExit(main())
