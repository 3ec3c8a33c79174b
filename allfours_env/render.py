"""Text rendering of the table, from one seat's point of view or the god's-eye view.

Standard library only; used by the environment's ``ansi``/``human`` render modes, the demo and the
terminal game. What an observer (a seat, or ``None`` for a spectator) sees is decided by
:mod:`allfours_env.visibility`, not here: the table shows the hands and the stock's top card it
allows, and the event lines describe the events as :func:`~allfours_env.visibility.visible_event`
returns them.
"""

from __future__ import annotations

from collections.abc import Mapping

from allfours_env.actions import action_card, action_to_str
from allfours_env.cards import JOKER, NUM_RANKS, SUIT_NAMES, SUIT_SYMBOLS, cards_of
from allfours_env.engine import Game
from allfours_env.events import Event, EventKind
from allfours_env.visibility import sees_discard, sees_hand, sees_stock_top, visible_event


def pretty_card(card: int) -> str:
    """A card with its suit symbol, high ranks as letters and the ten as 10: ``A♠``, ``10♥``."""
    if card == 52:
        return "JK"
    rank = "23456789TJQKA"[card % NUM_RANKS]
    return ("10" if rank == "T" else rank) + SUIT_SYMBOLS[card // NUM_RANKS]


def pretty_cards(mask: int) -> str:
    """The cards of a bit set, the joker first, then by suit (spades, hearts, diamonds, clubs), high
    card first."""
    groups = ["JK"] if mask >> JOKER & 1 else []
    for suit in reversed(range(4)):
        in_suit = [c for c in cards_of(mask) if c // NUM_RANKS == suit]
        if in_suit:
            groups.append(" ".join(pretty_card(c) for c in reversed(in_suit)))
    return "  ".join(groups) if groups else "-"


def pretty_action(action: int) -> str:
    """An action's text with the card shown by symbol: ``play A♠``, ``discard 10♥``, ``beg``."""
    card = action_card(action)
    if card is None:
        return action_to_str(action)
    return action_to_str(action).split()[0] + " " + pretty_card(card)


def side_name(game: Game, side: int) -> str:
    """``player_0`` for a lone player, ``player_0+player_2`` for a partnership."""
    seats = [s for s in range(game.n) if game.sides[s] == side]
    return "+".join(f"player_{s}" for s in seats)


def render_table(game: Game, seat: int | None = None, labels: Mapping[int, str] | None = None) -> str:
    """The table as text, as observer ``seat`` sees it (:mod:`allfours_env.visibility`). A seat's
    view shows its own hand and only the card counts of the others' (never their cards), the
    stock's top card only where the stock lies face up (california_jack; in shasta_sam it shows
    "face down", RD10), its own discards of the hand and only the number of the others' (P5, D8).
    With ``None`` (spectators, debugging) every hand, every discard and the stock's top card.
    Public in both: scores, turn-ups, trump, bids, the trick, who is to move.
    ``labels`` adds a note after a seat's name in its row: ``{0: "you", 2: "partner"}`` →
    ``player_0 (you): ...``."""
    rules = game.rules
    direction = "clockwise" if rules.plan.clockwise else "anticlockwise"
    lines = [
        f"{rules.preset} · {game.n} players · to {rules.target_points} · {direction}",
        "scores: " + ", ".join(f"{side_name(game, s)} {game.scores[s]}" for s in range(game.num_sides)),
        f"dealer: player_{game.dealer}   eldest: player_{game.eldest}   phase: {game.phase_name}",
    ]
    if game.turnups:
        lines.append("turned up: " + " ".join(pretty_card(c) for c in game.turnups))
    if game.trump >= 0:
        lines.append(f"trump: {SUIT_SYMBOLS[game.trump]} {SUIT_NAMES[game.trump]}")
    elif game.proposed >= 0:
        lines.append(f"proposed trump: {SUIT_SYMBOLS[game.proposed]} {SUIT_NAMES[game.proposed]}")
    if game.bids:
        lines.append("bids: " + ", ".join(f"player_{who} {action_to_str(a)}" for who, a in game.bids))
    if game.pitcher >= 0:
        lines.append(f"pitcher: player_{game.pitcher}, contract {game.contract}")
    if rules.plan.stock:
        left = len(game.deck) - game.pos
        shown = left and sees_stock_top(rules, seat)  # RD10: face down in shasta_sam
        top = pretty_card(game.deck[game.pos]) if shown else "face down"
        lines.append(f"stock: {left} cards" + (f", top card {top}" if left else ""))
    if game.trick_cards:
        leader = game.trick_leader
        played = [f"player_{(leader + i) % game.n} {pretty_card(c)}" for i, c in enumerate(game.trick_cards)]
        lines.append("trick: " + ", ".join(played))
    for s in range(game.n):
        marker = "→" if s == game.current_player else " "
        if sees_hand(s, seat):
            hand = pretty_cards(game.hands[s])
        else:
            hand = f"{game.hands[s].bit_count()} cards"
        dropped = game.discards[s]
        if dropped:
            if sees_discard(s, seat):
                hand += f"   discarded: {pretty_cards(dropped)}"
            else:
                hand += f"   discarded {dropped.bit_count()} cards"
        label = f" ({labels[s]})" if labels and s in labels else ""
        lines.append(f"{marker} player_{s}{label}: {hand}")
    if game.is_over:
        lines.append(f"game over: {side_name(game, game.winner)} won")
    return "\n".join(lines)


def describe_event(game: Game, event: Event, seat: int | None = None) -> str | None:
    """One line for a log event as observer ``seat`` sees it (``None``: a spectator, everything), or
    ``None`` for events not worth a line. The event is filtered by
    :func:`~allfours_env.visibility.visible_event` first: another player's discard reads "discards a
    card" (P5), a draw this seat does not see "draws a card" (RD10)."""
    kind, who, value = visible_event(event, seat, game.rules)
    if kind == EventKind.DEAL:
        return f"— deal {value + 1}: player_{who} deals —"
    if kind == EventKind.TURNUP:
        return f"player_{who} turns up {pretty_card(value)}"
    if kind == EventKind.ACT:
        if value is None:  # another player's discard (P5)
            return f"player_{who} discards a card"
        return f"player_{who}: {pretty_action(value)}"
    if kind == EventKind.CONTRACT:  # the auction is over (RD13–RD15)
        return f"player_{who} pitches, contract {value}"
    if kind == EventKind.TRUMP:
        return f"trump is {SUIT_SYMBOLS[value]} {SUIT_NAMES[value]}"
    if kind == EventKind.TRICK:
        return f"player_{who} wins the trick"
    if kind == EventKind.DRAW:  # RD10: a face-down draw is seen by its drawer only
        if value is None:
            return f"player_{who} draws a card"
        return f"player_{who} draws {pretty_card(value)}"
    if kind == EventKind.AWARD:
        return f"{side_name(game, who)} scores {value.points:+d} ({value.kind})"
    if kind == EventKind.THROWN_IN:
        return "the pack ran out during the run: the hand is thrown in"
    if kind == EventKind.GAME_OVER:
        return f"game over: {side_name(game, who)} won, scores {'-'.join(map(str, value))}"
    return None
