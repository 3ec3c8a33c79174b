"""The terminal game's screen and turn loop: :class:`TerminalGame` shows the table, the events and the
legal moves as the human's seat may see them, reads lines until one is a legal move
(:mod:`agents.play.moves` says what a line means) and lets the bots decide for the other seats.

What is shown comes from :func:`allfours_env.render.render_table` and
:func:`allfours_env.render.describe_event` with the human's seat, fed the log through
:func:`allfours_env.visibility.seen_events` (the one filter of who sees what): their hand, the
turn-ups, the current trick, trump, scores, everyone's card counts and the public history of the
hand — never another player's cards or discards, nor the stock.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import TextIO

from agents.base import Agent
from agents.play.bots import BotSeats
from agents.play.moves import key_of, legal_moves, parse_move
from allfours_env.actions import action_card
from allfours_env.cards import card_str
from allfours_env.engine import Game
from allfours_env.events import EventKind
from allfours_env.render import (
    describe_event,
    pretty_action,
    pretty_card,
    pretty_cards,
    render_table,
    side_name,
)
from allfours_env.rules import POINT_KIND_ORDER
from allfours_env.visibility import seen_events

_PHASE_HELP = {
    "beg": "You are eldest: 'stand' keeps the proposed trump, 'beg' asks the dealer for another one.",
    "gift_or_run": "You are the dealer and eldest begged: 'gift' gives the point(s) and keeps the "
                   "proposed trump, 'run' deals three more cards each and turns up a new trump.",
    "discard": "You hold more cards than the hand size: discard one card at a time, face down.",
    "play": "Play a card. Holding a card of the suit led you must follow suit or trump (R3); "
            "otherwise any card. The joker (JK) is a trump. The first card of an auction's hand "
            "fixes trump (the pitch).",
    "bid": "The auction: 'pass', or 'bid N' above the highest bid so far; as dealer, 'hold' takes "
           "the highest bid. The highest bidder pitches and must make the contract or is set back.",
}


class Quit(Exception):
    """The player asked to stop (``q``, end of input, Ctrl-C)."""


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
        self.intro: list[str] = []  # lines shown before the game starts (set by the command line)
        self.shown = 0  # log events already described
        self._scores = list(game.initial_scores)  # running scores as the events are described
        self._bot_seats = BotSeats(game, bots)
        self.labels = {seat: "you"}
        partner = self.partner_seat()
        if partner is not None:
            self.labels[partner] = "partner"

    # ------------------------------------------------------------------ output

    def write(self, text: str = "") -> None:
        """Show one line (or block) to the player."""
        self.output.write(text + "\n")
        self.output.flush()

    def table(self) -> str:
        """The table as the player's seat sees it, the player's (and partner's) row marked."""
        return render_table(self.game, seat=self.seat, labels=self.labels)

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
        for event in seen_events(game.log[self.shown:], self.seat, game.rules):
            kind, who, value = event
            if kind == EventKind.DEAL:
                self.write()
                dealt = True
            elif kind == EventKind.AWARD:
                self._scores[who] += value.points
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
        game = self.game
        lines = [describe_event(game, event, seat=self.seat)
                 for event in seen_events(game.hand_log(), self.seat, game.rules)]
        return "\n".join(line for line in lines if line)

    def moves(self) -> list[int]:
        """The player's legal moves, in the order they are listed (numbered from 1)."""
        return legal_moves(self.game)

    def move_list(self) -> str:
        """The numbered legal moves, wrapped at 76 columns."""
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
        """What the phase asks for and how to type a move, with examples from the player's cards."""
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
        """The legal action a typed line means, or ``(None, why not)``
        (:func:`agents.play.moves.parse_move`)."""
        return parse_move(self.game, self.seat, text)

    def ask(self) -> int:
        """Show the table and the legal moves; read lines until one is a legal move."""
        self.write()
        self.write(self.table())
        self.write(f"your move ({self.game.phase_name}):")
        self.write(self.move_list())
        shown_for = {"help": self.help_text, "table": self.table, "log": self.hand_history}
        while True:
            try:
                text = self.input_fn("> ")
            except (EOFError, KeyboardInterrupt):
                raise Quit from None
            if text is None:
                raise Quit
            key = key_of(text)
            if key == "quit":
                raise Quit
            if key is not None:
                self.write(shown_for[key]())
                self.write(self.move_list())
                continue
            if not text.strip():
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
        """The decision of the bot at ``seat`` (:class:`~agents.play.bots.BotSeats`)."""
        return self._bot_seats.act(seat)

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
        kinds: dict[str, list[int]] = {kind: [0] * game.num_sides for kind in POINT_KIND_ORDER}
        for award in game.awards:
            kinds.setdefault(award.kind, [0] * game.num_sides)[award.side] += award.points
        kinds = {kind: points for kind, points in kinds.items() if any(points)}
        if kinds:
            width = max(len(side_name(game, s)) for s in range(game.num_sides))
            lines.append("points by kind: " + ", ".join(kinds))
            for s in range(game.num_sides):
                cells = "  ".join(f"{k} {kinds[k][s]}" for k in kinds)
                lines.append(f"  {side_name(game, s):<{width}}  {cells}")
        return "\n".join(lines)
