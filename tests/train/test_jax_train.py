"""The JAX backend end to end on a tiny budget: config -> checkpoints -> resume -> evaluation ->
exported policy (which ``ppo:`` plays with numpy); the per-seat advantages against a plain reference;
the seats' controllers; bad input is one line before anything is written."""

import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("jax", reason="JAX is not installed (pip install 'allfours[jax]')")
pytest_plugins = ["jax_setup"]

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from agents import policy_file  # noqa: E402
from allfours_env.hidden import HIDDEN_SIZE  # noqa: E402
from allfours_env.observation import OBS_SIZE  # noqa: E402
from evaluate.__main__ import main as evaluate_main  # noqa: E402
from train import load  # noqa: E402
from train.__main__ import main  # noqa: E402

# A pure-jit pool and a plain critic (the privileged one: below), whatever jax_quick.toml holds.
TINY = ["total_timesteps=160", "jax.num_envs=8", "jax.rollout_steps=8", "jax.minibatches=2", "ppo.n_epochs=1",
        "ppo.net_arch=[16]", "eval.every=80", "eval.games=2", "eval.final_games=2", "eval.workers=1",
        "opponents.snapshot_every=1", 'imitation.teacher=""', "opponents.mix={random=0.2,snapshot=0.3}",
        "ppo.privileged_critic=false", "average_since=0"]


@pytest.fixture(scope="module")
def jax_run(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("jax") / "run"
    assert main(["--backend", "jax", "--set", *TINY, "--out", str(out), "--no-progress"]) == 0
    return out


def checkpoints(out: Path) -> list[Path]:
    return sorted((out / "checkpoints").glob("step_*.npz"), key=lambda p: int(p.stem.split("_")[1]))


def test_tiny_jax_run_writes_checkpoints_resumes_and_evaluates(jax_run, tmp_path, capsys, monkeypatch):
    out = jax_run
    for name in ("config.json", "model.npz", "model.json", "eval.csv", "final_eval/table.md"):
        assert (out / name).is_file(), name
    saved = checkpoints(out)
    assert len(saved) == 2
    arrays, meta = policy_file.read(saved[0])
    assert meta["training"] == {"backend": "jax", "snapshots": meta["training"]["snapshots"]}
    assert meta["training"]["snapshots"] >= 1 and meta["timesteps"] >= 80 and meta["eval"]
    assert "value_net.weight" in arrays and "optimizer.mu.action_net.weight" in arrays
    assert any(name.startswith("pool.0.") for name in arrays)
    model = json.loads((out / "model.json").read_text())
    assert model["backend"] == "jax" and model["timesteps"] >= 160 and model["learner_steps_per_s"] > 0
    assert model["network"] == {"inputs": OBS_SIZE, "hidden": [16], "activation": "relu", "actions": 117}

    # resuming restores the learner and Adam state exactly: branch a run from the first checkpoint
    from train.jax.network import from_arrays, to_arrays

    params, opt = from_arrays(arrays, [16], saved[0])
    again = to_arrays(params, opt)
    assert all(np.array_equal(again[name], arrays[name]) for name in again)
    resumed = tmp_path / "resumed"
    capsys.readouterr()
    monkeypatch.setenv("ALLFOURS_PROGRESS_SECONDS", "0.01")  # progress lines, as into a log
    assert main(["--backend", "jax", "--set", "total_timesteps=240", "--out", str(resumed),
                 "--resume", str(saved[0])]) == 0
    assert json.loads((resumed / "model.json").read_text())["timesteps"] >= 240
    assert all(int(p.stem.split("_")[1]) > meta["timesteps"] for p in checkpoints(resumed))
    logged = capsys.readouterr()
    assert "training: " in logged.err + logged.out and "resuming from" in logged.out

    # the policy file is an agent like any other: evaluate plays it with numpy
    assert evaluate_main([f"ppo:{resumed / 'model.npz'}", "random", "--games", "10", "--no-save", "--quiet",
                          "--workers", "1"]) == 0
    assert f"ppo:{resumed / 'model.npz'}" in capsys.readouterr().out


def test_a_checkpoint_of_another_backend_is_refused(jax_run, tmp_path, capsys):
    code = main(["--resume", str(checkpoints(jax_run)[-1]), "--timesteps", "400", "--no-progress",
                 "--out", str(tmp_path / "sb3")])
    assert code == 2
    assert "--backend jax" in capsys.readouterr().err
    assert not (tmp_path / "sb3").exists()


@pytest.mark.parametrize(("setting", "named"), [
    ("opponents.mix={nobot=1}", "opponents.mix"),
    ('opponents.mix={"pimc:nosuch=1"=1}', "opponents.mix"),
    ("opponents.partner=heuristic", "opponents.partner"),
    ("jax.minibatches=3", "jax.minibatches"),
    ("jax.num_envs=0", "jax.num_envs"),
    ("jax.points_share=0.1", "jax.points_share"),  # with reward = "points": every point is paid already
    ("jax.points_share=-0.1", "jax.points_share"),
    ("jax.anneal_lr=1", "jax.anneal_lr"),
])
def test_bad_config_is_one_line_before_anything_is_written(setting, named, tmp_path, capsys):
    out = tmp_path / "run"
    assert main(["--backend", "jax", "--set", *TINY, setting, "--out", str(out), "--no-progress"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and named in err
    assert not out.exists()


@pytest.mark.slow  # a couple of minutes on 2 cores; tests/train/test_jax_bots.py checks the rollout itself
def test_a_tiny_run_with_heuristic_in_the_mix_trains_and_resumes(tmp_path):
    out = tmp_path / "run"
    mix = ["opponents.mix={heuristic=1,snapshot=1}", "jax.self_play=0"]
    assert main(["--backend", "jax", "--set", *TINY, *mix, "--out", str(out), "--no-progress"]) == 0
    saved = checkpoints(out)
    _, meta = policy_file.read(saved[0])
    assert meta["config"]["opponents"]["mix"] == {"heuristic": 1, "snapshot": 1}
    resumed = tmp_path / "resumed"
    assert main(["--backend", "jax", "--set", "total_timesteps=240", "--out", str(resumed), "--resume",
                 str(saved[0]), "--no-progress"]) == 0
    assert json.loads((resumed / "model.json").read_text())["timesteps"] >= 240


# ---------------------------------------------------------------- privileged critic

def test_a_tiny_privileged_critic_run_trains_resumes_and_writes_an_actor_only_policy(tmp_path, capsys):
    out = tmp_path / "run"
    assert main(["--backend", "jax", "--set", *TINY, "ppo.privileged_critic=true", "--out", str(out),
                 "--no-progress"]) == 0
    saved = checkpoints(out)
    arrays, meta = policy_file.read(saved[0])
    # the critic reads the observation and the hidden cards
    assert arrays["mlp_extractor.value_net.0.weight"].shape == (16, OBS_SIZE + HIDDEN_SIZE)
    assert arrays["optimizer.mu.mlp_extractor.value_net.0.weight"].shape == (16, OBS_SIZE + HIDDEN_SIZE)
    assert arrays["mlp_extractor.policy_net.0.weight"].shape == (16, OBS_SIZE)
    # the critic learned to use the hidden cards (their weights start at zero)
    assert np.abs(arrays["mlp_extractor.value_net.0.weight"][:, OBS_SIZE:]).max() > 0
    model = json.loads((out / "model.json").read_text())
    assert model["network"]["inputs"] == OBS_SIZE
    written, _ = policy_file.read(out / "model.npz")
    assert not any("value" in name for name in written)  # the policy file is the actor only

    resumed = tmp_path / "resumed"
    assert main(["--backend", "jax", "--set", "total_timesteps=240", "--out", str(resumed), "--resume",
                 str(saved[0]), "--no-progress"]) == 0
    assert json.loads((resumed / "model.json").read_text())["timesteps"] >= 240
    capsys.readouterr()
    assert evaluate_main([f"ppo:{resumed / 'model.npz'}", "random", "--games", "10", "--no-save", "--quiet",
                          "--workers", "1"]) == 0

    # a resume that asks for the other critic is refused in one line, before anything is written
    capsys.readouterr()
    other = tmp_path / "other"
    assert main(["--backend", "jax", "--set", "total_timesteps=240", "ppo.privileged_critic=false", "--out",
                 str(other), "--resume", str(saved[0]), "--no-progress"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "ppo.privileged_critic" in err
    assert not other.exists()


def test_the_critic_reads_the_hidden_cards_and_the_actor_does_not():
    """Changing the hidden cards of a decision changes the privileged critic's value, never the
    actor's logits; the critic is obs + hidden wide."""
    import jax
    import jax.numpy as jnp

    from train.jax import network
    from train.jax.ppo import Learner

    config = load("jax_quick", ["ppo.privileged_critic=true", "ppo.net_arch=[16]", "jax.num_envs=4"])
    learner = Learner(config)
    params = network.init_params(jax.random.PRNGKey(1), [16], privileged=True)
    weight, bias = params["critic"][0]
    assert weight.shape == (OBS_SIZE + HIDDEN_SIZE, 16) and not np.asarray(weight[OBS_SIZE:]).any()
    # as after training: weights on the hidden cards
    trained = jax.random.normal(jax.random.PRNGKey(2), (HIDDEN_SIZE, 16))
    params["critic"][0] = (weight.at[OBS_SIZE:].set(trained), bias)
    state = learner.start(jax.random.PRNGKey(3), jnp.asarray([1.0, 0.0, 0.0])).state
    seat = state.current_player
    hidden = learner.hidden(state, seat)
    assert hidden.shape == (4, HIDDEN_SIZE) and np.asarray(hidden).any()
    swapped = jnp.roll(hidden, 1, axis=0)  # another deal's hidden cards
    logits, value = learner.heads(params, state.observation, state.legal_action_mask, hidden)
    logits_2, value_2 = learner.heads(params, state.observation, state.legal_action_mask, swapped)
    np.testing.assert_array_equal(np.asarray(logits), np.asarray(logits_2))
    assert (np.abs(np.asarray(value) - np.asarray(value_2)) > 1e-3).all()


# ---------------------------------------------------------------- per-seat advantages

T, GAMES, PLAYERS = 9, 2, 3
GAMMA, LAMBDA = 0.9, 0.8


def reference_advantages(seat, rewards, end, value, bootstrap):
    """Per-seat GAE written the long way: each seat's decisions in order, the reward of a decision
    summed from it to the seat's next decision or the episode's end."""
    adv = np.zeros((T, GAMES))
    for game in range(GAMES):
        for s in range(PLAYERS):
            times = [t for t in range(T) if seat[t, game] == s]
            following_adv, following_value, going = 0.0, bootstrap[game, s], True
            for i in reversed(range(len(times))):
                t = times[i]
                stop = times[i + 1] if i + 1 < len(times) else T
                ends = [k for k in range(t, stop) if end[k, game]]
                last = ends[0] + 1 if ends else stop
                reward = rewards[t:last, game, s].sum()
                going = not ends
                if not going:
                    following_adv, following_value = 0.0, 0.0
                delta = reward + GAMMA * following_value * going - value[t, game]
                adv[t, game] = delta + GAMMA * LAMBDA * following_adv * going
                following_adv, following_value = adv[t, game], value[t, game]
    return adv


@pytest.fixture(scope="module")
def advantages():
    import jax

    from train.jax.ppo import Learner

    learner = Learner(load("jax_quick", [f"num_players={PLAYERS}", f"ppo.gamma={GAMMA}",
                                         f"ppo.gae_lambda={LAMBDA}"]))
    return jax.jit(learner.advantages)


small = st.floats(-2, 2, allow_nan=False, width=32)


@settings(max_examples=40, deadline=None)
@given(seat=st.lists(st.integers(0, PLAYERS - 1), min_size=T * GAMES, max_size=T * GAMES),
       rewards=st.lists(st.sampled_from([0.0, 0.0, 1.0, -1.0, 2.0]), min_size=T * GAMES * PLAYERS,
                        max_size=T * GAMES * PLAYERS),
       end=st.lists(st.booleans(), min_size=T * GAMES, max_size=T * GAMES),
       value=st.lists(small, min_size=T * GAMES, max_size=T * GAMES),
       bootstrap=st.lists(small, min_size=GAMES * PLAYERS, max_size=GAMES * PLAYERS))
def test_each_seat_gets_the_rewards_up_to_its_next_decision(advantages, seat, rewards, end, value, bootstrap):
    seat = np.array(seat, np.int32).reshape(T, GAMES)
    rewards = np.array(rewards, np.float32).reshape(T, GAMES, PLAYERS)
    end = np.array(end).reshape(T, GAMES)
    value = np.array(value, np.float32).reshape(T, GAMES)
    bootstrap = np.array(bootstrap, np.float32).reshape(GAMES, PLAYERS)
    record = {"seat": seat, "rewards": rewards, "end": end, "value": value}
    got = np.asarray(advantages(record, bootstrap))
    np.testing.assert_allclose(got, reference_advantages(seat, rewards, end, value, bootstrap), atol=1e-4)


def test_the_learner_plays_the_batched_core_with_the_configured_points_share():
    from train.jax.ppo import Learner

    spec = Learner(load("jax_quick", ["reward=win", "jax.points_share=0.1", "jax.num_envs=8"])).env.spec
    assert not spec.reward_points and spec.points_share == pytest.approx(0.1)
    assert Learner(load("jax_quick", ["jax.num_envs=8"])).env.spec.points_share == 0


def test_the_learner_holds_its_whole_side_and_the_mix_fills_the_rest():
    import jax
    import jax.numpy as jnp

    from train.jax.ppo import LEARNER, RANDOM, SNAPSHOT, Learner

    config = load("jax_quick", ["preset=trinidad", "num_players=4", "jax.num_envs=64"])
    learner = Learner(config)
    for probs, other in (([0.0, 1.0, 0.0], RANDOM), ([0.0, 0.0, 1.0], SNAPSHOT), ([1.0, 0.0, 0.0], LEARNER)):
        controllers = np.asarray(learner.draw(jax.random.PRNGKey(3), jnp.asarray(probs)))
        learning = controllers == LEARNER
        assert (learning[:, 0] == learning[:, 2]).all() and (learning[:, 1] == learning[:, 3]).all()
        assert learning[:, :2].any(axis=1).all()
        assert (controllers[~learning] == other).all()
        if other != LEARNER:
            assert learning[:, 0].any() and learning[:, 1].any() and not learning.all(axis=1).any()


@pytest.mark.parametrize("privileged", [False, True], ids=["critic", "privileged-critic"])
def test_an_sb3_policy_becomes_the_same_jax_learner(tmp_path, privileged):
    """An SB3 policy's state dict (the names of every backend's files) read as the JAX learner's
    parameters gives the same logits and values (the layer names and orientation match; a
    privileged critic reads the observation and the hidden cards, the actor the observation only)."""
    import jax.numpy as jnp
    from stable_baselines3.common.vec_env import DummyVecEnv

    from agents.policy import actor_from_sb3
    from train.envs import make_env
    from train.jax import network
    from train.model import new_model, policy_arrays

    config = load("jax_quick", ["ppo.net_arch=[24,16]", "ppo.activation=tanh",
                                f"ppo.privileged_critic={str(privileged).lower()}"])
    env = DummyVecEnv([make_env(config, 0)])
    model = new_model(config, env, tmp_path)
    env.close()
    params = network.params_from(policy_arrays(model), [24, 16], "the SB3 policy", privileged=privileged)
    width = network.critic_inputs(privileged)
    full = np.random.default_rng(0).random((5, width), dtype=np.float32)
    obs = full[:, :OBS_SIZE]
    logits = np.asarray(network.mlp(params["actor"], jnp.asarray(obs), "tanh"))
    np.testing.assert_allclose(logits, actor_from_sb3(model.policy).logits(obs), rtol=1e-4, atol=1e-5)
    import torch

    with torch.no_grad():
        values = model.policy.predict_values(torch.as_tensor(full)).numpy()[:, 0]
    np.testing.assert_allclose(np.asarray(network.mlp(params["critic"], jnp.asarray(full), "tanh"))[:, 0],
                               values, rtol=1e-4, atol=1e-5)


def test_the_snapshot_weight_waits_for_the_first_snapshot():
    from train.jax.trainer import opponent_probs

    config = load("jax_quick", ["jax.self_play=2", "opponents.mix={random=1,snapshot=1}"])
    np.testing.assert_allclose(opponent_probs(config, config.opponents.mix, 0), [2 / 3, 1 / 3, 0])
    np.testing.assert_allclose(opponent_probs(config, config.opponents.mix, 1), [0.5, 0.25, 0.25])
    alone = load("jax_quick", ["jax.self_play=0", "opponents.mix={snapshot=1}"])
    np.testing.assert_allclose(opponent_probs(alone, alone.opponents.mix, 0), [0, 1, 0])


def update_data(learner_rows: np.ndarray, seed: int = 0) -> dict:
    """A flattened rollout of random decisions of seven_up 2p for :meth:`Learner.update`, the rows
    in ``learner_rows`` the learner's."""
    rng = np.random.default_rng(seed)
    size = len(learner_rows)
    mask = rng.random((size, 117)) < 0.3
    mask[:, 0] = True
    return {"obs": (rng.random((size, OBS_SIZE)) < 0.1).astype(np.float32), "mask": mask,
            "action": np.zeros(size, np.int32), "logp": np.full(size, -1.0, np.float32),
            "learner": learner_rows, "adv": rng.normal(size=size).astype(np.float32),
            "returns": rng.normal(size=size).astype(np.float32)}


def test_an_update_steps_only_over_minibatches_of_the_learners_decisions():
    """The learner's decisions fill the first minibatches of each epoch; those left without one are
    skipped (no Adam step), and what the opponents' rows hold changes nothing."""
    import jax
    import jax.numpy as jnp

    from train.jax import network
    from train.jax.ppo import Learner

    config = load("jax_quick", ["jax.num_envs=8", "jax.rollout_steps=8", "jax.minibatches=4",
                                "ppo.n_epochs=3", "ppo.net_arch=[16]", "ppo.privileged_critic=false"])
    learner = Learner(config)
    params = network.init_params(jax.random.PRNGKey(0), [16], False)
    update = jax.jit(learner.update)
    learner_rows = np.zeros(64, bool)
    learner_rows[np.random.default_rng(1).choice(64, 20, replace=False)] = True  # 2 of 4 minibatches of 16
    data = update_data(learner_rows)
    rate = np.float32(3e-4)
    new, opt, metrics = update(params, network.adam_init(params), data, jax.random.PRNGKey(2), rate)
    assert int(opt["count"]) == 3 * 2
    assert np.isfinite(float(metrics["train/value_loss"])) and float(metrics["train/value_loss"]) > 0
    other = update_data(learner_rows, seed=5)
    moved = {k: np.where(learner_rows.reshape((-1,) + (1,) * (v.ndim - 1)), v, other[k])
             for k, v in data.items()}
    again, _, _ = update(params, network.adam_init(params), moved, jax.random.PRNGKey(2), rate)
    for a, b in zip(jax.tree.leaves(new), jax.tree.leaves(again), strict=True):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-6, atol=1e-7)
    idle, opt, _ = update(params, network.adam_init(params), update_data(np.zeros(64, bool)),
                          jax.random.PRNGKey(2), rate)
    assert int(opt["count"]) == 0
    for a, b in zip(jax.tree.leaves(params), jax.tree.leaves(idle), strict=True):
        assert jnp.array_equal(a, b)


# ---------------------------------------------------------------- learning rate

def test_an_annealed_learning_rate_falls_linearly_to_zero_at_the_budget():
    from train.jax.settings import learning_rate_at

    assert [learning_rate_at(1e-3, s, 1000, False) for s in (0, 500, 1000)] == [1e-3] * 3
    annealed = [learning_rate_at(1e-3, s, 1000, True) for s in (0, 250, 500, 1000, 1200)]
    np.testing.assert_allclose(annealed, [1e-3, 7.5e-4, 5e-4, 0.0, 0.0])


def test_the_update_steps_by_the_learning_rate_it_is_given():
    """The same data and key: a rate of 0 leaves the network as it was, twice the rate moves the first
    Adam step twice as far (Adam's step does not depend on the gradients' scale)."""
    import jax

    from train.jax import network
    from train.jax.ppo import Learner

    config = load("jax_quick", ["jax.num_envs=8", "jax.rollout_steps=8", "jax.minibatches=1",
                                "ppo.n_epochs=1", "ppo.net_arch=[16]", "ppo.privileged_critic=false"])
    update = jax.jit(Learner(config).update)
    params = network.init_params(jax.random.PRNGKey(0), [16], False)
    data = update_data(np.ones(64, bool))
    moves = []
    for rate in (0.0, 1e-4, 2e-4):
        new, _, _ = update(params, network.adam_init(params), data, jax.random.PRNGKey(2), np.float32(rate))
        moves.append(np.concatenate([np.ravel(np.asarray(a) - np.asarray(b)) for a, b in
                                     zip(jax.tree.leaves(new), jax.tree.leaves(params), strict=True)]))
    assert not moves[0].any() and moves[1].any()
    np.testing.assert_allclose(moves[2], 2 * moves[1], rtol=1e-3, atol=1e-7)  # steps ~1e-4, float32 weights


def test_an_annealed_run_logs_a_falling_learning_rate(tmp_path):
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    out = tmp_path / "run"
    assert main(["--backend", "jax", "--set", *TINY, "jax.anneal_lr=true", "ppo.learning_rate=1e-3",
                 "--out", str(out), "--no-progress"]) == 0
    events = EventAccumulator(str(out / "tb" / "jax"))
    events.Reload()
    logged = [(e.step, e.value) for e in events.Scalars("train/learning_rate")]
    assert logged[0] == (0, pytest.approx(1e-3))
    for step, value in logged:
        assert value == pytest.approx(1e-3 * (1 - step / 160), abs=1e-9)
    assert [v for _, v in logged] == sorted((v for _, v in logged), reverse=True) and logged[-1][1] < 1e-3
