"""The rule-based player ``heuristic``: the sources' strategy notes plus plain card sense.

It decides from its seat's :class:`~allfours_env.knowledge.SeatView` only (own hand, the public play,
the counts of the others' cards), with no search:

* **Beg** (P2) or stand, **gift or run** (P3): what the proposed suit promises the seat's side
  (:func:`stand_net`: its :func:`suit_strength` against the points out in that hand,
  :func:`points_out`) against what a run promises (:func:`run_net`: the mean strength of the other
  suits, the turn-ups' points to the dealer, K5, K6). Eldest begs only when a run promises clearly
  more; the dealer gifts when his holding, less the gift, promises more than a run — the beg tells him
  eldest is weak in the suit. The sources' tips stay as floors: stand with the ace or a guarded jack
  of trumps (source 000 "Tipps für Einsteiger"); beg when the gift would win the game, never gift the
  winning point (R10). The constants are measured on heuristic self-play (the points a side scores
  against its hand's strength, seven_up 2p) and tuned on duplicate games.
* **Discard** (P5): keep high trumps, the jack, the ten of trumps, the lowest trump, tens and aces.
* **Play** (P6): every legal card gets an expected value — the chance that our side takes the trick
  (from the cards still unseen, the voids shown, and who is still to play) times the card points (R4)
  and the Jack / hang-jack points (R8) at stake, minus what the card is worth kept for later (a boss
  trump, a sure winner). So it wins cheaply or throws the lowest non-counting card, protects its tens,
  cashes counting cards when the trick is safe, captures the jack, and does not trump a partner's
  winner. Leads add the sources' plan: lead high trumps to catch the jack when holding ace or king;
  and any trump led, won or lost, is worth more the more card points our plain winners hold while
  an opponent may still trump them (:func:`_clearing_bonus`). With three or four sides each alone,
  a point one opponent takes costs a third (a half at three sides) of a point we take (:func:`_deny`).
* **Blind All Fours** (P8) **and the auction's pitch** (RD16): the first lead picks trump from the
  suit that promises most (the joker led makes ``joker_lead_trump`` trump, RD23); a pitcher with a
  contract names the suit its bid was made on, the strongest, whatever card would win the first trick.
* **The auction** (RD13–RD15): bid the highest amount the hand makes at least half the time as
  pitcher, as dealer hold the standing bid on the same terms (:func:`auction_bid`, :func:`make_chance`:
  the pitcher's points spread about its best suit's strength, less far above it the more hands
  play against it).
* **Game** (R9): a card point is worth what it moves the chance of winning Game, from the lead in
  card points so far and the card points still to be taken (:func:`_race_weight`).
* **The joker** (RD22) plays as the trump of its rank; **the nine** (don), **the joker's point** and,
  with a stock, **High and Low to capture** (the ace and the two of trumps) are valued like the Jack:
  points at stake in a trick.
* **The stock** (california_jack, shasta_sam): winning a trick also wins the stock's top card — seen
  face up, or the first one known to be a trump — over an unseen card: that difference is at stake in
  every trick (RD6, RD10); a card seen drawn is known to be in its drawer's hand.

With the ``held`` rule (K11) High and Low are settled at the deal: the play fights for Jack and Game
(and the nine and the joker). Weights are in card points (R4); ``POINT`` is the worth of one point.
"""

from __future__ import annotations

from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

from agents.base import Agent
from allfours_env.actions import (
    BEG,
    BID_AMOUNT,
    GIFT,
    HOLD,
    PASS,
    PLAYED_CARD,
    RUN,
    STAND,
    discard_action,
    play_action,
)
from allfours_env.cards import (
    CARD_GAME_POINTS,
    JACK_RANK,
    JOKER,
    NUM_CARDS,
    NUM_RANKS,
    RANK_OF,
    RANKS,
    SUIT_MASKS,
    cards_of,
    make_card,
    mask_of,
)
from allfours_env.events import Phase
from allfours_env.knowledge import SeatView
from allfours_env.rules import JokerRank, PointKind
from allfours_env.scoring import (
    NINE_RANK,
    beating,
    card_points,
    card_strength,
    card_suit,
    lead_suit,
    trick_winner,
    trump_cards,
)

ACE, KING, QUEEN, TEN = 12, 11, 10, 8

# Weights, in card points (R4). Tuned against `random` with benchmarks/heuristic_vs_random.py.
POINT = 16.0  # one scored point (Jack, hang jack) in card points
OPP_BEAT = 0.85  # how often an opponent who can beat the trick does
PARTNER_BEAT = 0.7  # how often a partner who can beat an opponent's trick does
KEEP_TRUMP = 1.5  # worth of any trump kept for later (it can ruff a plain trick, R3)
KEEP_TOP_TRUMP = 3.0  # extra worth of a trump no opponent can beat
KEEP_BOSS = 1.5  # worth of a plain card nobody can beat in its suit
TRUMP_HOME = 0.6  # chance a trump that is not the top one still brings its points home
PLAIN_BOSS_HOME = 0.6  # the same for the best remaining card of a plain suit
PLAIN_HOME = 0.4  # and for any other plain card
HUNT = 1.0  # weight of the card points of the trumps a winning trump lead draws
DRAW = 3.0  # worth of drawing one opponent trump with a winning trump lead
JACK_HUNT = 2.0  # weight of the chance that a winning trump lead catches the jack
CLEAR = 0.5  # weight of the card points of our plain winners that a trump lead makes safer
# Stand, beg, gift or run (measured on heuristic self-play, seven_up 2p: the points a side scores in a
# hand run about STRENGTH_BIAS below suit_strength; after a run, the net points of a seat grow by
# RUN_SLOPE for each point of the mean strength of the other suits above RUN_PIVOT, where they are
# RUN_AT_PIVOT; a dealer who is begged finds his side AFTER_BEG points better off than his strength says).
# TRUMP_GAME (the share of Game each card point of the trump suit itself promises) was then tuned on
# duplicate games against the previous heuristic (seven_up and don 2p), GIFT_BIAS against `random` too.
STRENGTH_BIAS = 0.4
GIFT_BIAS = 0.6  # the dealer's side, judging a gift (a beg need not mean a weak beggar)
TRUMP_GAME = 0.08
RUN_SLOPE = 0.6
RUN_PIVOT = 1.75
RUN_AT_PIVOT = 0.2
AFTER_BEG = 1.6
BEG_EDGE = -0.6  # beg only when a run promises this much more than standing
JACK_URGENT = 1.5  # the Jack's weight when a side is that close to the target
DISCARD_TRUMP = 30.0  # how much more a trump is worth keeping than a plain card (P5)
# The auction: a pitcher makes ``amount`` points with the chance that a normal variable of deviation
# MAKE_SD about its best suit's strength exceeds ``amount - MAKE_EDGE``, its mean MAKE_SHIFT higher
# against one other hand than against three (heuristic self-play, 2 and 4 players); it bids what it
# makes at least MIN_MAKE of the time.
MAKE_SD = 0.8
MAKE_EDGE = 0.3
MAKE_SHIFT = 0.3
MIN_MAKE = 0.5
JOKER_POINT = 0.8  # chance the joker's holder brings the joker point home (only the ace beats it)
NINE_HELD = 0.4  # don: chance the nine's holder brings the nine point home (RD28)
DRAW_TRUMP = 6.0  # the stock: worth of drawing a trump, in card points, plus 0.5 a rank


@dataclass(frozen=True)
class _Seat:
    """Facts about the table needed by every decision."""

    n: int
    seat: int
    sides: tuple[int, ...]
    side: int
    trump: int
    hand: int
    unseen: int
    sizes: tuple[int, ...]
    voids: tuple[int, ...]
    known: tuple[int, ...] = (0, 0, 0, 0)  # cards seen drawn by each seat and not played since (RD10)
    joker_rank: str = "second_highest"
    trumps: int = 0  # the trump cards (the trump suit, and the joker where there is one)

    def pool(self, q: int) -> int:
        """Unseen cards seat ``q`` may hold."""
        return self.unseen & ~self.voids[q]

    def p_holds(self, q: int, cards: int) -> float:
        """Chance that seat ``q`` holds at least one of ``cards`` (hypergeometric over its pool; certain
        for a card it was seen to draw)."""
        if cards & self.known[q]:
            return 1.0
        pool = self.pool(q)
        unknown = self.sizes[q] - self.known[q].bit_count()
        return 1.0 - _p_none(pool.bit_count(), (cards & pool).bit_count(), unknown)

    def opponents(self) -> list[int]:
        """Seats of the other sides."""
        return [q for q in range(self.n) if self.sides[q] != self.side]


def _p_none(pool: int, marked: int, drawn: int) -> float:
    """Chance that ``drawn`` cards dealt from ``pool`` miss all ``marked`` ones."""
    if marked <= 0 or drawn <= 0:
        return 1.0
    if pool - marked < drawn:
        return 0.0
    p = 1.0
    for i in range(drawn):
        p *= (pool - marked - i) / (pool - i)
    return p


def _above(card: int) -> int:
    """The cards of ``card``'s suit that outrank it (R1)."""
    return SUIT_MASKS[card // NUM_RANKS] & ~((2 << card) - 1)


def _below(card: int) -> int:
    """The cards of ``card``'s suit that it outranks."""
    return SUIT_MASKS[card // NUM_RANKS] & ((1 << card) - 1)


def _higher(card: int, seat: _Seat) -> int:
    """The cards of ``card``'s suit that outrank it (R1); for a trump, the trumps that beat it, the
    joker included (RD22)."""
    if card_suit(card, seat.trump) == seat.trump:
        return beating(card, seat.trump, seat.trump, seat.joker_rank)
    return _above(card)


def _rank(card: int, seat: _Seat) -> float:
    """A card's rank (0 = two .. 12 = ace, :data:`~allfours_env.cards.RANK_OF`); the joker, which has
    none, counts as the trump it plays as (RD22): between the king and the ace, or below the two."""
    if card == JOKER:
        return -1.0 if seat.joker_rank == JokerRank.LOWEST else KING + 0.5
    return RANK_OF[card]


def _lower_trumps(card: int, seat: _Seat) -> int:
    """The trumps that a trump ``card`` beats."""
    if card != JOKER and not seat.trumps >> JOKER & 1:
        return _below(card)
    return seat.trumps & ~beating(card, seat.trump, seat.trump, seat.joker_rank) & ~(1 << card)

class HeuristicAgent(Agent):
    """A rule-based player for every preset and player count; no search, no hidden information."""

    name = "heuristic"

    def __init__(self, seed: int | None = None, **options: object) -> None:
        if options:
            raise TypeError(f"the heuristic agent takes no options, got {sorted(options)}")
        super().__init__(seed)

    def act(self, observation: dict[str, np.ndarray] | None, view: SeatView) -> int:
        legal = view.legal_actions()
        if len(legal) == 1:
            return legal[0]
        phase = view.phase
        if phase == Phase.BEG:
            return self._beg(view)
        if phase == Phase.GIFT_OR_RUN:
            return self._gift_or_run(view)
        if phase == Phase.DISCARD:
            return self._discard(view)
        if phase == Phase.BID:
            return self._bid(view, legal)
        return self._play(view, legal)

    # ------------------------------------------------------------------ P2, P3: beg, gift or run

    def _beg(self, view: SeatView) -> int:
        """P2: stand or beg, whichever promises eldest's side more: a beg is answered by a gift (one
        point, and the proposed suit stays) or by a run (a new suit, three more cards each), so beg
        when the proposed suit promises less than a run (:func:`stand_net`, :func:`run_net`); always
        beg when the gift would win the game (R10)."""
        rules = view.rules
        suit = view.proposed
        need = rules.target_points - view.scores[rules.side_of(view.seat)]
        if _sure_points(view, suit) >= need:
            return STAND  # High and Low, scored first (R10), win the game
        if rules.gift_points >= need:
            return BEG  # the dealer must run or hand us the game
        trumps = view.hand & SUIT_MASKS[suit]
        ace, jack = suit * NUM_RANKS + ACE, suit * NUM_RANKS + JACK_RANK
        if trumps >> ace & 1 or (trumps >> jack & 1 and trumps & _above(jack)):
            return STAND  # High, or a guarded jack: keep this trump
        edge = stand_net(view, suit, STRENGTH_BIAS) - run_net(view, dealer=False)
        return BEG if edge < BEG_EDGE else STAND

    def _gift_or_run(self, view: SeatView) -> int:
        """P3: gift when the proposed suit, less the gift, promises the dealer's side more than a run
        (eldest begged: his hand is weak in that suit); never gift the winning point."""
        rules = view.rules
        dealer_side = rules.side_of(view.dealer)
        recipients = view.gift_recipients()
        if any(view.scores[s] + rules.gift_points >= rules.target_points for s in recipients):
            return RUN
        if _sure_points(view, view.proposed) >= rules.target_points - view.scores[dealer_side]:
            return GIFT  # keep the trump whose High / Low win the game for us (R10)
        cost = rules.gift_points * len(recipients)
        gift = stand_net(view, view.proposed, GIFT_BIAS) + AFTER_BEG - cost
        return GIFT if gift > run_net(view, dealer=True) else RUN

    # ------------------------------------------------------------------ the auction (RD13–RD15)

    def _bid(self, view: SeatView, legal: tuple[int, ...]) -> int:
        """The auction (:func:`auction_bid`)."""
        return auction_bid(view, legal, view.high_bid)

    # ------------------------------------------------------------------ P5: discard

    def _discard(self, view: SeatView) -> int:
        """P5: discard the card least worth keeping (high trumps, jack, tens and aces stay)."""
        hand, trump = view.hand, view.trump
        best = min(cards_of(hand), key=lambda c: discard_keep(c, hand, trump))
        return discard_action(best)

    # ------------------------------------------------------------------ P6, P8: trick play

    def _play(self, view: SeatView, legal: tuple[int, ...]) -> int:
        """P6: the legal card of highest expected value; P8, RD16: the first lead also picks trump."""
        cards = [PLAYED_CARD[a] for a in legal]
        if view.trump < 0:
            return play_action(self._blind_lead(view, cards))
        table = _table(view, view.trump)
        weights = _weights(view, table)
        best = max(cards, key=lambda c: _card_value(table, weights, c))
        return play_action(best)

    def _blind_lead(self, view: SeatView, cards: list[int]) -> int:
        """P8, RD16: lead from the suit that makes the best trump; the led card fixes it (the joker
        makes ``joker_lead_trump`` trump, RD23)."""
        best_card, best_value = cards[0], float("-inf")
        strengths = [suit_strength(view, suit) for suit in range(4)]
        for suit in range(4):
            mine = [c for c in cards if lead_suit(c, -1, view.rules.joker_lead_trump) == suit]
            if not mine or (view.contract > 0 and strengths[suit] < max(strengths)):
                continue  # RD18: a pitcher names the suit its contract was bid on
            table = _table(view, suit)
            weights = _weights(view, table)
            strength = strengths[suit] * POINT
            for card in mine:
                value = strength + _card_value(table, weights, card)
                if value > best_value:
                    best_card, best_value = card, value
        return best_card


# ---------------------------------------------------------------------- the auction (RD13–RD15)


def auction_bid(view: SeatView, legal: tuple[int, ...], high_bid: int) -> int:
    """The heuristic's bid with ``legal`` bids and the standing bid ``high_bid``: the highest bid (or,
    as dealer, the hold of the standing bid, RD14) that the hand makes at least ``MIN_MAKE`` of the
    time as pitcher (:func:`make_chance`, which counts how many hands play against it), else pass.
    The highest such bid shuts out the most later bidders. (Measured against the heuristic that bid
    the points its best suit promised, rounded: requiring the expected points of a bid to exceed a
    pass's — fewer, safer contracts — gained points a hand in auction_pitch 4p but lost games, 46% of
    2,002: in a race of four to the target, the variance of pitching often wins games.) ``pimc``
    uses it as its model of the other bidders."""
    strength = max(suit_strength(view, suit) for suit in range(4))
    best = PASS
    for action in legal:  # pass, the bids upwards, then the hold
        if action == PASS:
            continue
        amount = high_bid if action == HOLD else BID_AMOUNT[action]
        if make_chance(view, strength, amount) >= MIN_MAKE:
            best = action
    return best


def make_chance(view: SeatView, strength: float, amount: int) -> float:
    """The chance that a pitcher whose best suit promises ``strength`` points (:func:`suit_strength`)
    makes ``amount``. Measured on heuristic self-play: a pitcher's points spread ``MAKE_SD`` about
    its strength, ``MAKE_SHIFT`` higher against one other hand than against three."""
    against = view.rules.num_sides - 1
    mean = strength + MAKE_SHIFT * (3 - against) / 2
    return NormalDist().cdf((mean + MAKE_EDGE - amount) / MAKE_SD)


# ---------------------------------------------------------------------- hand strength (P2, P3, P8)


def suit_strength(view: SeatView, suit: int, trump_game: float = 0.0) -> float:
    """Points (High, Low, Jack, a share of Game; the nine and the joker where they score) that ``suit``
    as trump promises this seat's side, judged from its own hand and the turn-ups (R7–R9, RD24–RD28).
    ``trump_game``: the share of Game each card point (R4) of the trump suit itself adds — the stand/beg
    and gift/run decisions count it (``TRUMP_GAME``); the bids, whose chance of making a contract is
    measured on the strength without it (:func:`make_chance`), do not."""
    rules = view.rules
    hand = view.hand
    trumps = hand & SUIT_MASKS[suit]
    if not trumps:
        return 0.0
    seen = hand
    for card in view.turnups:
        seen |= 1 << card
    side = rules.side_of(view.seat)
    sizes = view.hand_sizes()
    against = sum(size for s, size in enumerate(sizes) if rules.side_of(s) != side)
    q = against / max(1, NUM_CARDS - seen.bit_count())  # chance an unseen card is an opponent's
    top = trumps.bit_length() - 1
    low = (trumps & -trumps).bit_length() - 1
    value = (1 - q) ** (_above(top) & ~seen).bit_count()  # High: no opponent holds a higher trump
    value += (1 - q) ** (_below(low) & ~seen).bit_count()  # Low: no opponent holds a lower one
    jack = suit * NUM_RANKS + JACK_RANK
    count = trumps.bit_count()
    if trumps >> jack & 1:
        guards = (trumps & _above(jack)).bit_count()
        value += (0.45 + 0.15 * min(guards, 2) + 0.05 * count) * rules.jack_points
    elif not seen >> jack & 1:  # the jack may be out there to catch
        value += 0.08 * count * (1 if trumps & _above(jack) else 0.5)
    value += 0.12 * count + 0.04 * sum(CARD_GAME_POINTS[c] for c in cards_of(hand & ~trumps))
    value += trump_game * sum(CARD_GAME_POINTS[c] for c in cards_of(trumps))
    if trumps >> (suit * NUM_RANKS + TEN) & 1:
        value += 0.15
    if rules.plan.scores_nine and trumps >> make_card(NINE_RANK, suit) & 1:
        value += NINE_HELD
    if rules.plan.scores_joker and hand >> JOKER & 1:
        value += JOKER_POINT + 0.12  # its point, and one more trump to win tricks with (RD22, RD25)
    return value


def _sure_points(view: SeatView, suit: int) -> int:
    """High and Low this seat is sure of with ``suit`` as trump: its ace and its two (R7, held)."""
    rules = view.rules
    trumps = view.hand & SUIT_MASKS[suit]
    high = not rules.plan.high_by_captor and trumps >> (suit * NUM_RANKS + ACE) & 1
    low = not rules.plan.low_by_captor and trumps >> (suit * NUM_RANKS) & 1
    return int(bool(high)) + int(bool(low))


def points_out(view: SeatView, suit: int) -> float:
    """The points a hand with ``suit`` as trump is expected to score in all (High, Low, Jack, Game,
    and the nine or the joker where they score), from what this seat has seen: a card it holds is in
    play, a card it saw turned up is not, another is in play as often as the others hold it."""
    rules = view.rules
    plan = rules.plan
    seen = view.hand
    for card in view.turnups:
        seen |= 1 << card
    unseen = view.unseen()
    held = sum(view.hand_sizes()) - view.hand.bit_count()
    share = held / max(1, unseen.bit_count())

    def in_play(card: int) -> float:
        return 1.0 if view.hand >> card & 1 else 0.0 if seen >> card & 1 else share

    total = float(rules.game_points)
    total += sum(1 for kind, _ in plan.scoring if kind in (PointKind.HIGH, PointKind.LOW))
    total += rules.jack_points * in_play(make_card(JACK_RANK, suit))
    if plan.scores_nine:
        total += in_play(make_card(NINE_RANK, suit))
    if plan.scores_joker:
        total += in_play(JOKER)
    return total


def stand_net(view: SeatView, suit: int, bias: float) -> float:
    """The points this seat's side is expected to score with ``suit`` as trump, less the others' (its
    side scoring ``bias`` points less than the suit's strength)."""
    return 2 * (suit_strength(view, suit, TRUMP_GAME) - bias) - points_out(view, suit)


def run_net(view: SeatView, dealer: bool) -> float:
    """The points this seat's side is expected to score after a run, less the others': better the
    stronger its hand is in the other suits, and the turn-ups' points go to the dealer (K5, K6)."""
    others = [suit_strength(view, s, TRUMP_GAME) for s in range(4) if s != view.proposed]
    net = RUN_AT_PIVOT + RUN_SLOPE * (sum(others) / len(others) - RUN_PIVOT)
    turnup = _run_turnup_value(view)
    return net + turnup if dealer else net - turnup


def _run_turnup_value(view: SeatView) -> float:
    """Expected points the turn-ups of a run bring the dealer (K5, K6): with ``every_turnup`` every card
    turned scores, 4/3 of them on average (a quarter repeat the rejected suit); otherwise only the card
    that fixes trump does."""
    rules = view.rules
    table = rules.turnup_points
    if not table:
        return 0.0
    per_card = sum(table.get(r, 0) for r in RANKS) / len(RANKS)
    if rules.plan.every_turnup_scores:
        return per_card * 4 / 3
    return per_card


# ---------------------------------------------------------------------- discards (P5)


def discard_keep(card: int, hand: int, trump: int) -> float:
    """How much ``card`` is worth keeping (higher stays): trumps, jack, tens, aces first (the joker
    like the king of trumps, RD22)."""
    if card == JOKER:
        return DISCARD_TRUMP + 2 * KING + 25
    suit, rank = divmod(card, NUM_RANKS)
    if suit == trump:
        value = DISCARD_TRUMP + 2 * rank
        if rank == ACE:
            value += 50  # High is certain (R7)
        elif rank == KING:
            value += 25
        elif rank == JACK_RANK:
            value += 35
        elif rank == TEN:
            value += 30
        trumps = hand & SUIT_MASKS[trump]
        if card == (trumps & -trumps).bit_length() - 1 and rank <= 3:
            value += 30 - 6 * rank  # likely Low
        return value
    value = {TEN: 18.0, ACE: 14.0, KING: 8.0, QUEEN: 5.0, JACK_RANK: 3.0}.get(rank, rank * 0.2)
    if (hand & SUIT_MASKS[suit]).bit_count() == 1 and rank != TEN:
        value -= 1.0  # discarding a singleton leaves a void
    return value


# ---------------------------------------------------------------------- trick play (P6)


@dataclass(frozen=True)
class _Trick:
    """The table plus the trick in progress, seen from the seat to play."""

    seat: _Seat
    led: int
    best: int  # the card winning the trick so far (-1 when leading)
    winner: int  # the seat playing it (-1 when leading)
    points: int  # card points already in the trick
    later: tuple[int, ...]  # seats still to play after this one
    jack_in: int  # seat that played the jack of trumps into this trick, or -1
    points_in: int = 0  # other point cards in the trick (the nine, the joker, High/Low to capture)
    point_cards: int = 0  # the point cards other than the jack that go to their captor
    draw_gain: float = 0.0  # the stock: what winning this trick's draw is worth over losing it
    stock_left: bool = False  # cards are still to be drawn (RD6)


def _table(view: SeatView, trump: int) -> _Trick:
    """Collect the facts the play decision needs, for trump ``trump``."""
    rules = view.rules
    n = rules.num_players
    sides = tuple(rules.side_of(s) for s in range(n))
    voids = tuple(view.voids()) if view.trump >= 0 else (0,) * n
    stock = rules.plan.stock
    known = tuple(view.seen_draws()) if stock else (0,) * n
    seat = _Seat(n, view.seat, sides, sides[view.seat], trump, view.hand, view.unseen(),
                 view.hand_sizes(), voids, known, rules.joker_rank, trump_cards(trump, rules.joker))
    trick = view.trick_cards
    leader = view.trick_leader
    later = tuple((view.seat + i) % n for i in range(1, n - len(trick)))
    jack = trump * NUM_RANKS + JACK_RANK
    point_cards = _point_cards(view, trump)
    stock_left = bool(stock and view.stock_size())
    draw_gain = _draw_gain(view, seat) if stock_left else 0.0
    if not trick:
        return _Trick(seat, -1, -1, -1, 0, later, -1, 0, point_cards, draw_gain, stock_left)
    led = lead_suit(trick[0], trump, rules.joker_lead_trump)
    first = trick_winner(trick, trump, rules.joker_rank)
    best, winner = trick[first], (leader + first) % n
    jack_in = (leader + trick.index(jack)) % n if jack in trick else -1
    points = card_points(mask_of(trick))
    return _Trick(seat, led, best, winner, points, later, jack_in, mask_of(trick) & point_cards, point_cards,
                  draw_gain)


def _point_cards(view: SeatView, trump: int) -> int:
    """The cards other than the jack whose point goes to the side that wins them in a trick: the nine
    of trumps in don (RD28), the joker (RD25), and with a stock, where every card is in play, High and
    Low under the ``captured`` rule — the ace and the two of trumps (RD9)."""
    plan = view.rules.plan
    cards = 0
    if plan.scores_nine:
        cards |= 1 << make_card(NINE_RANK, trump)
    if plan.scores_joker:
        cards |= 1 << JOKER
    if plan.stock:
        if plan.high_by_captor:
            cards |= 1 << make_card(ACE, trump)
        if plan.low_by_captor:
            cards |= 1 << make_card(0, trump)
    return cards


def _draw_worth(card: int, seat: _Seat, point_cards: int) -> float:
    """What a card drawn from the stock is worth to its drawer, in card points: its card points, a
    trump's power, and a point card's point."""
    worth = float(CARD_GAME_POINTS[card])
    if card_suit(card, seat.trump) == seat.trump:
        worth += DRAW_TRUMP + 0.5 * _rank(card, seat)
    if point_cards >> card & 1 or card == seat.trump * NUM_RANKS + JACK_RANK:
        worth += POINT
    return worth


def _draw_gain(view: SeatView, seat: _Seat) -> float:
    """RD6, RD10: the winner of the trick draws the stock's top card and the loser the next: winning is
    worth the top card's worth over an unseen card's (the top is seen face up in california_jack; in
    shasta_sam only the first top card is known — a trump)."""
    point_cards = _point_cards(view, seat.trump)
    unseen = cards_of(seat.unseen)
    if not unseen:
        return 0.0
    mean = sum(_draw_worth(c, seat, point_cards) for c in unseen) / len(unseen)
    top = view.stock_top()
    if top >= 0:
        return _draw_worth(top, seat, point_cards) - mean
    if view.stock_size() == 52 - 2 * view.rules.hand_size:  # the first, face-down top card: a trump
        trumps = [c for c in unseen if c // NUM_RANKS == seat.trump]
        if trumps:
            return sum(_draw_worth(c, seat, point_cards) for c in trumps) / len(trumps) - mean
    return 0.0


@dataclass(frozen=True)
class _Weights:
    """Per-decision worth of a card point and of the Jack, from the score and the Game race (R9, R10)."""

    point: float  # worth of one card point
    jack_own: float  # our side loses this if it loses its own jack (hang jack, K12)
    jack_theirs: float  # our side gains this by winning an opponent's jack
    jack_same: float  # the Jack point itself (a side winning its own jack)
    unit: float = POINT  # one point of another card scored by its captor (the nine, the joker, ...)
    deny: float = 1.0  # what a point won by one other side costs us, against a point we win (:func:`_deny`)


def _deny(num_sides: int) -> float:
    """What a point that one other side wins costs this seat, against a point it wins itself: with
    two sides all of it (what one gains the other loses); with three or four sides each alone, a
    point won by one opponent moves our lead over the others' mean by 1 / (sides - 1) of a point —
    so the seat plays for its own points rather than denying each opponent as if it were the only
    one."""
    return 1.0 / max(1, num_sides - 1)


def _net(p: float, deny: float) -> float:
    """The expected net of a stake that our side wins with chance ``p`` and one other side wins
    otherwise, each lost unit counting ``deny``. With ``deny == 1`` it is written ``2p - 1``, the
    two-sided formula as it always was, so two-sided decisions stay the same to the last bit."""
    return 2 * p - 1 if deny == 1.0 else p - (1 - p) * deny


def _weights(view: SeatView, table: _Trick) -> _Weights:
    """Card points count little once Game is settled (R9): no side can catch up any more; the Jack counts
    more when it can end the game, as it is scored before Game (R10)."""
    rules = view.rules
    seat = table.seat
    captured = view.captured_points
    mine = captured[seat.side]
    theirs = max((captured[s] for s in range(rules.num_sides) if s != seat.side), default=0)
    # at most: the trick on the table, our hand, and the best unseen cards the others can hold — with
    # a stock, the cards still to be drawn too (RD9: every card of the pack comes into play)
    others = sum(seat.sizes) - seat.hand.bit_count() + (view.stock_size() if rules.plan.stock else 0)
    unseen = sorted((CARD_GAME_POINTS[c] for c in cards_of(seat.unseen)), reverse=True)
    left = table.points + sum(CARD_GAME_POINTS[c] for c in cards_of(seat.hand)) + sum(unseen[:others])
    if rules.game_points == 0 or abs(mine - theirs) > left:
        point = 0.1  # Game is decided
    else:
        point = max(0.1, _race_weight(mine - theirs, table, others, unseen) * rules.game_points)
    jack, hang = rules.jack_points, rules.hang_jack_points
    unit = POINT
    needs = [rules.target_points - score for score in view.scores]
    if min(needs) <= hang:  # R10: the Jack is scored before Game, so it may end the game first
        unit *= JACK_URGENT
    return _Weights(point, hang * unit, hang * unit, jack * unit, unit, _deny(rules.num_sides))


def _race_weight(lead: int, table: _Trick, others: int, unseen: list[int]) -> float:
    """The worth of one card point in the race for Game (R9), in card points: how much it moves the
    chance of winning Game, with our lead ``lead`` and the card points still to be taken spread as if
    each went either way by chance (a normal approximation of the final difference)."""
    seat = table.seat
    spread = sum(CARD_GAME_POINTS[c] ** 2 for c in cards_of(seat.hand))
    spread += sum(c * c for c in unseen) * min(1.0, others / max(1, len(unseen)))
    spread += table.points * table.points
    sigma = max(1.0, spread ** 0.5)
    return 2 * POINT * NormalDist().pdf(lead / sigma) / sigma


def _win_chance(table: _Trick, best: int, mine: bool) -> float:
    """Chance that our side takes the trick if ``best`` stands winning now (ours if ``mine``)."""
    seat = table.seat
    p = 1.0 if mine else 0.0
    led = table.led if table.led >= 0 else card_suit(best, seat.trump)
    beat = beating(best, led, seat.trump, seat.joker_rank)
    for q in table.later:
        if seat.sides[q] != seat.side:
            p *= 1.0 - OPP_BEAT * seat.p_holds(q, beat)
        elif p < 1.0:
            p += (1.0 - p) * PARTNER_BEAT * seat.p_holds(q, beat)
    return p


def _keep_value(table: _Trick, weights: _Weights, card: int) -> float:
    """What ``card`` is worth kept in hand for a later trick: its trick-winning power plus the points
    (R4) and Jack (R8) it carries, times how likely our side is to bring them home later."""
    seat = table.seat
    suit = card_suit(card, seat.trump)
    higher = _higher(card, seat) & seat.unseen
    carried = CARD_GAME_POINTS[card] * weights.point
    if table.point_cards >> card & 1:
        carried += weights.unit
    if suit == seat.trump:
        p_top = 1.0
        for q in seat.opponents():
            p_top *= 1.0 - seat.p_holds(q, higher)
        home = p_top + (1.0 - p_top) * TRUMP_HOME
        if card == seat.trump * NUM_RANKS + JACK_RANK:
            carried += weights.jack_same
        power = KEEP_TRUMP + KEEP_TOP_TRUMP * p_top
    else:
        home = PLAIN_BOSS_HOME if not higher else PLAIN_HOME
        power = KEEP_BOSS if not higher else 0.0
    return power + (2.0 * home - 1.0) * carried + 0.02 * _rank(card, seat)


def _expected_drop(table: _Trick, best: int) -> float:
    """Card points the players still to play are expected to add to the trick."""
    seat = table.seat
    led = table.led if table.led >= 0 else card_suit(best, seat.trump)
    total = 0.0
    for q in table.later:
        pool = seat.pool(q)
        follow = pool & (SUIT_MASKS[led] | (seat.trumps if seat.trump >= 0 else 0))
        cards = cards_of(follow) or cards_of(pool)
        if cards:
            total += 0.5 * sum(CARD_GAME_POINTS[c] for c in cards) / len(cards)
    return total


def _card_value(table: _Trick, weights: _Weights, card: int) -> float:
    """Expected worth of playing ``card`` now: trick outcome (card points, Jack) minus its keep value."""
    seat = table.seat
    trump = seat.trump
    led = table.led if table.led >= 0 else card_suit(card, trump)
    jr = seat.joker_rank
    if table.best < 0 or card_strength(card, led, trump, jr) > card_strength(table.best, led, trump, jr):
        best, mine = card, True
    else:
        best, mine = table.best, seat.sides[table.winner] == seat.side
    p = _win_chance(table, best, mine)
    stake = table.points + CARD_GAME_POINTS[card] + _expected_drop(table, best)
    net = _net(p, weights.deny)
    value = net * stake * weights.point
    value += _jack_value(table, weights, card, p)
    at_stake = (table.points_in | (1 << card)) & table.point_cards
    if at_stake:  # the nine, the joker, High and Low to capture: each point to the trick's winner
        value += net * at_stake.bit_count() * weights.unit
    if table.draw_gain:
        value += net * table.draw_gain
    value -= _keep_value(table, weights, card)
    if table.best < 0:
        value += p * _lead_bonus(table, weights, card) + _clearing_bonus(table, weights, card)
    return value


def _clearing_bonus(table: _Trick, weights: _Weights, card: int) -> float:
    """A trump led, won or lost, takes a trump from each opponent who must follow (R3): the fewer
    trumps they keep, the safer our plain winners' card points (R4) come home (not while a stock is
    left: the others draw new trumps, RD6)."""
    seat = table.seat
    if table.stock_left or card_suit(card, seat.trump) != seat.trump:
        return 0.0
    at_risk = 0
    for mine in cards_of(seat.hand & ~seat.trumps):
        if CARD_GAME_POINTS[mine] and not _above(mine) & seat.unseen:
            at_risk += CARD_GAME_POINTS[mine]
    if not at_risk:
        return 0.0
    out = seat.unseen & seat.trumps
    bonus = 0.0
    for q in seat.opponents():
        theirs = seat.pool(q) & out
        if theirs:
            bonus += seat.p_holds(q, theirs)
    return CLEAR * bonus * at_risk * weights.point


def _jack_value(table: _Trick, weights: _Weights, card: int, p: float) -> float:
    """Expected Jack / hang-jack swing of the trick (R8) if ``card`` is played with win chance ``p``."""
    seat = table.seat
    if seat.trump < 0:
        return 0.0
    jack = seat.trump * NUM_RANKS + JACK_RANK
    if card == jack:
        holder = seat.side
    elif table.jack_in >= 0:
        holder = seat.sides[table.jack_in]
    else:
        return 0.0
    if holder == seat.side:  # ours: we score the Jack, or they score the hang jack
        return p * weights.jack_same - (1 - p) * weights.jack_own * weights.deny
    return p * weights.jack_theirs - (1 - p) * weights.jack_same * weights.deny


def _lead_bonus(table: _Trick, weights: _Weights, card: int) -> float:
    """Source 000's plan for leads: a winning trump draws the opponents' lower trumps — the jack among
    them (R8) — and leaves them fewer trumps to ruff our counting cards with (R3)."""
    seat = table.seat
    trump = seat.trump
    if card_suit(card, trump) != trump:
        return 0.0
    jack = trump * NUM_RANKS + JACK_RANK
    lower = _lower_trumps(card, seat) & seat.unseen
    bonus = 0.0
    for q in seat.opponents():
        theirs = seat.pool(q) & lower
        if not theirs:
            continue
        holds = seat.p_holds(q, theirs)
        # how many of those trumps q holds, given it holds one: the jack falls with 1 / that
        others = max(1, seat.pool(q).bit_count() - 1)
        count = 1 + (theirs.bit_count() - 1) * max(0, seat.sizes[q] - 1) / others
        if theirs >> jack & 1:
            bonus += JACK_HUNT * seat.p_holds(q, 1 << jack) / count * weights.jack_theirs
        mean_points = sum(CARD_GAME_POINTS[c] for c in cards_of(theirs)) / theirs.bit_count()
        bonus += holds * (HUNT * mean_points * weights.point + DRAW)
    return bonus
