"""The rules the batched core restates as array code, tied to the reference functions over many cases:
the gift block (K8, scoring.gift_blocked) and the sides that score Game with their tie rules (R9, K13,
scoring.game_sides). The rest is tied by the differential test at every decision."""

import pytest

jax = pytest.importorskip("jax", reason="the jax extra is not installed: pip install -e '.[jax]'")
pytest_plugins = ["jax_setup"]

import itertools

import jax.numpy as jnp
import numpy as np

from allfours_env import batched
from allfours_env.scoring import game_sides, gift_blocked

BLOCKS = [("seven_up", n, {}) for n in (2, 3, 4)] + [
    ("seven_up", n, {"gift_block": "any_recipient_would_win"}) for n in (2, 3, 4)] + [
    ("all_fours", 3, {}), ("trinidad", 4, {"gift_block": "any_recipient_would_win", "gift_points": 2})]


@pytest.mark.parametrize(("preset", "players", "knobs"), BLOCKS)
def test_gift_block_is_the_reference_one(preset, players, knobs):
    env = batched.make(preset, players, **knobs)
    core, rules = env.core, env.rules
    blank = core.blank(jax.random.PRNGKey(0), jnp.zeros((0, 52), jnp.int32), 0)

    @jax.jit
    def blocked(dealer, scores):
        return core.gift_blocked(blank._replace(dealer=dealer, scores=scores))

    target = rules.target_points
    sides = [rules.side_of(s) for s in range(players)]
    near = range(max(0, target - 3), target)
    for dealer in range(players):
        for scores in itertools.product(near, repeat=rules.num_sides):
            want = gift_blocked(rules, sides, dealer, list(scores))
            assert bool(blocked(dealer, jnp.asarray(scores, jnp.int32))) == want, (dealer, scores)


@pytest.mark.parametrize("tie", ["seven_up", "nobody", "non_dealer"])
@pytest.mark.parametrize(("players", "partnerships"), [(2, None), (3, None), (4, True), (4, False)])
def test_game_sides_are_the_reference_ones(tie, players, partnerships):
    knobs = {"game_tie_rule": tie} | ({} if partnerships is None else {"partnerships": partnerships})
    env = batched.make("seven_up", players, **knobs)
    core, rules = env.core, env.rules
    blank = core.blank(jax.random.PRNGKey(0), jnp.zeros((0, 52), jnp.int32), 0)

    @jax.jit
    def scoring_sides(dealer, points):
        pairs = core.game_sides(blank._replace(dealer=dealer, captured_points=points))
        return jnp.stack([p[0] for p in pairs]), jnp.stack([p[1] for p in pairs])

    sides = [rules.side_of(s) for s in range(players)]
    rng = np.random.default_rng(0)
    for _ in range(60):
        points = rng.integers(0, 4, rules.num_sides) * 5  # ties are common
        dealer = int(rng.integers(players))
        got_sides, valid = scoring_sides(dealer, jnp.asarray(points, jnp.int32))
        got = [int(s) for s, v in zip(np.asarray(got_sides), np.asarray(valid)) if v]
        assert got == game_sides(rules, points.tolist(), sides, dealer), (points, dealer)
