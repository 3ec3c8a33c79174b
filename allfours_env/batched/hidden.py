"""What a seat cannot see, from the batched core's state: :func:`allfours_env.hidden.hidden_cards`
for JAX (a privileged critic's extra input while training; never an acting policy's).

The layout is the reference's (:data:`~allfours_env.hidden.HIDDEN_SIZE` = 212 entries, four planes
of 53 card ids): the hands of relative seats 1..3 (zeros for seats the table does not have), then
the cards not yet dealt. The state holds every card's place (``hold``: the seat holding it;
``place`` and ``pos``: its position in this deal's pack and the next position to deal), so each
plane is one comparison. Pure, ``jit``- and ``vmap``-able; tests/batched ties it to the reference
at every decision.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from allfours_env.batched.core import State
from allfours_env.cards import NUM_CARD_IDS
from allfours_env.hidden import HIDDEN_PLANES, HIDDEN_SIZE

_I = jnp.int32


def hidden_cards(state: State, seat: jax.Array, num_players: int) -> jax.Array:
    """float32[212]: the other seats' hands (relative seats 1..3) and the undealt stock (as a set),
    seen from ``seat`` of one game of ``num_players``."""
    seat = jnp.asarray(seat, _I)
    planes = []
    for relative in range(1, HIDDEN_PLANES):
        if relative < num_players:
            planes.append(state.hold == (seat + relative) % num_players)
        else:
            planes.append(jnp.zeros(NUM_CARD_IDS, bool))
    # A card of this deal's pack not dealt yet (the joker outside a plain pack has no position).
    planes.append((state.place >= state.pos) & (state.place < NUM_CARD_IDS))
    out = jnp.concatenate(planes).astype(jnp.float32)
    assert out.shape == (HIDDEN_SIZE,)
    return out
