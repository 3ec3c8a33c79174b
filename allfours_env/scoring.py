"""The rules of trick play and scoring as pure functions: the one home of every rule that the engine,
the search solver and the rule-based bot all need (docs/rules.md §2–§3).

* **Trick strength and winner** (R1, R2): :func:`strength_table` gives every card's strength in a
  trick for a trump suit and a suit led; the highest strength wins the trick (:func:`trick_winner`).
* **Legal plays** (R3, K15): :func:`legal_plays`, :func:`without_undertrumps`.
* **Scoring a hand** (R7–R10, K11–K13): :class:`HandScorer` turns what the tricks produced — the
  cards each side captured and their card points — into the hand's awards in scoring order;
  :func:`extreme_trump` (High, Low), :func:`jack_award` (Jack, hang jack), :func:`game_sides` (Game
  and its tie rule), :func:`settle` (R10: the first side to reach the target wins at once).
* **The gift** (P3, K7, K8): :func:`gift_recipients`, :func:`gift_blocked`.

Cards and hands are the integers and bit sets of :mod:`allfours_env.cards`. Standard library only.
"""

from __future__ import annotations

from collections.abc import Sequence

from allfours_env.cards import (
    CARD_GAME_POINTS,
    NUM_CARDS,
    NUM_RANKS,
    SUIT_MASKS,
    jack_of,
)
from allfours_env.rules import Rules

#: Strengths of cards in a trick (R1, R2): a card of neither the suit led nor trump is 0; a card
#: of the suit led is ``LED_BASE + rank``; a trump is ``TRUMP_BASE + rank`` — every trump beats every
#: card of the suit led, and within a suit a higher rank beats a lower one.
LED_BASE = 16
TRUMP_BASE = 32

_SUIT = tuple(c // NUM_RANKS for c in range(NUM_CARDS))
_RANK = tuple(c % NUM_RANKS for c in range(NUM_CARDS))
_TABLES: dict[tuple[int, int], tuple[int, ...]] = {}
_TABLES_BY_TRUMP: dict[int, tuple[tuple[int, ...], ...]] = {}
_BEATING: dict[tuple[int, int], tuple[int, ...]] = {}


def strength_table(trump: int, led: int) -> tuple[int, ...]:
    """The strength of every card id in a trick where ``led`` (a suit) was led and ``trump`` (a suit,
    or -1 before trump is fixed) is trump (R1, R2). The card of highest strength wins the trick."""
    table = _TABLES.get((trump, led))
    if table is None:
        table = tuple(
            TRUMP_BASE + _RANK[c] if _SUIT[c] == trump else LED_BASE + _RANK[c] if _SUIT[c] == led else 0
            for c in range(NUM_CARDS)
        )
        _TABLES[(trump, led)] = table
    return table


def strength_tables(trump: int) -> tuple[tuple[int, ...], ...]:
    """The four :func:`strength_table` s of trump suit ``trump``, by suit led (C, D, H, S)."""
    tables = _TABLES_BY_TRUMP.get(trump)
    if tables is None:
        tables = _TABLES_BY_TRUMP[trump] = tuple(strength_table(trump, led) for led in range(4))
    return tables


def card_strength(card: int, led: int, trump: int) -> int:
    """The strength of ``card`` in a trick where ``led`` was led under ``trump`` (see
    :func:`strength_table`)."""
    return strength_table(trump, led)[card]


def is_trump_strength(strength: int) -> bool:
    """Whether a strength of :func:`strength_table` is a trump's."""
    return strength >= TRUMP_BASE


def trick_winner(cards: Sequence[int], trump: int) -> int:
    """The position in ``cards`` (in the order played, the lead first) of the card that wins the
    trick (R2): the highest trump, or without one the highest card of the suit led."""
    strength = strength_table(trump, _SUIT[cards[0]])
    best, best_strength = 0, strength[cards[0]]
    for i in range(1, len(cards)):
        s = strength[cards[i]]
        if s > best_strength:
            best, best_strength = i, s
    return best


def beating(card: int, led: int, trump: int) -> int:
    """The bit set of cards that would beat ``card`` in a trick where ``led`` was led (R2)."""
    table = _BEATING.get((trump, led))
    if table is None:
        strength = strength_table(trump, led)
        table = _BEATING[(trump, led)] = tuple(
            sum(1 << c for c in range(NUM_CARDS) if strength[c] > strength[own]) for own in range(NUM_CARDS)
        )
    return table[card]


def legal_plays(hand: int, led_mask: int, trump_mask: int) -> int:
    """R3, the permissive trump: the cards of ``hand`` that may be played to a trick whose led suit's
    cards are ``led_mask`` (0 when leading: any card). A follower holding the suit led plays it or a
    trump; without it, any card."""
    follow = hand & led_mask
    if not follow:
        return hand
    return follow | (hand & trump_mask)


def without_undertrumps(legal: int, trump_mask: int, strength: Sequence[int], best: int) -> int:
    """K15 ``banned_unless_no_choice``: when a plain suit was led and the trick's best card is a trump
    of strength ``best``, remove the trumps lower than it from ``legal`` — unless they are all that
    ``legal`` holds."""
    lower = 0
    trumps = legal & trump_mask
    while trumps:
        low = trumps & -trumps
        if strength[low.bit_length() - 1] < best:
            lower |= low
        trumps ^= low
    return legal ^ lower if legal != lower else legal


# ---------------------------------------------------------------------- scoring a hand (P7)


def jack_award(rules: Rules, capturer_side: int, holder_side: int) -> tuple[int, str]:
    """R8, K12: ``(points, kind)`` for the side that won the jack of trumps in a trick. A jack won
    from another side scores ``hang_jack_points``, recorded as ``hang_jack`` when that differs from
    ``jack_points`` (docs/rules.md D1)."""
    if capturer_side != holder_side and rules.hang_jack_points != rules.jack_points:
        return rules.hang_jack_points, "hang_jack"
    return rules.jack_points, "jack"


def game_sides(rules: Rules, card_points: Sequence[int], sides: Sequence[int], dealer: int) -> list[int]:
    """R9, K13: the side(s) that score Game given each side's captured card points (R4). A tie is
    settled by ``game_tie_rule`` (docs/rules.md D4 for four players without partnerships)."""
    best = max(card_points)
    if card_points.count(best) == 1:
        return [card_points.index(best)]
    tied = [side for side, points in enumerate(card_points) if points == best]
    rule = rules.game_tie_rule
    if rule == "nobody":
        return []
    n = len(sides)
    dealer_side = sides[dealer]
    others: list[int] = []
    for i in range(1, n + 1):  # turn order from eldest
        side = sides[(dealer + i) % n]
        if side in tied and side != dealer_side and side not in others:
            others.append(side)
    if rule == "seven_up" or n == 3:
        return others if len(others) == 1 else []
    return others  # non_dealer


class HandScorer:
    """Scores a hand once its tricks are played (P7): built from what is fixed when trick play begins
    (the rules, the seats, the dealer, the trump and the cards in play, R6), then
    :meth:`awards` takes what the tricks produced and returns every award in scoring order (R10).

    The engine scores each hand with it, and the search solver values every leaf of its tree with
    it, so both follow the same rules.

    R7: ``high`` and ``low`` are the highest and lowest trump in play (-1 when no trump is in play)
    and ``high_side``, ``low_side`` the sides that held them; ``jack_side`` is the side that held the
    jack of trumps (R8), -1 when it is not in play."""

    __slots__ = ("rules", "sides", "dealer", "trump", "high", "low", "high_side", "low_side", "jack",
                 "jack_side", "_plan")

    def __init__(self, rules: Rules, sides: Sequence[int], dealer: int, trump: int,
                 in_play: Sequence[int]) -> None:
        self.rules = rules
        self.sides = sides
        self.dealer = dealer
        self.trump = trump
        self.jack = jack = jack_of(trump)
        trump_mask = SUIT_MASKS[trump]
        high = low = high_side = low_side = jack_side = -1
        for seat, cards in enumerate(in_play):
            trumps = cards & trump_mask
            if not trumps:
                continue
            top = trumps.bit_length() - 1
            if top > high:
                high, high_side = top, sides[seat]
            bottom = (trumps & -trumps).bit_length() - 1
            if low < 0 or bottom < low:
                low, low_side = bottom, sides[seat]
            if trumps >> jack & 1:
                jack_side = sides[seat]
        self.high, self.high_side, self.low, self.low_side = high, high_side, low, low_side
        self.jack_side = jack_side
        self._plan = rules.scoring_plan

    @property
    def watched(self) -> int:
        """The cards whose captor changes the score: the jack, and High and Low under ``captured``."""
        watched = 1 << self.jack
        if any(by_captor for _, by_captor in self._plan):
            for card in (self.high, self.low):
                if card >= 0:
                    watched |= 1 << card
        return watched

    def awards(self, captured: Sequence[int], card_points: Sequence[int]) -> list[tuple[int, int, str]]:
        """Every award of the hand as ``(side, points, kind)`` in ``scoring_order`` (R7–R9):
        ``captured[side]`` is the bit set of cards the side won in tricks, ``card_points[side]`` their
        card points (R4). Awards of 0 points are left out (docs/rules.md D10)."""
        out: list[tuple[int, int, str]] = []
        for kind, by_captor in self._plan:
            if kind == "high" or kind == "low":
                card, side = (self.high, self.high_side) if kind == "high" else (self.low, self.low_side)
                if card < 0:
                    continue  # no trump in play
                if by_captor:  # K11: to the captor; a discarded card never won: nobody (D5)
                    side = captor(captured, card)
                    if side < 0:
                        continue
                out.append((side, 1, kind))
            elif kind == "jack":
                side = captor(captured, self.jack)
                if side >= 0:  # not in play, or in play only as a discard (K16): nobody
                    points, jack_kind = jack_award(self.rules, side, self.jack_side)
                    if points:
                        out.append((side, points, jack_kind))
            else:
                points = self.rules.game_points
                if points:
                    for side in game_sides(self.rules, card_points, self.sides, self.dealer):
                        out.append((side, points, "game"))
        return out


def captor(captured: Sequence[int], card: int) -> int:
    """The side whose captured cards hold ``card``, or -1."""
    for side, cards in enumerate(captured):
        if cards >> card & 1:
            return side
    return -1


# Card points (R4) of every set of ranks within one suit, indexed by the suit's 13-bit mask.
_SUIT_POINTS = tuple(sum(CARD_GAME_POINTS[r] for r in range(NUM_RANKS) if m >> r & 1)
                     for m in range(1 << NUM_RANKS))


def card_points(cards: int) -> int:
    """The card points (R4) of a bit set of cards (the joker is worth 0, RD26)."""
    return (_SUIT_POINTS[cards & 8191] + _SUIT_POINTS[cards >> 13 & 8191]
            + _SUIT_POINTS[cards >> 26 & 8191] + _SUIT_POINTS[cards >> 39 & 8191])


def settle(scores: list[int], awards: Sequence[tuple[int, int, str]], target: int) -> tuple[int, int | None]:
    """R10: add ``awards`` (``(side, points, kind)``) to ``scores`` in order, in place, and stop at the
    first that takes its side to ``target``: that side wins the game at that moment, and the hand's
    later awards are not added (a negative award never ends a game, RD2). Return ``(added, winner)``:
    how many awards were added, and the winning side or ``None``."""
    for i, (side, points, _) in enumerate(awards):
        scores[side] += points
        if points > 0 and scores[side] >= target:
            return i + 1, side
    return len(awards), None


# ---------------------------------------------------------------------- the gift (P3)


def gift_recipients(rules: Rules, sides: Sequence[int], dealer: int) -> list[int]:
    """K7: the sides a gift scores for, in award order — the beggar's (eldest's) side first, then in
    turn order (docs/rules.md D3)."""
    n = len(sides)
    eldest = (dealer + 1) % n
    beggar_side = sides[eldest]
    if rules.gift_recipients == "beggar_side":
        return [beggar_side]
    dealer_side = sides[dealer]
    out: list[int] = []
    for i in range(n):
        side = sides[(eldest + i) % n]
        if side != dealer_side and side not in out:
            out.append(side)
    return out


def gift_blocked(rules: Rules, sides: Sequence[int], dealer: int, scores: Sequence[int]) -> bool:
    """K8: whether the gift is forbidden (the dealer must run). ``non_beggar_3p`` (seed 000): with 3
    players, when the gift would put the opponent who did not beg out (docs/rules.md D2);
    ``any_recipient_would_win``: when it would put any recipient out; ``none``: never."""
    block = rules.gift_block
    if block == "none":
        return False
    points = rules.gift_points
    target = rules.target_points
    recipients = gift_recipients(rules, sides, dealer)
    if block == "non_beggar_3p":
        n = len(sides)
        if n != 3:
            return False
        non_beggar = sides[(dealer + 2) % 3]
        return non_beggar in recipients and scores[non_beggar] + points >= target
    return any(scores[side] + points >= target for side in recipients)
