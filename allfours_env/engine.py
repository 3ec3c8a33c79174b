"""The hand and game state machine of docs/rules.md §3 (P1–P8); scoring R7–R10 by
:mod:`allfours_env.scoring`.

A :class:`Game` runs one game to the target: it deals, turns up, scores and rotates the deal by
itself (chance is internal and driven by a seeded ``random.Random``) and stops at every decision.
A decision is exposed as ``(game.current_player, game.legal_actions())``; the caller answers with
``game.apply(action)`` using the ids of :mod:`allfours_env.actions`. A decision with one legal
action (a blocked gift, a forced card) is still a decision.

Everything that happens is appended to ``game.log`` as :class:`~allfours_env.events.Event` tuples
``(kind, who, value)`` (the kinds are listed in :mod:`allfours_env.events`). The log is the god's-eye
view (it holds every discard): observers must filter it. The game record (:meth:`Game.record`,
:func:`allfours_env.record.replay`) is built from it.

The engine applies the rules; it does not restate them: trick strength, legal plays, the gift and
the scoring of a hand come from :mod:`allfours_env.scoring`. Hands and card sets are ``int`` bit
sets (see :mod:`allfours_env.cards`); this module imports nothing outside the standard library.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from operator import attrgetter
from typing import Any

from allfours_env.actions import (
    BEG,
    DISCARD_BASE,
    DISCARDED_CARD,
    GIFT,
    NUM_ACTIONS,
    PLAY_BASE,
    PLAYED_CARD,
    RUN,
    STAND,
    action_to_str,
    as_action_id,
)
from allfours_env.cards import (
    CARD_GAME_POINTS,
    NUM_CARD_IDS,
    NUM_CARDS,
    RANK_OF,
    RANKS,
    SUIT_MASKS,
    SUIT_OF,
    card_str,
    jack_of,
    mask_str,
    pack_size,
    parse_deck,
    shuffled_pack,
)
from allfours_env.events import PHASE_NAMES, Event, EventKind, Phase
from allfours_env.rules import PointKind, Rules, TrumpSelection
from allfours_env.scoring import (
    Award,
    HandScorer,
    auction_result,
    follow_plays,
    gift_blocked,
    gift_recipients,
    high_bid_after,
    lead_suit,
    legal_bids,
    settle,
    strength_tables,
    trump_cards,
)

# The phases under short names for the hot paths (``Phase`` is the public type).
BEG_PHASE, GIFT_PHASE, DISCARD_PHASE, PLAY_PHASE, GAME_OVER, HAND_OVER, BID_PHASE = (
    Phase.BEG, Phase.GIFT_OR_RUN, Phase.DISCARD, Phase.PLAY, Phase.GAME_OVER, Phase.HAND_OVER, Phase.BID)
# How trump is chosen (K4), as small ints for the hot paths.
TURNUP, FIRST_LEAD, STOCK_TOP, AUCTION = range(4)
_SELECTIONS = {TrumpSelection.TURNUP: TURNUP, TrumpSelection.FIRST_LEAD: FIRST_LEAD,
               TrumpSelection.STOCK_TOP: STOCK_TOP, TrumpSelection.AUCTION: AUCTION}
_DEAL, _TURNUP, _ACT, _TRUMP, _TRICK, _AWARD, _CONTRACT = (
    EventKind.DEAL, EventKind.TURNUP, EventKind.ACT, EventKind.TRUMP, EventKind.TRICK, EventKind.AWARD,
    EventKind.CONTRACT)
_TURNUP_POINT, _GIFT_POINT, _VOID_POINT = PointKind.TURNUP, PointKind.GIFT, PointKind.VOID
_new_tuple = tuple.__new__  # builds an Event or an Award without NamedTuple's Python-level __new__ (hot path)
# Every decision event there can be, built once: events are immutable, and the log shares them.
_ACT_EVENTS = tuple(tuple(Event(_ACT, seat, action) for action in range(NUM_ACTIONS)) for seat in range(4))
_TURNUP_EVENTS = tuple(tuple(Event(_TURNUP, dealer, card) for card in range(NUM_CARDS))
                       for dealer in range(4))
_DRAW_EVENTS = tuple(tuple(Event(EventKind.DRAW, seat, card) for card in range(NUM_CARD_IDS))
                     for seat in range(2))
_TRUMP_EVENTS = tuple(Event(_TRUMP, -1, suit) for suit in range(4))
#: ``_TURN_ORDER[n][first]``: the seats of an ``n``-player table in turn order from ``first`` (§1).
_TURN_ORDER = {n: tuple(tuple((first + i) % n for i in range(n)) for first in range(n)) for n in (2, 3, 4)}

_BEG_ACTIONS = (STAND, BEG)
_GIFT_ACTIONS = (GIFT, RUN)
_RUN_ONLY = (RUN,)


#: A safety cap for tools that play whole games (not a rule): with random bidding in the auction
#: presets every side is set back more often than it scores (RD19 has no floor), so a game between
#: random players may never reach the target. 500 hands is far beyond any game between players who
#: bid with sense (a few dozen hands at most).
MAX_HANDS = 500


class IllegalActionError(ValueError):
    """An action that is not legal in the current state; the state is left unchanged."""


def _action_ids(mask: int, base: int) -> tuple[int, ...]:
    """The action ids ``base + card`` of every card in bit set ``mask``, lowest card first."""
    out = []
    while mask:
        low = mask & -mask
        out.append(base + low.bit_length() - 1)
        mask ^= low
    return tuple(out)


class Game:
    """One game of the All Fours family, from the first deal to the winning point.

    ``Game(rules, seed=0)`` deals at once and stops at the first decision. ``rules`` defaults to
    ``Rules.make()`` (seven_up, 2 players). ``dealer`` fixes the first dealer (otherwise drawn from
    the seeded RNG); ``decks`` stacks the packs of the first deals (each a list of 52 cards — 53 with
    the joker, RD21 —, ``deck[0]`` the top card, consumed one per deal, redeals included) — after
    them the RNG shuffles. ``scores`` starts the sides from given scores (each below the target, and
    at least 0 except where an auction can set a side back), e.g. to study end games.
    ``stop_after_hand`` pauses in phase ``hand_over`` after each completed hand (no one to move)
    until :meth:`next_hand` is called — for one-hand episodes.

    State worth reading (never assign it): ``phase`` (:class:`~allfours_env.events.Phase`),
    ``current_player`` (-1 when nobody is to move), ``dealer``, ``eldest``, ``hands`` (bit sets),
    ``trump`` (-1 before it is fixed), ``trick_cards``, ``captured`` and ``captured_points`` (by side),
    ``scores``, ``winner``, ``awards`` (each an :class:`~allfours_env.scoring.Award`), ``log``; in an
    auction ``bids``, ``high_bid``, ``pitcher`` and ``contract`` (-1 and 0 until it is over, then
    logged as a ``contract`` event); with a stock ``deck[pos]`` is its top card and ``drawn`` the
    cards each seat drew this hand. ``hand_number`` numbers the hand in progress from 0 (a hand
    thrown in and dealt again keeps its number; after a hand ended in ``hand_over``, it is already the
    next one's).
    """

    __slots__ = (
        "rules",
        "seed",
        "n",
        "num_sides",
        "sides",
        "target",
        "rng",
        "_stacked",
        "first_dealer",
        "initial_scores",
        "log",
        "decks",
        "awards",
        "scores",
        "winner",
        "phase",
        "current_player",
        "dealer",
        "eldest",
        "hand_number",
        "hands",
        "discards",
        "start_hands",
        "deck",
        "pos",
        "turnups",
        "proposed",
        "trump",
        "trump_mask",
        "jack_bit",
        "captured",
        "captured_points",
        "drawn",
        "bids",
        "high_bid",
        "pitcher",
        "contract",
        "trick_cards",
        "trick_mask",
        "trick_points",
        "led",
        "led_mask",
        "strength",
        "_strengths",
        "win_seat",
        "win_strength",
        "hand_award_start",
        "hand_log_start",
        "scans",
        "_legal",
        "_play_mask",
        "_turnup_points",
        "_hand_size",
        "_undertrump_banned",
        "_selection",
        "_plan",
        "_pack_size",
        "_joker",
        "_stop_after_hand",
    )

    def __init__(
        self,
        rules: Rules | None = None,
        *,
        seed: int | None = None,
        dealer: int | None = None,
        decks: Iterable[Sequence[str] | Sequence[int]] | None = None,
        scores: Sequence[int] | None = None,
        stop_after_hand: bool = False,
    ) -> None:
        rules = Rules.make() if rules is None else rules
        if not isinstance(rules, Rules):
            raise TypeError(f"rules must be a Rules (see Rules.make), got {type(rules).__name__}")
        self.rules = rules
        self.seed = seed
        self.n = n = rules.num_players
        self.num_sides = rules.num_sides
        self.sides = tuple(rules.side_of(s) for s in range(n))
        self.target = rules.target_points
        self.rng = random.Random(seed)
        self._pack_size = pack_size(rules.joker)
        self._stacked = [parse_deck(d, size=self._pack_size) for d in (decks or ())]
        if dealer is None:
            dealer = self.rng.randrange(n)
        elif not isinstance(dealer, int) or isinstance(dealer, bool) or not 0 <= dealer < n:
            raise ValueError(f"dealer must be a seat number 0..{n - 1}, got {dealer!r}")
        self.first_dealer = dealer
        self.dealer = dealer
        self.log: list[Event] = []
        # Readers of the log (allfours_env.knowledge) keep their scans of the current hand here, to
        # carry them on over the events since instead of reading the hand again: (key, hand start,
        # log length, state) with immutable states. The engine never reads them; a copy gets its own.
        self.scans: list[tuple] = []
        self.decks: list[list[int]] = []
        self.awards: list[Award] = []
        self.scores = self._initial_scores(scores)
        self.initial_scores = tuple(self.scores)
        self.winner: int | None = None
        self.hand_number = 0
        self._turnup_points = tuple(rules.turnup_points.get(r, 0) for r in RANKS)
        self._hand_size = rules.hand_size
        self._plan = plan = rules.plan
        self._undertrump_banned = plan.undertrump_banned
        self._selection = _SELECTIONS[plan.trump_selection]
        self._joker = rules.joker
        self._stop_after_hand = bool(stop_after_hand)
        self._start_hand()

    def _initial_scores(self, scores: Sequence[int] | None) -> list[int]:
        if scores is None:
            return [0] * self.num_sides
        scores = list(scores)
        lowest = self.rules.plan.score_floor  # RD2: set back below 0 in an auction
        if len(scores) != self.num_sides or not all(
            isinstance(x, int) and not isinstance(x, bool) and lowest <= x < self.target for x in scores
        ):
            floor = "below" if lowest < 0 else "from 0 to"
            raise ValueError(
                f"scores must give {self.num_sides} whole numbers {floor} {self.target - 1} "
                f"(one per side), got {scores!r}"
            )
        return scores

    # ------------------------------------------------------------------ queries

    @property
    def is_over(self) -> bool:
        """True once a side has reached the target (R10)."""
        return self.phase == GAME_OVER

    @property
    def trick_leader(self) -> int:
        """The seat that led the current trick (the seat to lead when the trick is empty, P6)."""
        return (self.current_player - len(self.trick_cards)) % self.n

    @property
    def phase_name(self) -> str:
        """The current phase: ``bid``, ``beg``, ``gift_or_run``, ``discard``, ``play``, ``game_over``
        or ``hand_over`` (only with ``stop_after_hand``)."""
        return PHASE_NAMES[self.phase]

    def legal_actions(self) -> tuple[int, ...]:
        """The legal action ids of ``current_player`` (empty once the game is over)."""
        legal = self._legal
        if legal is None:
            phase = self.phase
            if phase == PLAY_PHASE:
                legal = _action_ids(self.play_mask(), PLAY_BASE)
            elif phase == DISCARD_PHASE:
                legal = _action_ids(self.hands[self.current_player], DISCARD_BASE)
            elif phase == BEG_PHASE:
                legal = _BEG_ACTIONS
            elif phase == GIFT_PHASE:
                legal = _RUN_ONLY if self.gift_blocked() else _GIFT_ACTIONS
            elif phase == BID_PHASE:
                legal = legal_bids(self.rules, self.high_bid, self.current_player == self.dealer)
            else:
                legal = ()
            self._legal = legal
        return legal

    def legal_action_bits(self) -> int:
        """The legal action ids of ``current_player`` as a bit set (bit ``a`` set: action ``a`` is
        legal) — the same set as :meth:`legal_actions`, cheap to compare and to turn into a mask."""
        phase = self.phase
        if phase == PLAY_PHASE:
            return self.play_mask() << PLAY_BASE
        if phase == DISCARD_PHASE:
            return self.hands[self.current_player] << DISCARD_BASE
        bits = 0
        for action in self.legal_actions():
            bits |= 1 << action
        return bits

    def play_mask(self) -> int:
        """The bit set of cards ``current_player`` may play now (R3, K15; by
        :func:`~allfours_env.scoring.follow_plays`)."""
        legal = self._play_mask
        if legal < 0:  # not yet worked out since the last move
            hand = self.hands[self.current_player]
            if not self.trick_cards:
                legal = hand
            else:
                legal = follow_plays(hand, self.led, self.trump, self.trump_mask, self.strength,
                                     self.win_strength, self._undertrump_banned)
            self._play_mask = legal
        return legal

    def gift_recipients(self) -> list[int]:
        """The sides a gift would score for, in award order (K7): the beggar's side first."""
        return gift_recipients(self.rules, self.sides, self.dealer)

    def gift_blocked(self) -> bool:
        """True when K8 forbids the gift, so the dealer must run."""
        return gift_blocked(self.rules, self.sides, self.dealer, self.scores)

    def hand_log(self) -> list[Event]:
        """The events of the current (or, after the game, the last) deal, its ``deal`` event first."""
        return self.log[self.hand_log_start :]

    # ------------------------------------------------------------------ the one mutator

    def apply(self, action: int) -> None:
        """Make ``current_player``'s decision ``action``; chance and scoring then run to the next
        decision. An illegal action raises :class:`IllegalActionError` and changes nothing."""
        if type(action) is not int:
            action = as_action_id(action)
        if not 0 <= action < NUM_ACTIONS:
            raise self._illegal(action)
        phase = self.phase
        seat = self.current_player
        if phase == PLAY_PHASE:
            legal = self._legal  # the legal set as asked for, if it was
            card = PLAYED_CARD[action]
            if legal is None:
                if card < 0 or not self.play_mask() >> card & 1:
                    raise self._illegal(action)
            elif action not in legal:
                raise self._illegal(action)
            self._legal = None
            self._play_mask = -1
            self.log.append(_ACT_EVENTS[seat][action])
            self._play(seat, card)
        elif phase == DISCARD_PHASE:
            card = DISCARDED_CARD[action]
            if not 0 <= card < NUM_CARDS or not self.hands[seat] >> card & 1:
                raise self._illegal(action)
            self._legal = None
            self.log.append(_ACT_EVENTS[seat][action])
            self._discard(seat, card)
        elif phase == BEG_PHASE:
            if action != STAND and action != BEG:
                raise self._illegal(action)
            self._legal = None
            self.log.append(_ACT_EVENTS[seat][action])
            if action == STAND:  # P2
                self._set_trump(self.proposed)
                self._start_play(self.eldest)
            else:
                self.phase = GIFT_PHASE
                self.current_player = self.dealer
        elif phase == GIFT_PHASE:
            if action not in self.legal_actions():
                raise self._illegal(action)
            self._legal = None
            self.log.append(_ACT_EVENTS[seat][action])
            if action == GIFT:
                self._gift()
            else:
                self._run()
        elif phase == BID_PHASE:
            if action not in self.legal_actions():
                raise self._illegal(action)
            self._legal = None
            self.log.append(_ACT_EVENTS[seat][action])
            self._bid(seat, action)
        else:
            raise self._illegal(action)

    # ------------------------------------------------------------------ P1: the deal

    def _start_hand(self) -> None:
        """Deal a new hand (R11) by the current dealer and run chance to the first decision (P1)."""
        n = self.n
        if self._stacked:
            deck = self._stacked.pop(0)
        else:
            deck = shuffled_pack(self.rng, self._pack_size)
        self.hand_log_start = len(self.log)
        self.log.append(_new_tuple(Event, (_DEAL, self.dealer, len(self.decks))))
        self.decks.append(deck)
        self.deck = deck
        self.eldest = eldest = (self.dealer + 1) % n
        hands = [0] * n
        pos = 0
        order = _TURN_ORDER[n][eldest]
        for _ in range(self._hand_size // 3):  # R11: packets of 3 from eldest, in turn order
            for seat in order:
                hands[seat] |= (1 << deck[pos]) | (1 << deck[pos + 1]) | (1 << deck[pos + 2])
                pos += 3
        self.hands = hands
        self.pos = pos
        self.discards = [0] * n
        self.start_hands = None
        self.turnups = []
        self.proposed = -1
        self.trump = -1
        self.trump_mask = 0
        self.jack_bit = 0
        self.captured = [0] * self.num_sides
        self.captured_points = [0] * self.num_sides
        self.drawn = [0] * n
        self.bids = []
        self.high_bid = 0
        self.pitcher = -1
        self.contract = 0
        self.trick_cards = []
        self.trick_mask = 0
        self.trick_points = 0
        self.led = -1
        self.led_mask = 0
        self.strength = ()
        self._strengths = ()
        self.win_seat = -1
        self.win_strength = 0
        self.hand_award_start = len(self.awards)
        self._legal = None
        self._play_mask = -1
        selection = self._selection
        if selection != TURNUP:
            if selection == STOCK_TOP:  # RD4, RD5: the stock's top card fixes trump; not a turn-up
                self._set_trump(SUIT_OF[deck[pos]])
                self._start_play(eldest)  # RD7
            elif selection == AUCTION:  # RD13: eldest bids first
                self.phase = BID_PHASE
                self.current_player = eldest
            else:  # P8: no turn-up; eldest's first lead fixes trump
                self._start_play(eldest)
            return
        card = deck[pos]
        self.pos = pos + 1
        self.turnups.append(card)
        self.log.append(_TURNUP_EVENTS[self.dealer][card])
        self.proposed = SUIT_OF[card]
        points = self._turnup_points[RANK_OF[card]]
        if points and self._award(self.sides[self.dealer], points, _TURNUP_POINT):
            return
        self.phase = BEG_PHASE  # P2
        self.current_player = eldest

    # ------------------------------------------------------------------ P3, P4: gift or run

    def _gift(self) -> None:
        """P3 gift: the proposed suit is trump and the recipients score ``gift_points`` each."""
        points = self.rules.gift_points
        for side in self.gift_recipients():
            if points and self._award(side, points, _GIFT_POINT):
                return
        self._set_trump(self.proposed)
        self._start_play(self.eldest)

    def _run(self) -> None:
        """P4: deal 3 more each and turn up until a new suit appears or the pack runs out."""
        n = self.n
        rejected = self.proposed
        deck = self.deck
        every_turnup = self._plan.every_turnup_scores
        while True:
            if NUM_CARDS - self.pos < 3 * n + 1:  # D7
                self._throw_in()
                return
            pos = self.pos
            for seat in _TURN_ORDER[n][self.eldest]:
                self.hands[seat] |= (1 << deck[pos]) | (1 << deck[pos + 1]) | (1 << deck[pos + 2])
                pos += 3
            card = deck[pos]
            self.pos = pos + 1
            self.turnups.append(card)
            self.log.append(_TURNUP_EVENTS[self.dealer][card])
            suit = SUIT_OF[card]
            points = self._turnup_points[RANK_OF[card]]
            if points and (every_turnup or suit != rejected):  # K6
                if self._award(self.sides[self.dealer], points, _TURNUP_POINT):
                    return
            if suit != rejected:
                self.proposed = suit
                self._set_trump(suit)
                break
        if self._plan.discard_after_run:
            self._next_discarder(self.eldest)
        else:
            self._start_play(self.eldest)

    def _throw_in(self) -> None:
        """P4, K9: the pack is exhausted; the same dealer deals again, voiding points if asked (D6)."""
        self.log.append(Event(EventKind.THROWN_IN, self.dealer, None))
        if self._plan.void_when_exhausted:
            cancelled = [0] * self.num_sides
            for _, _, side, points in self.awards[self.hand_award_start :]:
                cancelled[side] += points
            for side, points in enumerate(cancelled):
                if points:
                    self._record_award(side, -points, _VOID_POINT)
        self._start_hand()

    # ------------------------------------------------------------------ P5: discards

    def _next_discarder(self, start: int) -> None:
        """Give the turn to the first seat from ``start`` (up to the dealer) holding too many cards."""
        n, hand_size = self.n, self._hand_size
        seat = start
        while True:
            if self.hands[seat].bit_count() > hand_size:
                self.phase = DISCARD_PHASE
                self.current_player = seat
                return
            if seat == self.dealer:
                break
            seat = (seat + 1) % n
        self._start_play(self.eldest)

    def _discard(self, seat: int, card: int) -> None:
        bit = 1 << card
        self.hands[seat] ^= bit
        self.discards[seat] |= bit
        if self.hands[seat].bit_count() <= self._hand_size:
            if seat == self.dealer:
                self._start_play(self.eldest)
            else:
                self._next_discarder((seat + 1) % self.n)

    # ------------------------------------------------------------------ P6: trick play

    def _set_trump(self, suit: int) -> None:
        self.trump = suit
        self.trump_mask = trump_cards(suit, self._joker)  # the joker is a trump (RD22)
        self.jack_bit = 1 << jack_of(suit)
        self._strengths = strength_tables(suit, self.rules.joker_rank)  # R1, R2: by suit led
        self.log.append(_TRUMP_EVENTS[suit])

    def _start_play(self, leader: int) -> None:
        """Trick play begins (P6): the cards held now are in play (R6); ``leader`` leads."""
        self.start_hands = self.hands[:]
        self.phase = PLAY_PHASE
        self.current_player = leader
        self._play_mask = -1

    def _bid(self, seat: int, action: int) -> None:
        """RD13–RD15: record a bid; after the dealer's, the auction's winner pitches (leads)."""
        self.bids.append((seat, action))
        self.high_bid = high_bid_after(self.high_bid, action)
        if seat != self.dealer:
            self.current_player = (seat + 1) % self.n
            return
        self.pitcher, self.contract = auction_result(self.bids, self.eldest)
        self.log.append(_new_tuple(Event, (_CONTRACT, self.pitcher, self.contract)))
        self._start_play(self.pitcher)  # RD16: the pitcher's first card fixes trump

    def _play(self, seat: int, card: int) -> None:
        bit = 1 << card
        self.hands[seat] ^= bit
        trick = self.trick_cards
        if not trick:
            suit = SUIT_OF[card]
            if suit < 0:  # the joker leads the trump suit (RD22, RD23)
                suit = lead_suit(card, self.trump, self.rules.joker_lead_trump)
            if self.trump < 0:  # P8, RD16: the first lead fixes trump
                self._set_trump(suit)
            self.led = suit
            self.led_mask = self.trump_mask if suit == self.trump else SUIT_MASKS[suit]
            self.strength = strength = self._strengths[suit]
            self.win_seat = seat
            self.win_strength = strength[card]
            self.trick_mask = bit
            self.trick_points = CARD_GAME_POINTS[card]
        else:
            strength = self.strength[card]
            if strength > self.win_strength:  # R2
                self.win_strength = strength
                self.win_seat = seat
            self.trick_mask |= bit
            self.trick_points += CARD_GAME_POINTS[card]
        trick.append(card)
        if len(trick) < self.n:
            self.current_player = (seat + 1) % self.n
            return
        winner = self.win_seat
        side = self.sides[winner]
        self.captured[side] |= self.trick_mask
        self.captured_points[side] += self.trick_points
        self.log.append(_new_tuple(Event, (_TRICK, winner, self.trick_mask)))
        self.trick_cards = []
        self.current_player = winner
        if self._selection == STOCK_TOP and self.pos < self._pack_size:
            self._draw(winner)
        if not self.hands[winner]:
            self._score_hand()

    def _draw(self, winner: int) -> None:
        """RD6: after a trick, while the stock lasts, its winner draws the top card, then the loser."""
        deck, pos = self.deck, self.pos
        for seat in (winner, 1 - winner):
            card = deck[pos]
            pos += 1
            self.hands[seat] |= 1 << card
            self.drawn[seat] |= 1 << card
            self.log.append(_DRAW_EVENTS[seat][card])
        self.pos = pos

    # ------------------------------------------------------------------ P7: scoring

    def in_play(self) -> list[int]:
        """R6, K16, RD9: the cards each seat held when trick play began, plus the cards it has drawn
        from the stock since (plus its discards if ``discards_in_play``). Only meaningful once trick
        play has begun."""
        if self.start_hands is None:
            return [0] * self.n
        cards = [h | d for h, d in zip(self.start_hands, self.drawn)]
        if self.rules.discards_in_play:
            return [h | d for h, d in zip(cards, self.discards)]
        return cards

    def scorer(self) -> HandScorer:
        """The :class:`~allfours_env.scoring.HandScorer` of the current hand (once trump is fixed and
        trick play has begun): High, Low and the jack's holder from the cards in play, and after an
        auction the pitcher's side and contract (RD18)."""
        pitcher_side = self.sides[self.pitcher] if self.pitcher >= 0 else -1
        return HandScorer(self.rules, self.sides, self.dealer, self.trump, self.in_play(),
                          pitcher_side, self.contract, len(self.decks) - 1)

    def _score_hand(self) -> None:
        """P7: award the hand's points in scoring order (R7–R10), then pass the deal."""
        if self._settle(self.scorer().awards(self.captured, self.captured_points)):
            return
        self.log.append(_new_tuple(Event, (EventKind.HAND_END, self.dealer, self.hand_number)))
        self.hand_number += 1
        if self._stop_after_hand:
            self.phase = HAND_OVER
            self.current_player = -1
            self._legal = ()
            return
        self.dealer = (self.dealer + 1) % self.n
        self._start_hand()

    def stack(self, decks: Iterable[Sequence[str] | Sequence[int]]) -> None:
        """Stack more packs (as ``decks`` of the constructor) to deal after those stacked already:
        a game that mirrors another engine's is handed each pack that engine dealt, before the
        decision that deals it."""
        self._stacked.extend(parse_deck(d, size=self._pack_size) for d in decks)

    def next_hand(self) -> None:
        """Deal the next hand after a pause in phase ``hand_over`` (see ``stop_after_hand``)."""
        if self.phase != HAND_OVER:
            raise IllegalActionError(
                f"next_hand() is only for a game paused after a hand (phase 'hand_over'), "
                f"not in phase {self.phase_name!r}"
            )
        self.dealer = (self.dealer + 1) % self.n
        self._start_hand()

    def _award(self, side: int, points: int, kind: PointKind) -> bool:
        """Score ``points`` for ``side``; end the game at once if it reaches the target (R10)."""
        return self._settle((_new_tuple(Award, (len(self.decks) - 1, kind, side, points)),))

    def _settle(self, awards: Sequence[Award]) -> bool:
        """Score ``awards`` in order until a side reaches the target (R10,
        :func:`~allfours_env.scoring.settle`), logging each; True if the game ended."""
        if not awards:
            return False
        added, winner = settle(self.scores, awards, self.target)
        for award in awards[:added]:
            self.awards.append(award)
            self.log.append(_new_tuple(Event, (_AWARD, award[2], award)))  # who: the award's side
        if winner is not None:
            self.winner = winner
            self.phase = GAME_OVER
            self.current_player = -1
            self._legal = ()
            self.log.append(Event(EventKind.GAME_OVER, winner, tuple(self.scores)))
            return True
        return False

    def _record_award(self, side: int, points: int, kind: PointKind) -> None:
        """Score an award that cannot end the game (a voided hand's negative points, D6)."""
        self.scores[side] += points
        self._log_award(side, points, kind)

    def _log_award(self, side: int, points: int, kind: PointKind) -> None:
        award = _new_tuple(Award, (len(self.decks) - 1, kind, side, points))
        self.awards.append(award)
        self.log.append(_new_tuple(Event, (_AWARD, side, award)))

    # ------------------------------------------------------------------ errors, copies, records

    def _illegal(self, action: int) -> IllegalActionError:
        if self.phase == HAND_OVER:
            return IllegalActionError("the hand is over and the game paused: call next_hand() first")
        if self.phase == GAME_OVER:
            return IllegalActionError(
                f"the game is over (side {self.winner} won, scores {self.scores}): "
                f"start a new Game to play on"
            )
        try:
            text = repr(action_to_str(action))
        except ValueError:
            text = "out of range"
        legal = ", ".join(action_to_str(a) for a in self.legal_actions())
        return IllegalActionError(
            f"action {action} ({text}) is not legal for player_{self.current_player} "
            f"in phase {self.phase_name!r}; legal actions: {legal}"
        )

    def copy(self) -> Game:
        """An independent copy of this game, for search and what-ifs.

        Every slot is copied, none is named here: each list anew, and the lists in it too (a list of
        lists, ``decks``, is told by its first item: each list of the engine holds one kind of
        item), a list held by two slots (``deck`` is ``decks[-1]``) as one list; the RNG anew with
        its state. Every other value is immutable (ints, tuples, enums, the frozen rules) and is
        shared. tests/allfours_env/test_engine.py checks that every slot holds one of these."""
        return self._copy(None)

    def _copy(self, rng: random.Random | None) -> Game:
        """:meth:`copy`, with ``rng`` as the copy's RNG if given (else a copy of this game's)."""
        other = _new_game(Game)
        copies: dict[int, list] = {}
        for name, value in zip(_GAME_SLOTS, _get_slots(self)):
            kind = type(value)
            if kind is list:
                value = _copy_list(value, copies)
            elif kind is _Random:
                if rng is None:
                    rng = _new_random(_Random)  # not Random(): that seeds itself from the OS first
                    rng.setstate(value.getstate())
                value = rng
            setattr(other, name, value)
        return other

    def with_hidden_cards(self, hands: Mapping[int, int], discards: Mapping[int, int],
                          stock: Sequence[int], *, seed: int | None) -> Game:
        """A copy of this game in which other cards are where nobody but their holders sees them —
        a deal to search on, drawn from what one seat knows (the drawing is
        :meth:`allfours_env.knowledge.SeatView.resample`'s; the engine builds the game).

        ``hands[s]`` and ``discards[s]`` (bit sets) replace the hand and the discards of each seat
        ``s`` given (the same seats in both; the others keep theirs), ``stock`` (card ids, the next
        card to come first) the undealt cards ``deck[pos:]``. The cards given must be those they
        replace, rearranged: every seat given keeps its numbers of cards in hand and discarded, the
        stock its length, and together they hold each card that was there exactly once — else
        ``ValueError``. The cards played, in the trick and turned up stay. The copy's future deals
        come from ``random.Random(seed)``, never from stacked decks (they would tell the future).

        Rebuilt here from the cards given: once trick play has begun, a seat's cards in play (R6,
        ``start_hands``) are its new hand and the cards it has played this hand, and ``drawn`` is 0
        (which of them it drew is not part of the deal given); the deck below ``pos``; the cached
        legal moves; and the current hand's log where it names hidden cards of a seat given (see
        :meth:`_hidden_hand_log`), so that each seat's view of the copy — its own discards and draws
        included — agrees with the copy's cards, not the real ones. The earlier hands' log and the
        cards already dealt (``deck[:pos]``, which no seat's view reads) are history and stay as
        they were."""
        n, pos, deck = self.n, self.pos, self.deck
        seats = sorted(hands)
        if sorted(discards) != seats or not all(type(s) is int and 0 <= s < n for s in seats):
            raise ValueError(f"give the hands and the discards of the same seats (0..{n - 1}), got "
                             f"hands of {sorted(hands)!r} and discards of {sorted(discards)!r}")
        stock = list(stock)
        if len(stock) != len(deck) - pos:
            raise ValueError(f"the stock must hold the {len(deck) - pos} undealt cards, got {len(stock)}")
        before = after = 0
        for s in seats:
            for what, new, old in (("hand", hands[s], self.hands[s]),
                                   ("discards", discards[s], self.discards[s])):
                size = old.bit_count()
                if type(new) is not int or new < 0 or new.bit_count() != size:
                    raise ValueError(f"seat {s}'s {what} must be a bit set of {size} cards, got {new!r}")
                before |= old
                after |= new
        for card in deck[pos:]:
            before |= 1 << card
        for card in stock:
            if type(card) is not int or not 0 <= card < self._pack_size:
                raise ValueError(f"the stock must hold card ids 0..{self._pack_size - 1}, got {card!r}")
            after |= 1 << card
        if after != before:  # as many places as cards (the sizes above): all of them, each once
            raise ValueError(
                "the cards given are not the cards they replace, rearranged (each exactly once): "
                f"missing [{mask_str(before & ~after)}], not hidden [{mask_str(after & ~before)}]")
        other = self._copy(random.Random(seed))
        playing = self.start_hands is not None
        for s in seats:
            other.hands[s] = hands[s]
            other.discards[s] = discards[s]
            if playing:  # R6: held when play began or drawn since = in hand now or played
                played = (self.start_hands[s] | self.drawn[s]) & ~self.hands[s]
                other.start_hands[s] = hands[s] | played
                other.drawn[s] = 0
        other.deck = other.decks[-1] = deck[:pos] + stock
        other.log = self.log[: self.hand_log_start] + self._hidden_hand_log(hands, discards)
        other.scans = []  # they read the log as it was
        other._stacked = []
        other._legal = None
        other._play_mask = -1
        return other

    def _hidden_hand_log(self, hands: Mapping[int, int], discards: Mapping[int, int]) -> list[Event]:
        """The current hand's log rewritten for :meth:`with_hidden_cards`' new ``hands`` and
        ``discards``: a seat's discards (P5, seen only by it) name its new discards — a card still
        among them keeps its place, the others take the rest in order; a card it drew (RD10) that is
        neither in its new hand nor played by it since is replaced by a card of its new hand that no
        other draw names, of the same suit where there is one (the stock's first card, a trump,
        stays a trump). Everything else — plays, turn-ups, bids, tricks — is public and stays."""
        events = self.hand_log()
        log = list(events)
        for s in hands:
            played = 0
            discard_at, draw_at = [], []
            for i, (kind, seat, value) in enumerate(events):
                if seat != s or value is None:
                    continue
                if kind == _ACT:
                    if PLAYED_CARD[value] >= 0:
                        played |= 1 << PLAYED_CARD[value]
                    elif DISCARDED_CARD[value] >= 0:
                        discard_at.append((i, DISCARDED_CARD[value]))
                elif kind == EventKind.DRAW:
                    draw_at.append((i, value))
            free = discards[s]
            for _, card in discard_at:
                free &= ~(1 << card)
            for i, card in discard_at:
                if not discards[s] >> card & 1:
                    new = (free & -free).bit_length() - 1
                    free ^= 1 << new
                    log[i] = _ACT_EVENTS[s][DISCARD_BASE + new]
            explained = hands[s] | played
            free = hands[s]
            for _, card in draw_at:
                if explained >> card & 1:
                    free &= ~(1 << card)
            for i, card in draw_at:
                if not explained >> card & 1:
                    pick = free & SUIT_MASKS[SUIT_OF[card]] if SUIT_OF[card] >= 0 else 0
                    pick = pick or free
                    new = (pick & -pick).bit_length() - 1
                    free ^= 1 << new
                    log[i] = _DRAW_EVENTS[s][new]
        return log

    def record(self) -> dict[str, Any]:
        """The JSON-serialisable game record (see :mod:`allfours_env.record`)."""
        from allfours_env.record import make_record

        return make_record(self)

    def __repr__(self) -> str:
        trump = "-" if self.trump < 0 else "CDHS"[self.trump]
        hands = " | ".join(mask_str(h) for h in self.hands)
        return (
            f"<Game {self.rules.preset} {self.n}p dealer={self.dealer} phase={self.phase_name} "
            f"to_move={self.current_player} trump={trump} scores={self.scores} hands=[{hands}]>"
        )


_new_game = object.__new__
_Random = random.Random
_new_random = _Random.__new__
_GAME_SLOTS = Game.__slots__
_get_slots = attrgetter(*_GAME_SLOTS)  # every slot's value at once


def _copy_list(value: list, copies: dict[int, list]) -> list:
    """A copy of ``value`` and of the lists in it (see :meth:`Game.copy`), each list once."""
    done = copies.get(id(value))
    if done is None:
        done = [_copy_list(item, copies) for item in value] if value and type(value[0]) is list else value[:]
        copies[id(value)] = done
    return done


def stack_deck(
    num_players: int,
    dealer: int,
    hands: Sequence[Sequence[str]],
    turnup: str | None = None,
    runs: Sequence[tuple[Sequence[Sequence[str]], str]] = (),
    rest: Sequence[str] | None = None,
    *,
    joker: bool = False,
) -> list[str]:
    """Arrange a pack so that dealing it (R11, P4) gives chosen cards; for tests and studies.

    ``hands[s]`` are seat ``s``'s dealt cards (``hand_size`` of them, any multiple of 3),
    ``turnup`` the first card turned (``None`` for the presets without a turn-up), and each run in
    ``runs`` is ``(packets, turnup)`` with ``packets[s]`` the 3 cards seat ``s`` receives. ``rest``
    orders the remaining cards (default: card-id order) — with ``stock_top`` the stock, its first card
    the top one (RD4). ``joker`` makes a 53-card pack (RD21). Returns the pack as text, top card first.
    """
    if len(hands) != num_players:
        raise ValueError(f"give one hand per seat: {num_players} hands, got {len(hands)}")
    eldest = (dealer + 1) % num_players
    order = [(eldest + i) % num_players for i in range(num_players)]
    deck: list[str] = []
    for packet in range(len(hands[0]) // 3):
        for seat in order:
            deck.extend(hands[seat][3 * packet : 3 * packet + 3])
    if turnup is not None:
        deck.append(turnup)
    for packets, run_turnup in runs:
        for seat in order:
            deck.extend(packets[seat])
        deck.append(run_turnup)
    used = set(deck)
    size = pack_size(joker)
    if rest is None:
        rest = [card_str(c) for c in range(size) if card_str(c) not in used]
    deck.extend(rest)
    if not joker and "JK" in deck:
        raise ValueError("the hands hold the joker JK: pass joker=True for a 53-card pack")
    parse_deck(deck, size=size)
    return deck
