"""``opponents.partner`` on the JAX backend: in Trinidad's partnerships a bot spec plays the seat
beside the learner in every game (and only that seat), the opponents come from the mix, and only
the learner's own decisions are trained on."""

import numpy as np
import pytest

pytest.importorskip("jax", reason="JAX is not installed (pip install 'allfours[jax]')")
pytest_plugins = ["jax_setup"]

from train import load  # noqa: E402

GAMES, STEPS = 6, 24
SETTINGS = ["preset=trinidad", "num_players=4", f"jax.num_envs={GAMES}", f"jax.rollout_steps={STEPS}",
            "jax.minibatches=2", "ppo.n_epochs=1", "ppo.net_arch=[16]", "jax.self_play=0",
            "opponents.mix={random=1}", "opponents.partner=heuristic", 'imitation.teacher=""',
            "ppo.privileged_critic=false"]


@pytest.fixture(scope="module")
def config():
    return load("jax_quick", SETTINGS)


def test_the_partner_seat_is_the_bot_and_the_opponents_come_from_the_mix(config):
    import jax

    from train.jax.ppo import BOT, LEARNER, RANDOM, Learner
    from train.jax.trainer import opponent_probs

    learner = Learner(config)
    assert learner.bots == ["heuristic"]
    probs = opponent_probs(config, config.opponents.mix, 0)
    controllers = np.asarray(learner.draw(jax.random.PRNGKey(3), probs))
    assert controllers.shape == (GAMES, 4)
    for row in controllers:
        (seat,) = np.flatnonzero(row == LEARNER)
        assert row[(seat + 2) % 4] == BOT
        assert row[(seat + 1) % 4] == RANDOM and row[(seat + 3) % 4] == RANDOM


def test_a_rollout_with_a_bot_partner_trains_on_the_learners_own_seat_only(config):
    import jax

    from train.jax import network
    from train.jax.bots import BotRollout
    from train.jax.ppo import BOT, LEARNER, Learner
    from train.jax.trainer import opponent_probs

    learner = Learner(config)
    probs = opponent_probs(config, config.opponents.mix, 0)
    params = network.init_params(jax.random.PRNGKey(0), [16])
    bots = BotRollout(learner, 0)
    batch = learner.start(jax.random.PRNGKey(5), probs)
    controllers = np.asarray(batch.controllers)
    _, record, _ = jax.device_get(bots.rollout(params, params["actor"], probs, batch, jax.random.PRNGKey(7)))
    first = record["game_end"].cumsum(axis=0) == 0  # each slot's first game, whose controllers we know
    who = controllers[np.arange(GAMES)[None, :], record["seat"]]
    assert np.array_equal(record["learner"][first], who[first] == LEARNER)
    assert (who[first] == BOT).any() and record["learner"][first].any()
