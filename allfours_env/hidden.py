"""What a seat cannot see, as a vector — for a centralised (privileged) critic in training only.

In a card game most of a hand's result is the luck of the cards: a value network that sees only its
own seat's observation must guess the other hands, and its advantage estimates carry that noise. A
*privileged critic* (asymmetric actor-critic, "perfect-training-imperfect-execution") also sees the
hidden cards while training; the actor — the policy that plays — still sees only the seat's
observation, so the trained policy never uses information it would not have at the table.

:func:`hidden_cards` is that extra input: four planes of 53 card ids (:data:`HIDDEN_SIZE` = 212),
the same size for every preset and player count::

    plane 0..2   the hand of relative seat 1..3 (the seats 1..3 places after the observer in turn
                 order; zeros for seats the table does not have)
    plane 3      the cards not yet dealt (the stock, as a set: its order is left out)

Never give it to an acting policy: :class:`~allfours_env.wrappers.SingleAgentEnv` appends it to the
observation only with ``critic_state=True``, for networks whose actor reads the first
:data:`~allfours_env.observation.OBS_SIZE` entries only.
"""

from __future__ import annotations

import numpy as np

from allfours_env.cards import NUM_CARD_IDS, mask_of
from allfours_env.engine import Game

HIDDEN_PLANES = 4
HIDDEN_SIZE = HIDDEN_PLANES * NUM_CARD_IDS  # 212
_BITS = np.arange(NUM_CARD_IDS, dtype=np.uint64)


def _plane(mask: int) -> np.ndarray:
    return ((np.uint64(mask) >> _BITS) & np.uint64(1)).astype(np.float32)


def hidden_cards(game: Game, seat: int) -> np.ndarray:
    """The other seats' hands (relative seats 1..3) and the undealt stock, as seen from ``seat``."""
    out = np.zeros(HIDDEN_SIZE, np.float32)
    n = game.n
    for relative in range(1, n):
        out[(relative - 1) * NUM_CARD_IDS:relative * NUM_CARD_IDS] = _plane(game.hands[(seat + relative) % n])
    out[3 * NUM_CARD_IDS:] = _plane(mask_of(game.deck[game.pos:]))
    return out
