"""What a line typed at the terminal game means: a key (help, table, history, quit) or a move.

A move is typed as its number in the list (:func:`legal_moves`, from 1), as a word (``stand``,
``beg``, ``gift`` or ``give``, ``run``; in an auction ``pass``, ``bid 2``, ``hold``), or as a
card with or without its verb: ``play AS``, ``p as``, ``discard 10h``, ``AS``, ``a♠``, ``10 ♥``,
``Th``, ``JK`` (the joker). :func:`parse_move` returns the legal
action meant, or why the line is not one — in words a person can act on (which suit to follow, the
rule that forbids it). Nothing here prints; :mod:`agents.play.ui` shows the answers.
"""

from __future__ import annotations

from allfours_env.actions import (
    BEG,
    DISCARD_BASE,
    GIFT,
    HOLD,
    MAX_BID,
    PASS,
    PLAY_BASE,
    RUN,
    STAND,
    action_card,
    bid_action,
)
from allfours_env.cards import JOKER, NUM_RANKS, RANKS, SUIT_NAMES, SUIT_SYMBOLS, SUITS
from allfours_env.engine import Game
from allfours_env.events import Phase
from allfours_env.render import pretty_card

#: The keys other than moves, by what they do.
KEYS = {
    "quit": ("q", "quit", "exit"),
    "help": ("h", "?", "help"),
    "table": ("t", "table"),
    "log": ("l", "log", "history"),
}
QUIT_WORDS = KEYS["quit"]
_WORD_ACTIONS = {"stand": STAND, "beg": BEG, "gift": GIFT, "give": GIFT, "run": RUN, "pass": PASS,
                 "hold": HOLD, **{f"bid {k}": bid_action(k) for k in range(1, MAX_BID + 1)}}
_SUIT_LETTERS = {"♣": "C", "♧": "C", "♦": "D", "♢": "D", "♥": "H", "♡": "H", "♠": "S", "♤": "S"}


def key_of(text: str) -> str | None:
    """The key a typed line is (``"quit"``, ``"help"``, ``"table"``, ``"log"``), or None."""
    word = text.strip().lower()
    for key, words in KEYS.items():
        if word in words:
            return key
    return None


def parse_card_text(text: str) -> int | None:
    """A card typed by a person: ``AS``, ``as``, ``A♠``, ``10h``, ``Th``, ``10 ♥``; None if not a card."""
    text = "".join(text.split())
    if text.upper() in ("JK", "JOKER"):
        return JOKER
    for symbol, letter in _SUIT_LETTERS.items():
        text = text.replace(symbol, letter)
    text = text.upper()
    if text.startswith("10"):
        text = "T" + text[2:]
    if len(text) != 2 or text[0] not in RANKS or text[1] not in SUITS:
        return None
    return SUITS.index(text[1]) * NUM_RANKS + RANKS.index(text[0])


def _sort_key(action: int) -> tuple[int, int]:
    """Moves in the order the hand is shown: spades, hearts, diamonds, clubs, high card first."""
    card = action_card(action)
    return (0, action) if card is None else (1, -card)


def legal_moves(game: Game) -> list[int]:
    """The legal moves of the player to move, in the order they are listed (numbered from 1)."""
    return sorted(game.legal_actions(), key=_sort_key)


def parse_move(game: Game, seat: int, text: str) -> tuple[int | None, str]:
    """The legal action that ``text``, typed by ``seat`` (the player to move), means, or
    ``(None, why not)``."""
    moves = legal_moves(game)
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
        if action == GIFT and game.phase == Phase.GIFT_OR_RUN:
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
    phase = game.phase
    wanted = "play" if phase == Phase.PLAY else "discard" if phase == Phase.DISCARD else ""
    if not wanted:
        return None, "no card is played or discarded now"
    if verb and verb != wanted:
        return None, f"you {wanted} now, you do not {verb}"
    if not game.hands[seat] >> card & 1:
        return None, f"{pretty_card(card)} is not in your hand"
    action = (PLAY_BASE if wanted == "play" else DISCARD_BASE) + card
    if action not in moves:
        trump = game.trump
        led = trump if game.trick_cards[0] == JOKER else game.trick_cards[0] // NUM_RANKS
        if card != JOKER and card // NUM_RANKS not in (led, trump):
            return None, (f"{pretty_card(card)} cannot be played now: you hold {SUIT_NAMES[led]}, so "
                          f"follow with {SUIT_SYMBOLS[led]} or trump with {SUIT_SYMBOLS[trump]} (R3)")
        return None, f"{pretty_card(card)} cannot be played now: no under-trumping here (K15)"
    return action, ""
