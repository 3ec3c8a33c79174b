"""An exact perfect-information solver for the rest of a hand (trick play, P6–P7).

Given every hand face up, :class:`HandSolver` finds the value of each legal card for one side. With
two sides the solving side maximises and the other minimises (alpha-beta). With more sides
(``max_n=True``, every player alone) the search is max-n: a position's value is a vector with one
entry per side, and at each node the side to move picks the card best for its own entry (between
equally good cards, the one worse for the solving side, :func:`max_n_preferred`) — the others are
not assumed to play together against the solving side. ``max_n=False`` with more sides gives the
"paranoid" coalition instead (every other side minimises the solving side's value). The value
is what the hand will score by the rules — the engine's own :class:`~allfours_env.scoring.HandScorer`
scores every leaf, and tricks, legal cards and the target (R2, R3, R10) come from
:mod:`allfours_env.scoring` too, so the solver never restates a rule. A finished game is worth
±``WIN`` to each side (+ to its winner); otherwise a side's value is its points minus the other
sides' mean.

The search is alpha-beta over bit-set hands with a transposition table at trick boundaries, move
ordering and equivalent-card pruning (max-n cannot prune by bounds: it searches every distinct
card, with the same transposition table). A node budget turns it into iterative deepening by tricks:
the deepest search that completes within the budget is used, its frontier valued by a fast static
estimate, so big hands (Trinidad, three or four players, runs) stay affordable.
"""

from __future__ import annotations

from math import inf

from allfours_env.cards import CARD_GAME_POINTS, JOKER, NUM_CARD_IDS, RANK_OF, RANKS, SUIT_MASKS, SUIT_OF
from allfours_env.engine import Game
from allfours_env.scoring import (
    Award,
    card_points,
    card_suit,
    follow_plays,
    settle,
    strength_tables,
    strongest,
)

WIN = 10.0
EXACT_CARDS = 14  # positions with at most this many cards in all hands are solved to the end at once
#: The rank by which the losing cards are ordered (:meth:`HandSolver._ordered`): a card's rank; the
#: joker, which has none (``RANK_OF[JOKER]`` is -1), sorts like a king, a high trump to keep.
_SORT_RANK = RANK_OF[:JOKER] + (RANKS.index("K"),)
_POINTS = CARD_GAME_POINTS


def max_n_preferred(value: tuple[float, ...], other: tuple[float, ...], side: int) -> bool:
    """Between two value vectors equally good for the side to move, whether max-n takes ``value``:
    the one worse for the solving ``side`` (a cautious tie-break), then the smaller vector — a total
    order, so the search's result does not depend on its move order."""
    return (-value[side], value) < (-other[side], other)


class BudgetExceeded(Exception):
    """Raised inside the search when the node budget is spent."""


class HandSolver:
    """Solve the rest of the current hand of ``game`` (a full-information world) for ``side``."""

    def __init__(self, game: Game, side: int, *, max_nodes: int = 200_000, max_n: bool = False) -> None:
        rules = game.rules
        self.max_n = max_n
        self.n = game.n
        self.sides = game.sides
        self.num_sides = game.num_sides
        self.side = side
        self.trump = game.trump
        self.trump_mask = game.trump_mask
        self.scorer = game.scorer()
        self.jack = self.scorer.jack
        self.watched = self.scorer.watched
        self.captor_cards = self.scorer.captor_cards
        self.joker_rank = rules.joker_rank
        self._suit = tuple(card_suit(card, game.trump) for card in range(NUM_CARD_IDS))
        self._strengths = strength_tables(game.trump, self.joker_rank)  # R1, R2: by suit led
        self.rules = rules
        self.scores = list(game.scores)
        self.target = game.target
        self.undertrump_banned = rules.plan.undertrump_banned
        self.max_nodes = max_nodes
        self.nodes = 0
        self.exact = False
        self._depth = 0
        self._root_cards = 0
        self.table: dict = {}
        self._leaves: dict = {}  # the value of a finished hand, by (watched cards won, card points)
        captured_rules = rules.plan.high_by_captor or rules.plan.low_by_captor
        # The cards that may play like a neighbour (:meth:`_ordered`): not the joker, not a card scored
        # by its captor, not a trump under a ``captured`` High/Low rule.
        self._can_touch = ((1 << NUM_CARD_IDS) - 1) & ~(1 << JOKER) & ~self.captor_cards & ~(
            SUIT_MASKS[self.trump] if captured_rules else 0)
        self._hands: list[int] = []
        self._live_mask = 0
        self._gone = 0

    # ------------------------------------------------------------------ evaluation

    def _terminal(self, captured: list[int], points: list[int]) -> float:
        """Score the finished hand by the rules (the engine's scorer) and return its value. The
        score depends only on the card points and on who won the :attr:`watched` cards, so the
        values are kept by those: many leaves of a search share them."""
        watched = self.watched
        key = (tuple(cards & watched for cards in captured), tuple(points))
        value = self._leaves.get(key)
        if value is None:
            value = self._leaves[key] = self._value_of(self.scorer.awards(captured, points))
        return value

    def _value_of(self, awards: list[Award]):
        """Apply awards in order from the current scores (R10, :func:`~allfours_env.scoring.settle`):
        ±WIN if a side goes out, else the solving side's points minus the others' mean; with
        ``max_n`` the same for every side, a tuple by side."""
        scores = self.scores[:]
        winner = settle(scores, awards, self.target)[1]
        if not self.max_n:
            if winner is not None:
                return WIN if winner == self.side else -WIN
            mine = scores[self.side] - self.scores[self.side]
            others = sum(scores) - sum(self.scores) - mine
            return mine - others / (self.num_sides - 1)
        if winner is not None:
            return tuple(WIN if s == winner else -WIN for s in range(self.num_sides))
        gained = [after - before for after, before in zip(scores, self.scores)]
        total, others = sum(gained), self.num_sides - 1
        return tuple(g - (total - g) / others for g in gained)

    def estimate(self, hands: list[int], captured: list[int], points: list[int]) -> float:
        """A fast static value for an unfinished hand (the frontier of a depth-limited search):
        the card points still in the hands, and a jack still in a hand, go to the side holding the
        most trumps; then the hand is scored as if finished."""
        trumps = [0] * self.num_sides
        remaining = 0
        out = 0
        for seat, cards in enumerate(hands):
            trumps[self.sides[seat]] += (cards & self.trump_mask).bit_count()
            remaining += card_points(cards)
            out |= cards
        best = trumps.index(max(trumps))
        points = points[:]
        points[best] += remaining
        out &= self.captor_cards  # the jack, the nine, the joker still to win
        if out:
            captured = captured[:]
            captured[best] |= out
        return self._terminal(captured, points)

    # ------------------------------------------------------------------ search

    def legal(self, hand: int, trick: list[tuple[int, int]]) -> int:
        """R3 (and K15) for a hand facing ``trick``, by :func:`~allfours_env.scoring.follow_plays`."""
        if not trick:
            return hand
        led = self._suit[trick[0][1]]
        strength = self._strengths[led]
        best = max(strength[c] for _, c in trick) if self.undertrump_banned else 0
        legal = follow_plays(hand, led, self.trump, self.trump_mask, strength, best, self.undertrump_banned)
        return legal

    def solve(self, hands: list[int], to_move: int, trick: list[tuple[int, int]], captured: list[int],
              points: list[int]) -> dict[int, float]:
        """The value of every legal card of ``to_move``.

        Exact when the whole hand fits the node budget; otherwise the values of the deepest
        search (counted in tricks) that completed within it, its frontier valued by
        :meth:`estimate` — every card is searched to the same depth, so the values compare."""
        legal = self.legal(hands[to_move], trick)
        self._load(hands, captured, points, trick)
        return self._deepening(lambda: self._root_values(legal, to_move, trick, hands), hands)

    def value(self, hands: list[int], to_move: int, trick: list[tuple[int, int]], captured: list[int],
              points: list[int]) -> float:
        """The minimax value of the position for the solving side (same budget rules as
        :meth:`solve`)."""
        self._load(hands, captured, points, trick)
        value = self._deepening(lambda: self._node(to_move, list(trick), -WIN - 1, WIN + 1), hands)
        return value[self.side] if self.max_n else value

    def values(self, hands: list[int], to_move: int, trick: list[tuple[int, int]], captured: list[int],
               points: list[int]) -> tuple[float, ...]:
        """The max-n value of the position for every side (``max_n`` solvers only; same budget rules
        as :meth:`solve`)."""
        if not self.max_n:
            raise ValueError("values() needs a max-n solver: HandSolver(..., max_n=True)")
        self._load(hands, captured, points, trick)
        return self._deepening(lambda: self._node(to_move, list(trick), -WIN - 1, WIN + 1), hands)

    def _load(self, hands: list[int], captured: list[int], points: list[int],
              trick: list[tuple[int, int]]) -> None:
        self._hands = list(hands)
        self._live_mask = self._live(trick)  # cards in hands or the trick; minus those won since
        self._gone = 0
        self._captured = list(captured)
        self._points = list(points)
        self._root_cards = max(h.bit_count() for h in hands)

    def _deepening(self, search, hands: list[int]):
        """Small positions (at most :data:`EXACT_CARDS` cards left in all hands) are searched to the
        end at once. Otherwise, or if that runs out of budget, search to depths of 1, 2, ... tricks
        until the end of the hand is reached (exact) or the node budget stops an iteration, and
        return the deepest complete result: every move is valued at the same depth."""
        depths = list(range(1, self._root_cards + 1))
        if sum(h.bit_count() for h in hands) <= EXACT_CARDS:
            depths.insert(0, self._root_cards)
        best = None
        for depth in depths:
            self._depth, self.nodes, self.table = depth, 0, {}
            try:
                best = search()
            except BudgetExceeded:
                if best is None and depth == self._root_cards and depths[0] == depth:
                    continue  # the direct exact attempt failed: deepen step by step instead
                break
            self.exact = depth == self._root_cards
            if self.exact:
                break
        if best is None:  # not even one trick fits: value the frontier after the current trick
            self._depth = 0
            best = search()
        return best

    def _root_values(self, legal: int, to_move: int, trick: list[tuple[int, int]], hands: list[int]):
        values: dict[int, float] = {}
        for card in self._ordered(legal, trick, to_move):
            value = self._after_card(to_move, card, trick, -WIN - 1, WIN + 1)
            if self.max_n:
                value = value[self.side]
            for twin in self.equivalents(card, hands[to_move], trick):
                if legal >> twin & 1:
                    values[twin] = value
        return values

    def _ordered(self, moves: int, trick: list[tuple[int, int]], seat: int) -> list[int]:
        """The distinct legal cards, the likely best first (good ordering makes alpha-beta cut).

        Cards that touch in rank among the cards still in play (nothing between them is left in
        another hand or the trick), score the same for Game (R4) and are neither a card scored by
        its captor (the jack, the nine, the joker) nor, under a ``captured`` High/Low rule, a trump,
        are equivalent: only the highest of such a run is searched (:meth:`equivalents` lists the
        run). Leading, high trumps come first; when following, a partner's winning trick gets the
        counting cards, otherwise the cheapest
        winning card comes first, then the cheapest loser."""
        if not trick:
            return self._distinct(moves, seat)
        strength = self._strengths[self._suit[trick[0][1]]]
        win_seat, win_key = trick[strongest([c for _, c in trick], strength)][0], -1
        for _, c in trick:
            win_key = max(win_key, strength[c])
        return self._follow_order(self._distinct(moves, seat), strength, win_seat, win_key, seat)

    def _distinct(self, moves: int, seat: int) -> list[int]:
        """The distinct cards of ``moves`` (see :meth:`_ordered`), trumps first, each group from the
        highest card down."""
        blockers = self._live_mask & ~self._gone & ~self._hands[seat]  # in play elsewhere
        can_touch = self._can_touch
        distinct = []
        trumps = moves & self.trump_mask
        for group in (trumps, moves ^ trumps):
            previous = -1
            while group:
                card = group.bit_length() - 1
                group ^= 1 << card
                if (previous < 0 or not can_touch >> card & 1 or not can_touch >> previous & 1
                        or SUIT_OF[previous] != SUIT_OF[card] or _POINTS[previous] != _POINTS[card]
                        or blockers & ((1 << previous) - (2 << card))):
                    distinct.append(card)
                previous = card
        return distinct

    def _follow_order(self, distinct: list[int], strength, win_seat: int, win_key: int,
                      seat: int) -> list[int]:
        """The following cards of :meth:`_ordered` in search order, the trick won so far by
        ``win_seat`` with a card of strength ``win_key``."""
        if len(distinct) < 2:
            return distinct
        winners, losers = [], []
        for card in distinct:
            key = strength[card]
            if key > win_key:
                winners.append((key, card))
            else:
                losers.append((_POINTS[card] * 16 + _SORT_RANK[card], card))
        winners.sort()
        if self.sides[win_seat] == self.sides[seat]:  # feed the partner's trick: counting cards first
            losers.sort(reverse=True)
            return [c for _, c in losers] + [c for _, c in winners]
        losers.sort()
        return [c for _, c in winners] + [c for _, c in losers]

    def _touching(self, upper: int, lower: int, hand: int, live: int) -> bool:
        """True if ``lower`` plays exactly like ``upper`` (both in ``hand``, same suit)."""
        if not (self._can_touch >> upper & 1 and self._can_touch >> lower & 1):
            return False
        if SUIT_OF[upper] != SUIT_OF[lower] or _POINTS[upper] != _POINTS[lower]:
            return False
        between = ((1 << upper) - 1) ^ ((1 << (lower + 1)) - 1)
        return not (live & between & ~hand)

    def _live(self, trick: list[tuple[int, int]]) -> int:
        """The cards still to be reckoned with: in a hand or in the unfinished trick."""
        live = 0
        for h in self._hands:
            live |= h
        for _, c in trick:
            live |= 1 << c
        return live

    def equivalents(self, card: int, hand: int, trick: list[tuple[int, int]]) -> list[int]:
        """The cards of ``hand`` that play like ``card`` now (its run of touching cards)."""
        if card == JOKER:
            return [card]
        live = self._live(trick)
        out = [card]
        for step in (1, -1):
            edge = card
            while True:
                nxt = edge + step
                if not (0 <= nxt < 52) or SUIT_OF[nxt] != SUIT_OF[card]:
                    break
                if hand >> nxt & 1:
                    upper, lower = max(edge, nxt), min(edge, nxt)
                    if not self._touching(upper, lower, hand, live):
                        break
                    out.append(nxt)
                    edge = nxt
                elif live >> nxt & 1:
                    break
                else:
                    edge = nxt  # a played card between: still touching
                    continue
        return out

    # The search proper. A trick in progress travels as the number of cards played to it
    # (``played``), the suit led (``led``), the seat winning it so far and its card's strength
    # (``win_seat``, ``win_key``), its cards (``bits``) and their card points (``gained``); the position
    # (hands, cards and points won, cards gone) is kept on the solver and undone after each move.

    def _trick_state(self, trick: list[tuple[int, int]]) -> tuple:
        """The state of ``trick`` as the search passes it on (see above); ``led``, ``win_seat`` and
        ``win_key`` are -1 before the lead."""
        if not trick:
            return 0, -1, -1, -1, 0, 0
        led = self._suit[trick[0][1]]
        strength = self._strengths[led]
        win_seat, win_key, bits, gained = -1, -1, 0, 0
        for seat, card in trick:
            if strength[card] > win_key:  # the first of equally strong cards wins (strongest)
                win_seat, win_key = seat, strength[card]
            bits |= 1 << card
            gained += _POINTS[card]
        return len(trick), led, win_seat, win_key, bits, gained

    def _after_card(
        self, seat: int, card: int, trick: list[tuple[int, int]], alpha: float, beta: float
    ):
        """Play ``card`` for ``seat`` on ``trick`` and return the value of the position after it."""
        return self._turn(seat, *self._trick_state(trick), alpha, beta, [card], inf)

    def _node(self, seat: int, trick: list[tuple[int, int]], alpha: float, beta: float):
        """The value of the position with ``seat`` to play to ``trick``."""
        if trick:
            return self._turn(seat, *self._trick_state(trick), alpha, beta)
        return self._lead_node(seat, alpha, beta)

    def _lead_node(self, seat: int, alpha: float, beta: float):
        """The value of the position with ``seat`` to lead (a trick boundary, where the transposition
        table is kept)."""
        hands = self._hands
        hand = hands[seat]
        if not hand:
            return self._terminal(self._captured, self._points)
        if self._root_cards - hand.bit_count() >= self._depth:
            return self.estimate(hands, self._captured, self._points)
        self.nodes += 1
        if self.nodes > self.max_nodes and self._depth > 0:
            raise BudgetExceeded
        watched = self.watched
        key = (tuple(hands), seat, tuple(self._points), tuple([c & watched for c in self._captured]))
        entry = self.table.get(key)
        if entry is not None:
            if self.max_n:
                return entry
            value, flag = entry
            if flag == 0 or (flag > 0 and value >= beta) or (flag < 0 and value <= alpha):
                return value
        if hand & (hand - 1) == 0 and all(hands) and sum(map(int.bit_count, hands)) == self.n:
            best = self._last_trick(seat)
            if not self.max_n:  # each forced node of the trick bounds its value as the search does
                for i in range(self.n - 1, -1, -1):
                    if self.sides[(seat + i) % self.n] == self.side:
                        best = best if best > -WIN - 1 else -WIN - 1
                    else:
                        best = best if best < WIN + 1 else WIN + 1
        else:
            best = self._turn(seat, 0, -1, -1, -1, 0, 0, alpha, beta, self._distinct(hand, seat))
        if self.max_n:
            self.table[key] = best
        else:
            flag = 0
            if best <= alpha:
                flag = -1  # an upper bound
            elif best >= beta:
                flag = 1  # a lower bound
            self.table[key] = (best, flag)
        return best

    def _last_trick(self, seat: int):
        """The value of the last trick, led by ``seat``, every hand holding one card: each play is
        forced, so it is scored directly (counted as the ``n`` nodes a search of it visits)."""
        self.nodes += self.n - 1
        if self.nodes > self.max_nodes and self._depth > 0:
            self.nodes = self.max_nodes + 1  # where the search one node at a time stops
            raise BudgetExceeded
        hands, n = self._hands, self.n
        lead = hands[seat].bit_length() - 1
        strength = self._strengths[self._suit[lead]]
        win_seat, win_key, bits, gained = seat, strength[lead], 0, 0
        for i in range(1, n):
            card = hands[(seat + i) % n].bit_length() - 1
            if strength[card] > win_key:
                win_seat, win_key = (seat + i) % n, strength[card]
        for h in hands:
            bits |= h
            gained += _POINTS[h.bit_length() - 1]
        side = self.sides[win_seat]
        captured, points = self._captured[:], self._points[:]
        captured[side] |= bits
        points[side] += gained
        return self._terminal(captured, points)

    def _turn(self, seat: int, played: int, led: int, win_seat: int, win_key: int, bits: int, gained: int,
              alpha: float, beta: float, cards: list[int] | None = None, limit: float = WIN + 1):
        """The value of the position with ``seat`` to play to a trick (see above): the best of
        ``cards`` for its side — by alpha-beta (the solving side maximises, the others minimise; the
        value is kept within ``limit``, the window the search starts with) or by max-n (the value
        vector best for the side of ``seat``, ties broken by :func:`max_n_preferred`, so the order of
        the cards does not matter). A follower's ``cards`` (``None``) are its legal cards in search
        order, and its node is counted here; a leader's come from :meth:`_lead_node`. Each card is
        played, the next seat follows, or the trick's winner takes it and leads."""
        hands = self._hands
        hand = hands[seat]
        if cards is None:
            self.nodes += 1
            if self.nodes > self.max_nodes and self._depth > 0:
                raise BudgetExceeded
            strength = self._strengths[led]
            moves = follow_plays(hand, led, self.trump, self.trump_mask, strength,
                                 win_key if self.undertrump_banned else 0, self.undertrump_banned)
            if moves & (moves - 1) == 0:
                cards = [moves.bit_length() - 1]
            elif self.max_n:
                cards = self._distinct(moves, seat)
            else:
                cards = self._follow_order(self._distinct(moves, seat), strength, win_seat, win_key, seat)
        n, suits, strengths = self.n, self._suit, self._strengths
        following = played + 1 < n
        max_n = self.max_n
        if max_n:
            mover = self.sides[seat]
            best = None
        else:
            maximizing = self.sides[seat] == self.side
            best = -limit if maximizing else limit
        for card in cards:
            card_led = led if played else suits[card]
            key = strengths[card_led][card]
            if key > win_key:
                winner, winner_key = seat, key
            else:
                winner, winner_key = win_seat, win_key
            trick_bits = bits | 1 << card
            points = gained + _POINTS[card]
            hands[seat] = hand ^ 1 << card
            try:
                if following:
                    value = self._turn((seat + 1) % n, played + 1, card_led, winner, winner_key, trick_bits,
                                       points, alpha, beta)
                else:  # the trick is complete: its winner takes it and leads
                    side = self.sides[winner]
                    self._captured[side] |= trick_bits
                    self._points[side] += points
                    self._gone |= trick_bits
                    try:
                        value = self._lead_node(winner, alpha, beta)
                    finally:
                        self._captured[side] ^= trick_bits
                        self._points[side] -= points
                        self._gone ^= trick_bits
            finally:
                hands[seat] = hand
            if max_n:
                if best is None or value[mover] > best[mover] or (
                        value[mover] == best[mover] and max_n_preferred(value, best, self.side)):
                    best = value
                continue
            if maximizing:
                if value > best:
                    best = value
                if best > alpha:
                    alpha = best
            else:
                if value < best:
                    best = value
                if best < beta:
                    beta = best
            if alpha >= beta:
                break
        return best
