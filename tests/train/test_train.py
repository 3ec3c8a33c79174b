"""Training end to end on a tiny budget: config -> checkpoints -> evaluation -> files; resume and
branch; checkpoint averaging; imitation; every config value checked with one clear line."""

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from agents import AgentError, make_agent
from allfours_env.observation import OBS_SIZE
from train import ConfigError, load
from train.__main__ import main
from train.config import RULES, flatten

TINY = ["total_timesteps=1024", "n_envs=1", "ppo.n_steps=256", "ppo.batch_size=64", "ppo.n_epochs=1",
        "ppo.net_arch=[32]", "eval.every=512", "eval.games=4", "eval.final_games=4", "eval.workers=1",
        "opponents.snapshot_every=1", "opponents.mix={random=0.5,snapshot=0.5}",
        "imitation.games=20", "imitation.epochs=1", "imitation.workers=1"]  # quick.toml's warm start, shrunk


def npz(path):
    with np.load(path, allow_pickle=False) as stored:
        return {name: stored[name] for name in stored.files}


def files_of(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` with its bytes (to show that nothing changed)."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    out = tmp_path_factory.mktemp("run")
    assert main(["--set", *TINY, "--out", str(out), "--no-progress"]) == 0
    return out


def test_tiny_training_writes_model_checkpoints_logs_and_evaluation(trained):
    out = trained
    for name in ("config.json", "model.npz", "model.json", "eval.csv", "learning_curve.png",
                 "final_eval/table.md", "final_eval/results.json", "final_eval/results.png"):
        assert (out / name).is_file(), name
    assert not [p for p in out.rglob("*") if p.suffix in (".zip", ".pkl", ".pth", ".pt")]  # no pickles
    checkpoints = sorted((out / "checkpoints").glob("step_*.npz"))
    assert [p.stem for p in checkpoints] == ["step_1024", "step_512"]
    meta = json.loads((out / "checkpoints" / "step_512.json").read_text())
    assert meta["config"]["total_timesteps"] == 1024 and meta["seed"] == 0 and meta["kind"] == "checkpoint"
    assert meta["trained_for"] == {"preset": "seven_up", "num_players": 2, "knobs": {}}
    arrays = npz(out / "checkpoints" / "step_512.npz")
    assert {"mlp_extractor.value_net.0.weight", "optimizer.0.exp_avg", "pool.0.action_net.weight"} <= set(
        arrays)
    snapshots = {name.split(".")[1] for name in arrays if name.startswith("pool.")}
    assert meta["training"]["snapshots"] == len(snapshots) > 0
    assert list((out / "tb").iterdir())
    final = json.loads((out / "model.json").read_text())
    assert set(final["final_eval"]) == {"random", "heuristic"}
    assert final["learner_steps_per_s"] > 0
    assert final["network"] == {"inputs": OBS_SIZE, "hidden": [32], "activation": "relu", "actions": 117}
    agent = make_agent(f"ppo:{out / 'model.npz'}", seed=0)
    assert agent.metadata["timesteps"] == 1024
    checkpoint_agent = make_agent(f"ppo:{out / 'checkpoints' / 'step_1024.npz'}", seed=0)  # plays too
    weight, bias = checkpoint_agent.actor.layers[-1]
    last = npz(out / "checkpoints" / "step_1024.npz")
    assert np.array_equal(weight.T, last["action_net.weight"])
    assert np.array_equal(bias, last["action_net.bias"])


def test_resume_continues_the_run_in_its_own_folder_from_its_own_config(trained, tmp_path):
    run = tmp_path / "run"
    shutil.copytree(trained, run)
    before = json.loads((run / "config.json").read_text())
    assert main(["--resume", str(run), "--timesteps", "1536", "--no-progress"]) == 0
    names = sorted(p.stem for p in (run / "checkpoints").glob("*.npz"))
    assert names == ["step_1024", "step_1536", "step_512"]
    config = json.loads((run / "config.json").read_text())
    assert config == {**before, "total_timesteps": 1536, "out": str(run)}  # its own settings, more steps
    assert json.loads((run / "model.json").read_text())["timesteps"] == 1536
    steps = [int(line.split(",")[0]) for line in (run / "eval.csv").read_text().splitlines()[1:]]
    assert steps == [512, 512, 1024, 1024, 1536, 1536]


def test_resume_is_deterministic_and_branches_into_a_new_folder(trained, tmp_path):
    checkpoint = trained / "checkpoints" / "step_512.npz"
    for name in ("a", "b"):
        assert main(["--resume", str(checkpoint), "--out", str(tmp_path / name), "--no-progress"]) == 0
    a, b = npz(tmp_path / "a" / "model.npz"), npz(tmp_path / "b" / "model.npz")
    assert all(np.array_equal(a[name], b[name]) for name in a)
    assert json.loads((tmp_path / "a" / "model.json").read_text())["timesteps"] == 1024
    assert not (tmp_path / "a" / "checkpoints" / "step_512.npz").exists()  # only the branch's own


def test_resuming_an_older_checkpoint_in_place_would_overwrite_later_ones_and_is_refused(trained, capsys):
    before = files_of(trained)
    assert main(["--resume", str(trained / "checkpoints" / "step_512.npz"), "--out", str(trained)]) == 2
    assert "not the newest checkpoint" in capsys.readouterr().err
    assert files_of(trained) == before


def test_resume_of_a_finished_run_says_to_raise_the_budget(trained, capsys):
    before = files_of(trained)
    assert main(["--resume", str(trained)]) == 2
    assert "raise total_timesteps" in capsys.readouterr().err
    assert files_of(trained) == before


@pytest.mark.parametrize("override, key, why", [
    ("num_players=3", "num_players", "another run"), ("preset=all_fours", "preset", "another run"),
    ("seed=5", "seed", "another run"), ("reward=win", "reward", "another run"),
    ("ppo.privileged_critic=true", "ppo.privileged_critic", "network is fixed"),
    ("ppo.net_arch=[64]", "ppo.net_arch", "network is fixed"),
    ("imitation.teacher=random", "imitation.teacher", "warm start is over"),
])
def test_a_resume_that_would_make_another_run_is_refused_before_anything_is_written(
        trained, override, key, why, capsys):
    before = files_of(trained)
    assert main(["--resume", str(trained), "--timesteps", "1536", "--set", override]) == 2
    err = capsys.readouterr().err
    assert key in err and why in err and err.count("\n") == 1
    assert files_of(trained) == before


def test_a_branch_may_change_the_reward_or_the_game_but_not_the_network(trained, tmp_path, capsys):
    checkpoint = str(trained / "checkpoints" / "step_512.npz")
    assert main(["--resume", checkpoint, "--out", str(tmp_path / "net"), "--set", "ppo.net_arch=[64]"]) == 2
    assert "network is fixed" in capsys.readouterr().err and not (tmp_path / "net").exists()
    branch = tmp_path / "game_reward"
    assert main(["--resume", checkpoint, "--out", str(branch), "--set", "episode=game", "reward=win",
                 "--no-progress"]) == 0
    config = json.loads((branch / "config.json").read_text())
    assert (config["episode"], config["reward"]) == ("game", "win")
    assert json.loads((branch / "model.json").read_text())["timesteps"] == 1024


def test_resume_rejects_a_corrupt_checkpoint(tmp_path, capsys):
    bad = tmp_path / "checkpoints" / "step_7.npz"
    bad.parent.mkdir()
    bad.write_bytes(b"not a zip")
    assert main(["--resume", str(bad), "--timesteps", "100"]) == 2
    assert "step_7" in capsys.readouterr().err


def test_privileged_critic_training_warm_starts_and_ships_a_fair_policy(tmp_path):
    """ppo.privileged_critic: the checkpoint's critic reads the hidden cards too, the policy file's
    actor only the seat's own observation."""
    out = tmp_path / "privileged"
    args = ["--set", *TINY, "ppo.privileged_critic=true", "imitation.teacher=heuristic",
            "imitation.opponent=random", "imitation.games=6", "imitation.epochs=1",
            "--out", str(out), "--no-progress"]
    assert main(args) == 0
    arrays = npz(out / "checkpoints" / "step_1024.npz")
    assert arrays["mlp_extractor.value_net.0.weight"].shape[1] > OBS_SIZE
    assert arrays["mlp_extractor.policy_net.0.weight"].shape[1] == OBS_SIZE
    agent = make_agent(f"ppo:{out / 'model.npz'}", seed=0)
    assert agent.actor.inputs == OBS_SIZE


def test_imitation_leaves_a_privileged_critics_hidden_weights_at_zero():
    import torch

    from allfours_env import Rules
    from train import imitation
    from train.envs import make_vec_env
    from train.model import new_model

    config = load(None, [*TINY, "ppo.privileged_critic=true"])
    data = imitation.collect("heuristic", "random", Rules.make(), games=4, seed=1)
    env = make_vec_env(config)
    try:
        model = new_model(config, env, Path(config.out))
        imitation.pretrain(model, data, epochs=2, log=lambda *_: None)
    finally:
        env.close()
    weight = model.policy.mlp_extractor.value_net[0].weight
    inputs = model.policy.actor_inputs
    assert torch.all(weight[:, inputs:] == 0) and torch.any(weight[:, :inputs] != 0)


@pytest.mark.parametrize("override, message", [
    ("preset=bridge", "unknown preset"),
    ("learning_rate=1", "unknown config key"),
    ("ppo.lr=1", "unknown key"),
    ("n_envs=0", "n_envs"),
    ("opponents.mix={wizard=1}", "unknown agent"),
    ("reward=score", "reward"),
    ("ppo.privileged_critic=1", "privileged_critic"),
    ("opponents.schedule=[{at=500,mix={random=1}},{at=100,mix={random=1}}]", "opponents.schedule"),
    ("opponents.schedule=[{at=500,mix={random=0}}]", "opponents.schedule"),
    ("opponents.schedule=[{at=500,mix={wizard=1}}]", "unknown agent"),
    ("average_since=-1", "average_since"),
    ("average_since=400000", "average_since"),
    ("total_timesteps=abc", "total_timesteps must be a whole number"),
    ('total_timesteps="lots"', "total_timesteps must be a whole number"),
    ("total_timesteps=1.5", "total_timesteps"),
    ("total_timesteps=true", "total_timesteps"),
    ("ppo.net_arch=64", "ppo.net_arch must be a list"),
    ("ppo.net_arch=[64,0]", "ppo.net_arch"),
    ("ppo.learning_rate=-1", "ppo.learning_rate must be a number > 0"),
    ("ppo.learning_rate=abc", "ppo.learning_rate must be a number > 0"),
    ("ppo.learning_rate=nan", "ppo.learning_rate"),
    ("ppo.gamma=1.5", "ppo.gamma"),
    ("ppo.gae_lambda=-0.1", "ppo.gae_lambda"),
    ("ppo.clip_range=0", "ppo.clip_range"),
    ("ppo.ent_coef=-1", "ppo.ent_coef"),
    ("ppo.batch_size=1", "ppo.batch_size"),
    ("ppo.activation=gelu", "ppo.activation"),
    ("seed=-1", "seed must be a whole number from 0"),
    ("num_players=7", "num_players"),
    ("knobs=3", "knobs"),
    ("knobs={target_points=0}", "target_points"),
    ("episode=3", "episode"),
    ("eval.opponents=[]", "eval.opponents"),
    ("eval.opponents='random'", "eval.opponents"),
    ("eval.opponents=['random','random']", "eval.opponents"),
    ("eval.final_opponents=[1]", "eval.final_opponents"),
    ("eval.every=0", "eval.every"),
    ("opponents.partner=3", "opponents.partner"),
    ("opponents.pool_size=0", "opponents.pool_size"),
    ("imitation.teacher=3", "imitation.teacher"),
    ("imitation.learning_rate=0", "imitation.learning_rate"),
    ("imitation.dagger_rounds=-1", "imitation.dagger_rounds"),
    ("imitation.dataset=[1]", "imitation.dataset"),
    ("ppo=3", "[ppo] must be a table"),
])
def test_bad_configs_are_reported_in_one_line(override, message, capsys, tmp_path):
    assert main(["--set", override, "--out", str(tmp_path / "run")]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and "Traceback" not in err
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize("override, message", [
    ("n_envs=100000", "n_envs must be a whole number of environments (a process each) from 1 to 256"),
    ("total_timesteps=99999999999999999", "total_timesteps must be a whole number of timesteps from 1 to"),
    ("eval.games=99999999999", "eval.games must be a whole number of games from 1 to 10,000,000"),
    ("eval.final_games=99999999999", "eval.final_games must be a whole number of games from 1 to"),
    ("eval.workers=100000", "eval.workers must be a whole number of processes from 1 to 256"),
    ("eval.every=99999999999999999", "eval.every must be a whole number of timesteps from 1 to"),
    ("torch_threads=100000", "torch_threads must be a whole number of threads from 1 to 256"),
    ("imitation.workers=100000", "imitation.workers"),
    ("imitation.games=99999999999", "imitation.games"),
    ("imitation.dagger_games=99999999999", "imitation.dagger_games"),
    ("imitation.dagger_rounds=100000", "imitation.dagger_rounds"),
    ("imitation.epochs=100000", "imitation.epochs"),
    ("ppo.n_epochs=100000", "ppo.n_epochs must be a whole number of epochs from 1 to 1,000"),
    ("ppo.n_steps=99999999", "ppo.n_steps"),
    ("ppo.batch_size=99999999", "ppo.batch_size"),
    ("ppo.net_arch=[1000000]", "ppo.net_arch"),
    ("opponents.pool_size=100000", "opponents.pool_size"),
    ("opponents.snapshot_every=99999999999", "opponents.snapshot_every"),
    ("average_since=99999999999999999", "average_since"),
    ("rllib.num_env_runners=100000", "rllib.num_env_runners must be a whole number of env runners"),
    ("rllib.num_envs_per_env_runner=100000", "rllib.num_envs_per_env_runner must be a whole number"),
    ("rllib.num_learners=100000", "rllib.num_learners must be a whole number of learner actors"),
    ("rllib.num_cpus_per_env_runner=1e9", "rllib.num_cpus_per_env_runner must be a number of CPUs"),
    ("rllib.num_gpus_per_learner=1e9", "rllib.num_gpus_per_learner must be a number of GPUs"),
])
def test_every_count_has_an_upper_bound(override, message):
    """n_envs=100000 used to fork until 'Too many open files'; eval.games=10**11 to run for ever."""
    with pytest.raises(ConfigError, match=re.escape(message)):
        load(None, [override])


def test_the_rollout_held_in_memory_is_bounded():
    load(None, ["ppo.n_steps=4096", "n_envs=256"])
    with pytest.raises(ConfigError, match=r"ppo.n_steps × n_envs is the rollout .* at most 1,048,576"):
        load(None, ["ppo.n_steps=8192", "n_envs=256"])


def test_a_checkpoint_whose_saved_config_has_too_many_envs_is_refused_on_resume(trained, tmp_path, capsys):
    run = tmp_path / "run"
    shutil.copytree(trained, run)
    meta_path = run / "checkpoints" / "step_1024.json"
    meta = json.loads(meta_path.read_text())
    meta["config"]["n_envs"] = 100000
    meta_path.write_text(json.dumps(meta))
    before = files_of(run)
    assert main(["--resume", str(run), "--timesteps", "1536", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "n_envs must be a whole number of environments (a process each) from 1 to 256" in err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert files_of(run) == before


def test_a_knob_that_does_not_apply_to_the_game_is_refused_before_anything_is_written(tmp_path, capsys):
    """partnerships with 3 players used to start training a game of three players alone."""
    out = tmp_path / "run"
    assert main(["--set", "preset=auction_pitch", "num_players=3", "knobs={partnerships=true}",
                 "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "knob partnerships has no effect with 3 players" in err and err.count("\n") == 1
    assert not out.exists()


def test_every_setting_has_a_type_and_range_check():
    assert set(flatten(load().to_dict())) == set(RULES)


def test_a_config_built_by_hand_is_checked_too(tmp_path):
    from train import TrainConfig, run

    with pytest.raises(ConfigError, match="total_timesteps must be a whole number"):
        run(TrainConfig(total_timesteps="lots", out=str(tmp_path / "x")))
    assert not (tmp_path / "x").exists()


def test_whole_numbers_are_accepted_for_float_settings_and_out_is_checked_too():
    config = load(None, ["ppo.learning_rate=1", "ppo.gamma=1"])
    assert config.ppo.learning_rate == 1.0 and isinstance(config.ppo.learning_rate, float)
    with pytest.raises(ConfigError, match="out must be a folder path"):
        load(None, ["out=''"])


def test_opponent_schedule_changes_the_pools_mix_during_training(tmp_path):
    """A curriculum: random only, then heuristic only from step 512 (recorded in the checkpoints)."""
    out = tmp_path / "curriculum"
    tiny = [item for item in TINY if not item.startswith("opponents.mix")]
    args = ["--set", *tiny, "opponents.mix={random=1}",
            "opponents.schedule=[{at=512,mix={heuristic=1}}]", "--out", str(out), "--no-progress"]
    assert main(args) == 0
    config = load(None, [*tiny, "opponents.mix={random=1}",
                         "opponents.schedule=[{at=512,mix={heuristic=1}}]"])
    assert config.opponents.mix_at(511) == {"random": 1} and config.opponents.mix_at(512) == {"heuristic": 1}
    final = json.loads((out / "checkpoints" / "step_1024.json").read_text())
    assert final["opponent_mix"] == {"heuristic": 1}


def test_missing_config_file_names_the_shipped_ones():
    with pytest.raises(ConfigError, match="quick"):
        load("nonexistent")


def test_policy_files_that_cannot_be_used_give_clear_errors(tmp_path):
    with pytest.raises(AgentError, match="no policy file"):
        make_agent(f"ppo:{tmp_path / 'missing.npz'}")
    corrupt = tmp_path / "corrupt.npz"
    corrupt.write_text("garbage")
    with pytest.raises(AgentError, match="not a policy weights file"):
        make_agent(f"ppo:{corrupt}")


def test_imitation_learns_the_teachers_choices_and_dagger_labels_the_students_states():
    from agents.policy import SnapshotAgent, actor_from_sb3
    from allfours_env import Rules
    from train import imitation
    from train.envs import make_vec_env
    from train.model import new_model

    config = load(None, [*TINY, "ppo.net_arch=[128]"])
    rules = Rules.make()
    data = imitation.collect("heuristic", "random", rules, games=200, seed=1)
    assert len(data["actions"]) == len(data["observations"]) == len(data["returns"]) > 200
    assert all(data["masks"][i, a] for i, a in enumerate(data["actions"]))  # labels are legal
    env = make_vec_env(config)
    try:
        model = new_model(config, env, Path(config.out))
        history = imitation.pretrain(model, data, epochs=10, log=lambda *_: None)
    finally:
        env.close()
    guessing = float(np.mean(1.0 / data["masks"].sum(axis=1)))  # uniform over the legal actions
    assert history[-1]["loss"] < history[0]["loss"]
    assert history[-1]["accuracy"] > guessing + 0.1
    student = SnapshotAgent(actor_from_sb3(model.policy), deterministic=True, name="student")
    labelled = imitation.collect("heuristic", "random", rules, games=4, seed=2, student=student)
    assert len(labelled["actions"]) > 20


def test_a_cached_imitation_dataset_is_reused_and_one_made_by_another_teacher_is_refused(tmp_path):
    from allfours_env import Rules
    from train import imitation

    path = tmp_path / "data.npz"
    data = imitation.collect("random", "random", Rules.make(), games=2, seed=0)
    imitation.save(data, path, {"teacher": "random", "opponent": "random", "games": 2, "seed": 0})
    same = load(None, [*TINY, "imitation.teacher=random", "imitation.opponent=random",
                       "imitation.games=2", f"imitation.dataset={path}"])
    cached, _ = imitation.check_dataset(same)
    assert all(np.array_equal(cached[key], data[key]) for key in data)
    other = load(None, [*TINY, "imitation.teacher=heuristic", "imitation.opponent=random",
                        "imitation.games=2", f"imitation.dataset={path}"])
    with pytest.raises(ConfigError, match="recorded by .*teacher.*random.*delete the file"):
        imitation.check_dataset(other)


def test_checkpoint_average_is_the_mean_of_the_weights_and_plays(trained, tmp_path):
    from train import average

    out = tmp_path / "averaged.npz"
    assert average.main([str(trained), "--out", str(out)]) == 0
    steps = [npz(trained / "checkpoints" / f"step_{n}.npz") for n in (512, 1024)]
    mean = npz(out)
    assert set(mean) == {"mlp_extractor.policy_net.0.weight", "mlp_extractor.policy_net.0.bias",
                         "action_net.weight", "action_net.bias"}
    for name, array in mean.items():
        np.testing.assert_allclose(array, (steps[0][name] + steps[1][name]) / 2, rtol=1e-6, atol=1e-7)
    assert not np.allclose(steps[0]["action_net.weight"], steps[1]["action_net.weight"])
    meta = json.loads(out.with_suffix(".json").read_text())
    assert [p.rsplit("/", 1)[1] for p in meta["averaged"]] == ["step_512.npz", "step_1024.npz"]
    assert make_agent(f"ppo:{out}", seed=0).metadata["timesteps"] == 1024
    assert average.main([str(trained), "--since", "1000", "--out", str(tmp_path / "one.npz")]) == 0
    only = npz(tmp_path / "one.npz")
    np.testing.assert_array_equal(only["action_net.weight"], steps[1]["action_net.weight"])


def test_checkpoint_average_refuses_other_networks_unreadable_files_and_bad_outputs(
        trained, tmp_path, capsys):
    from train import average

    other = tmp_path / "other"
    assert main(["--set", *TINY, "total_timesteps=512", "ppo.net_arch=[16]", "--out", str(other),
                 "--no-progress"]) == 0
    cases = [
        ([str(trained), str(other / "checkpoints" / "step_512.npz")], "two checkpoints of step 512"),
        ([str(trained / "checkpoints" / "step_1024.npz"), str(other)], "ppo.net_arch"),
        ([str(trained), "--since", "5000"], "no checkpoints"),
    ]
    bad = tmp_path / "step_7.npz"
    bad.write_bytes(b"not a zip")
    cases.append(([str(bad)], "not a policy weights file"))
    for args, message in cases:
        assert average.main([*args, "--out", str(tmp_path / "x.npz")]) == 2
        err = capsys.readouterr().err
        assert message in err and err.count("\n") == 1, err
    existing = tmp_path / "taken.npz"
    existing.write_bytes(b"mine")
    for out, message in [(tmp_path / "x", "ends in .npz"), (tmp_path, "ends in .npz"),
                         (existing, "already exists"), (tmp_path / "a_file" / "x.npz", "is a file")]:
        (tmp_path / "a_file").write_text("mine")
        assert average.main([str(trained), "--out", str(out)]) == 2
        err = capsys.readouterr().err
        assert message in err and err.count("\n") == 1, err
    assert existing.read_bytes() == b"mine"
    assert not (tmp_path / "x.npz").exists() and not (tmp_path / "x").exists()


def test_average_since_makes_the_final_model_the_mean_of_the_late_checkpoints(tmp_path):
    out = tmp_path / "run"
    assert main(["--set", *TINY, "average_since=512", "--out", str(out), "--no-progress"]) == 0
    meta = json.loads((out / "model.json").read_text())
    assert [p.rsplit("/", 1)[1] for p in meta["averaged"]] == ["step_512.npz", "step_1024.npz"]
    weights = [npz(out / "checkpoints" / f"step_{n}.npz")["action_net.bias"] for n in (512, 1024)]
    np.testing.assert_allclose(npz(out / "model.npz")["action_net.bias"], (weights[0] + weights[1]) / 2,
                               rtol=1e-6)


@pytest.mark.parametrize("players, share", [(2, 1 / 2), (3, 1 / 3), (4, 1 / 2)])
def test_the_learning_curve_draws_the_fair_share_of_the_game(players, share, tmp_path, monkeypatch):
    import matplotlib.axes

    from train.curve import plot_curve
    from train.evaluation import fair_share

    drawn = []
    real = matplotlib.axes.Axes.axhline
    monkeypatch.setattr(matplotlib.axes.Axes, "axhline",
                        lambda self, y=0, *args, **kwargs: drawn.append(y) or real(self, y, *args, **kwargs))
    rows = [{"timesteps": 1, "opponent": "random", "win_rate": 0.5, "ci_low": 0.4, "ci_high": 0.6}]
    assert plot_curve(rows, tmp_path / "curve.png", fair_share(load(None, [f"num_players={players}"])))
    assert drawn == [pytest.approx(share)]


def test_three_player_evaluation_gives_each_opponent_its_own_table():
    from agents.policy import NumpyActor
    from train.evaluation import evaluate, scores

    rng = np.random.default_rng(0)
    actor = NumpyActor([(rng.normal(size=(OBS_SIZE, 117)), np.zeros(117))], "relu")
    config = load(None, ["num_players=3"])
    results = evaluate(actor, config, ["random", "heuristic"], games=6, seed=0)
    assert [sorted(result.labels) for _, result in results] == [
        ["learner", "random", "random#2"], ["heuristic", "heuristic#2", "learner"]]
    numbers = scores(results)
    assert numbers["random"]["opponents"] == ["random", "random#2"]
    assert numbers["heuristic"]["opponents"] == ["heuristic", "heuristic#2"]


def test_ctrl_c_during_an_evaluation_stops_the_training_run():
    """A tournament keeps the games Ctrl-C left it (the evaluate command reports them); inside a
    training run's evaluation it must stop the run instead of being taken for a short result."""
    from agents.policy import NumpyActor
    from conftest import FailingAgent
    from train.evaluation import evaluate

    rng = np.random.default_rng(0)
    actor = NumpyActor([(rng.normal(size=(OBS_SIZE, 117)), np.zeros(117))], "relu")
    with pytest.raises(KeyboardInterrupt):
        evaluate(actor, load(None, []), [FailingAgent(stop=1, error=KeyboardInterrupt)], games=8, seed=0)


def test_ctrl_c_during_subprocess_training_is_one_message_exit_130_and_resumable(tmp_path):
    """Ctrl-C in a terminal goes to every process of the group: the trainer and its environment
    workers (n_envs=2: SubprocVecEnv). It used to end in a second traceback from closing the
    workers and exit 1; now the promised line and 130, and the run resumes."""
    root = Path(__file__).resolve().parents[2]
    out = tmp_path / "run"
    tiny = ["total_timesteps=1000000", "n_envs=2", "ppo.n_steps=128", "ppo.batch_size=64", "ppo.n_epochs=1",
            "ppo.net_arch=[16]", "eval.every=256", "eval.games=2", "eval.final_games=2", "eval.workers=1",
            "opponents.mix={random=1}", "imitation.teacher=''"]
    command = [sys.executable, "-m", "train", "--no-progress", "--out", str(out), "--set", *tiny]
    process = subprocess.Popen(command, cwd=tmp_path, env=dict(os.environ, PYTHONPATH=str(root)), text=True,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while not list((out / "checkpoints").glob("step_*.json")):  # learning has begun
            assert process.poll() is None and time.monotonic() < deadline, process.communicate()
            time.sleep(0.05)
        time.sleep(0.3)  # inside a rollout or an update
        os.killpg(process.pid, signal.SIGINT)
        _, err = process.communicate(timeout=120)  # a loaded machine (CI) may be slow to close the workers
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
    assert process.returncode == 130, err
    assert err.strip() == "interrupted: checkpoints written so far are kept; resume with --resume", err
    newest = max(int(p.stem.split("_")[1]) for p in (out / "checkpoints").glob("step_*.npz"))
    assert main(["--resume", str(out), "--set", "n_envs=1", "--timesteps", str(newest + 128),
                 "--no-progress"]) == 0
    assert json.loads((out / "model.json").read_text())["timesteps"] == newest + 128


def test_ctrl_c_in_the_middle_of_a_step_is_a_keyboard_interrupt_not_a_broken_pipe(tmp_path, monkeypatch):
    """The same, deterministic and in-process: the Ctrl-C reaches the workers while the trainer
    waits for their step. They used to stop without answering, and closing them raised EOFError
    or ConnectionResetError over the KeyboardInterrupt; they ignore SIGINT now."""
    from stable_baselines3.common.vec_env import SubprocVecEnv

    from train.trainer import train

    real, calls = SubprocVecEnv.step_wait, []

    def step_wait(self):
        calls.append(1)
        if len(calls) == 20:
            for process in self.processes:  # a terminal's Ctrl-C goes to the workers too ...
                os.kill(process.pid, signal.SIGINT)
            time.sleep(0.2)
            raise KeyboardInterrupt  # ... and to the trainer, waiting for this step
        return real(self)

    monkeypatch.setattr(SubprocVecEnv, "step_wait", step_wait)
    config = load(None, [*TINY, "n_envs=2", "ppo.n_steps=128", "opponents.mix={random=1}",
                         "imitation.teacher=''", f"out='{tmp_path / 'run'}'"])
    with pytest.raises(KeyboardInterrupt):
        train(config, progress=False)
    assert len(calls) == 20


def test_closing_after_ctrl_c_tolerates_workers_that_are_gone():
    """A worker killed mid-step: closing after an interrupt stops the others instead of raising."""
    from train.envs import close_vec_env, make_vec_env

    env = make_vec_env(load(None, ["n_envs=2", "opponents.mix={random=1}"]))
    env.reset()
    env.step_async(np.zeros(2, dtype=np.int64))  # a step in flight: close() would wait for it
    os.kill(env.processes[0].pid, signal.SIGKILL)
    env.processes[0].join(timeout=10)
    with pytest.raises((BrokenPipeError, ConnectionResetError, EOFError)):
        env.close()  # what SB3 does on its own
    close_vec_env(env, interrupted=True)
    assert env.closed and not any(process.is_alive() for process in env.processes)
