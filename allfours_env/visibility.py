"""Who sees what: the one filter of the game log for an observer, and the void inference beside it.

The engine's log (:mod:`allfours_env.events`) is the god's-eye view. Everything that shows a game
to somebody — :class:`~allfours_env.knowledge.SeatView`, the observation encoder
(:mod:`allfours_env.observation`), the text renderer (:mod:`allfours_env.render`) and the terminal
game (:mod:`agents.play.ui`) — asks this module what its observer sees, and nothing else decides it.

An **observer** is a seat (``0 … n-1``: that player's view), :data:`SPECTATOR` (``None``: the god's-eye
view of a spectator or a debugger, everything) or :data:`PUBLIC` (``-1``: a seat that holds no cards,
i.e. only what is public). What a seat sees (docs/rules.md §1 "What each player knows"):

* its own hand, never another's (nor the undealt rest of the pack);
* every turn-up (P1, P4), the trump suit once fixed, every stand/beg/gift/run decision (P2, P3),
  every bid (RD13), every card played and by whom (P6), every trick's winner and cards (R2), every
  award and the scores, and how many cards each player holds;
* a discard only as a fact (P5, D8): another player's discard shows as ``Event(ACT, seat, None)``;
* the stock (RD10): in ``california_jack`` (``stock_face_up``) its top card and every draw; in
  ``shasta_sam`` neither the top card nor another player's draw, which shows as
  ``Event(DRAW, seat, None)`` (a card was drawn; for the first draw it is a trump, which the trump
  suit already says).

Void inference (R3, D15; RD10, D17): a follower who neither follows the suit led nor trumps holds
none of the suit led (:func:`void_suits`); a draw the observer does not see may bring any suit, so
it ends what was known of the drawer's hand, while a draw it sees leaves it true of the cards the
drawer held before. :class:`VoidTracker` applies both to a hand's events one at a time; it serves
:func:`allfours_env.knowledge.known_voids` and the observation's incremental encoder alike.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence

from allfours_env.actions import DISCARDED_CARD
from allfours_env.cards import JOKER, NUM_CARD_IDS, NUM_RANKS
from allfours_env.events import Event, EventKind
from allfours_env.rules import Rules
from allfours_env.scoring import lead_suit

#: The observer that sees everything (a spectator, a debugger, the game record).
SPECTATOR = None
#: The observer that sees only what is public (no seat: no hand, no discard, no face-down draw).
PUBLIC = -1

_ACT, _DRAW = EventKind.ACT, EventKind.DRAW


def sees_hand(holder: int, observer: int | None) -> bool:
    """§1: whether ``observer`` sees the cards in ``holder``'s hand (its own only; a spectator all)."""
    return observer is None or holder == observer


def sees_discard(discarder: int, observer: int | None) -> bool:
    """P5, D8: whether ``observer`` sees which card ``discarder`` discarded (the count is public)."""
    return observer is None or discarder == observer


def sees_draw(rules: Rules, drawer: int, observer: int | None) -> bool:
    """RD10: whether ``observer`` sees the card ``drawer`` takes from the stock: everyone where the
    stock lies face up (california_jack), only the drawer where it lies face down (shasta_sam)."""
    return observer is None or rules.stock_face_up or drawer == observer


def sees_stock_top(rules: Rules, observer: int | None) -> bool:
    """RD10: whether ``observer`` sees the stock's top card: everyone where the stock lies face up
    (california_jack), nobody but a spectator where it lies face down (shasta_sam). Only the top
    card: the cards under it are never seen (nor the undealt rest of an auction's pack)."""
    plan = rules.plan
    return plan.stock and (observer is None or not plan.stock_face_down)


def visible_event(event: Event, observer: int | None, rules: Rules) -> Event:
    """``event`` as ``observer`` sees it: another player's discard as ``Event(ACT, seat, None)``
    (P5, D8), a draw it does not see as ``Event(DRAW, seat, None)`` (RD10); every other event is
    public and comes back unchanged (the same object). ``observer=None`` sees everything."""
    if observer is None:
        return event
    kind, who, value = event
    if kind == _ACT:
        if who != observer and value is not None and DISCARDED_CARD[value] >= 0:
            return Event(_ACT, who, None)
    elif kind == _DRAW and value is not None and not sees_draw(rules, who, observer):
        return Event(_DRAW, who, None)
    return event


def seen_events(events: Iterable[Event], observer: int | None, rules: Rules) -> Iterator[Event]:
    """:func:`visible_event` of each of ``events`` (a log or a slice of one), in order."""
    if observer is None:
        yield from events
        return
    for event in events:
        yield visible_event(event, observer, rules)


# ---------------------------------------------------------------- void inference (R3, RD10)

_VOID_TABLES: dict[tuple[int, int], tuple[int, ...]] = {}


def void_suits(led: int, trump: int) -> tuple[int, ...]:
    """R3 (D15): for each card id, the suit a follower who plays it to a trick where suit ``led`` was
    led, ``trump`` trump, shows he holds none of: ``led`` when the card neither follows nor trumps,
    else -1. The joker is a trump (RD22): it shows nothing. Trumping shows nothing either (it is
    always allowed); what a forced under-trump shows (K15) is :func:`~allfours_env.knowledge.known_voids`'
    business."""
    key = (led, trump)
    table = _VOID_TABLES.get(key)
    if table is None:
        table = tuple(
            led if card != JOKER and card // NUM_RANKS not in (led, trump) else -1
            for card in range(NUM_CARD_IDS)
        )
        _VOID_TABLES[key] = table
    return table


#: :attr:`VoidTracker.table` before a trick's lead: every card played leads.
LEADS = -2
_NO_TRICK = (LEADS,) * NUM_CARD_IDS
_LEAD_TABLES: dict[str, tuple[tuple[tuple[int, tuple[int, ...]], ...], ...]] = {}


def _lead_tables(joker_lead_trump: str) -> tuple[tuple[tuple[int, tuple[int, ...]], ...], ...]:
    """By trump suit (C D H S, then -1: not fixed), by card led: the suit led and the trick's
    :func:`void_suits`. A lead before trump is fixed fixes it to the suit led (P8, RD16)."""
    tables = _LEAD_TABLES.get(joker_lead_trump)
    if tables is None:
        tables = _LEAD_TABLES[joker_lead_trump] = tuple(
            tuple((led, void_suits(led, trump if trump >= 0 else led))
                  for led in (lead_suit(card, trump, joker_lead_trump) for card in range(NUM_CARD_IDS)))
            for trump in (0, 1, 2, 3, -1)
        )
    return tables


class VoidTracker:
    """The suits each seat has shown it holds none of in the current hand (R3), as ``observer``
    knows them (RD10): feed it the hand's cards played (:meth:`play`), tricks ended (:meth:`trick`)
    and draws (:meth:`draw`) in log order. ``suits[i]`` is a bit set of suits (bit ``s`` for suit
    ``s``, C D H S). ``seats`` names the seat behind each index (default ``0 … n-1``; the observation
    encoder passes its seat-relative order). ``trump`` is the trump suit (-1 until fixed; set it when
    the log fixes it). With a stock, a draw ``observer`` does not see ends what was known of the
    drawer's hand (RD10, D17); one it sees changes nothing (what the seat showed stays true of the
    cards it held, and the card drawn is known apart).

    ``table`` (the :func:`void_suits` of the trick under way; all :data:`LEADS` before its lead),
    ``led`` and ``hidden_draw`` (by index: whether the observer misses that seat's draws) are public
    so that a hot loop may inline :meth:`play` and :meth:`draw` (the observation encoder does)."""

    __slots__ = ("suits", "led", "trump", "table", "hidden_draw", "_leads")

    def __init__(self, rules: Rules, observer: int | None, seats: Sequence[int] | None = None) -> None:
        if seats is None:
            seats = range(rules.num_players)
        self.hidden_draw = tuple(not sees_draw(rules, seat, observer) for seat in seats)
        self._leads = _lead_tables(rules.joker_lead_trump)
        self.new_hand()

    def new_hand(self) -> None:
        """A new deal: nothing is known yet, and trump is not fixed."""
        self.suits = [0] * len(self.hidden_draw)
        self.trump = -1
        self.trick()

    def trick(self) -> None:
        """The trick is over: the next card played leads."""
        self.led = -1
        self.table = _NO_TRICK

    def lead(self, card: int) -> int:
        """``card`` leads a trick: the suit led (RD22, RD23 for the joker). A lead before trump is fixed
        fixes it to the suit led (P8, RD16)."""
        self.led, self.table = self._leads[self.trump][card]  # trump -1: the last entry
        return self.led

    def play(self, i: int, card: int) -> int:
        """Seat ``i`` played ``card``: the suit this shows it void in (R3), or -1. The first card of
        a trick leads (:meth:`lead`)."""
        suit = self.table[card]
        if suit >= 0:
            self.suits[i] |= 1 << suit
            return suit
        if suit == LEADS:
            self.lead(card)
        return -1

    def draw(self, i: int) -> bool:
        """Seat ``i`` drew from the stock; True where the observer did not see the card, which ends
        everything it knew of that seat's voids (RD10)."""
        if self.hidden_draw[i]:
            self.suits[i] = 0
            return True
        return False

