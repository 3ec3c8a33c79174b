"""The vocabulary of the engine's state and log: phases, and the events a game appends to ``Game.log``.

Every reader of the log (the observation encoder, the renderer, the knowledge of a seat, the game
record, the tournaments' statistics, the terminal game, the imitation data) uses these names, never
bare strings or numbers. A reader skips the kinds it does not need: new kinds may be added.

=============  =======================  ==================================================
kind           who                      value
=============  =======================  ==================================================
``deal``       the dealer               the deal number (0, 1, ...; redeals count)
``turnup``     the dealer               the card turned up (P1, P4)
``act``        the acting seat          the action id of the decision
``contract``   the pitcher              the contract, once the auction is over (RD13–RD15:
                                        0 when everyone passed); logged after the dealer's
                                        bid, before the pitch
``trump``      -1                       the trump suit, once it is fixed
``trick``      the trick's winner       the bit set of the trick's cards (R2)
``draw``       the drawing seat         the card drawn from the stock (RD6; who may see it: RD10)
``award``      the side scoring         the :class:`~allfours_env.scoring.Award` (``deal``,
                                        ``kind``, ``side``, ``points``), kinds of
                                        :class:`~allfours_env.rules.PointKind`
``thrown_in``  the dealer               ``None`` (P4: the pack ran out during a run)
``hand_end``   the dealer               the hand number of the completed hand
``game_over``  the winning side         the final scores
=============  =======================  ==================================================

The log is the god's-eye view (it holds every discard): observers must filter it
(:mod:`allfours_env.visibility`).
"""

from __future__ import annotations

from enum import IntEnum, StrEnum
from typing import Any, NamedTuple


class Phase(IntEnum):
    """Where a game stands: who decides what next (docs/rules.md §3)."""

    BEG = 0  # P2: eldest stands or begs
    GIFT_OR_RUN = 1  # P3: the dealer gives or runs
    DISCARD = 2  # P5: a player discards down to the hand size
    PLAY = 3  # P6, P8: trick play
    GAME_OVER = 4  # a side reached the target (R10)
    HAND_OVER = 5  # paused after a hand (``stop_after_hand``), nobody to move
    BID = 6  # the auction (auction_pitch, pitch_with_joker)

    @property
    def label(self) -> str:
        """The phase's name as the API and records show it: ``beg``, ``gift_or_run``, ..."""
        return self.name.lower()


#: Phase labels by phase number.
PHASE_NAMES = tuple(phase.label for phase in Phase)


class EventKind(StrEnum):
    """The kinds of :class:`Event` (see the module docstring for their fields)."""

    DEAL = "deal"
    TURNUP = "turnup"
    ACT = "act"
    CONTRACT = "contract"
    TRUMP = "trump"
    TRICK = "trick"
    DRAW = "draw"
    AWARD = "award"
    THROWN_IN = "thrown_in"
    HAND_END = "hand_end"
    GAME_OVER = "game_over"


class Event(NamedTuple):
    """One thing that happened in a game: ``kind`` (an :class:`EventKind`), ``who`` (a seat, a side or
    -1, by kind) and ``value`` (by kind); see the module docstring."""

    kind: EventKind
    who: int
    value: Any

