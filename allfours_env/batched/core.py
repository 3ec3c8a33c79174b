"""The batched core's state machine: one game as fixed-shape arrays, pure functions of it.

The same state machine as :class:`allfours_env.engine.Game` (docs/rules.md §3, P1–P8), written
for JAX: every function here takes and returns a :class:`State` of one game with shapes fixed by
the configuration, so that ``jax.jit`` compiles it once and ``jax.vmap`` runs thousands of games
side by side. The rules come from :class:`~allfours_env.batched.spec.Spec` (``rules.plan`` read
once at ``make`` time) and the reference tables of :mod:`allfours_env.scoring`; where a rule is
restated as array code, tests/batched ties it to the reference function.

Design:

* **Cards by place, not hands by bits.** Each card id (0–52) has its place in per-card ``int32``
  arrays: who holds it (``hold``), who held it when play began (``start_hold``), who played it and
  in which trick, which side captured it, who discarded or drew it. A hand is ``hold == seat``.
  This keeps to 32-bit types — no ``jax_enable_x64``, a process-wide switch that would change the
  dtypes of every other JAX program of a user — and makes the observation's card planes one
  comparison each.
* **Branch-free phases.** A decision is applied by ``lax.switch`` on the phase (a select under
  ``vmap``); chance (deals, turn-ups, runs, redeals after an exhausted pack, the stock, scoring the
  hand, the next deal) runs in one ``lax.while_loop`` of at most a few dozen steps until the next
  decision or the end of the game; under ``vmap`` only the games waiting for chance run it
  (:meth:`Core.chance_of_batch`).
* **Chance from the key.** The ``i``-th deal of a game uses ``fold_in(key, i)``; stacked packs
  (``init(key, decks=...)``) are used first, as ``Game(decks=...)`` does.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from allfours_env.actions import (
    BID_BASE,
    DISCARD_BASE,
    GIFT,
    HOLD,
    NUM_ACTIONS,
    PASS,
    PLAY_BASE,
    STAND,
)
from allfours_env.batched import spec as sp
from allfours_env.batched.observe import Observer
from allfours_env.batched.spec import Spec
from allfours_env.cards import NUM_CARD_IDS, NUM_CARDS
from allfours_env.events import Phase
from allfours_env.observation import OBS_SIZE

BEG_P, GIFT_P, DISCARD_P, PLAY_P, OVER_P, HAND_OVER_P, BID_P = (
    int(Phase.BEG), int(Phase.GIFT_OR_RUN), int(Phase.DISCARD), int(Phase.PLAY), int(Phase.GAME_OVER),
    int(Phase.HAND_OVER), int(Phase.BID))
# Chance still to run before the next decision.
NOTHING, START_HAND, RUN_ONCE, SCORE_HAND = range(4)
TRUMP_BASE = 32  # scoring.TRUMP_BASE: a strength at or above it is a trump's
_I = jnp.int32
# Under vmap, the chance loop runs for groups of max(min, ceil(batch / divisor)) games
# (Core.chance_of_batch).
CHANCE_GROUP_MIN, CHANCE_GROUP_DIVISOR = 8, 32


class State(NamedTuple):
    """One game (or, under ``vmap``, a batch of games: every field gains a leading axis).

    Public: ``current_player`` (-1 once the game is over), ``legal_action_mask`` (bool[117], the
    action ids of :mod:`allfours_env.actions`; all False once terminated or truncated),
    ``observation`` (float32[1251] of the seat to move, :mod:`allfours_env.observation`'s layout),
    ``rewards`` (float32 per seat, paid by the last step), ``terminated``, ``truncated`` (the hand
    cap), ``scores`` (int32 per side), ``winner`` (the winning side, -1), ``phase`` (the engine's
    :class:`~allfours_env.events.Phase`), ``dealer``, ``hand_number``. The rest is the game's
    inner state (cards by place, the trick, the auction)."""

    current_player: jax.Array
    legal_action_mask: jax.Array
    observation: jax.Array
    rewards: jax.Array
    terminated: jax.Array
    truncated: jax.Array
    scores: jax.Array
    winner: jax.Array
    phase: jax.Array
    dealer: jax.Array
    hand_number: jax.Array
    key: jax.Array
    deals: jax.Array  # packs dealt so far in this game, redeals included
    stacked: jax.Array  # int32[D, pack]: packs to deal first (D may be 0)
    place: jax.Array  # int32[53]: each card's position in this deal's pack (0 the top card), 99 not in it
    pos: jax.Array  # the position of the next card to deal or draw
    hold: jax.Array  # int32[53]: the seat holding each card, -1
    start_hold: jax.Array  # int32[53]: the seat that held it when trick play began (R6), -1
    played_by: jax.Array  # int32[53]: the seat that played it this hand, -1
    played_trick: jax.Array  # int32[53]: the trick (0-based) it was played to
    captured: jax.Array  # int32[53]: the side that won it in a trick, -1
    discarded_by: jax.Array  # int32[53]: the seat that discarded it (P5), -1
    drawn_by: jax.Array  # int32[53]: the seat that drew it from the stock (RD6), -1
    turned: jax.Array  # bool[53]: turned up this deal (P1, P4)
    trump: jax.Array  # -1 until fixed
    proposed: jax.Array  # the suit proposed for trump (P2), -1
    last_turnup: jax.Array  # the suit of the last card turned up this deal, -1
    rejected: jax.Array  # the suit eldest begged away from once a run happened, -1
    runs: jax.Array  # the number of run turn-ups this deal (P4)
    acted: jax.Array  # bool[4]: stood, begged, gave, ran (P2, P3)
    trick_count: jax.Array  # tricks completed this hand
    trick_len: jax.Array  # cards in the current trick
    led: jax.Array  # the suit led to the current trick
    win_seat: jax.Array  # the seat winning the current trick so far
    win_strength: jax.Array  # its strength (scoring.strength_table)
    trick_points: jax.Array  # card points (R4) in the current trick
    captured_points: jax.Array  # int32[sides]: card points won this hand (R4)
    deal_points: jax.Array  # int32[sides]: points awarded since this deal began (K9)
    voids: jax.Array  # int32[n]: suits each seat has shown it lacks this hand (R3), bit per suit
    voids_since_draw: jax.Array  # int32[n]: the same, since the seat's last draw (RD10)
    bids: jax.Array  # int32[n]: each seat's bid slot (0 not yet, 1 pass, 2..6 bid 1..5, 7 hold)
    high_bid: jax.Array
    high_bidder: jax.Array  # -1
    pitcher: jax.Array  # -1 until the auction is over
    contract: jax.Array
    pending: jax.Array  # chance still to run (NOTHING, START_HAND, RUN_ONCE, SCORE_HAND)


def _put(array: jax.Array, index: jax.Array, value: jax.Array) -> jax.Array:
    """``array`` with entry ``index`` set to ``value``: a compare and a select, which ``vmap``
    turns into one vector operation (a scatter per game is slow on CPU)."""
    return jnp.where(jnp.arange(array.shape[0]) == index, value, array)


def _add(array: jax.Array, index: jax.Array, value: jax.Array) -> jax.Array:
    """``array`` with ``value`` added to entry ``index`` (see :func:`_put`)."""
    return jnp.where(jnp.arange(array.shape[0]) == index, array + value, array)


def _positions(deck: jax.Array) -> jax.Array:
    """int32[53]: each card's position in ``deck`` (99 for a card not in it, the joker of a plain
    pack): one comparison of the 53 ids with the pack, no scatter (see :func:`_put`)."""
    match = jnp.arange(NUM_CARD_IDS, dtype=_I)[:, None] == deck[None, :]
    where = jnp.where(match, jnp.arange(deck.shape[0], dtype=_I)[None, :], 0).sum(axis=1, dtype=_I)
    return jnp.where(match.any(axis=1), where, 99)


def _shuffled(key: jax.Array, size: int) -> jax.Array:
    """int32[53]: the positions of the cards in a uniformly random pack of card ids 0..``size``-1
    (99 for the joker outside a plain pack): each card's position is the rank of a random word drawn
    for it (ties by id), all by comparisons — a sort is slow under ``vmap`` on CPU."""
    words = jax.random.bits(key, (size,), jnp.uint32)
    ids = jnp.arange(size, dtype=_I)
    tie = (words[None, :] == words[:, None]) & (ids[None, :] < ids[:, None])
    before = (words[None, :] < words[:, None]) | tie
    place = before.sum(axis=1, dtype=_I)
    return jnp.concatenate([place, jnp.full(NUM_CARD_IDS - size, 99, _I)])


def _card_at(place: jax.Array, position: jax.Array) -> jax.Array:
    """The card id at ``position`` of the pack whose card positions are ``place``."""
    return jnp.argmax(place == position).astype(_I)


def _where(cond: jax.Array, a: State, b: State) -> State:
    """``a`` where ``cond`` else ``b``, field by field (a field that is the same array in both is
    kept as it is, so that the callers can tell the fields a step leaves alone)."""
    return jax.tree.map(lambda x, y: x if x is y else jnp.where(cond, x, y), a, b)


class Core:
    """The pure functions of one configuration (:class:`Spec`), closed over its constants."""

    def __init__(self, spec: Spec) -> None:
        self.spec = spec
        n = spec.n
        self.n = n
        self.seat_sides = jnp.asarray(spec.sides, dtype=_I)
        self.strength = jnp.asarray(spec.strength)
        self.suit = jnp.asarray(sp.SUIT)
        self.suit_member = jnp.asarray(sp.SUIT_MEMBER)
        self.card_points = jnp.asarray(sp.CARD_POINTS)
        self.turnup_points = jnp.asarray(spec.turnup_points)
        self.is_joker = jnp.arange(NUM_CARD_IDS) == sp.JOKER_ID
        self.cards = jnp.arange(NUM_CARD_IDS, dtype=_I)
        recipient = np.zeros((n, 4), dtype=bool)
        for dealer, sides in enumerate(spec.gift_recipients):
            recipient[dealer, list(sides)] = True
        self.is_recipient = jnp.asarray(recipient)
        self.observer = Observer(spec)
        self._chance = jax.custom_batching.custom_vmap(self.chance_loop)

        @self._chance.def_vmap
        def _chance_vmap(size: int, batched: list, s: State) -> tuple[State, State]:
            s = jax.tree.map(lambda x, b: x if b else jnp.broadcast_to(x, (size, *x.shape)), s, batched[0])
            return self.chance_of_batch(s, size), jax.tree.map(lambda _: True, s)

    # ------------------------------------------------------------------ small pieces

    def pay(self, side: jax.Array, points: jax.Array) -> jax.Array:
        """The AEC env's rewards when ``side`` scores ``points``: its players +p, the others
        -p/(sides-1)."""
        value = points.astype(jnp.float32)
        return jnp.where(self.seat_sides == side, value, -value * np.float32(self.spec.loser_share))

    def award(self, s: State, side: jax.Array, points: jax.Array, valid: jax.Array,
              can_end: bool = True) -> State:
        """R10 (:func:`allfours_env.scoring.settle`, one award): score ``points`` for ``side`` where
        ``valid`` and the game goes on; a positive award that takes the side to the target ends the
        game at once (``can_end`` False for a voided hand's negative points, K9)."""
        spec = self.spec
        go = valid & (s.phase != OVER_P)
        add = jnp.where(go, points, 0)
        scores = _add(s.scores, side, add)
        rewards = s.rewards
        if spec.reward_points or spec.points_share:
            paid = self.pay(side, points)
            if not spec.reward_points:
                paid = paid * np.float32(spec.points_share)
            rewards = rewards + jnp.where(go, paid, 0.0)
        s = s._replace(scores=scores, deal_points=_add(s.deal_points, side, add), rewards=rewards)
        if not can_end:
            return s
        wins = go & (points > 0) & (scores[side] >= spec.target)
        if not spec.reward_points:
            s = s._replace(rewards=s.rewards + jnp.where(wins, self.pay(side, _I(1)), 0.0))
        return s._replace(phase=jnp.where(wins, OVER_P, s.phase), winner=jnp.where(wins, side, s.winner),
                          current_player=jnp.where(wins, -1, s.current_player),
                          pending=jnp.where(wins, NOTHING, s.pending))

    def trump_mask(self, trump: jax.Array) -> jax.Array:
        """bool[53]: the trumps (:func:`allfours_env.scoring.trump_cards`): the suit, the joker."""
        mask = self.suit_member[jnp.maximum(trump, 0)] & (trump >= 0)
        return mask | (self.is_joker & self.spec.joker) if self.spec.joker else mask

    def counts(self, places: jax.Array) -> jax.Array:
        """int32[n]: how many cards each seat has at ``places`` (a per-card seat array)."""
        return (places[None, :] == jnp.arange(self.n, dtype=_I)[:, None]).sum(axis=1, dtype=_I)

    def start_play(self, s: State, leader: jax.Array) -> State:
        """P6: trick play begins; the cards held now are in play (R6); ``leader`` leads."""
        return s._replace(start_hold=s.hold, phase=_I(PLAY_P), current_player=jnp.asarray(leader, _I),
                          pending=_I(NOTHING))

    def next_discarder(self, s: State, start: jax.Array) -> State:
        """P5: the turn goes to the first seat from ``start`` up to the dealer holding too many cards,
        else play begins."""
        n = self.n
        ks = jnp.arange(n, dtype=_I)
        seats = (start + ks) % n
        within = ks <= (s.dealer - start) % n
        need = within & (self.counts(s.hold)[seats] > self.spec.hand_size)
        to_discard = s._replace(phase=_I(DISCARD_P), current_player=seats[jnp.argmax(need)],
                                pending=_I(NOTHING))
        return _where(need.any(), to_discard, self.start_play(s, (s.dealer + 1) % n))

    def eldest(self, s: State) -> jax.Array:
        return (s.dealer + 1) % self.n

    # ------------------------------------------------------------------ P1: the deal

    def next_pack(self, s: State) -> jax.Array:
        """The card positions of the next deal's pack: the next stacked pack, else a shuffle from
        the key."""
        pack = self.spec.pack
        shuffled = _shuffled(jax.random.fold_in(s.key, s.deals), pack)
        count = s.stacked.shape[0]
        if count == 0:
            return shuffled
        stacked = _positions(s.stacked[jnp.minimum(s.deals, count - 1)])
        return jnp.where(s.deals < count, stacked, shuffled)

    def start_hand(self, s: State) -> State:
        """R11, P1: deal a hand by the current dealer and run chance to its first decision."""
        spec, n = self.spec, self.n
        place = self.next_pack(s)
        eldest = self.eldest(s)
        dealt = n * spec.hand_size
        offsets = jnp.asarray((np.arange(dealt) // 3) % n, dtype=_I)  # packets of 3 from eldest
        none = jnp.full(NUM_CARD_IDS, -1, _I)
        zeros_sides = jnp.zeros(spec.num_sides, _I)
        s = s._replace(
            deals=s.deals + 1, place=place, pos=_I(dealt),
            hold=jnp.where(place < dealt, (eldest + offsets[jnp.minimum(place, dealt - 1)]) % n, -1),
            start_hold=none, played_by=none, played_trick=jnp.zeros(NUM_CARD_IDS, _I), captured=none,
            discarded_by=none, drawn_by=none, turned=jnp.zeros(NUM_CARD_IDS, bool), trump=_I(-1),
            proposed=_I(-1), last_turnup=_I(-1), rejected=_I(-1), runs=_I(0), acted=jnp.zeros(4, bool),
            trick_count=_I(0), trick_len=_I(0), led=_I(-1), win_seat=_I(-1), win_strength=_I(0),
            trick_points=_I(0), captured_points=zeros_sides, deal_points=zeros_sides,
            voids=jnp.zeros(n, _I), voids_since_draw=jnp.zeros(n, _I), bids=jnp.zeros(n, _I),
            high_bid=_I(0), high_bidder=_I(-1), pitcher=_I(-1), contract=_I(0), pending=_I(NOTHING))
        selection = spec.selection
        if selection == sp.TURNUP:  # P1: turn up the next card; K5: it may score for the dealer
            card = _card_at(place, dealt)
            suit = self.suit[card]
            s = s._replace(pos=_I(dealt + 1), turned=_put(s.turned, card, True), proposed=suit,
                           last_turnup=suit, phase=_I(BEG_P), current_player=eldest)
            points = self.turnup_points[card]
            return self.award(s, self.seat_sides[s.dealer], points, points > 0)
        if selection == sp.STOCK_TOP:  # RD4, RD5: the stock's top card fixes trump; not a turn-up
            return self.start_play(s._replace(trump=self.suit[_card_at(place, dealt)]), eldest)
        if selection == sp.AUCTION:  # RD13: eldest bids first
            return s._replace(phase=_I(BID_P), current_player=eldest)
        return self.start_play(s, eldest)  # P8: eldest's first lead fixes trump

    # ------------------------------------------------------------------ P3, P4: gift or run

    def run_once(self, s: State) -> State:
        """P4, one step of a run: deal 3 more each and turn up; a new suit is trump (then the
        discards, K10, or play); the same suit runs again; a pack too short to go on is thrown
        in and dealt again by the same dealer (K9: voiding the deal's points where asked)."""
        spec, n = self.spec, self.n
        eldest = self.eldest(s)
        exhausted = NUM_CARDS - s.pos < 3 * n + 1  # D7
        # A voided deal's points (K9): each side's points of this deal taken back, in side order.
        thrown = s._replace(pending=_I(START_HAND))
        if spec.void_when_exhausted:
            for side in range(spec.num_sides):
                points = thrown.deal_points[side]
                thrown = self.award(thrown, _I(side), -points, points != 0, can_end=False)
        # Deal 3 each from eldest, then turn up.
        place = s.place - s.pos
        seats = jnp.where((place >= 0) & (place < 3 * n), (eldest + place // 3) % n, s.hold)
        card = _card_at(s.place, jnp.minimum(s.pos + 3 * n, NUM_CARDS - 1))
        suit = self.suit[card]
        dealt = s._replace(hold=seats, pos=s.pos + 3 * n + 1,
                           turned=_put(s.turned, card, True), last_turnup=suit, runs=s.runs + 1)
        points = self.turnup_points[card]
        new_suit = suit != s.rejected
        scores = (points > 0) & (new_suit if not spec.every_turnup_scores else True)  # K6
        dealt = self.award(dealt, self.seat_sides[s.dealer], points, scores)
        fixed = dealt._replace(proposed=suit, trump=suit)
        if spec.discard_after_run:  # K10
            fixed = self.next_discarder(fixed, eldest)
        else:
            fixed = self.start_play(fixed, eldest)
        again = dealt._replace(pending=_I(RUN_ONCE))
        after = _where(dealt.phase == OVER_P, dealt, _where(new_suit, fixed, again))
        return _where(exhausted, thrown, after)

    def gift_blocked(self, s: State) -> jax.Array:
        """K8 (:func:`allfours_env.scoring.gift_blocked`): the dealer may not gift and must run."""
        spec = self.spec
        if spec.gift_block == sp.BLOCK_NONE:
            return jnp.asarray(False)
        wins = s.scores + spec.gift_points >= spec.target  # by side
        if spec.gift_block == sp.BLOCK_NON_BEGGAR_3P:
            if self.n != 3:
                return jnp.asarray(False)
            non_beggar = self.seat_sides[(s.dealer + 2) % 3]
            return self.is_recipient[s.dealer, non_beggar] & wins[non_beggar]
        return (self.is_recipient[s.dealer, : spec.num_sides] & wins).any()

    # ------------------------------------------------------------------ decisions

    def beg(self, s: State, action: jax.Array) -> State:
        """P2: eldest stands (the proposed suit is trump) or begs (the dealer gives or runs)."""
        stand = self.start_play(s._replace(trump=s.proposed), self.eldest(s))
        begged = s._replace(phase=_I(GIFT_P), current_player=s.dealer)
        out = _where(action == STAND, stand, begged)
        return out._replace(acted=_put(s.acted, jnp.where(action == STAND, 0, 1), True))

    def gift_or_run(self, s: State, action: jax.Array) -> State:
        """P3 (gift: the recipients score, K7; the proposed suit is trump) or P4 (run)."""
        spec = self.spec
        gift = s
        if spec.gift_points:
            for i in range(max(len(r) for r in spec.gift_recipients)):
                table = jnp.asarray([r[i] if i < len(r) else -1 for r in spec.gift_recipients], dtype=_I)
                side = table[s.dealer]
                gift = self.award(gift, jnp.maximum(side, 0), _I(spec.gift_points), side >= 0)
        played = self.start_play(gift._replace(trump=s.proposed), self.eldest(s))
        gift = _where(gift.phase == OVER_P, gift, played)
        run = s._replace(rejected=s.proposed, pending=_I(RUN_ONCE))
        out = _where(action == GIFT, gift, run)
        return out._replace(acted=_put(s.acted, jnp.where(action == GIFT, 2, 3), True))

    def discard(self, s: State, action: jax.Array) -> State:
        """P5: the seat to move discards one card; the turn passes once it holds its hand size."""
        seat = s.current_player
        card = action - DISCARD_BASE
        s = s._replace(hold=_put(s.hold, card, -1), discarded_by=_put(s.discarded_by, card, seat))
        done = (s.hold == seat).sum() <= self.spec.hand_size
        after = _where(seat == s.dealer, self.start_play(s, self.eldest(s)),
                       self.next_discarder(s, (seat + 1) % self.n))
        return _where(done, after, s)

    def play(self, s: State, action: jax.Array) -> State:
        """P6 (P8, RD16: a first lead fixes trump): play a card; a full trick goes to its winner
        (R2), who draws first from the stock (RD6) and leads; the last trick scores the hand."""
        spec, n = self.spec, self.n
        seat = s.current_player
        card = action - PLAY_BASE
        lead = s.trick_len == 0
        own_suit = self.suit[card]
        lead_trump = jnp.where(s.trump >= 0, s.trump, spec.joker_lead_suit)
        lead_suit = jnp.where(own_suit < 0, lead_trump, own_suit)  # RD22, RD23: the joker leads trump
        trump = jnp.where(lead & (s.trump < 0), lead_suit, s.trump)
        led = jnp.where(lead, lead_suit, s.led)
        strength = self.strength[jnp.maximum(trump, 0), jnp.maximum(led, 0), card]
        wins = lead | (strength > s.win_strength)
        # R3, D15: a follower who neither follows nor trumps shows he lacks the suit led.
        shows_void = ~lead & (own_suit >= 0) & (own_suit != led) & (own_suit != trump)
        void_bit = jnp.where(shows_void, jnp.left_shift(_I(1), jnp.maximum(led, 0)), 0)
        s = s._replace(
            hold=_put(s.hold, card, -1), played_by=_put(s.played_by, card, seat),
            played_trick=_put(s.played_trick, card, s.trick_count), trump=trump, led=led,
            win_seat=jnp.where(wins, seat, s.win_seat),
            win_strength=jnp.where(wins, strength, s.win_strength),
            trick_points=jnp.where(lead, 0, s.trick_points) + self.card_points[card],
            trick_len=s.trick_len + 1, voids=_put(s.voids, seat, s.voids | void_bit),
            voids_since_draw=_put(s.voids_since_draw, seat, s.voids_since_draw | void_bit),
            current_player=(seat + 1) % n)
        # The trick is complete: its winner's side captures it.
        winner = s.win_seat
        side = self.seat_sides[winner]
        in_trick = (s.played_by >= 0) & (s.captured < 0)
        done = s._replace(captured=jnp.where(in_trick, side, s.captured),
                          captured_points=_add(s.captured_points, side, s.trick_points),
                          trick_count=s.trick_count + 1, trick_len=_I(0), current_player=winner)
        if spec.selection == sp.STOCK_TOP:
            done = _where(done.pos < spec.pack, self.draw(done, winner), done)
        done = done._replace(pending=jnp.where((done.hold == winner).any(), NOTHING, SCORE_HAND))
        return _where(s.trick_len == n, done, s)

    def draw(self, s: State, winner: jax.Array) -> State:
        """RD6: the trick's winner draws the stock's top card, then the loser."""
        hold, drawn, voids = s.hold, s.drawn_by, s.voids_since_draw
        for i, seat in enumerate((winner, 1 - winner)):
            card = _card_at(s.place, s.pos + i)
            hold = _put(hold, card, seat)
            drawn = _put(drawn, card, seat)
            voids = _put(voids, seat, 0)
        return s._replace(hold=hold, drawn_by=drawn, voids_since_draw=voids, pos=s.pos + 2)

    def bid(self, s: State, action: jax.Array) -> State:
        """RD13–RD15: a bid, a pass or the dealer's hold; after the dealer's, the pitcher leads."""
        seat = s.current_player
        amount = jnp.where((action >= BID_BASE) & (action < HOLD), action - BID_BASE + 1, 0)
        s = s._replace(bids=_put(s.bids, seat, action - PASS + 1),
                       high_bid=jnp.where(amount > 0, amount, s.high_bid),
                       high_bidder=jnp.where(amount > 0, seat, s.high_bidder),
                       current_player=(seat + 1) % self.n)
        pitcher = jnp.where(action == HOLD, seat, jnp.where(s.high_bid > 0, s.high_bidder, self.eldest(s)))
        over = self.start_play(s._replace(pitcher=pitcher, contract=s.high_bid), pitcher)
        return _where(seat == s.dealer, over, s)

    # ------------------------------------------------------------------ P7: scoring

    def score_hand(self, s: State) -> State:
        """P7: the hand's awards in scoring order (R7–R10, :class:`allfours_env.scoring.HandScorer`),
        settled one by one; then the deal passes."""
        spec, n = self.spec, self.n
        trump = s.trump
        natural = self.suit_member[trump]  # RD24: the joker is never High or Low
        in_play = jnp.where(s.start_hold >= 0, s.start_hold, s.drawn_by)  # R6
        if spec.discards_in_play:  # K16
            in_play = jnp.where(in_play >= 0, in_play, s.discarded_by)
        holder_side = jnp.where(in_play >= 0, self.seat_sides[jnp.maximum(in_play, 0)], -1)
        candidates = natural & (in_play >= 0)
        high = jnp.where(candidates.any(), jnp.max(jnp.where(candidates, self.cards, -1)), -1)
        low = jnp.where(candidates.any(), jnp.min(jnp.where(candidates, self.cards, 99)), -1)
        jack = jnp.asarray(sp.JACKS)[trump]
        jack_side = holder_side[jack]
        sides, points = [], []  # the hand's awards in scoring order (0 points: no award)
        for kind, by_captor in spec.scoring:
            if kind in (sp.HIGH, sp.LOW):
                card = high if kind == sp.HIGH else low
                side = s.captured[jnp.maximum(card, 0)] if by_captor else holder_side[jnp.maximum(card, 0)]
                sides.append(side)
                points.append(jnp.where((card >= 0) & (side >= 0), 1, 0))
            elif kind == sp.JACK:
                side = s.captured[jack]
                hang = (side != jack_side) & (spec.hang_jack_points != spec.jack_points)  # R8, K12
                sides.append(side)
                jack_points = jnp.where(hang, spec.hang_jack_points, spec.jack_points)
                points.append(jnp.where(side >= 0, jack_points, 0))
            elif kind == sp.GAME:
                for side, valid in self.game_sides(s):
                    sides.append(side)
                    points.append(jnp.where(valid, spec.game_points, 0))
            else:  # the nine (RD28) or the joker (RD25): to the side that won it in a trick
                card = jnp.asarray(sp.NINES)[trump] if kind == sp.NINE else _I(sp.JOKER_ID)
                side = s.captured[card]
                sides.append(side)
                points.append(jnp.where(side >= 0, 1, 0))
        sides = jnp.stack([jnp.asarray(x, _I) for x in sides])
        points = jnp.stack([jnp.asarray(x, _I) for x in points])
        if spec.selection == sp.AUCTION:  # RD18: the pitcher's side first, or its setback
            sides, points = self.pitcher_first(s, sides, points)
        for i in range(sides.shape[0]):
            s = self.award(s, jnp.maximum(sides[i], 0), points[i], points[i] != 0)
        nxt = s._replace(hand_number=s.hand_number + 1, dealer=(s.dealer + 1) % n, pending=_I(START_HAND))
        return _where(s.phase == OVER_P, s, nxt)

    def game_sides(self, s: State) -> list[tuple[jax.Array, jax.Array]]:
        """R9, K13 (:func:`allfours_env.scoring.game_sides`): the sides that score Game, as
        ``(side, valid)`` pairs in award order."""
        spec, n = self.spec, self.n
        points = s.captured_points
        best = points.max()
        tied = points == best
        unique = tied.sum() == 1
        out = [(jnp.argmax(points).astype(_I), unique)]
        if spec.game_tie_rule == sp.TIE_NOBODY:
            return out
        dealer_side = self.seat_sides[s.dealer]
        seen = jnp.zeros(spec.num_sides, bool)
        others = []
        for i in range(1, n + 1):  # turn order from eldest
            side = self.seat_sides[(s.dealer + i) % n]
            new = tied[side] & (side != dealer_side) & ~seen[side]
            others.append((side, new))
            seen = _put(seen, side, seen | new)
        count = seen.sum()
        if spec.game_tie_rule == sp.TIE_SEVEN_UP or n == 3:
            return out + [(side, ~unique & new & (count == 1)) for side, new in others]
        return out + [(side, ~unique & new) for side, new in others]

    def pitcher_first(self, s: State, sides: jax.Array, points: jax.Array) -> tuple[jax.Array, jax.Array]:
        """RD18 (:func:`allfours_env.scoring.pitcher_first`): the pitcher's side's awards first if
        they make the contract, else one setback of -contract first and the others' awards."""
        mine = (sides == self.seat_sides[s.pitcher]) & (points != 0)
        made = jnp.where(mine, points, 0).sum() >= s.contract
        sides = jnp.concatenate([self.seat_sides[s.pitcher][None], sides])
        points = jnp.concatenate([jnp.where(made, 0, -s.contract)[None], jnp.where(mine & ~made, 0, points)])
        key = jnp.concatenate([jnp.zeros(1, _I), jnp.where(mine, 1, 2).astype(_I)])
        order = jnp.argsort(key, stable=True)
        return sides[order], points[order]

    # ------------------------------------------------------------------ the loop

    def chance(self, s: State) -> State:
        """Run chance until the next decision or the end of the game (bounded: each pass deals,
        runs or scores, and a game has finitely many). Under ``vmap`` only the games that wait for
        chance run the loop (:meth:`chance_of_batch`)."""
        return self._chance(s)

    def chance_of_batch(self, s: State, size: int) -> State:
        """:meth:`chance_loop` for a batch of ``size`` games (every field with a leading axis),
        run only by the games that wait for chance: up to ``group`` of them at a time are gathered,
        run and scattered back, until none waits. Under ``vmap`` every branch runs for every game,
        and in a big batch some game needs a deal or a run at almost every step, so running the
        loop for the whole batch would deal for all games at every step. Each game's result is the
        same as :meth:`chance_loop`'s (the loop is a function of the one game's state). Each pass
        gathers the games by the chance step they wait for and runs only that step for them (under
        ``vmap`` a ``switch`` would run every step for every game)."""
        group = max(CHANCE_GROUP_MIN, -(-size // CHANCE_GROUP_DIVISOR))
        if group >= size:
            return jax.vmap(self.chance_loop)(s)

        def waiting(s: State) -> jax.Array:
            return (s.pending != NOTHING) & (s.phase != OVER_P)

        def run(kind: int, branch: Callable[[State], State]) -> Callable[[State], State]:
            def some_games(s: State) -> State:
                index = jnp.nonzero(waiting(s) & (s.pending == kind), size=group, fill_value=size)[0]
                some = jax.tree.map(lambda x: x[jnp.minimum(index, size - 1)], s)
                out = jax.vmap(branch)(some)
                # Only the fields the step writes go back (a field it leaves alone is the same array).
                return jax.tree.map(lambda x, y, z: x if z is y else x.at[index].set(z, mode="drop"),
                                    s, some, out)

            def step(s: State) -> State:
                return jax.lax.cond((waiting(s) & (s.pending == kind)).any(), some_games, lambda s: s, s)

            return step

        def body(s: State) -> State:
            for kind, branch in self.chance_branches():
                s = run(kind, branch)(s)
            return s

        return jax.lax.while_loop(lambda s: waiting(s).any(), body, s)

    def chance_branches(self) -> list[tuple[int, Callable[[State], State]]]:
        """The chance steps by ``pending`` kind, in the order a pass of :meth:`chance_of_batch` runs
        them: scoring a hand, then dealing the next, then runs (none without a turn-up)."""
        branches = [(SCORE_HAND, self.score_hand), (START_HAND, self.start_hand)]
        if self.spec.selection == sp.TURNUP:
            branches.append((RUN_ONCE, self.run_once))
        return branches

    def chance_loop(self, s: State) -> State:
        """:meth:`chance` of one game: a ``lax.while_loop`` of deals, runs and scoring."""
        branches = [self.start_hand, self.run_once, self.score_hand]
        if self.spec.selection != sp.TURNUP:
            branches[1] = lambda s: s  # no runs without a turn-up

        def pending(s: State) -> jax.Array:
            return (s.pending != NOTHING) & (s.phase != OVER_P)

        def body(s: State) -> State:
            return jax.lax.switch(s.pending - 1, branches, s)

        return jax.lax.while_loop(pending, body, s)

    def apply(self, s: State, action: jax.Array, go: jax.Array | bool = True) -> State:
        """The decision ``action`` of the seat to move, then chance to the next decision; where
        ``go`` is False, ``s`` unchanged (the phase with no decision: a state at a decision or over
        waits for no chance), so that an illegal action or a finished game costs no select of the
        whole state."""
        phase = jnp.where(go, s.phase, OVER_P)
        s = jax.lax.switch(phase, self.decision_branches(), s, action)
        return self.chance(s)

    def decision_branches(self) -> list[Callable[[State, jax.Array], State]]:
        """The decision of each phase, by phase number; a phase this configuration never reaches
        (no beg without a turn-up, no discards without K10, no bids without an auction) has none,
        so that under ``vmap`` (where every branch runs for every game) it costs nothing."""
        spec = self.spec
        identity = lambda s, a: s  # noqa: E731 (the phases with no decision)
        turnup = spec.selection == sp.TURNUP
        return [self.beg if turnup else identity, self.gift_or_run if turnup else identity,
                self.discard if turnup and spec.discard_after_run else identity, self.play, identity,
                identity, self.bid if spec.selection == sp.AUCTION else identity]

    # ------------------------------------------------------------------ what the seat to move sees

    def legal_mask(self, s: State) -> jax.Array:
        """bool[117]: the legal action ids of the seat to move (``Game.legal_action_bits``)."""
        spec = self.spec
        phase, seat = s.phase, s.current_player
        hand = s.hold == seat
        trump_mask = self.trump_mask(s.trump)
        led = jnp.maximum(s.led, 0)
        led_mask = jnp.where(s.led == s.trump, trump_mask, self.suit_member[led])
        follow = hand & led_mask
        legal = jnp.where(follow.any(), follow | (hand & trump_mask), hand)  # R3
        if spec.undertrump_banned:  # K15 (scoring.without_undertrumps)
            strength = self.strength[jnp.maximum(s.trump, 0), led]
            lower = legal & trump_mask & (strength < s.win_strength)
            ban = (s.led != s.trump) & (s.win_strength >= TRUMP_BASE) & (lower != legal).any()
            legal = jnp.where(ban, legal & ~lower, legal)
        plays = jnp.where(s.trick_len == 0, hand, legal) & (phase == PLAY_P)
        discards = hand & (phase == DISCARD_P)
        blocked = self.gift_blocked(s)
        small = jnp.stack([phase == BEG_P, phase == BEG_P, (phase == GIFT_P) & ~blocked, phase == GIFT_P])
        amounts = jnp.arange(1, 6, dtype=_I)
        bids = (amounts > s.high_bid) & (amounts <= spec.bid_max)
        hold = (seat == s.dealer) & (s.high_bid > 0) & spec.dealer_may_hold
        bidding = jnp.concatenate([jnp.ones(1, bool), bids, hold[None]]) & (phase == BID_P)
        mask = jnp.concatenate([small, discards, plays, bidding])
        assert mask.shape == (NUM_ACTIONS,)
        return mask

    def truncated(self, s: State) -> jax.Array:
        """The AEC env's hand cap (``max_hands``) is reached."""
        if self.spec.max_hands is None:
            return jnp.asarray(False)
        return s.hand_number >= self.spec.max_hands

    @staticmethod
    def without_view(s: State) -> State:
        """``s`` without its mask and observation (empty arrays in their place): the state that the
        decision and chance carry, so that the widest fields are not copied through every select
        of the step; :meth:`finish` builds them again."""
        return s._replace(legal_action_mask=jnp.zeros(0, bool), observation=jnp.zeros(0, jnp.float32))

    def finish(self, s: State) -> State:
        """The public fields after a step: terminated, truncated (the hand cap), mask, observation."""
        terminated = s.phase == OVER_P
        truncated = ~terminated & self.truncated(s)
        mask = self.legal_mask(s) & ~terminated & ~truncated
        seat = jnp.maximum(s.current_player, 0)
        return s._replace(terminated=terminated, truncated=truncated, legal_action_mask=mask,
                          observation=self.observer.observe(s, seat))

    def restart(self, s: State, where: jax.Array, key: jax.Array, dealer: jax.Array, deals: int) -> State:
        """``s`` where ``where`` is False, else a new game about to be dealt (:meth:`blank` with
        ``key``, ``dealer`` and ``deals`` packs dealt already), keeping ``s``'s stacked packs: only
        the fields that :meth:`start_hand` does not set are selected, not the whole state."""
        fresh = self.blank(key, s.stacked, dealer)._replace(deals=jnp.asarray(deals, _I))
        fields = ("current_player", "rewards", "terminated", "truncated", "scores", "winner", "phase",
                  "dealer", "hand_number", "key", "deals", "pending")
        return s._replace(**{f: jnp.where(where, getattr(fresh, f), getattr(s, f)) for f in fields})

    def blank(self, key: jax.Array, stacked: jax.Array, dealer: jax.Array) -> State:
        """A game before its first deal (``start_hand`` fills the rest)."""
        spec, n = self.spec, self.n
        zero = _I(0)
        none = jnp.full(NUM_CARD_IDS, -1, _I)
        sides = jnp.zeros(spec.num_sides, _I)
        return State(
            current_player=_I(-1), legal_action_mask=jnp.zeros(NUM_ACTIONS, bool),
            observation=jnp.zeros(OBS_SIZE, jnp.float32), rewards=jnp.zeros(n, jnp.float32),
            terminated=jnp.asarray(False), truncated=jnp.asarray(False), scores=sides, winner=_I(-1),
            phase=_I(BEG_P), dealer=jnp.asarray(dealer, _I), hand_number=zero, key=key, deals=zero,
            stacked=stacked, place=jnp.full(NUM_CARD_IDS, 99, _I), pos=zero, hold=none, start_hold=none,
            played_by=none, played_trick=jnp.zeros(NUM_CARD_IDS, _I), captured=none, discarded_by=none,
            drawn_by=none, turned=jnp.zeros(NUM_CARD_IDS, bool), trump=_I(-1), proposed=_I(-1),
            last_turnup=_I(-1), rejected=_I(-1), runs=zero, acted=jnp.zeros(4, bool), trick_count=zero,
            trick_len=zero, led=_I(-1), win_seat=_I(-1), win_strength=zero, trick_points=zero,
            captured_points=sides, deal_points=sides, voids=jnp.zeros(n, _I),
            voids_since_draw=jnp.zeros(n, _I), bids=jnp.zeros(n, _I), high_bid=zero, high_bidder=_I(-1),
            pitcher=_I(-1), contract=zero, pending=_I(START_HAND))


__all__ = ["Core", "State"]
