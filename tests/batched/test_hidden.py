"""The batched core's hidden cards (allfours_env.batched.hidden) against the reference's
(allfours_env.hidden.hidden_cards), at every decision of random games played side by side in both
engines (same packs, same random legal actions, as allfours_env.batched.differential drives them):
for the seat to move and for the seat after it."""

import numpy as np
import pytest

jax = pytest.importorskip("jax", reason="the jax extra is not installed: pip install -e '.[jax]'")
pytest_plugins = ["jax_setup"]

from allfours_env import hidden  # noqa: E402
from allfours_env.aec import raw_env  # noqa: E402
from allfours_env.batched import make  # noqa: E402
from allfours_env.batched.differential import DECKS_PER_GAME  # noqa: E402
from allfours_env.batched.hidden import hidden_cards  # noqa: E402

GAMES, MAX_HANDS = 6, 6


@pytest.mark.parametrize(("preset", "num_players"), [
    ("seven_up", 2),  # turn-ups, begging and runs
    ("all_fours", 4),  # partnerships
    ("auction_pitch", 4),  # an auction, every player alone
    ("california_jack", 2),  # a stock drawn from after each trick
], ids=lambda v: str(v))
def test_hidden_cards_equal_the_reference_at_every_decision(preset, num_players):
    env = make(preset, num_players, max_hands=MAX_HANDS)
    rng = np.random.default_rng(5)
    pack = env.spec.pack
    decks = np.stack([np.stack([rng.permutation(pack) for _ in range(DECKS_PER_GAME)])
                      for _ in range(GAMES)]).astype(np.int32)
    dealers = rng.integers(0, num_players, GAMES).astype(np.int32)
    state = jax.jit(jax.vmap(env.init))(jax.random.split(jax.random.PRNGKey(5), GAMES), decks, dealers)
    step = jax.jit(jax.vmap(env.step))
    seen = jax.jit(jax.vmap(jax.vmap(lambda s, seat: hidden_cards(s, seat, num_players), (None, 0)), (0, 0)))
    refs = []
    for g in range(GAMES):
        ref = raw_env(preset, num_players, max_hands=MAX_HANDS)
        ref.reset(seed=g, options={"decks": decks[g].tolist(), "dealer": int(dealers[g])})
        refs.append(ref)
    active = np.ones(GAMES, bool)
    compared = 0
    stock_seen = 0
    while active.any():
        host = jax.device_get(state)
        movers = np.maximum(host.current_player, 0)
        seats = np.stack([movers, (movers + 1) % num_players], axis=1).astype(np.int32)
        batched = np.asarray(seen(state, seats))
        actions = np.zeros(GAMES, np.int32)
        for g in np.nonzero(active)[0]:
            ref = refs[g]
            agent = ref.agent_selection
            if ref.terminations[agent] or ref.truncations[agent] or host.deals[g] > DECKS_PER_GAME:
                active[g] = False
                continue
            seat = ref.possible_agents.index(agent)
            assert seat == movers[g]
            for k, who in enumerate(seats[g]):
                expected = hidden.hidden_cards(ref.game, int(who))
                np.testing.assert_array_equal(batched[g, k], expected, err_msg=f"game {g} seat {who}")
            stock_seen += bool(expected[3 * 53:].any())
            compared += 1
            action = int(rng.choice(np.nonzero(ref.observe(agent)["action_mask"])[0]))
            actions[g] = action
            ref.step(action)
        state = step(state, actions)
    assert compared > 20 * GAMES
    assert stock_seen > 0
