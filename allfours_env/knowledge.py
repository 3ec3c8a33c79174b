"""What one seat knows, and drawing the hidden cards consistently with it (for search bots).

:class:`SeatView` is the engine's state restricted to one seat: its own hand and discards, the
turn-ups, every card played and by whom, the trick, the trump, the scores, the bidding and the
auction, the draws it saw, and the card counts of the others — never another player's cards,
discards, a card drawn face down by another player, or the stock order. What a seat sees is decided
by :mod:`allfours_env.visibility` (the one filter of the log; the voids beside it), not here.

:meth:`SeatView.resample` draws the hidden cards (the other hands, the other players' discards, the
unseen stock and its order) **uniformly** among all deals consistent with that knowledge, including
the voids the play has revealed (R3: a follower who played neither the suit led nor a trump holds
none of the suit led; with ``undertrump = banned_unless_no_choice`` a forced under-trump shows a hand
of lower trumps only; with a stock, RD10 and docs/rules.md D17), the cards seen drawn (RD10) and
the stock's known top card, and returns a full :class:`~allfours_env.engine.Game` to search on.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from functools import lru_cache
from math import factorial

from allfours_env.actions import PLAYED_CARD, is_play
from allfours_env.cards import FULL_PACK, JOKER_BIT, JOKER_PACK, NUM_RANKS, SUIT_MASKS, cards_of, mask_of
from allfours_env.engine import Game
from allfours_env.events import Event, EventKind
from allfours_env.scoring import card_suit, is_trump_strength, strength_table
from allfours_env.visibility import PUBLIC, VoidTracker, seen_events, sees_stock_top


def _scan(game: Game, key: tuple, fold: Callable[[tuple | None, list[Event]], tuple]) -> tuple:
    """The state of the scan ``key`` of the current hand's log, up to its last event: ``fold(state,
    events)`` carries a state on over more events (``state=None``: from the hand's start). A game keeps
    its scans (``Game.scans``) and carries one on from where the last call left it — the log only
    grows within a hand — so a search that asks at every step reads each event once, not the whole
    hand each time."""
    start, end = game.hand_log_start, len(game.log)
    scans = game.scans
    for i, (kept, hand, length, state) in enumerate(scans):
        if kept == key:
            if hand != start or length > end:
                state = fold(None, game.log[start:end])
            elif length < end:
                state = fold(state, game.log[length:end])
            else:
                return state
            scans[i] = (key, start, end, state)
            return state
    state = fold(None, game.log[start:end])
    scans.append((key, start, end, state))
    return state


def played_cards(game: Game) -> list[int]:
    """Bit sets of the cards each seat has played in the current hand's tricks (public)."""
    n = game.n

    def fold(state: tuple | None, events: list[Event]) -> tuple:
        played = [0] * n if state is None else list(state)
        for kind, seat, value in events:
            if kind == EventKind.ACT and is_play(value):
                played[seat] |= 1 << PLAYED_CARD[value]
        return tuple(played)

    return list(_scan(game, ("played",), fold))


def pack_mask(game: Game) -> int:
    """Every card of the pack: 52, or 53 with the joker (RD21)."""
    return JOKER_PACK if game.rules.joker else FULL_PACK


def seen_draws(game: Game, observer: int) -> list[int]:
    """For each seat, the cards ``observer`` saw it draw this hand and not play since (RD10): they are
    still in its hand. Which draws it saw is :func:`~allfours_env.visibility.seen_events`' say."""
    n, rules = game.n, game.rules

    def fold(state: tuple | None, events: list[Event]) -> tuple:
        seen = [0] * n if state is None else list(state)
        for kind, seat, value in seen_events(events, observer, rules):
            if kind == EventKind.DRAW:
                if value is not None:
                    seen[seat] |= 1 << value
            elif kind == EventKind.ACT and value is not None and is_play(value):
                seen[seat] &= ~(1 << PLAYED_CARD[value])
        return tuple(seen)

    return list(_scan(game, ("seen_draws", observer), fold))


def known_voids(game: Game, observer: int | None = None) -> list[int]:
    """For each seat, the bit set of cards the trick play proves it cannot hold among the cards
    ``observer`` has not seen it get: R3 (neither followed nor trumped: none of the suit led; none
    of trump is no joker either, RD22), K15 (a forced under-trump: only lower trumps). With a stock
    (RD10, docs/rules.md D17) a hidden draw ends what was known of the drawer's hand; cards seen
    drawn are known apart, so what a seat showed about the cards it held stays true of those.
    ``observer`` (default: nobody, i.e. only what is public) decides which draws are seen. R3 and
    RD10 are :class:`~allfours_env.visibility.VoidTracker`'s (shared with the observation encoder);
    K15 is added here."""
    n = game.n
    trump = game.trump
    if trump < 0:
        return [0] * n
    rules = game.rules
    banned = rules.plan.undertrump_banned
    everything = pack_mask(game)
    act, trick_kind, draw_kind = EventKind.ACT, EventKind.TRICK, EventKind.DRAW

    def fold(state: tuple | None, events: list[Event]) -> tuple:
        """The state: the tracker's suits and trick (led, table), the cards a forced under-trump
        proves each seat lacks (K15), the trick's strength table and its best trump so far."""
        voids = VoidTracker(rules, PUBLIC if observer is None else observer)
        voids.trump = trump
        if state is None:
            undertrumped = [0] * n
            strength: tuple[int, ...] = ()
            best = -1  # the strength of the best trump in the trick so far
        else:
            suits, voids.led, voids.table, under, strength, best = state
            voids.suits, undertrumped = list(suits), list(under)
        play = voids.play
        for kind, seat, value in events:
            if kind != act:
                if kind == trick_kind:
                    voids.trick()
                    best = -1
                elif kind == draw_kind and voids.draw(seat):
                    undertrumped[seat] = 0
                continue
            card = PLAYED_CARD[value]
            if card < 0:  # not a card played
                continue
            leads = voids.led < 0
            play(seat, card)
            led = voids.led
            suit = card_suit(card, trump)
            if leads:
                strength = strength_table(trump, led, rules.joker_rank)
            elif banned and suit == trump != led and strength[card] < best:
                lower = sum(1 << c for c in cards_of(everything) if is_trump_strength(strength[c])
                            and strength[c] < best)
                undertrumped[seat] |= everything & ~lower
            if suit == trump:
                best = max(best, strength[card])
        return tuple(voids.suits), voids.led, voids.table, tuple(undertrumped), strength, best

    suits, _, _, undertrumped, _, _ = _scan(game, ("voids", observer, trump), fold)
    forbidden = list(undertrumped)
    for seat, void in enumerate(suits):
        for s in range(4):
            if void >> s & 1:
                forbidden[seat] |= SUIT_MASKS[s]
        if rules.joker and void >> trump & 1:
            forbidden[seat] |= JOKER_BIT  # RD22: the joker is a trump, so it follows a trump lead
    return forbidden


class SeatView:
    """The game as ``seat`` may know it. Cheap to build; read it, don't keep it across moves (what it
    reads from the hand's log is read once per state of the game)."""

    def __init__(self, game: Game, seat: int) -> None:
        if not 0 <= seat < game.n:
            raise ValueError(f"seat must be 0..{game.n - 1}, got {seat!r}")
        self._game = game
        self.seat = seat
        self._read: dict[str, tuple[int, list[int]]] = {}

    def _once(self, name: str, read) -> list[int]:
        """``read(game)`` (a scan of the hand's log), kept until the game moves on; a copy each time."""
        stamp = len(self._game.log)
        kept = self._read.get(name)
        if kept is None or kept[0] != stamp:
            kept = self._read[name] = (stamp, read(self._game))
        return list(kept[1])

    # Plain public or own facts.
    rules = property(lambda self: self._game.rules)
    phase = property(lambda self: self._game.phase)
    phase_name = property(lambda self: self._game.phase_name)
    dealer = property(lambda self: self._game.dealer)
    eldest = property(lambda self: self._game.eldest)
    trump = property(lambda self: self._game.trump)
    proposed = property(lambda self: self._game.proposed)
    current_player = property(lambda self: self._game.current_player)
    scores = property(lambda self: tuple(self._game.scores))
    turnups = property(lambda self: tuple(self._game.turnups))
    hand = property(lambda self: self._game.hands[self.seat])
    my_discards = property(lambda self: self._game.discards[self.seat])
    trick_cards = property(lambda self: tuple(self._game.trick_cards))
    captured = property(lambda self: tuple(self._game.captured))
    captured_points = property(lambda self: tuple(self._game.captured_points))
    bids = property(lambda self: tuple(self._game.bids))  # (seat, action) in order (RD13, public)
    high_bid = property(lambda self: self._game.high_bid)
    pitcher = property(lambda self: self._game.pitcher)  # -1 until the auction is over
    contract = property(lambda self: self._game.contract)

    @property
    def trick_leader(self) -> int:
        """The seat that led the current trick (the seat to lead when the trick is empty)."""
        return self._game.trick_leader

    def gift_recipients(self) -> list[int]:
        """The sides a gift would score for in this hand, in award order (K7; public)."""
        return self._game.gift_recipients()

    def gift_blocked_after_beg(self) -> bool:
        """Whether K8 would forbid the dealer's gift if eldest begged now (public: it depends only
        on the scores and the seats)."""
        return self._game.gift_blocked()

    @property
    def log_length(self) -> int:
        """How many events the game log holds so far (public; lets tools line a decision up with
        the game record afterwards)."""
        return len(self._game.log)

    def hand_sizes(self) -> tuple[int, ...]:
        """How many cards each seat holds (public)."""
        return tuple(h.bit_count() for h in self._game.hands)

    def stock_size(self) -> int:
        """How many cards of the pack are still undealt (the stock, or an auction's unused rest)."""
        return pack_mask(self._game).bit_count() - self._game.pos

    def stock_top(self) -> int:
        """The stock's top card where the stock lies face up (california_jack, RD10), else -1."""
        game = self._game
        if not sees_stock_top(game.rules, self.seat) or not self.stock_size():
            return -1
        return game.deck[game.pos]

    def seen_draws(self) -> list[int]:
        """For each seat, the cards this seat saw it draw and not play since (RD10)."""
        return self._once("seen_draws", lambda game: seen_draws(game, self.seat))

    def played(self) -> list[int]:
        """Bit sets of the cards each seat has played this hand."""
        return self._once("played", played_cards)

    def voids(self) -> list[int]:
        """Bit sets of cards each seat is known not to hold among those this seat has not seen it get
        (R3 inferences; RD10 with a stock)."""
        return self._once("voids", lambda game: known_voids(game, self.seat))

    def legal_actions(self) -> tuple[int, ...]:
        """This seat's legal actions, or ``()`` when another seat is to move."""
        game = self._game
        return game.legal_actions() if game.current_player == self.seat else ()

    def history(self) -> list[Event]:
        """The current hand's log as this seat saw it (:func:`~allfours_env.visibility.seen_events`):
        other players' discards show as ``Event(ACT, seat, None)`` (a discard happened, the card is
        secret, P5), a draw from a face-down stock by another player as ``Event(DRAW, seat, None)``
        (RD10)."""
        return list(seen_events(self._game.hand_log(), self.seat, self._game.rules))

    def unseen(self) -> int:
        """Bit set of the cards this seat has not seen: others' hands and discards (but the cards it
        saw them draw, RD10), the stock (but its face-up top card)."""
        game = self._game
        seen = game.hands[self.seat] | game.discards[self.seat]
        for card in game.turnups:
            seen |= 1 << card
        for cards in self.played():  # the unfinished trick included
            seen |= cards
        if game.rules.plan.stock:
            for cards in self.seen_draws():
                seen |= cards
            top = self.stock_top()
            if top >= 0:
                seen |= 1 << top
        return pack_mask(game) & ~seen

    def resample(self, rng: random.Random) -> Game:
        """A full game whose hidden cards are drawn uniformly among the deals consistent with what
        this seat knows; its future deals come from ``rng`` too (nothing leaks from the real RNG).
        This draws which card goes where; :meth:`~allfours_env.engine.Game.with_hidden_cards`
        builds the game (the game's log and the cards already dealt are the real game's history)."""
        return resample(self._game, self.seat, rng)


def resample(game: Game, seat: int, rng: random.Random) -> Game:
    """See :meth:`SeatView.resample`: the hidden cards drawn here, the game built by
    :meth:`Game.with_hidden_cards <allfours_env.engine.Game.with_hidden_cards>`."""
    view = SeatView(game, seat)
    rules = game.rules
    others = [q for q in range(game.n) if q != seat]
    hidden = cards_of(view.unseen())
    stock_game = rules.plan.stock
    known = seen_draws(game, seat) if stock_game else [0] * game.n  # RD10: cards seen drawn
    hand_sizes = [game.hands[q].bit_count() - known[q].bit_count() for q in others]
    discard_sizes = [game.discards[q].bit_count() for q in others]
    top = view.stock_top()  # face up: known
    stock = view.stock_size() - (top >= 0)
    if len(hidden) != sum(hand_sizes) + sum(discard_sizes) + stock:
        raise AssertionError("card accounting broken: unseen cards do not fill the hidden places")
    voids = known_voids(game, seat)
    sizes, forbidden = hand_sizes, [voids[q] for q in others]
    hidden_top = stock_game and not rules.stock_face_up and game.pos == rules.hand_size * game.n and stock
    if hidden_top:  # RD10: the face-down top card, still undrawn, is a trump: an extra place of one card
        sizes, forbidden = sizes + [1], forbidden + [pack_mask(game) & ~SUIT_MASKS[game.trump]]
    holds_trump = _holds_the_first_draw(game, seat) if stock_game and not rules.stock_face_up else -1
    for _ in range(1000):
        hands, pool = _draw_hands(hidden, sizes, forbidden, rng)
        if holds_trump < 0 or any(c // NUM_RANKS == game.trump for c in hands[others.index(holds_trump)]):
            break
    else:
        raise ValueError("no deal is consistent with this seat's knowledge (the first draw's trump)")

    rng.shuffle(pool)  # the others' discards, then the stock in order
    new_hands, new_discards, start = {}, {}, 0
    for i, q in enumerate(others):
        new_hands[q] = known[q] | mask_of(hands[i])
        new_discards[q] = mask_of(pool[start : start + discard_sizes[i]])
        start += discard_sizes[i]
    rest = pool[start:]
    if top >= 0:
        rest = [top, *rest]
    elif hidden_top:
        rest = hands[-1] + rest
    return game.with_hidden_cards(new_hands, new_discards, rest, seed=rng.getrandbits(64))


def _holds_the_first_draw(game: Game, seat: int) -> int:
    """shasta_sam (RD10): the other seat that drew the face-down top card, a trump, and has played no
    trump since — so it still holds a trump — or -1."""
    drawer = -1
    for kind, who, value in game.hand_log():
        if kind == EventKind.DRAW and drawer < 0:
            if who == seat:
                return -1  # this seat drew it: the draws after it are any cards
            drawer = who
        elif kind == EventKind.ACT and who == drawer and is_play(value):
            if PLAYED_CARD[value] // NUM_RANKS == game.trump:
                return -1
    return drawer


def _draw_hands(
    hidden: list[int], sizes: list[int], forbidden: list[int], rng: random.Random
) -> tuple[list[list[int]], list[int]]:
    """Split ``hidden`` into hands of ``sizes`` (hand ``i`` avoiding ``forbidden[i]``) and a pool
    (the rest), uniformly over all such splits. Returns ``(hands, pool)``."""
    k = len(sizes)
    groups: dict[int, list[int]] = {}
    for card in hidden:
        allowed = sum(1 << i for i in range(k) if not forbidden[i] >> card & 1)
        groups.setdefault(allowed, []).append(card)
    full = (1 << k) - 1
    if set(groups) <= {full}:  # no constraint: a plain shuffle is uniform
        cards = list(hidden)
        rng.shuffle(cards)
        hands, start = [], 0
        for size in sizes:
            hands.append(cards[start : start + size])
            start += size
        return hands, cards[start:]

    types = sorted(groups.items())  # (allowed-hands bit set, cards)
    shapes = tuple((allowed, len(cards)) for allowed, cards in types)
    caps = tuple(sizes)
    if _count_splits(shapes, k, 0, caps) == 0:
        raise ValueError("no deal is consistent with this seat's knowledge (inconsistent voids)")
    hands: list[list[int]] = [[] for _ in range(k)]
    pool: list[int] = []
    for t in range(len(types)):
        options, total = _split_options(shapes, k, t, caps)
        pick = rng.randrange(total)
        for option, weight in options:  # noqa: B007 (the chosen option is used after the loop)
            if pick < weight:
                break
            pick -= weight
        counts = option
        cards = list(types[t][1])
        rng.shuffle(cards)
        start = 0
        for i, x in enumerate(counts):
            hands[i].extend(cards[start : start + x])
            start += x
        pool.extend(cards[start:])
        caps = _less(caps, counts)
    return hands, pool


def _type_splits(shape: tuple[int, int], k: int, caps: tuple[int, ...]):
    """Every way to send the cards of one type (``shape``: its allowed-hands bit set, its number of
    cards) to its allowed hands, hand ``i`` taking at most ``caps[i]``, the rest to the pool:
    (counts by hand, the number of ways to choose those cards)."""
    allowed, total = shape
    slots = [i for i in range(k) if allowed >> i & 1]

    def rec(j: int, left: int, counts: list[int]):
        if j == len(slots):
            yield tuple(counts), left
            return
        i = slots[j]
        for x in range(min(caps[i], left) + 1):
            counts[i] = x
            yield from rec(j + 1, left - x, counts)
        counts[i] = 0

    for counts, to_pool in rec(0, total, [0] * k):
        ways = factorial(total) // factorial(to_pool)
        for x in counts:
            ways //= factorial(x)
        yield counts, ways


@lru_cache(maxsize=1 << 16)
def _count_splits(shapes: tuple[tuple[int, int], ...], k: int, t: int, caps: tuple[int, ...]) -> int:
    """How many ways the cards of types ``t``, ``t + 1``, ... (``shapes``) fill hands of exactly
    ``caps`` cards, the rest going to the pool. Kept between calls: the deals drawn for one decision
    share their shapes."""
    if t == len(shapes):
        return 1 if not any(caps) else 0
    return sum(ways * _count_splits(shapes, k, t + 1, _less(caps, counts))
               for counts, ways in _type_splits(shapes[t], k, caps))


@lru_cache(maxsize=1 << 12)
def _split_options(shapes: tuple[tuple[int, int], ...], k: int, t: int,
                   caps: tuple[int, ...]) -> tuple[tuple[tuple[tuple[int, ...], int], ...], int]:
    """The ways to split type ``t``'s cards with hands still to fill to ``caps``, each with the
    number of whole deals it leads to, and their total (:func:`_draw_hands` draws one by weight)."""
    options = tuple((counts, ways * _count_splits(shapes, k, t + 1, _less(caps, counts)))
                    for counts, ways in _type_splits(shapes[t], k, caps))
    return options, sum(weight for _, weight in options)


def _less(caps: tuple[int, ...], counts: tuple[int, ...]) -> tuple[int, ...]:
    """What each hand still takes after ``counts`` more cards."""
    return tuple(c - x for c, x in zip(caps, counts))
