"""The observation of the batched core: :mod:`allfours_env.observation`'s float32[1251], built from
the state.

The reference encoder keeps each seat's vector up to date event by event; here the same entries are
read off the state at once (every entry of the layout is a function of the current deal's state:
the cards by place, the trick, the scores, the auction, the stock). The index table, the rule blocks
and the float values (``/ 21``, the runs' ``+ 0.2``) are the reference module's; the differential
test (tests/batched) checks the vectors are equal, entry for entry.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from allfours_env import observation as ob
from allfours_env.batched import spec as sp
from allfours_env.batched.spec import Spec
from allfours_env.cards import NUM_CARD_IDS

_I = jnp.int32
_F = jnp.float32


def _one_hot(index: jax.Array, size: int) -> jax.Array:
    """float32[size]: 1 at ``index`` (none where it is out of 0..size-1)."""
    return (jnp.arange(size, dtype=_I) == index).astype(_F)


class Observer:
    """Builds a seat's observation from a :class:`~allfours_env.batched.core.State`."""

    def __init__(self, spec: Spec) -> None:
        self.spec = spec
        self.n = spec.n
        self.order_value = jnp.asarray(sp.ORDER_VALUE)
        self.runs_value = jnp.asarray(sp.RUNS_VALUE)
        self.rules_block = jnp.asarray(spec.rules_block)
        self.rules2_block = jnp.asarray(spec.rules2_block)
        self.seat_sides = jnp.asarray(spec.sides, dtype=_I)
        self.suit = jnp.asarray(sp.SUIT)
        self.suit_member = jnp.asarray(sp.SUIT_MEMBER)
        self.above = jnp.asarray(spec.above)
        self.in_suit = jnp.asarray(spec.in_suit)
        self.strength = jnp.asarray(spec.strength)
        self.in_pack = jnp.arange(NUM_CARD_IDS) < spec.pack
        rank_slots = [[trump * ob.NUM_RANKS + r for r in range(ob.NUM_RANKS)] + [sp.JOKER_ID]
                      for trump in range(4)]
        self.trump_rank_cards = jnp.asarray(rank_slots, dtype=_I)  # [trump, slot]: the card of each slot
        self.tables: dict[int, np.ndarray] = {}
        self.rel_sides = 2 if spec.partnerships else spec.n  # the relative sides 0.. that occur

    def ratio(self, value: jax.Array, denominator: int, top: int | None = None) -> jax.Array:
        """``value / denominator`` as the encoder writes it (float64, then float32), ``value``
        clipped to 0..``top`` (default: 53, more than any count here)."""
        top = 53 if top is None else top
        key = denominator * 1000 + top
        if key not in self.tables:
            self.tables[key] = sp.ratios(denominator, top + 1)
        return jnp.asarray(self.tables[key])[jnp.clip(value, 0, top)]

    def side_of_rel(self, k: int, seat: jax.Array) -> jax.Array:
        """The absolute side of relative side ``k``."""
        if self.spec.partnerships:
            return (seat + k) % 2
        return (seat + k) % self.n

    def observe(self, s, seat: jax.Array) -> jax.Array:  # noqa: ANN001 (State, imported late)
        """float32[1251]: ``seat``'s observation of state ``s`` (layout :data:`ob.OBS_LAYOUT`)."""
        spec, n = self.spec, self.n
        seat = jnp.asarray(seat, _I)
        pad4 = jnp.arange(4, dtype=_I)
        rel_seats = (seat + pad4) % n  # absolute seat of relative seat k (k < n)
        present = pad4 < n

        def rel(x: jax.Array) -> jax.Array:
            return jnp.where(x >= 0, (x - seat) % n, -1)

        def rel_one_hot(x: jax.Array) -> jax.Array:
            return _one_hot(rel(x), 4)

        # Relative seats and sides are compared as absolute ones (no remainder per card).
        played = s.played_by >= 0
        none = jnp.zeros(NUM_CARD_IDS, bool)
        planes = [
            s.hold == seat,
            *[s.played_by == rel_seats[k] if k < n else none for k in range(4)],
            played & (s.captured < 0),
            s.turned,
            s.discarded_by == seat,
            *[s.captured == self.side_of_rel(k, seat) if k < self.rel_sides else none for k in range(4)],
        ]
        cards = jnp.concatenate([p.astype(_F) for p in planes[:-1]]
                                + [jnp.where(played, self.order_value[s.played_trick], 0.0)])
        held = (s.hold[None, :] == rel_seats[:, None]).sum(axis=1)
        dropped = (s.discarded_by[None, :] == rel_seats[:, None]).sum(axis=1)
        mover = s.current_player
        leader = jnp.where(mover >= 0, (mover - s.trick_len) % n, -1)
        target = spec.target
        score_part, needed_part, points_part, below_part = [], [], [], []
        for k in range(4):
            if k < spec.num_sides:
                side = self.side_of_rel(k, seat)
                score = s.scores[side]
                score_part.append(self.ratio(score, target, target))
                needed_part.append(self.ratio(target - score, target, target))
                points_part.append(self.ratio(s.captured_points[side], 80, 80))
                below_part.append(self.ratio(-score, target, target))
            else:
                for part in (score_part, needed_part, points_part, below_part):
                    part.append(_F(0))
        voids = self.voids(s, seat, rel_seats)
        scalars = [
            _one_hot(s.phase, 7),
            _one_hot(jnp.where(s.trump >= 0, s.trump, 4), 5),
            _one_hot(s.last_turnup, 4),
            jnp.where(s.runs > 0, _one_hot(s.rejected, 4), 0.0),
            s.acted.astype(_F),
            self.runs_value[s.runs][None],
            rel_one_hot(s.dealer),
            rel_one_hot((s.dealer + 1) % n),
            rel_one_hot(leader),
            rel_one_hot(mover),
            jnp.stack(score_part[:3]),
            jnp.stack(needed_part[:3]),
            jnp.stack(points_part[:3]),
            jnp.where(present, self.ratio(held, ob.MAX_TRICKS), 0.0),
            jnp.where(present, self.ratio(dropped, 15), 0.0),
            voids.reshape(16),
            self.ratio(s.trick_count, ob.MAX_TRICKS, ob.MAX_TRICKS)[None],
            self.rules_block,
        ]
        head = jnp.concatenate([cards] + scalars)
        tail = jnp.concatenate([self.auction(s, seat, rel_seats, present, rel_one_hot),
                                self.ratio(s.trick_count, ob.STOCK_TRICKS)[None],
                                planes[-1].astype(_F),
                                jnp.stack([score_part[3], needed_part[3], points_part[3]]),
                                jnp.stack(below_part),
                                self.stock(s, seat),
                                self.rules2_block,
                                self.counts(s, seat, planes[0], rel_one_hot)])
        out = jnp.concatenate([head, tail])
        assert out.shape == (ob.OBS_SIZE,)
        return out

    def counts(self, s, seat: jax.Array, mine: jax.Array, rel_one_hot) -> jax.Array:  # noqa: ANN001
        """What a card player counts, the entries from index 1027: the trumps, the best card left of
        each suit, the cards of ``mine`` (the hand) that beat the trick, who wins it so far, the cards
        not seen by suit and the trumps by rank."""
        trump = s.trump
        fixed = trump >= 0
        t = jnp.maximum(trump, 0)
        out = (s.played_by >= 0) | s.turned | (s.discarded_by == seat)
        unseen = self.in_pack & ~out & ~mine
        trumps = fixed & (((self.suit == trump) & self.in_pack) | ((jnp.arange(NUM_CARD_IDS) == sp.JOKER_ID)
                                                                      & self.spec.joker))
        blocked = (self.above[trump + 1] & unseen[None, :]).any(axis=1)
        master = self.in_suit[trump + 1] & self.in_pack & ~out & ~blocked
        in_trick = s.trick_len > 0
        beats = in_trick & mine & (self.strength[t, jnp.maximum(s.led, 0)] > s.win_strength)
        by_suit = (self.suit_member & unseen[None, :]).sum(axis=1)
        trumps_left = jnp.where(fixed, self.ratio((unseen & trumps).sum(), 14), 0.0)
        side = self.seat_sides[seat]
        trick = in_trick & (s.played_by >= 0) & (s.captured < 0)
        rows = jnp.stack([mine, trick, s.captured == side, (s.captured >= 0) & (s.captured != side)])
        by_rank = jnp.where(fixed, rows[:, self.trump_rank_cards[t]], False)
        return jnp.concatenate([
            trumps.astype(_F), master.astype(_F), beats.astype(_F),
            rel_one_hot(jnp.where(in_trick, s.win_seat, -1)),
            self.ratio(by_suit, 13), trumps_left[None], by_rank.reshape(-1).astype(_F),
        ])

    def voids(self, s, seat: jax.Array, rel_seats: jax.Array) -> jax.Array:  # noqa: ANN001
        """float32[4, 4]: the known voids by relative seat and suit (R3, D15; RD10, D17 with a stock:
        a draw the observer does not see ends what was known; a seen card of the suit in hand hides
        the void while it is held)."""
        spec, n = self.spec, self.n
        bits = jnp.arange(4, dtype=_I)
        out = []
        for k in range(4):
            if k >= n:
                out.append(jnp.zeros(4, _F))
                continue
            other = rel_seats[k]
            known = s.voids[other]
            if spec.selection == sp.STOCK_TOP:
                sees = spec.stock_face_up or k == 0  # RD10: face down, only one's own draws
                if not sees:
                    known = s.voids_since_draw[other]
                seen_cards = (s.drawn_by == other) & (s.hold == other)
                if sees:
                    holds_seen = (seen_cards[None, :] & self.suit_member).any(axis=1)
                else:
                    holds_seen = jnp.zeros(4, bool)
                out.append((((known >> bits) & 1).astype(bool) & ~holds_seen).astype(_F))
            else:
                out.append(((known >> bits) & 1).astype(_F))
        return jnp.stack(out)

    def auction(self, s, seat, rel_seats, present, rel_one_hot) -> jax.Array:  # noqa: ANN001
        """The auction's 42 entries from index 749 (RD13–RD15); all 0 without an auction."""
        spec = self.spec
        if spec.selection != sp.AUCTION:
            return jnp.zeros(ob.TRICKS_26 - ob.BIDS, _F)
        slots = jnp.where(present, s.bids[rel_seats % self.n], -1)
        bids = (jnp.arange(ob.BID_SLOTS, dtype=_I)[None, :] == slots[:, None]).astype(_F).reshape(-1)
        pitched = s.pitcher >= 0
        return jnp.concatenate([
            bids,
            self.ratio(s.high_bid, 5)[None],
            rel_one_hot(s.high_bidder),
            rel_one_hot(s.pitcher),
            jnp.where(pitched, self.ratio(s.contract, 5), 0.0)[None],
        ])

    def stock(self, s, seat: jax.Array) -> jax.Array:  # noqa: ANN001
        """The stock's entries from index 852: its face-up top card, the draws seen, the cards left."""
        spec = self.spec
        left = self.ratio(spec.pack - s.pos, 40)
        if spec.selection == sp.STOCK_TOP:
            top = jnp.where(spec.stock_face_up & (s.pos < spec.pack),
                            (s.place == s.pos).astype(_F), 0.0)
            mine = (s.drawn_by == seat).astype(_F)
            other = (s.drawn_by == (seat + 1) % 2).astype(_F)
            if not spec.stock_face_up:
                other = jnp.zeros(NUM_CARD_IDS, _F)
            return jnp.concatenate([top, mine, other, left[None]])
        zeros = jnp.zeros(3 * NUM_CARD_IDS, _F)
        if spec.selection == sp.TURNUP:
            return jnp.concatenate([zeros, left[None]])
        return jnp.concatenate([zeros, jnp.zeros(1, _F)])
