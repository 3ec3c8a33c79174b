"""The rules of trick play and scoring as pure functions: the one home of every rule that the engine,
the search solver and the rule-based bot all need (docs/rules.md §2–§3).

* **Trick strength and winner** (R1, R2, RD22): :func:`strength_table` gives every card's strength in
  a trick for a trump suit and a suit led (the joker a trump of ``joker_rank``); the highest strength
  wins the trick (:func:`trick_winner`); :func:`suit_orders` lists each suit from its highest card
  down; :func:`lead_suit` is the suit a lead makes the suit led (and, for the first lead of a hand,
  trump: P8, RD16, RD23).
* **Legal plays** (R3, K15): :func:`legal_plays`, :func:`without_undertrumps`.
* **Scoring a hand** (R7–R10, K11–K13, RD17–RD19, RD24–RD28): :class:`HandScorer` turns what the
  tricks produced — the cards each side captured and their card points — into the hand's awards in
  scoring order, the pitcher first and the setback where an auction made a contract;
  :func:`jack_award` (Jack, hang jack), :func:`game_sides` (Game and its tie rule), :func:`settle` (R10:
  the first side to reach the target wins at once).
* **The gift** (P3, K7, K8): :func:`gift_recipients`, :func:`gift_blocked`.
* **The auction** (RD13–RD15): :func:`legal_bids`, :func:`auction_result`.

Cards and hands are the integers and bit sets of :mod:`allfours_env.cards`. Standard library only.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from allfours_env.actions import BID_AMOUNT, HOLD, PASS, bid_action
from allfours_env.cards import (
    CARD_GAME_POINTS,
    JOKER,
    NUM_CARD_IDS,
    NUM_CARDS,
    NUM_RANKS,
    RANK_OF,
    SUIT_MASKS,
    SUIT_OF,
    jack_of,
    make_card,
)
from allfours_env.rules import SUITS_BY_LETTER, GameTieRule, GiftBlock, JokerRank, PointKind, Rules

#: Strengths of cards in a trick (R1, R2): a card of neither the suit led nor trump is 0; a card
#: of the suit led is ``LED_BASE + rank``; a trump is ``TRUMP_BASE + 1 + 2 * rank`` — every trump
#: beats every card of the suit led, and within a suit a higher rank beats a lower one. The joker
#: (RD22) is ``TRUMP_BASE + 24``, between the king and the ace of trumps (``second_highest``), or
#: ``TRUMP_BASE``, below the two (``lowest``).
LED_BASE = 16
TRUMP_BASE = 32
NINE_RANK = 7
_JOKER_STRENGTH = {JokerRank.SECOND_HIGHEST: TRUMP_BASE + 24, JokerRank.LOWEST: TRUMP_BASE}

_TABLES: dict[tuple[int, int, JokerRank], tuple[int, ...]] = {}
_TABLES_BY_TRUMP: dict[tuple[int, JokerRank], tuple[tuple[int, ...], ...]] = {}
_BEATING: dict[tuple[int, int, JokerRank], tuple[int, ...]] = {}
_ORDERS: dict[tuple[int, bool, JokerRank], tuple[tuple[int, ...], ...]] = {}

# The rule values the hot paths compare, bound once (a member's lookup on its enum costs more).
_HIGH, _LOW, _JACK, _HANG_JACK, _GAME, _NINE, _SETBACK = (
    PointKind.HIGH, PointKind.LOW, PointKind.JACK, PointKind.HANG_JACK, PointKind.GAME, PointKind.NINE,
    PointKind.SETBACK)
_NOBODY, _SEVEN_UP_TIE = GameTieRule.NOBODY, GameTieRule.SEVEN_UP
_NO_BLOCK, _NON_BEGGAR_3P = GiftBlock.NONE, GiftBlock.NON_BEGGAR_3P


class Award(NamedTuple):
    """One award: in deal ``deal`` (0, 1, ...; redeals count) ``side`` scored ``points`` of ``kind``
    (negative for a setback, RD18, or a voided hand, K9). The one shape of an award everywhere:
    :meth:`HandScorer.awards` and :func:`settle` take and give it, ``Game.awards`` lists it, and it is
    the value of an ``award`` event of the log. Its fields are in the order of a game record's award
    objects (``{"deal", "kind", "side", "points"}``, :mod:`allfours_env.record`)."""

    deal: int
    kind: PointKind
    side: int
    points: int


_new_award = tuple.__new__  # ``_new_award(Award, (deal, kind, side, points))``, faster than ``Award(...)``


def strength_table(trump: int, led: int, joker_rank: JokerRank = JokerRank.SECOND_HIGHEST) -> tuple[int, ...]:
    """The strength of every card id (the joker's, 52, included) in a trick where ``led`` (a suit)
    was led and ``trump`` (a suit, or -1 before trump is fixed) is trump (R1, R2; the joker ranks by
    ``joker_rank``, RD22). The card of highest strength wins the trick."""
    key = (trump, led, joker_rank)
    table = _TABLES.get(key)
    if table is None:
        table = tuple(
            TRUMP_BASE + 1 + 2 * RANK_OF[c] if SUIT_OF[c] == trump
            else LED_BASE + RANK_OF[c] if SUIT_OF[c] == led
            else 0
            for c in range(NUM_CARDS)
        ) + (_JOKER_STRENGTH[joker_rank],)
        _TABLES[key] = table
    return table


def strength_tables(trump: int,
                    joker_rank: JokerRank = JokerRank.SECOND_HIGHEST) -> tuple[tuple[int, ...], ...]:
    """The four :func:`strength_table` s of trump suit ``trump``, by suit led (C, D, H, S)."""
    tables = _TABLES_BY_TRUMP.get((trump, joker_rank))
    if tables is None:
        tables = tuple(strength_table(trump, led, joker_rank) for led in range(4))
        _TABLES_BY_TRUMP[(trump, joker_rank)] = tables
    return tables


def suit_orders(trump: int, joker: bool,
                joker_rank: JokerRank = JokerRank.SECOND_HIGHEST) -> tuple[tuple[int, ...], ...]:
    """The cards of each suit (C, D, H, S) from the highest down (R1): under trump ``trump`` the
    trump suit's, ordered by trick strength, include the joker of a joker pack (``joker``; RD22, where
    ``joker_rank`` places it); before trump is fixed (``trump`` -1) the joker belongs to no suit."""
    key = (trump, joker, joker_rank)
    orders = _ORDERS.get(key)
    if orders is None:
        strength = strength_table(trump, trump, joker_rank)
        orders = tuple(
            tuple(sorted((c for c in range(NUM_CARD_IDS)
                          if (SUIT_OF[c] == suit or (c == JOKER and joker and suit == trump))),
                         key=lambda c: strength[c] if suit == trump else RANK_OF[c], reverse=True))
            for suit in range(4)
        )
        _ORDERS[key] = orders
    return orders


def card_strength(card: int, led: int, trump: int, joker_rank: JokerRank = JokerRank.SECOND_HIGHEST) -> int:
    """The strength of ``card`` in a trick where ``led`` was led under ``trump`` (see
    :func:`strength_table`)."""
    return strength_table(trump, led, joker_rank)[card]


def lead_suit(card: int, trump: int, joker_lead_trump: str = "S") -> int:
    """The suit that leading ``card`` makes the suit led: its own suit; for the joker, the trump suit
    (RD22) or, when it is the first card of the hand and fixes trump, ``joker_lead_trump`` (RD23)."""
    if card != JOKER:
        return SUIT_OF[card]
    return trump if trump >= 0 else SUITS_BY_LETTER[joker_lead_trump]


def card_suit(card: int, trump: int) -> int:
    """The suit ``card`` belongs to in a trick: its own; the joker's is the trump suit (RD22; -1
    before trump is fixed). A card follows the suit led when this is the suit led."""
    return trump if card == JOKER else SUIT_OF[card]


def trump_cards(trump: int, joker: bool) -> int:
    """The bit set of the trumps: the trump suit, and the joker in a joker pack (RD22)."""
    return SUIT_MASKS[trump] | ((1 << JOKER) if joker else 0)


def is_trump_strength(strength: int) -> bool:
    """Whether a strength of :func:`strength_table` is a trump's."""
    return strength >= TRUMP_BASE


def trick_winner(cards: Sequence[int], trump: int, joker_rank: JokerRank = JokerRank.SECOND_HIGHEST) -> int:
    """The position in ``cards`` (in the order played, the lead first) of the card that wins the
    trick (R2): the highest trump, or without one the highest card of the suit led."""
    return strongest(cards, strength_table(trump, lead_suit(cards[0], trump), joker_rank))


def strongest(cards: Sequence[int], strength: Sequence[int]) -> int:
    """The position in ``cards`` of the card of highest ``strength`` (a :func:`strength_table`):
    the winner of a trick (R2), the first such card where none is stronger than another."""
    best, best_strength = 0, strength[cards[0]]
    for i in range(1, len(cards)):
        s = strength[cards[i]]
        if s > best_strength:
            best, best_strength = i, s
    return best


def beating(card: int, led: int, trump: int, joker_rank: JokerRank = JokerRank.SECOND_HIGHEST) -> int:
    """The bit set of cards that would beat ``card`` in a trick where ``led`` was led (R2)."""
    key = (trump, led, joker_rank)
    table = _BEATING.get(key)
    if table is None:
        strength = strength_table(trump, led, joker_rank)
        table = _BEATING[key] = tuple(
            sum(1 << c for c in range(NUM_CARD_IDS) if strength[c] > strength[own])
            for own in range(NUM_CARD_IDS)
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


def follow_plays(hand: int, led: int, trump: int, trump_mask: int, strength: Sequence[int], best: int,
                 undertrump_banned: bool) -> int:
    """R3 and K15: the cards of ``hand`` that may be played to a trick in which suit ``led`` was led
    under ``trump`` (whose cards are ``trump_mask``), its best card so far of strength ``best`` in
    ``strength`` (the trick's :func:`strength_table`): :func:`legal_plays`, less the under-trumps
    where ``undertrump_banned``. A leader may play any card (this is for the followers)."""
    legal = legal_plays(hand, trump_mask if led == trump else SUIT_MASKS[led], trump_mask)
    if undertrump_banned and led != trump and best >= TRUMP_BASE:
        legal = without_undertrumps(legal, trump_mask, strength, best)
    return legal


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


def jack_award(rules: Rules, capturer_side: int, holder_side: int) -> tuple[int, PointKind]:
    """R8, K12: ``(points, kind)`` for the side that won the jack of trumps in a trick. A jack won
    from another side scores ``hang_jack_points``, recorded as ``hang_jack`` when that differs from
    ``jack_points`` (docs/rules.md D1)."""
    if capturer_side != holder_side and rules.hang_jack_points != rules.jack_points:
        return rules.hang_jack_points, _HANG_JACK
    return rules.jack_points, _JACK


def game_sides(rules: Rules, card_points: Sequence[int], sides: Sequence[int], dealer: int) -> list[int]:
    """R9, K13: the side(s) that score Game given each side's captured card points (R4). A tie is
    settled by ``game_tie_rule`` (docs/rules.md D4 for four players without partnerships)."""
    best = max(card_points)
    if card_points.count(best) == 1:
        return [card_points.index(best)]
    tied = [side for side, points in enumerate(card_points) if points == best]
    rule = rules.game_tie_rule
    if rule is _NOBODY:
        return []
    n = len(sides)
    dealer_side = sides[dealer]
    others: list[int] = []
    for i in range(1, n + 1):  # turn order from eldest
        side = sides[(dealer + i) % n]
        if side in tied and side != dealer_side and side not in others:
            others.append(side)
    if rule is _SEVEN_UP_TIE or n == 3:
        return others if len(others) == 1 else []
    return others  # non_dealer


class HandScorer:
    """Scores a hand once its tricks are played (P7): built from what is fixed when trick play begins
    (the rules, the seats, the dealer, the trump, the cards in play (R6), and in an auction the
    pitcher's side and contract, and the deal's number for its awards), then :meth:`awards` takes what
    the tricks produced and returns every award in the order they are scored (R10).

    The engine scores each hand with it, and the search solver values every leaf of its tree with
    it, so both follow the same rules.

    R7, RD24: ``high`` and ``low`` are the highest and lowest *natural* trump in play (the joker never
    counts; -1 when none is in play), ``high_side`` and ``low_side`` the sides that held them;
    ``jack_side`` is the side that held the jack of trumps (R8), -1 when it is not in play.
    ``captor_cards`` are the cards whose point goes to the side that wins them in a trick: the jack
    (R8), the nine of trumps where ``nine`` is scored (RD28), the joker where ``joker`` is (RD25)."""

    __slots__ = ("rules", "sides", "dealer", "trump", "high", "low", "high_side", "low_side", "jack",
                 "jack_side", "nine", "captor_cards", "pitcher_side", "contract", "deal", "_plan")

    def __init__(self, rules: Rules, sides: Sequence[int], dealer: int, trump: int,
                 in_play: Sequence[int], pitcher_side: int = -1, contract: int = 0, deal: int = 0) -> None:
        self.rules = rules
        self.sides = sides
        self.dealer = dealer
        self.trump = trump
        self.jack = jack = jack_of(trump)
        self.nine = make_card(NINE_RANK, trump)
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
        rule_plan = rules.plan
        self._plan = rule_plan.scoring
        self.captor_cards = ((1 << jack) | ((1 << self.nine) if rule_plan.scores_nine else 0)
                             | ((1 << JOKER) if rule_plan.scores_joker else 0))
        self.pitcher_side = pitcher_side
        self.contract = contract
        self.deal = deal

    @property
    def watched(self) -> int:
        """The cards whose captor changes the score: :attr:`captor_cards`, and High and Low under
        ``captured`` (K11)."""
        watched = self.captor_cards
        if any(by_captor for _, by_captor in self._plan):
            for card in (self.high, self.low):
                if card >= 0:
                    watched |= 1 << card
        return watched

    def awards(self, captured: Sequence[int], card_points: Sequence[int]) -> list[Award]:
        """Every :class:`Award` of the hand (of deal :attr:`deal`) in the order they are scored:
        ``scoring_order`` (R7–R9, RD25, RD28) — in an auction the pitcher's side first or its setback
        (RD18). ``captured[side]`` is the bit set of cards the side won in tricks, ``card_points[side]``
        their card points (R4). Awards of 0 points are left out (docs/rules.md D10)."""
        out: list[Award] = []
        deal, new, award = self.deal, _new_award, Award  # locals: this runs at every leaf of a search
        for kind, by_captor in self._plan:
            if kind is _HIGH or kind is _LOW:
                high = kind is _HIGH
                card, side = (self.high, self.high_side) if high else (self.low, self.low_side)
                if card < 0:
                    continue  # no natural trump in play (RD24)
                if by_captor:  # K11: to the captor; a discarded card never won: nobody (D5)
                    side = captor(captured, card)
                    if side < 0:
                        continue
                out.append(new(award, (deal, kind, side, 1)))
            elif kind is _JACK:
                side = captor(captured, self.jack)
                if side >= 0 and side == self.jack_side:  # won by the side that held it
                    if self.rules.jack_points:
                        out.append(new(award, (deal, _JACK, side, self.rules.jack_points)))
                elif side >= 0:  # not in play, or in play only as a discard (K16): nobody
                    points, jack_kind = jack_award(self.rules, side, self.jack_side)
                    if points:
                        out.append(new(award, (deal, jack_kind, side, points)))
            elif kind is _GAME:
                points = self.rules.game_points
                if points:
                    for side in game_sides(self.rules, card_points, self.sides, self.dealer):
                        out.append(new(award, (deal, _GAME, side, points)))
            else:  # nine (RD28) or joker (RD25): to the side that won it in a trick, else nobody
                side = captor(captured, self.nine if kind is _NINE else JOKER)
                if side >= 0:
                    out.append(new(award, (deal, kind, side, 1)))
        if self.pitcher_side >= 0:
            return pitcher_first(out, self.pitcher_side, self.contract, deal)
        return out


def pitcher_first(awards: list[Award], pitcher_side: int, contract: int, deal: int = 0) -> list[Award]:
    """RD18: if the pitcher's side made at least its contract, its awards come first (in scoring
    order), then every other side's; if it made less, one ``setback`` of -contract (in deal
    ``deal``) comes first, its awards go to nobody, then every other side's. Contract 0 (everyone
    passed) cannot be set back (RD15)."""
    mine = [award for award in awards if award.side == pitcher_side]
    others = [award for award in awards if award.side != pitcher_side]
    if sum(award.points for award in mine) >= contract:
        return mine + others
    return [Award(deal, _SETBACK, pitcher_side, -contract), *others]


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


def settle(scores: list[int], awards: Sequence[Award], target: int) -> tuple[int, int | None]:
    """R10: add ``awards`` (each an :class:`Award`) to ``scores`` in order, in place, and stop at the
    first that takes its side to ``target``: that side wins the game at that moment, and the hand's
    later awards are not added (a negative award never ends a game, RD2). Return ``(added, winner)``:
    how many awards were added, and the winning side or ``None``."""
    for i, award in enumerate(awards):
        side, points = award.side, award.points  # a tuple subclass unpacks slower than it reads fields
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
    if rules.plan.gift_to_beggar_side:
        return [beggar_side]
    dealer_side = sides[dealer]
    out: list[int] = []
    for i in range(n):
        side = sides[(eldest + i) % n]
        if side != dealer_side and side not in out:
            out.append(side)
    return out


def gift_blocked(rules: Rules, sides: Sequence[int], dealer: int, scores: Sequence[int]) -> bool:
    """K8: whether the gift is forbidden (the dealer must run). ``non_beggar_3p`` (source 000): with 3
    players, when the gift would put the opponent who did not beg out (docs/rules.md D2);
    ``any_recipient_would_win``: when it would put any recipient out; ``none``: never."""
    block = rules.gift_block
    if block is _NO_BLOCK:
        return False
    points = rules.gift_points
    target = rules.target_points
    recipients = gift_recipients(rules, sides, dealer)
    if block is _NON_BEGGAR_3P:
        n = len(sides)
        if n != 3:
            return False
        non_beggar = sides[(dealer + 2) % 3]
        return non_beggar in recipients and scores[non_beggar] + points >= target
    return any(scores[side] + points >= target for side in recipients)


# ---------------------------------------------------------------------- the auction (RD13–RD15)


def legal_bids(rules: Rules, high_bid: int, dealer_to_bid: bool) -> tuple[int, ...]:
    """RD13, RD14: the action ids a bidder may choose when the highest bid so far is ``high_bid``
    (0: nobody has bid): ``pass``, every bid above it up to ``bid_max``, and — for the dealer, who
    bids last, when somebody has bid and ``dealer_may_hold`` — ``hold`` (take the contract at that
    bid, the maximum included)."""
    legal = (PASS, *(bid_action(amount) for amount in range(high_bid + 1, rules.bid_max + 1)))
    if dealer_to_bid and high_bid and rules.dealer_may_hold:
        legal += (HOLD,)
    return legal


def high_bid_after(high_bid: int, action: int) -> int:
    """RD13: the highest bid once ``action`` is made when it was ``high_bid`` (a pass or a hold
    leaves it)."""
    return BID_AMOUNT[action] or high_bid


def auction_result(bids: Sequence[tuple[int, int]], eldest: int) -> tuple[int, int]:
    """RD13–RD15: ``(pitcher, contract)`` of a finished auction, ``bids`` being ``(seat, action)`` in
    the order made: the dealer's ``hold`` takes the highest bid; otherwise the highest bidder pitches
    at his bid; if everyone passed, eldest pitches with contract 0."""
    pitcher, contract = eldest, 0
    for seat, action in bids:
        if action == HOLD:
            pitcher = seat
        elif action != PASS:
            pitcher, contract = seat, BID_AMOUNT[action]
    return pitcher, contract
