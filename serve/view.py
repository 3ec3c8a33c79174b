"""A game as JSON, as one observer may see it: the table, the legal moves and the hands played.

What an observer sees is decided by :mod:`allfours_env.visibility` (the one filter of who sees
what): a seat sees its own hand and discards, the others' card counts, the stock's top card only
where it lies face up, and the log through :func:`~allfours_env.visibility.visible_event`
(:func:`~allfours_env.render.describe_event` writes each line); ``observer=None`` is the spectator's
view with every hand open. Cards are their record text (``"AS"``, ``"TH"``, ``"JK"``); the page
draws them.
"""

from __future__ import annotations

from typing import Any

from agents.play.moves import legal_moves
from allfours_env.actions import PLAYED_CARD, action_card, action_to_str
from allfours_env.cards import JOKER, SUIT_NAMES, card_str, cards_of
from allfours_env.engine import Game
from allfours_env.events import EventKind, Phase
from allfours_env.render import describe_event, pretty_action, side_name
from allfours_env.rules import POINT_KIND_TITLES
from allfours_env.visibility import sees_discard, sees_hand, sees_stock_top, visible_event


def cards(mask: int) -> list[str]:
    """The cards of a bit set as text, the joker first, then by suit (spades, hearts, diamonds,
    clubs), high card first — the order the hand is shown in."""
    held = cards_of(mask)
    ordered = ([JOKER] if JOKER in held else []) + sorted((c for c in held if c != JOKER), reverse=True)
    return [card_str(c) for c in ordered]


def moves(game: Game) -> list[dict[str, Any]]:
    """The legal moves of the player to move: action id, record text, shown text and card (if any)."""
    out = []
    for action in legal_moves(game):
        card = action_card(action)
        out.append({"action": action, "text": action_to_str(action), "label": pretty_action(action),
                    "card": None if card is None else card_str(card)})
    return out


def award_json(game: Game, award: Any) -> dict[str, Any]:
    """One award with its kind's title and the side's name."""
    return {"kind": str(award.kind), "title": POINT_KIND_TITLES.get(award.kind, str(award.kind)),
            "side": award.side, "side_name": side_name(game, award.side), "points": award.points}


def hands_played(game: Game) -> list[dict[str, Any]]:
    """Every completed hand (public): its number, dealer, awards and the scores after it (the hand
    that ends the game included)."""
    hands: list[dict[str, Any]] = []
    scores = list(game.initial_scores)
    awards: list[dict[str, Any]] = []
    dealer = game.first_dealer
    for kind, who, value in game.log:
        if kind == EventKind.DEAL:
            dealer = who
        elif kind == EventKind.AWARD:
            scores[who] += value.points
            awards.append(award_json(game, value))
        elif kind == EventKind.HAND_END or (kind == EventKind.GAME_OVER and awards):
            # the game ends in the hand's scoring: that hand has no hand_end event
            number = value + 1 if kind == EventKind.HAND_END else len(hands) + 1
            hands.append({"hand": number, "dealer": dealer, "awards": awards, "scores": list(scores)})
            awards = []
    return hands


def _tricks(game: Game, observer: int | None) -> dict[str, Any] | None:
    """The last trick won in the current hand: its cards in order and its winner."""
    last, current = None, []
    for event in game.hand_log():
        kind, who, value = visible_event(event, observer, game.rules)
        if kind == EventKind.ACT and value is not None and PLAYED_CARD[value] >= 0:
            current.append({"seat": who, "card": card_str(PLAYED_CARD[value])})
        elif kind == EventKind.TRICK:
            last, current = {"winner": who, "cards": current}, []
    return last


def table(game: Game, observer: int | None) -> dict[str, Any]:
    """The table as ``observer`` (a seat, or None: every hand open) sees it, with the current hand's
    history as text lines and the hands already played."""
    rules = game.rules
    seats = []
    for s in range(game.n):
        shown = sees_hand(s, observer)
        dropped = game.discards[s]
        seats.append({
            "seat": s, "side": game.sides[s], "count": game.hands[s].bit_count(),
            "cards": cards(game.hands[s]) if shown else None,
            "discard_count": dropped.bit_count(),
            "discards": cards(dropped) if sees_discard(s, observer) else None,
        })
    stock = None
    if rules.plan.stock:
        left = len(game.deck) - game.pos
        top = card_str(game.deck[game.pos]) if left and sees_stock_top(rules, observer) else None
        stock = {"left": left, "top": top}
    leader = game.trick_leader
    lines = [describe_event(game, event, seat=observer) for event in game.hand_log()]
    return {
        "preset": rules.preset, "players": game.n, "target": rules.target_points,
        "clockwise": rules.plan.clockwise, "observer": observer,
        "phase": game.phase_name, "to_move": game.current_player if game.current_player >= 0 else None,
        "dealer": game.dealer, "eldest": game.eldest,
        "hand": game.hand_number + (0 if game.phase == Phase.HAND_OVER else 1),  # paused: already the next
        "sides": list(game.sides), "side_names": [side_name(game, s) for s in range(game.num_sides)],
        "scores": list(game.scores),
        "turnups": [card_str(c) for c in game.turnups],
        "trump": SUIT_NAMES[game.trump] if game.trump >= 0 else None,
        "proposed": SUIT_NAMES[game.proposed] if game.proposed >= 0 else None,
        "bids": [{"seat": who, "bid": action_to_str(a)} for who, a in game.bids],
        "pitcher": game.pitcher if game.pitcher >= 0 else None, "contract": game.contract,
        "stock": stock,
        "trick": [{"seat": (leader + i) % game.n, "card": card_str(c)}
                  for i, c in enumerate(game.trick_cards)],
        "last_trick": _tricks(game, observer),
        "seats": seats,
        "log": [line for line in lines if line],
        "hands_played": hands_played(game),
        "over": game.is_over,
        "winner": game.winner, "winner_name": None if game.winner is None else side_name(game, game.winner),
    }
