"""Policy files: the shipped policy in the pickle-free format plays exactly as the Stable-Baselines3
file it was converted from; files are checked before use; a policy meets another game with a
warning; old files convert only with --trust."""

from __future__ import annotations

import json
import os
import pickle
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from agents import AgentError, make_agent
from agents.policy import NumpyActor, fit_warning, load_policy, save_policy, warn_unfit
from agents.policy_file import OBS_LAYOUT, read_metadata
from allfours_env import Rules
from allfours_env.observation import OBS_SIZE

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = ROOT / "agents" / "policies" / "seven_up_2p.npz"
#: The MaskablePPO seven_up policy converted from its Stable-Baselines3 zip, and the actions and logits
#: recorded from the zip before the conversion.
CONVERTED = ROOT / "tests" / "golden" / "seven_up_2p_sb3.npz"
GOLDEN = ROOT / "tests" / "golden" / "shipped_policy_actions.npz"
SEVEN_UP_2P = {"preset": "seven_up", "num_players": 2, "knobs": {}}


def small_actor(inputs: int = OBS_SIZE, seed: int = 0) -> NumpyActor:
    rng = np.random.default_rng(seed)
    return NumpyActor([(rng.normal(size=(inputs, 8)), rng.normal(size=8)),
                       (rng.normal(size=(8, 117)), rng.normal(size=117))], "relu")


#: How far a logit may move with the CPU's float kernels (BLAS, SIMD): measured differences between
#: machines are ~1e-8 on logits of magnitude up to ~70; a wrong weight moves them by far more.
LOGIT_TOLERANCE = {"rtol": 1e-5, "atol": 1e-4}


def logits_match(actor: NumpyActor, observations: np.ndarray, expected: np.ndarray) -> bool:
    """Whether ``actor`` gives ``expected`` logits on every observation, within LOGIT_TOLERANCE."""
    return all(np.allclose(actor.logits(o), e, **LOGIT_TOLERANCE) for o, e in zip(observations, expected))


def test_the_converted_policy_gives_the_recorded_actions_and_logits():
    """tests/golden was recorded from the Stable-Baselines3 zip before the conversion. Logits are
    compared within a tolerance (another CPU rounds the last bits differently), chosen actions
    exactly: every recorded action leads the next legal logit by far more than the tolerance."""
    with np.load(GOLDEN, allow_pickle=False) as golden:
        observations, masks = golden["observations"], golden["masks"]
        actions, logits = golden["actions"], golden["logits"]
    agent = make_agent(f"ppo:{CONVERTED}")
    assert logits_match(agent.actor, observations, logits)
    for observation, mask, action, expected in zip(observations, masks, actions, logits):
        legal = np.sort(expected[mask.astype(bool)])
        assert len(legal) == 1 or legal[-1] - legal[-2] > 10 * LOGIT_TOLERANCE["atol"]
        assert agent.act({"observation": observation, "action_mask": mask}, None) == action
    assert agent.trained_for == SEVEN_UP_2P
    assert agent.metadata["evaluation"]["random"]["win_rate"] == 0.802


def test_the_logit_tolerance_allows_other_rounding_and_catches_one_wrong_weight():
    """The golden comparison passes logits rounded differently in their last bits and fails when a
    single weight of the converted network is off by 1%."""
    with np.load(GOLDEN, allow_pickle=False) as golden:
        observations, logits = golden["observations"], golden["logits"]
    actor = make_agent(f"ppo:{CONVERTED}").actor
    rounded_elsewhere = np.nextafter(np.nextafter(logits, np.inf), np.inf)  # two ulps up, as another CPU
    assert logits_match(actor, observations, rounded_elsewhere)
    weight, _ = actor.layers[-1]
    row, column = np.unravel_index(np.argmax(np.abs(weight)), weight.shape)
    weight[row, column] *= 1.01
    assert not logits_match(actor, observations, logits)


def test_a_policy_loads_and_plays_without_torch():
    code = ("import sys; sys.modules['torch'] = None\n"
            "from agents import make_agent\nfrom agents.arena import play_game\n"
            "from allfours_env import Rules\n"
            f"bots = [make_agent('ppo:{SHIPPED}'), make_agent('random')]\n"
            "print(play_game(Rules.make(), bots, seed=0).winner is not None)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert done.returncode == 0 and done.stdout.strip() == "True", done.stderr


def test_the_actor_reads_only_its_own_inputs_so_a_longer_observation_still_works(tmp_path):
    path = save_policy(tmp_path / "p.npz", small_actor(inputs=700), SEVEN_UP_2P)
    actor, meta = load_policy(path)
    assert meta["network"]["inputs"] == 700 and meta["observation_layout"] == OBS_LAYOUT
    observation = np.random.default_rng(1).random(OBS_SIZE + 20, dtype=np.float32)
    np.testing.assert_allclose(actor.logits(observation), actor.logits(observation[:700]), **LOGIT_TOLERANCE)


def test_a_policy_file_round_trips_and_its_metadata_is_kept(tmp_path):
    actor = small_actor()
    path = save_policy(tmp_path / "p.npz", actor, SEVEN_UP_2P, description="mine", timesteps=5)
    loaded, meta = load_policy(path)
    assert meta["description"] == "mine" and meta["timesteps"] == 5
    for (w1, b1), (w2, b2) in zip(actor.layers, loaded.layers):
        assert np.array_equal(w1, w2) and np.array_equal(b1, b2)


def _broken(path: Path, change) -> Path:
    meta = json.loads(path.with_suffix(".json").read_text())
    change(meta)
    path.with_suffix(".json").write_text(json.dumps(meta))
    return path


@pytest.mark.parametrize("change, message", [
    (lambda m: m.update(format="other"), "not the metadata of an allfours policy"),
    (lambda m: m.update(version=2), "format version 2"),
    (lambda m: m.update(observation_layout=OBS_LAYOUT + 1), "observation layout"),
    (lambda m: m["network"].update(inputs=OBS_SIZE + 1), "upgrade allfours"),
    (lambda m: m["network"].update(hidden=[9]), "has shape"),
    (lambda m: m["network"].update(activation="gelu"), "activation"),
    (lambda m: m["network"].update(actions=100), "actions"),
    (lambda m: m.pop("trained_for"), "trained_for"),
    (lambda m: m["trained_for"].update(num_players="two"), "trained_for"),
    # a game that does not exist: the header is corrupt (it used to load with a warning)
    (lambda m: m["trained_for"].update(preset="nonexistent"), "corrupt header.*unknown preset 'nonexistent'"),
    (lambda m: m["trained_for"].update(num_players=99), "corrupt header.*not 99"),
    (lambda m: m["trained_for"].update(knobs={"bogus": 1}), "corrupt header.*unknown knob 'bogus'"),
    (lambda m: m["trained_for"].update(knobs={"target_points": [1]}), "corrupt header.*target_points"),
])
def test_metadata_that_does_not_fit_this_version_is_refused(tmp_path, change, message):
    path = _broken(save_policy(tmp_path / "p.npz", small_actor(), SEVEN_UP_2P), change)
    with pytest.raises(AgentError, match=message):
        make_agent(f"ppo:{path}")


def test_weights_that_are_missing_damaged_or_not_floats_are_refused(tmp_path):
    good = small_actor().to_arrays()
    cases = [({k: v for k, v in good.items() if k != "action_net.bias"}, "lacks the array 'action_net.bias'"),
             ({**good, "action_net.bias": np.full(117, np.nan, np.float32)}, "NaN"),
             ({**good, "action_net.bias": np.zeros(117, np.int64)}, "not a float type")]
    for arrays, message in cases:
        path = tmp_path / "p.npz"
        np.savez(path, **arrays)
        network = {"inputs": OBS_SIZE, "hidden": [8], "activation": "relu", "actions": 117}
        meta = json.loads(SHIPPED.with_suffix(".json").read_text()) | {"network": network}
        path.with_suffix(".json").write_text(json.dumps(meta))
        with pytest.raises(AgentError, match=message):
            make_agent(f"ppo:{path}")
    path.with_suffix(".json").unlink()
    with pytest.raises(AgentError, match="no metadata file p.json"):
        read_metadata(path)


def test_a_policy_trained_for_another_game_gets_a_one_line_warning(tmp_path, capsys):
    shipped = make_agent(f"ppo:{SHIPPED}")
    assert fit_warning(shipped, Rules.make("seven_up", 2)) is None
    assert fit_warning(make_agent("heuristic"), Rules.make("trinidad", 4)) is None
    for rules, wanted in [(Rules.make("trinidad", 4), "not trinidad with 4 players"),
                          (Rules.make("all_fours", 2), "not all_fours with 2 players"),
                          (Rules.make("seven_up", 3), "not seven_up with 3 players"),
                          (Rules.make("seven_up", 2, target_points=11), "target_points=11")]:
        warning = fit_warning(shipped, rules)
        assert "trained for seven_up with 2 players" in warning and wanted in warning
        assert "\n" not in warning
    three = save_policy(tmp_path / "p3.npz", small_actor(), {**SEVEN_UP_2P, "num_players": 3})
    assert "not seven_up with 2 players" in fit_warning(make_agent(f"ppo:{three}"), Rules.make("seven_up", 2))
    assert warn_unfit([shipped, make_agent("random")], Rules.make("trinidad", 4)) == [
        fit_warning(shipped, Rules.make("trinidad", 4))]
    assert capsys.readouterr().err.count("\n") == 1
    split = make_agent(f"split:bid=ppo:{SHIPPED},play=heuristic")
    assert warn_unfit([split], Rules.make("seven_up", 3)) == [fit_warning(shipped, Rules.make("seven_up", 3))]


def test_the_tournament_and_the_trainer_warn_when_a_policy_meets_another_game(capsys):
    from evaluate import run_tournament
    from train import load
    from train.runs import check_agents

    run_tournament([f"ppo:{SHIPPED}", "random"], preset="trinidad", players=4, games=2)
    err = capsys.readouterr().err
    assert err.count("was trained for seven_up with 2 players, not trinidad with 4 players") == 1
    check_agents(load(None, ["num_players=3", f"eval.opponents=['ppo:{SHIPPED}']"]))
    assert "not seven_up with 3 players" in capsys.readouterr().err


def test_an_old_pickled_snapshot_names_torch_activations():
    actor = NumpyActor.__new__(NumpyActor)
    actor.__setstate__({"layers": small_actor().layers, "activation": "ReLU"})
    assert actor.activation == "relu"


@pytest.fixture
def old_run(tmp_path):
    """A run in the old format: an SB3 checkpoint zip with its JSON and pickled pool, and model.zip."""
    from agents.policy import actor_from_sb3
    from train import load
    from train.envs import make_vec_env
    from train.model import new_model
    from train.selfplay import OpponentPool

    run = tmp_path / "old_run"
    config = load(None, ["total_timesteps=512", "n_envs=1", "ppo.n_steps=256", "ppo.batch_size=64",
                         "ppo.n_epochs=1", "ppo.net_arch=[16]", "eval.games=2", "eval.final_games=2",
                         "eval.workers=1", "eval.every=256", "opponents.mix={random=1}",
                         "imitation.teacher=''", f"out='{run}'"])
    env = make_vec_env(config)
    try:
        model = new_model(config, env, run)
        model.learn(256)
    finally:
        env.close()
    (run / "checkpoints").mkdir(parents=True)
    model.save(run / "checkpoints" / "step_256.zip")
    model.save(run / "model.zip")
    meta = {"config": config.to_dict(), "seed": 0, "timesteps": 256, "eval": []}
    for name in ("checkpoints/step_256.json", "model.json", "config.json"):
        (run / name).write_text(json.dumps(meta["config"] if name == "config.json" else meta))
    pool = OpponentPool({"random": 1})
    pool.add_snapshot(actor_from_sb3(model.policy))
    (run / "checkpoints" / "step_256.pool.pkl").write_bytes(pickle.dumps([pool]))
    return run, model


def test_trusted_conversion_of_an_old_model_and_run_gives_the_same_network_and_resumes(
        old_run, tmp_path, capsys):
    from agents.policy import actor_from_sb3
    from train.__main__ import main as train_main
    from train.checkpoints import read_checkpoint, snapshots_from
    from train.convert import main as convert_main
    from train.model import policy_arrays

    run, model = old_run
    assert convert_main([str(run / "model.zip"), "--out", str(tmp_path / "m.npz")]) == 2
    assert "--trust" in capsys.readouterr().err and not (tmp_path / "m.npz").exists()
    assert convert_main([str(run / "model.zip"), "--trust", "--out", str(tmp_path / "m.npz")]) == 0
    agent = make_agent(f"ppo:{tmp_path / 'm.npz'}")
    observation = np.random.default_rng(2).random(OBS_SIZE, dtype=np.float32)
    expected = actor_from_sb3(model.policy).logits(observation)
    np.testing.assert_allclose(agent.actor.logits(observation), expected, **LOGIT_TOLERANCE)
    assert agent.trained_for == SEVEN_UP_2P and "converted_from" in agent.metadata
    assert convert_main([str(run / "model.zip"), "--trust", "--out", str(tmp_path / "m.npz")]) == 2
    assert "already exists" in capsys.readouterr().err
    old_json = (run / "model.json").read_bytes()
    assert convert_main([str(run / "model.zip"), "--trust"]) == 0  # as the help's first example
    assert f"into {run / 'model-converted.npz'}" in capsys.readouterr().out
    assert make_agent(f"ppo:{run / 'model-converted.npz'}").trained_for == SEVEN_UP_2P
    assert (run / "model.json").read_bytes() == old_json

    new = tmp_path / "new_run"
    assert convert_main([str(run), "--trust", "--out", str(new)]) == 0
    checkpoint = read_checkpoint(new / "checkpoints" / "step_256.npz")
    for name, array in policy_arrays(model).items():
        np.testing.assert_array_equal(checkpoint.arrays[name], array)
    assert any(name.startswith("optimizer.") for name in checkpoint.arrays)
    assert len(snapshots_from(checkpoint)) == 1
    assert (new / "model.npz").is_file() and (new / "config.json").is_file()
    assert train_main(["--resume", str(new), "--no-progress"]) == 0
    assert json.loads((new / "model.json").read_text())["timesteps"] == 512


def test_an_interrupted_write_leaves_no_file_under_either_name(tmp_path, monkeypatch):
    from agents import policy_file

    def interrupted(handle, **arrays):
        handle.write(b"PK half a file")
        raise KeyboardInterrupt

    monkeypatch.setattr(policy_file.np, "savez", interrupted)
    with pytest.raises(KeyboardInterrupt):
        save_policy(tmp_path / "p.npz", small_actor(), SEVEN_UP_2P)
    assert list(tmp_path.iterdir()) == []
    monkeypatch.undo()
    path = save_policy(tmp_path / "p.npz", small_actor(), SEVEN_UP_2P)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["p.json", "p.npz"]
    assert load_policy(path)[1]["trained_for"] == SEVEN_UP_2P
