"""Python bots in the JAX backend's opponent pool (train/jax/bots.py): a few rollouts of seven_up 2p
against ``heuristic``, replayed decision by decision in the reference AEC env — the bot seats'
actions are the heuristic's, the learner's decisions and rewards are the reference game's — and the
same seed gives the same run."""

import numpy as np
import pytest

pytest.importorskip("jax", reason="JAX is not installed (pip install 'allfours[jax]')")
pytest_plugins = ["jax_setup"]

from agents.heuristic import HeuristicAgent  # noqa: E402
from allfours_env.aec import raw_env  # noqa: E402
from allfours_env.knowledge import SeatView  # noqa: E402
from train import load  # noqa: E402

GAMES, STEPS = 4, 40
SETTINGS = [f"jax.num_envs={GAMES}", f"jax.rollout_steps={STEPS}", "jax.minibatches=2", "ppo.n_epochs=1",
            "ppo.net_arch=[16]", "jax.self_play=0", "opponents.mix={heuristic=1}", 'imitation.teacher=""',
            "ppo.privileged_critic=false"]


@pytest.fixture(scope="module")
def learner():
    from train.jax.ppo import Learner

    return Learner(load("jax_quick", SETTINGS))


def make_run(learner, seed: int = 0):
    """A bot rollout of ``learner`` seeded ``seed``, a new network and the opponent weights."""
    import jax

    from train.jax import network
    from train.jax.bots import BotRollout
    from train.jax.trainer import opponent_probs

    config = load("jax_quick", SETTINGS)
    params = network.init_params(jax.random.PRNGKey(seed), [16])
    probs = opponent_probs(config, config.opponents.mix, 0)
    return BotRollout(learner, seed), params, probs


@pytest.fixture(scope="module")
def rollouts(learner):
    """Two rollouts in a row, with every mirror game the bot rollout made (in order, per slot)."""
    import jax

    bots, params, probs = make_run(learner)
    started: dict[int, list] = {g: [] for g in range(GAMES)}
    start_game = bots.start_game

    def spy(g, batch, host, rng):
        start_game(g, batch, host, rng)
        started[g].append(bots.mirrors[g])

    bots.start_game = spy
    batch = learner.start(jax.random.PRNGKey(5), probs)
    records = []
    for i in range(2):
        batch, record, _ = bots.rollout(params, params["actor"], probs, batch, jax.random.PRNGKey(10 + i))
        records.append(jax.device_get(record))
    record = {k: np.concatenate([r[k] for r in records]) for k in records[0]}
    return learner, params, record, started


def test_the_bot_seats_play_the_heuristic_and_the_learner_plays_the_reference_game(rollouts):
    from train.jax.network import mlp

    learner, params, record, started = rollouts
    rules = learner.env.rules
    heuristic = HeuristicAgent()
    bot_decisions = ends = 0
    for g in range(GAMES):
        games = iter(started[g])
        env = None
        for t in range(len(record["seat"])):
            if env is None:
                mirror = next(games)
                assert mirror is not None  # every game has a heuristic seat
                env = raw_env(rules.preset, rules.num_players, reward="points")
                env.reset(options={"decks": mirror.decks, "dealer": mirror.first_dealer})
            agent = env.agent_selection
            seat = env.possible_agents.index(agent)
            seen = env.observe(agent)
            assert seat == record["seat"][t, g]
            np.testing.assert_array_equal(seen["observation"], record["obs"][t, g])
            np.testing.assert_array_equal(seen["action_mask"].astype(bool), record["mask"][t, g])
            action = int(record["action"][t, g])
            assert seen["action_mask"][action]
            if record["learner"][t, g]:  # the learner's action, and its log-probability under the actor
                logits = np.asarray(mlp(params["actor"], record["obs"][t, g], "relu"))
                logits = np.where(seen["action_mask"].astype(bool), logits, -np.inf)
                logp = logits[action] - np.log(np.exp(logits - logits.max()).sum()) - logits.max()
                assert abs(logp - record["logp"][t, g]) < 1e-4
            else:
                assert action == heuristic.act(None, SeatView(env.game, seat))
                bot_decisions += 1
            env.step(action)
            paid = [env.rewards[a] for a in env.possible_agents]
            np.testing.assert_allclose(paid, record["rewards"][t, g], atol=1e-6)
            assert bool(env.terminations[env.agent_selection]) == bool(record["game_end"][t, g])
            if record["game_end"][t, g]:
                env, ends = None, ends + 1
        # the learner holds one seat through each game, the heuristic the other
        learner_seats = record["learner_seats"][:, g]
        assert (learner_seats.sum(axis=1) == 1).all()
    assert bot_decisions > 0.3 * record["seat"].size and ends >= 1


def test_the_same_seed_gives_the_same_run(learner):
    import jax

    from train.jax import network

    outcomes = []
    for _ in range(2):
        bots, params, probs = make_run(learner, seed=3)
        opt = network.adam_init(params)
        batch = learner.start(jax.random.PRNGKey(7), probs)
        for i in range(2):
            params, opt, batch, metrics = bots.iterate(params, opt, params["actor"], probs, batch,
                                                       jax.random.PRNGKey(i), np.float32(1e-3))
        outcomes.append((jax.device_get(params), metrics, np.asarray(batch.state.observation)))
    (params_a, metrics_a, obs_a), (params_b, metrics_b, obs_b) = outcomes
    assert jax.tree.all(jax.tree.map(np.array_equal, params_a, params_b))
    assert metrics_a == metrics_b and metrics_a["learner_steps"] > 0
    np.testing.assert_array_equal(obs_a, obs_b)
