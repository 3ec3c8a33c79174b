"""Cards, their text form, and bit-set helpers (docs/rules.md §1).

A card is a small integer ``suit * 13 + rank``:

* suits ``C D H S`` are 0..3, ranks ``2 3 4 5 6 7 8 9 T J Q K A`` are 0..12 (R1: higher index
  is higher rank), so ``2C`` is 0, ``AC`` is 12, ``2D`` is 13 and ``AS`` is 51;
* the joker ``JK`` (only used by the preset ``pitch_with_joker``) is 52.

A *set* of cards (a hand, a trick, the cards captured by a side) is an ``int`` bit set: card ``c``
is in the set when bit ``c`` is 1. All four suits of a 52-card pack fit in 52 bits, one 13-bit
block per suit, so "the hearts in this hand" is ``hand & SUIT_MASKS[HEARTS]`` and "the highest
heart" is ``(hand & SUIT_MASKS[HEARTS]).bit_length() - 1``.

This module imports nothing from the project and nothing outside the standard library.
"""

from __future__ import annotations

import random
from collections.abc import Iterable

SUITS = "CDHS"
RANKS = "23456789TJQKA"
CLUBS, DIAMONDS, HEARTS, SPADES = range(4)

NUM_SUITS = 4
NUM_RANKS = 13
NUM_CARDS = 52  # the plain pack
JOKER = 52  # the joker's id, one past the plain pack
NUM_CARD_IDS = 53  # ids 0..52, the joker included

JACK_RANK = RANKS.index("J")
SUIT_SYMBOLS = "♣♦♥♠"
SUIT_NAMES = ("clubs", "diamonds", "hearts", "spades")

SUIT_MASKS = tuple(((1 << NUM_RANKS) - 1) << (NUM_RANKS * s) for s in range(NUM_SUITS))
FULL_PACK = (1 << NUM_CARDS) - 1
JOKER_BIT = 1 << JOKER
JOKER_PACK = FULL_PACK | JOKER_BIT  # the 53-card pack of pitch_with_joker


def pack_size(joker: bool) -> int:
    """The number of cards in the pack: 52, or 53 with the joker (RD21)."""
    return NUM_CARD_IDS if joker else NUM_CARDS

#: Card points for Game (R4): A=4, K=3, Q=2, J=1, T=10, every other card 0, in every suit.
RANK_GAME_POINTS = {"A": 4, "K": 3, "Q": 2, "J": 1, "T": 10}
CARD_GAME_POINTS = tuple(
    RANK_GAME_POINTS.get(RANKS[c % NUM_RANKS], 0) for c in range(NUM_CARDS)
) + (0,)


def make_card(rank: int, suit: int) -> int:
    """Return the id of the card of ``rank`` (0 = two .. 12 = ace) and ``suit`` (0..3)."""
    return suit * NUM_RANKS + rank


def suit_of(card: int) -> int:
    """Return the suit (0..3) of a plain card."""
    return card // NUM_RANKS


def rank_of(card: int) -> int:
    """Return the rank (0 = two .. 12 = ace) of a plain card."""
    return card % NUM_RANKS


#: ``SUIT_OF[card]``: the suit (0..3) of every card id, as :func:`suit_of`, for the hot paths. The
#: joker (52) has no suit of its own: -1 (in a trick it belongs to the trump suit, RD22:
#: :func:`allfours_env.scoring.card_suit`; a lead of it, :func:`allfours_env.scoring.lead_suit`).
SUIT_OF = tuple(c // NUM_RANKS for c in range(NUM_CARDS)) + (-1,)
#: ``RANK_OF[card]``: the rank (0 = two .. 12 = ace) of every card id, as :func:`rank_of`. The joker
#: has no rank of its own: -1 (where it ranks among the trumps is a rule, RD22:
#: :func:`allfours_env.scoring.strength_table`); never index a table by rank with it (-1 would read
#: the ace's entry). A caller that orders the joker among ranks says so in a table of its own.
RANK_OF = tuple(c % NUM_RANKS for c in range(NUM_CARDS)) + (-1,)


def jack_of(suit: int) -> int:
    """Return the id of the jack of ``suit``."""
    return suit * NUM_RANKS + JACK_RANK


def card_str(card: int) -> str:
    """Return the text form of a card id, e.g. ``51 -> 'AS'``, ``52 -> 'JK'``."""
    if card == JOKER:
        return "JK"
    if not 0 <= card < NUM_CARDS:
        raise ValueError(f"card id {card!r} is out of range: card ids are 0..{JOKER}")
    return RANKS[card % NUM_RANKS] + SUITS[card // NUM_RANKS]


_CARD_BY_TEXT = {card_str(c): c for c in range(NUM_CARD_IDS)}
# the ten as the text table prints it (10♥) is accepted too: 10H is TH
_CARD_BY_TEXT |= {f"10{suit}": _CARD_BY_TEXT[f"T{suit}"] for suit in SUITS}
_PACK_IDS = frozenset(range(NUM_CARDS))


def parse_card(text: str) -> int:
    """Return the id of a card written rank-then-suit (``'TD'``, ``'AS'``, ``'7H'``, ``'JK'``; the ten
    also as ``'10D'``, as the text table prints it).

    Only the upper-case form is accepted; anything else raises a ``ValueError`` that says what the
    accepted form would be, when one can be guessed. :func:`card_str` always writes the ten ``T``.
    """
    card = _CARD_BY_TEXT.get(text) if isinstance(text, str) else None
    if card is not None:
        return card
    raise ValueError(_bad_card_message(text))


def _bad_card_message(text: object) -> str:
    if not isinstance(text, str):
        return f"a card must be written as a string like 'AS', got {type(text).__name__} {text!r}"
    hint = ""
    stripped = text.strip()
    if stripped.upper() in _CARD_BY_TEXT:
        hint = f" (did you mean {stripped.upper()!r}?)"
    elif len(stripped) == 2 and stripped[1].upper() in RANKS and stripped[0].upper() in SUITS:
        hint = f" (rank comes first: {(stripped[1] + stripped[0]).upper()!r})"
    return (
        f"{text!r} is not a card{hint}: write rank then suit, ranks {' '.join(RANKS)}, "
        f"suits {' '.join(SUITS)} (e.g. 'TD' or '10D', 'AS', '7H'; the joker is 'JK')"
    )


def parse_cards(texts: str | Iterable[str]) -> list[int]:
    """Parse several cards: a whitespace-separated string (``'KC 4C AD'``) or an iterable of strings."""
    if isinstance(texts, str):
        texts = texts.split()
    return [parse_card(t) for t in texts]


def mask_of(cards: Iterable[int]) -> int:
    """Return the bit set holding ``cards``."""
    mask = 0
    for c in cards:
        mask |= 1 << c
    return mask


def cards_of(mask: int) -> list[int]:
    """Return the card ids in bit set ``mask``, lowest id first."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def mask_str(mask: int) -> str:
    """Return the cards of a bit set as text, grouped by suit, high card first (``'AS 9S KH 2C'``)."""
    out = []
    for s in reversed(range(NUM_SUITS)):
        in_suit = cards_of(mask & SUIT_MASKS[s])
        out.extend(card_str(c) for c in reversed(in_suit))
    if mask >> NUM_CARDS & 1:
        out.append("JK")
    return " ".join(out)


def parse_deck(deck: Iterable[str] | Iterable[int], *, size: int = NUM_CARDS) -> list[int]:
    """Validate and parse a deck given top card first: ``size`` distinct cards, as text or ids.

    Raises ``ValueError`` naming the problem (wrong count, a duplicate, an unknown card).
    """
    if isinstance(deck, str):
        raise ValueError("a deck must be a list of cards such as ['AS', 'TD', ...], not one string")
    if (
        size == NUM_CARDS
        and isinstance(deck, list)
        and len(deck) == NUM_CARDS
        and set(deck) == _PACK_IDS
        and all(type(c) is int for c in deck)
    ):
        return list(deck)  # fast path: already a permutation of the card ids
    cards: list[int] = []
    for i, item in enumerate(deck):
        if isinstance(item, str):
            try:
                card = parse_card(item)
            except ValueError as err:
                raise ValueError(f"deck position {i}: {err}") from None
        elif isinstance(item, int) and not isinstance(item, bool) and 0 <= item < NUM_CARD_IDS:
            card = item
        else:
            raise ValueError(f"deck position {i}: {item!r} is not a card (use text like 'AS')")
        cards.append(card)
    seen: dict[int, int] = {}
    for i, card in enumerate(cards):
        if card in seen:
            raise ValueError(
                f"deck holds {card_str(card)} twice (positions {seen[card]} and {i}); "
                f"every card of the pack must appear exactly once"
            )
        seen[card] = i
    if len(cards) != size:
        raise ValueError(f"a deck must hold exactly {size} cards, this one holds {len(cards)}")
    if size == NUM_CARDS and JOKER in seen:
        raise ValueError("deck holds the joker JK, but this game uses the 52-card pack without it")
    return cards


_SHUFFLE_STEPS = {
    size: tuple((i, (i + 1).bit_length()) for i in range(size - 1, 0, -1))
    for size in (NUM_CARDS, NUM_CARD_IDS)
}


def shuffled_pack(rng: random.Random, size: int = NUM_CARDS) -> list[int]:
    """A new shuffled pack of ``size`` cards (52, or 53 with the joker; ``pack[0]`` the top card),
    drawn from ``rng``.

    The Fisher–Yates shuffle is spelled out over ``rng.getrandbits`` (the same draws and the same
    order as CPython's ``random.shuffle``), so that deals never depend on how a Python version
    implements ``random.shuffle`` — and it is about twice as fast, one shuffle per deal."""
    pack = list(range(size))
    getrandbits = rng.getrandbits
    for i, bits in _SHUFFLE_STEPS[size]:
        j = getrandbits(bits)
        while j > i:
            j = getrandbits(bits)
        pack[i], pack[j] = pack[j], pack[i]
    return pack
