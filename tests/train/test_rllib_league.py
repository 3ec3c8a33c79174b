"""The RLlib backend's league without Ray running: who a seat is drawn to be, the env creator, and
snapshot updates reaching every env runner (a restarted one gets the whole state again)."""

from types import SimpleNamespace

import numpy as np
import pytest

pytest.importorskip("ray.rllib", reason="Ray RLlib is not installed (pip install 'allfours[rllib]')")

from agents.heuristic import HeuristicAgent  # noqa: E402
from agents.policy import NumpyActor, SnapshotAgent  # noqa: E402
from allfours_env.observation import OBS_SIZE  # noqa: E402
from train.rllib.league import League, LeaguePool, make_env  # noqa: E402


def actor(seed: int) -> NumpyActor:
    rng = np.random.default_rng(seed)
    layers = [(rng.normal(size=(OBS_SIZE, 4)), np.zeros(4)), (rng.normal(size=(4, 117)), np.zeros(117))]
    return NumpyActor(layers, "relu")


def test_self_play_weight_leaves_its_share_of_seats_to_rllib():
    rng = np.random.default_rng(0)
    pool = LeaguePool({"random": 1.0, "snapshot": 1.0}, pool_size=2, self_play=1.0)
    # no snapshot yet: the learner itself and random share the seats half and half
    draws = [pool.sample(rng) for _ in range(2000)]
    assert 0.45 < sum(d is None for d in draws) / len(draws) < 0.55
    pool.add_snapshot(actor(0))
    draws = [pool.sample(rng) for _ in range(3000)]
    assert 0.30 < sum(d is None for d in draws) / len(draws) < 0.37
    assert any(isinstance(d, SnapshotAgent) for d in draws)
    assert all(d is not None for d in (LeaguePool({"random": 1.0}, 2).sample(rng) for _ in range(200)))


def test_env_creator_builds_the_league_and_the_partner():
    config = {"preset": "trinidad", "num_players": 4, "episode": "hand",
              "league": {"mix": {"random": 1.0}, "pool_size": 3, "self_play": 0.0, "partner": "heuristic",
                         "seed": 0}}
    env = make_env(config)
    assert isinstance(env.opponents, LeaguePool) and isinstance(env.partner, HeuristicAgent)
    observations, _ = env.reset(seed=1)
    assert len(env.agents) == 1 and set(observations) <= set(env.agents)


def fake_algo(runners):
    """An object with what League uses of an RLlib algorithm: its env runner group."""
    def foreach_env_runner(func, local_env_runner=True):
        return [func(runner) for runner in runners]

    return SimpleNamespace(env_runner_group=SimpleNamespace(foreach_env_runner=foreach_env_runner))


def runner(pools=2):
    envs = [SimpleNamespace(unwrapped=SimpleNamespace(opponents=LeaguePool({"random": 1.0}, 2)))
            for _ in range(pools)]
    return SimpleNamespace(env=SimpleNamespace(envs=envs))


def pools_of(runner_):
    return [env.unwrapped.opponents for env in runner_.env.envs]


def test_snapshots_and_mix_reach_every_runner_and_a_restarted_one_catches_up():
    runners = [runner(), runner(), SimpleNamespace(env=None)]  # the driver's runner holds no env
    algo = fake_algo(runners)
    league = League({"random": 1.0}, pool_size=2)
    league.sync(algo)
    for k in range(3):
        league.update(algo, snapshot=actor(k))
    league.update(algo, mix={"random": 0.5, "snapshot": 0.5})
    for pool in pools_of(runners[0]) + pools_of(runners[1]):
        assert len(pool.snapshots) == 2 and pool.pool.mix == {"random": 0.5, "snapshot": 0.5}
        assert pool.version == league.version
    runners[1] = runner()  # restarted after a failure: an empty league at version 0
    algo = fake_algo(runners)
    league.update(algo, snapshot=actor(9))
    for pool in pools_of(runners[0]) + pools_of(runners[1]):
        assert [a.layers[0][0][0, 0] for a in pool.snapshots] == \
            [a.layers[0][0][0, 0] for a in league.snapshots]
        assert pool.pool.mix == league.mix and pool.version == league.version
