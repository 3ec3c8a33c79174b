"""The information-state observation: one fixed-size float32 vector per seat, updated incrementally.

The vector is the same size (:data:`OBS_SIZE` = 1251) for every preset and player count, so one
network can play all of them. It is **seat-relative** (relative seat ``k`` is the seat ``k`` places
after the observer in turn order; relative side ``k`` is the side of relative seat ``k`` — with four
players in partnerships relative side 0 is the observer's partnership and 1 the other) and has
**perfect recall** of the current hand: which card each seat played and in which trick, the
turn-ups, the bidding and the auction, the observer's own discards, the draws it may see, the
captured cards, and the voids play revealed. It never holds what the seat cannot know: other hands,
other players' discards, the order of the stock, a card drawn face down by another player.

**Entries are only ever appended** (:data:`OBS_LAYOUT` numbers their meaning): the first 749
(:data:`BASE_SIZE`) cover the beg-and-run presets, the stock, auction and joker presets added
the block from index 749 on, and the block from index 1027 (:data:`COUNTS_SIZE`) reads off the rest
what a card player counts — which cards are trumps, the best card left in each suit, what beats the
trick, the cards not yet seen — so a policy trained on the first 749 or 1027 entries still plays by
reading them.

Card planes: 12 planes of 53 entries (card ids of :mod:`allfours_env.cards`, the last for the joker),
index ``plane * 53 + card``:

=======  ===========  ==================================================================
plane    indices      1 where the card …
=======  ===========  ==================================================================
0        0–52         is in my hand
1–4      53–264       was played to a trick this hand by relative seat 0..3 (0 = me)
5        265–317      is in the current, unfinished trick
6        318–370      was turned up this hand (never in play, R5)
7        371–423      was discarded by me this hand
8–10     424–582      was in a trick won by relative side 0..2 (0 = mine; side 3: index 792)
11       583–635      was played: value (trick number + 1) / 21 (at most 1), else 0
=======  ===========  ==================================================================

Scalars (all in [0, 1]):

=======  =====  ====================================================================
index    size   meaning
=======  =====  ====================================================================
636      7      phase one-hot: beg, gift_or_run, discard, play, game_over, hand_over, bid
643      5      trump suit one-hot C D H S, then "no trump yet"
648      4      proposed trump suit one-hot (the suit of the last turn-up)
652      4      rejected suit one-hot (the suit eldest begged away from, once a run happened)
656      4      stood, begged, dealer gave, dealer ran
660      1      number of runs / 5
661      4      dealer, relative seat one-hot
665      4      eldest, relative seat one-hot
669      4      leader of the current trick (or next leader), relative seat one-hot
673      4      seat to move, relative seat one-hot (all 0 when nobody is to move)
677      3      score / target (at least 0, at most 1), relative side 0..2 (side 3: index 845)
680      3      points still needed / target (at most 1), relative side 0..2 (side 3: index 846)
683      3      card points (R4) captured this hand / 80, relative side 0..2 (side 3: index 847)
686      4      cards in hand / 21, relative seat 0..3
690      4      cards discarded this hand / 15, relative seat 0..3
694      16     known void: relative seat ``k`` has no card of suit ``s`` (index 694 + 4k + s); with a
                stock, only while the seat cannot have drawn that suit since (RD10)
710      1      tricks completed this hand / 21 (at most 1)
711      38     the rules (constant for an environment), see :func:`rules_features`
=======  =====  ====================================================================

The stock, the auction and the joker (index 749 on):

=======  =====  ====================================================================
index    size   meaning
=======  =====  ====================================================================
749      32     the auction: relative seat ``k``'s bid one-hot (index 749 + 8k + slot; slots: not yet,
                pass, bid 1 … bid 5, hold); all 0 without an auction
781      1      the highest bid so far / 5
782      4      the highest bidder, relative seat one-hot
786      4      the pitcher (once the auction is over), relative seat one-hot
790      1      the contract / 5
791      1      tricks completed this hand / 26 (the 26 tricks of a stock game)
792      53     card plane: was in a trick won by relative side 3 (four players each alone)
845      3      relative side 3: score / target, points still needed / target, card points / 80
848      4      how far below zero: -score / target (at most 1) for relative sides 0..3 (auction)
852      53     card plane: the stock's top card, where the stock lies face up (california_jack)
905      106    card planes: drawn from the stock this hand by relative seat 0 (me) and 1, where I saw
                the draw (both in california_jack, mine only in shasta_sam)
1011     1      cards left in the stock / 40 (0 where the rest of the pack is never dealt)
1012     15     the rules of trump selection and the pack, see :func:`selection_and_pack_features`
=======  =====  ====================================================================

What a card player counts (index 1027 on; every entry a function of the entries above, written out
so that a network need not learn the trump suit's and the ranks' interactions; "out" means played to
a trick this hand, turned up (never in play, R5) or discarded by me):

=======  =====  ====================================================================
index    size   meaning
=======  =====  ====================================================================
1027     53     card plane: is a trump (the trump suit, and the joker, RD22); all 0 before trump
1080     53     card plane: the best card left of its suit — not out, and every card of its suit that
                ranks above it (R1, RD22: :func:`~allfours_env.scoring.suit_orders`) is out or in my
                hand; before trump is fixed the joker belongs to no suit (0)
1133     53     card plane: in my hand and stronger than the best card of the current trick (R2); all 0
                while no card is in the trick
1186     4      the seat winning the current trick so far, relative seat one-hot (0 with an empty trick)
1190     4      cards of suit C D H S (the joker not counted) neither out nor in my hand / 13
1194     1      trumps (the joker included) neither out nor in my hand / 14; 0 before trump
1195     56     the trumps by rank (2 … A, then the joker: index 1195 + 14 * row + rank), rows: in my
                hand, in the current trick, in a trick won by my side, in a trick won by another side
=======  =====  ====================================================================

Unused seats and sides (fewer than 4 players, partnerships) stay 0.
"""

from __future__ import annotations

import numpy as np

from allfours_env.actions import (
    BEG,
    BID_AMOUNT,
    DISCARDED_CARD,
    GIFT,
    IS_AUCTION_ACTION,
    PASS,
    PLAYED_CARD,
    RUN,
    STAND,
)
from allfours_env.cards import NUM_CARD_IDS, NUM_RANKS, RANKS, SUIT_MASKS
from allfours_env.engine import Game
from allfours_env.events import EventKind
from allfours_env.rules import (
    DiscardAfterRun,
    ExhaustedDeckRule,
    GameTieRule,
    GiftBlock,
    GiftRecipients,
    PointRule,
    Rules,
    RunTurnupScoring,
    TrumpSelection,
    Undertrump,
)
from allfours_env.scoring import suit_orders
from allfours_env.visibility import LEADS, VoidTracker, sees_discard, sees_stock_top

#: The meaning of the entries. New entries are appended and keep it (the stock, auction and joker
#: entries were appended from index 749 on);
#: a change of meaning of an existing entry would bump it, and policy files of another layout are
#: refused (:mod:`agents.policy_file`).
OBS_LAYOUT = 1
MAX_TRICKS = 21  # 2 players, 6 cards + five runs of 3, no discarding (trinidad)
STOCK_TRICKS = 26  # california_jack / shasta_sam: every card of the pack is played
CARD_PLANES = 12
HAND, PLAYED_BY, TRICK, TURNUP, MY_DISCARD, CAPTURED, PLAY_ORDER = 0, 1, 5, 6, 7, 8, 11

PHASE = CARD_PLANES * NUM_CARD_IDS  # 636
TRUMP = PHASE + 7
PROPOSED = TRUMP + 5
REJECTED = PROPOSED + 4
BIDDING = REJECTED + 4
RUNS = BIDDING + 4
DEALER = RUNS + 1
ELDEST = DEALER + 4
LEADER = ELDEST + 4
TO_MOVE = LEADER + 4
SCORE = TO_MOVE + 4
NEEDED = SCORE + 3
CARD_POINTS = NEEDED + 3
HAND_SIZE = CARD_POINTS + 3
DISCARDS = HAND_SIZE + 4
VOIDS = DISCARDS + 4
TRICKS = VOIDS + 16
RULES = TRICKS + 1
RULES_SIZE = 38
BASE_SIZE = RULES + RULES_SIZE  # 749: the beg-and-run presets' entries, a prefix of the whole
BIDS = BASE_SIZE  # 749
BID_SLOTS = 8  # not yet, pass, bid 1..5, hold
HIGH_BID = BIDS + 4 * BID_SLOTS
HIGH_BIDDER = HIGH_BID + 1
PITCHER = HIGH_BIDDER + 4
CONTRACT = PITCHER + 4
TRICKS_26 = CONTRACT + 1
CAPTURED_SIDE3 = TRICKS_26 + 1  # a card plane
SIDE3 = CAPTURED_SIDE3 + NUM_CARD_IDS  # score, needed, card points of relative side 3
BELOW_ZERO = SIDE3 + 3
STOCK_TOP = BELOW_ZERO + 4  # a card plane
DRAWN = STOCK_TOP + NUM_CARD_IDS  # two card planes: relative seat 0, 1
STOCK_LEFT = DRAWN + 2 * NUM_CARD_IDS
RULES2 = STOCK_LEFT + 1
RULES2_SIZE = 15
TRUMP_PLANE = RULES2 + RULES2_SIZE  # 1027: a card plane
MASTER = TRUMP_PLANE + NUM_CARD_IDS  # a card plane
BEATS = MASTER + NUM_CARD_IDS  # a card plane
WINNING = BEATS + NUM_CARD_IDS
UNSEEN = WINNING + 4
TRUMPS_LEFT = UNSEEN + 4
TRUMP_RANKS = TRUMPS_LEFT + 1  # 4 rows of 14: mine, in the trick, won by my side, won by another side
TRUMP_SLOTS = NUM_RANKS + 1  # the ranks 2..A, then the joker
OBS_SIZE = TRUMP_RANKS + 4 * TRUMP_SLOTS  # 1251
COUNTS_SIZE = OBS_SIZE - TRUMP_PLANE  # 224: what a card player counts, from index 1027

_BIDDING_FLAG = {STAND: 0, BEG: 1, GIFT: 2, RUN: 3}
_ACT, _TRICK, _AWARD, _TURNUP, _TRUMP, _DRAW = (
    EventKind.ACT, EventKind.TRICK, EventKind.AWARD, EventKind.TURNUP, EventKind.TRUMP, EventKind.DRAW)
_PLAYED_BY_BASE = PLAYED_BY * NUM_CARD_IDS
_TRICK_BASE = TRICK * NUM_CARD_IDS
_ORDER_BASE = PLAY_ORDER * NUM_CARD_IDS
_MY_DISCARD_BASE = MY_DISCARD * NUM_CARD_IDS
#: Where each relative side's captured cards, score, points needed and card points go.
_SIDE_SLOTS = tuple(
    (((CAPTURED + k) * NUM_CARD_IDS, SCORE + k, NEEDED + k, CARD_POINTS + k) if k < 3
     else (CAPTURED_SIDE3, SIDE3, SIDE3 + 1, SIDE3 + 2))
    for k in range(4)
)


_RANK_BITS = (1 << NUM_RANKS) - 1
_JOKER_SHIFT = NUM_CARD_IDS - 1  # the joker's bit


def _write_bits(mv: memoryview, base: int, was: int, now: int) -> None:
    """Bring the entries ``base + i`` from bit set ``was`` to bit set ``now`` (1 where bit ``i`` is)."""
    diff = was ^ now
    while diff:
        low = diff & -diff
        mv[base + low.bit_length() - 1] = 1.0 if now & low else 0.0
        diff ^= low


def rules_features(rules: Rules) -> list[float]:
    """The 38 rule features of layout version 1: player count one-hot (2, 3, 4), partnerships,
    first-lead trump, target / 20, turn-up points by rank 2..A (13, / 3), every_turnup, gift points / 3,
    gift to the beggar's side only, gift block one-hot (non_beggar_3p, any_recipient_would_win, none),
    redeal void, no discarding, high captured, low captured, jack points / 3, hang jack points / 3,
    game points / 3, game tie one-hot (seven_up, nobody, non_dealer), under-trump banned,
    discards in play, hand size / 9. Values are clipped to 1."""
    turnup = rules.turnup_points

    def scaled(value: int, top: float) -> float:
        return min(value / top, 1.0)

    out = [float(rules.num_players == k) for k in (2, 3, 4)]
    out += [float(rules.partnerships), float(rules.trump_selection is TrumpSelection.FIRST_LEAD),
            scaled(rules.target_points, 20)]
    out += [scaled(turnup.get(rank, 0), 3) for rank in RANKS]
    out += [float(rules.run_turnup_scoring is RunTurnupScoring.EVERY_TURNUP), scaled(rules.gift_points, 3),
            float(rules.gift_recipients is GiftRecipients.BEGGAR_SIDE)]
    out += [float(rules.gift_block is b)
            for b in (GiftBlock.NON_BEGGAR_3P, GiftBlock.ANY_RECIPIENT_WOULD_WIN, GiftBlock.NONE)]
    out += [float(rules.exhausted_deck_rule is ExhaustedDeckRule.REDEAL_VOID),
            float(rules.discard_after_run is DiscardAfterRun.NONE),
            float(rules.high_rule is PointRule.CAPTURED), float(rules.low_rule is PointRule.CAPTURED),
            scaled(rules.jack_points, 3), scaled(rules.hang_jack_points, 3), scaled(rules.game_points, 3)]
    out += [float(rules.game_tie_rule is t)
            for t in (GameTieRule.SEVEN_UP, GameTieRule.NOBODY, GameTieRule.NON_DEALER)]
    out += [float(rules.undertrump is Undertrump.BANNED_UNLESS_NO_CHOICE), float(rules.discards_in_play),
            scaled(rules.hand_size, 9)]
    return out


def selection_and_pack_features(rules: Rules) -> list[float]:
    """The 15 rule features from index 1012: trump selection one-hot (turnup, first_lead,
    stock_top, auction), stock face up, bid_max / 5, dealer may hold, the joker, joker ranks lowest,
    joker_lead_trump one-hot (C D H S), the nine scored, the joker scored."""
    plan = rules.plan
    out = [float(rules.trump_selection is t) for t in (TrumpSelection.TURNUP, TrumpSelection.FIRST_LEAD,
                                                        TrumpSelection.STOCK_TOP, TrumpSelection.AUCTION)]
    out += [float(plan.stock and not plan.stock_face_down), rules.bid_max / 5 if plan.auction else 0.0,
            float(plan.auction and rules.dealer_may_hold), float(rules.joker), float(plan.joker_ranks_lowest)]
    out += [float(rules.joker and plan.joker_lead_suit == s) for s in range(4)]
    out += [float(plan.scores_nine), float(plan.scores_joker)]
    return out


class SeatEncoder:
    """Keeps one seat's observation up to date by reading only the game-log events it has not yet
    seen, never rebuilding the vector from scratch: each event writes the few entries it changes."""

    __slots__ = ("seat", "n", "obs", "_mv", "_game", "_rules_block", "_rel_side", "_synced", "_hand",
                 "_phase", "_turn", "_trump_slot", "_trick_count", "_held", "_dropped", "_proposed",
                 "_rejected", "_auction", "_stock", "_face_up", "_voids", "_sees_discard", "_known",
                 "_top", "_pitcher_written", "_pack", "_turnup", "_order_value", "_out", "_joker",
                 "_joker_rank", "_pack_mask", "_planes", "_win_rel", "_trump_rows", "_unseen",
                 "_captured")

    def __init__(self, rules: Rules, seat: int) -> None:
        self.seat = seat
        self.n = rules.num_players
        self.obs = np.zeros(OBS_SIZE, dtype=np.float32)
        self._mv = memoryview(self.obs)  # item writes through a memoryview are cheaper than numpy's
        self._rules_block = (np.asarray(rules_features(rules), dtype=np.float32),
                             np.asarray(selection_and_pack_features(rules), dtype=np.float32))
        sides = [rules.side_of(s) for s in range(self.n)]
        order: list[int] = []  # absolute sides in the order of the relative seats that hold them
        for k in range(self.n):
            side = sides[(seat + k) % self.n]
            if side not in order:
                order.append(side)
        self._rel_side = [order.index(side) for side in sides]  # relative side of each seat
        plan = rules.plan
        self._auction = plan.auction
        self._stock = plan.stock
        # What this seat sees (allfours_env.visibility), by relative seat where it depends on the seat;
        # decided once here, so that the per-event work stays a few item writes.
        relative = [(seat + k) % self.n for k in range(self.n)]
        self._face_up = sees_stock_top(rules, seat)  # RD10
        self._sees_discard = tuple(sees_discard(other, seat) for other in relative)  # P5, D8
        self._voids = VoidTracker(rules, seat, relative)  # R3; RD10: which draws end the voids
        self._turnup = plan.turnup
        self._pack = NUM_CARD_IDS if rules.joker else NUM_CARD_IDS - 1
        self._pack_mask = (1 << self._pack) - 1
        self._joker = rules.joker
        self._joker_rank = rules.joker_rank
        self._game: Game | None = None

    def reset(self, game: Game) -> None:
        """Start following a new game."""
        self._game = game
        self.obs[:] = 0.0
        self.obs[RULES:BASE_SIZE] = self._rules_block[0]
        self.obs[RULES2:TRUMP_PLANE] = self._rules_block[1]
        self._synced = 0
        self._phase = -1
        self._turn = -1  # relative seat to move + 4 * relative leader, -1 for nobody
        self._new_hand(game.dealer)

    def _new_hand(self, dealer: int) -> None:
        obs, mv, n = self.obs, self._mv, self.n
        obs[:PHASE] = 0.0
        obs[TRUMP:RUNS + 1] = 0.0
        obs[DEALER:LEADER] = 0.0
        obs[CARD_POINTS:TRICKS + 1] = 0.0
        obs[BIDS:SIDE3] = 0.0
        obs[SIDE3 + 2] = 0.0
        obs[STOCK_TOP:RULES2] = 0.0
        obs[TRUMP_PLANE:] = 0.0
        mv[TRUMP + 4] = 1.0
        mv[DEALER + (dealer - self.seat) % n] = 1.0
        mv[ELDEST + (dealer + 1 - self.seat) % n] = 1.0
        if self._auction:
            for k in range(n):
                mv[BIDS + BID_SLOTS * k] = 1.0  # nobody has bid yet
        self._hand = 0
        self._voids.new_hand()
        self._trick_count = 0
        self._order_value = 1 / MAX_TRICKS  # PLAY_ORDER's value for a card of the current trick
        self._trump_slot = 4
        self._held = [0] * n
        self._dropped = [0] * n
        self._proposed = -1  # the suit in PROPOSED, -1 for none
        self._rejected = False  # whether REJECTED holds the first rejected suit
        self._known = [0] * n  # cards seen drawn by each relative seat and not played since
        self._top = -1  # the face-up top card of the stock shown, -1 for none
        self._pitcher_written = False
        self._out = 0  # cards out of play to this seat: played, turned up, discarded by it
        self._planes = (0, 0, 0)  # TRUMP_PLANE, MASTER, BEATS as written
        self._trump_rows = (0, 0, 0, 0)  # the card sets the TRUMP_RANKS rows show: mine, trick, ours, theirs
        self._unseen = 0  # the cards UNSEEN counts
        self._captured = 0  # every card won in a trick this hand
        self._win_rel = -1

    def update(self) -> np.ndarray:
        """Bring the observation up to date with the game and return it (not a copy)."""
        game = self._game
        log = game.log
        start = self._synced
        end = len(log)
        if start == end:
            return self.obs
        sizes_dirty = scores_dirty = False
        if game.hand_log_start >= start:  # a new deal: only the events from it on matter
            start = game.hand_log_start
            self._new_hand(log[start][1])
            start += 1
            sizes_dirty = scores_dirty = True
        mv = self._mv
        seat, n = self.seat, self.n
        held = self._held
        stock = self._stock
        voids = self._voids
        for kind, who, value in log[start:end]:
            if kind == _ACT:
                rel = (who - seat) % n
                card = PLAYED_CARD[value]
                if card >= 0:  # a card played (P6): public
                    mv[_PLAYED_BY_BASE + rel * NUM_CARD_IDS + card] = 1.0
                    mv[_TRICK_BASE + card] = 1.0
                    mv[_ORDER_BASE + card] = self._order_value
                    self._out |= 1 << card
                    held[rel] -= 1
                    mv[HAND_SIZE + rel] = held[rel] / MAX_TRICKS
                    void = voids.table[card]  # VoidTracker.play inlined (R3: neither followed nor trumped)
                    if void >= 0:
                        voids.suits[rel] |= 1 << void
                        mv[VOIDS + 4 * rel + void] = 1.0
                    elif void == LEADS:
                        voids.lead(card)
                    if stock and self._known[rel] >> card & 1:
                        self._on_known_played(rel, card)
                elif IS_AUCTION_ACTION[value]:  # a bid (RD13): public
                    self._on_bid(rel, value)
                elif DISCARDED_CARD[value] >= 0:  # a discard (P5): only its count is public
                    if self._sees_discard[rel]:
                        mv[_MY_DISCARD_BASE + DISCARDED_CARD[value]] = 1.0
                        self._out |= 1 << DISCARDED_CARD[value]
                    held[rel] -= 1
                    self._dropped[rel] += 1
                    mv[HAND_SIZE + rel] = held[rel] / MAX_TRICKS
                    mv[DISCARDS + rel] = self._dropped[rel] / 15
                else:
                    mv[BIDDING + _BIDDING_FLAG[value]] = 1.0
            elif kind == _TRICK:
                self._on_trick(who, value)
                rel_side = self._rel_side[who]
                mv[_SIDE_SLOTS[rel_side][3]] = game.captured_points[game.sides[who]] / 80
            elif kind == _DRAW:
                self._on_draw((who - seat) % n, value)
            elif kind == _AWARD:
                scores_dirty = True
            elif kind == _TURNUP:
                self._on_turnup(value)
                sizes_dirty = True
            elif kind == _TRUMP:
                mv[TRUMP + self._trump_slot] = 0.0
                mv[TRUMP + value] = 1.0
                self._trump_slot = value
                voids.trump = value
        self._synced = end
        self._sync_state(game, sizes_dirty, scores_dirty)
        return self.obs

    def _on_trick(self, winner: int, cards: int) -> None:
        mv = self._mv
        captured = _SIDE_SLOTS[self._rel_side[winner]][0]
        self._captured |= cards
        trick = TRICK * NUM_CARD_IDS
        while cards:
            low = cards & -cards
            card = low.bit_length() - 1
            mv[captured + card] = 1.0
            mv[trick + card] = 0.0
            cards ^= low
        self._trick_count += 1
        self._voids.trick()
        mv[TRICKS] = min(self._trick_count / MAX_TRICKS, 1.0)
        mv[TRICKS_26] = self._trick_count / STOCK_TRICKS
        self._order_value = min((self._trick_count + 1) / MAX_TRICKS, 1.0)

    def _on_turnup(self, card: int) -> None:
        mv = self._mv
        mv[TURNUP * NUM_CARD_IDS + card] = 1.0
        self._out |= 1 << card
        proposed = self._proposed
        if proposed >= 0:  # a run's turn-up (P4)
            mv[RUNS] = mv[RUNS] + 0.2
            if not self._rejected:
                mv[REJECTED + proposed] = 1.0
                self._rejected = True
            mv[PROPOSED + proposed] = 0.0
        self._proposed = card // NUM_RANKS
        mv[PROPOSED + self._proposed] = 1.0

    def _on_bid(self, rel: int, action: int) -> None:
        """RD13, RD14: a bid, a pass or the dealer's hold, and the highest bid so far."""
        mv = self._mv
        slot = BIDS + BID_SLOTS * rel
        mv[slot] = 0.0
        mv[slot + 1 + action - PASS] = 1.0
        if BID_AMOUNT[action]:
            mv[HIGH_BID] = BID_AMOUNT[action] / 5
            for k in range(4):
                mv[HIGH_BIDDER + k] = 1.0 if k == rel else 0.0

    def _on_draw(self, rel: int, card: int) -> None:
        """RD6, RD10: a card drawn from the stock; seen by all with a face-up stock, else by its
        drawer only — a hidden draw may bring any suit, so the drawer's known voids end."""
        mv = self._mv
        voids = self._voids
        self._held[rel] += 1
        mv[HAND_SIZE + rel] = self._held[rel] / MAX_TRICKS
        if voids.hidden_draw[rel]:  # VoidTracker.draw inlined: not seen, the drawer's voids are over
            voids.suits[rel] = 0
            for suit in range(4):
                mv[VOIDS + 4 * rel + suit] = 0.0
        else:
            mv[DRAWN + rel * NUM_CARD_IDS + card] = 1.0
            self._known[rel] |= 1 << card
            suit = card // NUM_RANKS
            if voids.suits[rel] >> suit & 1:  # D17: off while it holds a seen card of the suit
                mv[VOIDS + 4 * rel + suit] = 0.0

    def _on_known_played(self, rel: int, card: int) -> None:
        """RD10: a seat played a drawn card everyone saw; a void it had shown holds again once it
        holds no other seen card of that suit."""
        known = self._known[rel] ^ (1 << card)
        self._known[rel] = known
        suit = card // NUM_RANKS
        if self._voids.suits[rel] >> suit & 1 and not known & SUIT_MASKS[suit]:
            self._mv[VOIDS + 4 * rel + suit] = 1.0

    def _sync_state(self, game: Game, sizes_dirty: bool, scores_dirty: bool) -> None:
        """Refresh what is read from the current state: own hand, phase, turn, the stock, the
        auction's outcome, and (when events said they changed) card counts and scores."""
        mv = self._mv
        seat, n = self.seat, self.n
        hand = game.hands[seat]
        diff = hand ^ self._hand
        while diff:
            low = diff & -diff
            mv[low.bit_length() - 1] = 1.0 if hand & low else 0.0
            diff ^= low
        self._hand = hand
        phase = game.phase
        if phase != self._phase:
            if self._phase >= 0:
                mv[PHASE + self._phase] = 0.0
            mv[PHASE + phase] = 1.0
            self._phase = phase
        mover = game.current_player
        turn = -1 if mover < 0 else (mover - seat) % n + 4 * ((game.trick_leader - seat) % n)
        if turn != self._turn:
            if self._turn >= 0:
                mv[TO_MOVE + self._turn % 4] = 0.0
                mv[LEADER + self._turn // 4] = 0.0
            if turn >= 0:
                mv[TO_MOVE + turn % 4] = 1.0
                mv[LEADER + turn // 4] = 1.0
            self._turn = turn
        if self._auction and not self._pitcher_written and game.pitcher >= 0:
            mv[PITCHER + (game.pitcher - seat) % n] = 1.0
            mv[CONTRACT] = game.contract / 5
            self._pitcher_written = True
        if self._stock:
            self._sync_stock(game)
        self._sync_counts(game, hand)
        if sizes_dirty:
            for k in range(n):
                other = (seat + k) % n
                self._held[k] = game.hands[other].bit_count()
                self._dropped[k] = game.discards[other].bit_count()
                mv[HAND_SIZE + k] = self._held[k] / MAX_TRICKS
                mv[DISCARDS + k] = self._dropped[k] / 15
            if self._turnup:  # the stock a run deals from (P4)
                mv[STOCK_LEFT] = (self._pack - game.pos) / 40
        if scores_dirty:
            target = game.target
            for k in range(n):  # write each relative side once, from the first seat holding it
                side = game.sides[(seat + k) % n]
                rel = self._rel_side[(seat + k) % n]
                _, score_slot, needed_slot, points_slot = _SIDE_SLOTS[rel]
                score = game.scores[side]
                mv[score_slot] = min(max(score, 0) / target, 1.0)
                mv[needed_slot] = min(max(target - score, 0) / target, 1.0)
                mv[points_slot] = game.captured_points[side] / 80
                mv[BELOW_ZERO + rel] = min(max(-score, 0) / target, 1.0)

    def _sync_counts(self, game: Game, hand: int) -> None:
        """What a card player counts (index 1027 on): the trumps, the best card left of each suit,
        what beats the trick, who wins it so far, the cards not seen and the trumps by rank."""
        mv = self._mv
        trump, out = game.trump, self._out
        live = self._pack_mask & ~out
        unseen = live & ~hand
        master = 0
        walk = trump if self._joker else -1  # the joker's suit: in rank order but for the joker (RD22)
        for suit, suit_mask in enumerate(SUIT_MASKS):
            if suit == walk:
                for card in suit_orders(trump, True, self._joker_rank)[suit]:
                    bit = 1 << card
                    if out & bit:
                        continue
                    master |= bit
                    if not hand & bit:
                        break
                continue
            top = unseen & suit_mask  # the cards above its highest unseen card are out or mine
            master |= live & suit_mask & (-(1 << (top.bit_length() - 1)) if top else -1)
        beats = 0
        win_rel = -1
        if game.trick_cards:
            strength, best = game.strength, game.win_strength
            cards = hand
            while cards:
                low = cards & -cards
                if strength[low.bit_length() - 1] > best:
                    beats |= low
                cards ^= low
            win_rel = (game.win_seat - self.seat) % self.n
        trumps = game.trump_mask
        old_trumps, old_master, old_beats = self._planes
        if trumps != old_trumps:
            _write_bits(mv, TRUMP_PLANE, old_trumps, trumps)
        if master != old_master:
            _write_bits(mv, MASTER, old_master, master)
        if beats != old_beats:
            _write_bits(mv, BEATS, old_beats, beats)
        self._planes = (trumps, master, beats)
        if win_rel != self._win_rel:
            if self._win_rel >= 0:
                mv[WINNING + self._win_rel] = 0.0
            if win_rel >= 0:
                mv[WINNING + win_rel] = 1.0
            self._win_rel = win_rel
        changed = unseen ^ self._unseen
        if changed:
            self._unseen = unseen
            for suit, suit_mask in enumerate(SUIT_MASKS):
                if changed & suit_mask:
                    mv[UNSEEN + suit] = (unseen & suit_mask).bit_count() / 13
        if trump < 0:
            return
        mv[TRUMPS_LEFT] = (unseen & trumps).bit_count() / 14
        shift = NUM_RANKS * trump
        ours = game.captured[game.sides[self.seat]]
        rows = (hand, game.trick_mask if game.trick_cards else 0, ours, self._captured & ~ours)
        if rows != self._trump_rows:
            row = TRUMP_RANKS
            for was, now in zip(self._trump_rows, rows):
                if was != now:  # the trump suit's 13 ranks, then the joker's bit
                    _write_bits(mv, row, ((was >> shift) & _RANK_BITS) | (was >> _JOKER_SHIFT) << NUM_RANKS,
                                ((now >> shift) & _RANK_BITS) | (now >> _JOKER_SHIFT) << NUM_RANKS)
                row += TRUMP_SLOTS
            self._trump_rows = rows

    def _sync_stock(self, game: Game) -> None:
        """RD10: the cards left in the stock, and its top card where it lies face up."""
        mv = self._mv
        left = self._pack - game.pos
        mv[STOCK_LEFT] = left / 40
        top = game.deck[game.pos] if self._face_up and left else -1
        if top != self._top:
            if self._top >= 0:
                mv[STOCK_TOP + self._top] = 0.0
            if top >= 0:
                mv[STOCK_TOP + top] = 1.0
            self._top = top
