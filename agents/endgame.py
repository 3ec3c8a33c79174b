"""The end of a hand solved by search, for an agent that plays the rest of it (``ppo:FILE,endgame=8``).

A learned policy errs most late in a hand, where the history it has to read is longest, and there an
exact search is cheapest: with eight cards left in all hands (the last four tricks of two players)
a hand solves in a fraction of a millisecond. :class:`EndgameSearch` plays those cards as
:class:`~agents.pimc.PIMCAgent` does, with ``exact_cards`` set to the same count: it draws deals
consistent with what the seat knows (weighted by how well they explain the others' stand/beg and
gift/run, :mod:`agents.pimc`), solves each exactly to the end of the hand and plays the card with
the best average. Everything before — bids, discards, the pitch, the first tricks — stays the
agent's own. The search reads only the seat's view, as every agent does.

A policy file may name the count it plays with (``"play": {"endgame": 8}`` in its ``.json``, see
:mod:`agents.policy_file`); the ``endgame`` option of ``ppo:`` overrides it, ``endgame=0`` plays
the network alone. The number of deals drawn for each decision is pimc's for the game unless the
file says ``"samples"`` beside the count (``"play": {"endgame": 8, "samples": 160}``) or ``ppo:`` is
told ``endgame_samples=N``: more deals average out more of the sampling noise, at a cost that grows
in proportion.
"""

from __future__ import annotations

from agents.base import AgentError
from agents.pimc import AUTO, PIMCAgent
from allfours_env.events import Phase
from allfours_env.knowledge import SeatView
from allfours_env.values import is_whole

OFF = 0  #: an ``endgame`` of 0 leaves every decision to the agent itself


def check_cards(cards: object, where: str) -> int:
    """``cards`` as an endgame size (0, or a whole number >= 2), else :class:`AgentError` naming
    ``where`` the value came from."""
    if not (is_whole(cards) and (cards == OFF or cards >= 2)):
        raise AgentError(f"{where}: endgame must be 0 (off) or a whole number of cards >= 2, got {cards!r}")
    return int(cards)


def in_endgame(view: SeatView, cards: int) -> bool:
    """Whether ``view`` is a card to play (trump named, no stock left to draw from) with at most
    ``cards`` cards in all hands together: the positions :class:`EndgameSearch` decides."""
    if view.phase != Phase.PLAY or view.trump < 0:
        return False
    if view.rules.plan.stock and view.stock_size():
        return False
    return sum(view.hand_sizes()) <= cards


def check_samples(samples: object, where: str) -> int | str:
    """``samples`` as the deals an endgame decision draws (``"auto"``: pimc's count for the game,
    or a whole number >= 1), else :class:`AgentError` naming ``where`` the value came from."""
    if not (samples == AUTO or (is_whole(samples) and samples >= 1)):
        raise AgentError(f"{where}: endgame samples must be 'auto' or a whole number of deals >= 1, "
                         f"got {samples!r}")
    return samples if samples == AUTO else int(samples)


class EndgameSearch:
    """The card play of the last ``cards`` cards of a hand by PIMC with exact solves, ``samples``
    deals a decision (module docstring)."""

    def __init__(self, cards: int, seed: int | None = None, samples: int | str = AUTO) -> None:
        self.cards = check_cards(cards, "EndgameSearch")
        if self.cards == OFF:
            raise AgentError("EndgameSearch needs at least 2 cards; leave it out to play without it")
        self.samples = check_samples(samples, "EndgameSearch")
        self._search = PIMCAgent(seed=seed, exact_cards=self.cards, samples=self.samples)

    def reset(self, seed: int | None = None) -> None:
        """Start a new game with a new seed (the sampled deals follow from it)."""
        self._search.reset(seed)

    def decides(self, view: SeatView) -> bool:
        """Whether this decision is the search's (:func:`in_endgame`)."""
        return in_endgame(view, self.cards)

    def act(self, view: SeatView) -> int:
        """The searched card for ``view`` (a position :meth:`decides`)."""
        return self._search.act(None, view)
