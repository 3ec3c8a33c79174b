"""Training end to end on a tiny budget: config -> checkpoints -> evaluation -> files; resume;
clear errors for bad configs and bad checkpoints."""

import json
import pickle

import numpy as np
import pytest

from agents import AgentError, make_agent
from train import ConfigError, load
from train.__main__ import main

TINY = ["total_timesteps=1024", "n_envs=1", "ppo.n_steps=256", "ppo.batch_size=64", "ppo.n_epochs=1",
        "ppo.net_arch=[32]", "eval.every=512", "eval.games=4", "eval.final_games=4",
        "opponents.snapshot_every=1", "opponents.mix={random=0.5,snapshot=0.5}"]


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    out = tmp_path_factory.mktemp("run")
    assert main(["--set", *TINY, "--out", str(out), "--no-progress"]) == 0
    return out


def test_tiny_training_writes_model_checkpoints_logs_and_evaluation(trained, capsys):
    out = trained
    for name in ("config.json", "model.zip", "model.json", "eval.csv", "learning_curve.png",
                 "final_eval/table.md", "final_eval/results.json", "final_eval/results.png"):
        assert (out / name).is_file(), name
    checkpoints = sorted((out / "checkpoints").glob("step_*.zip"))
    assert [p.stem for p in checkpoints] == ["step_1024", "step_512"]
    meta = json.loads((out / "checkpoints" / "step_512.json").read_text())
    assert meta["config"]["total_timesteps"] == 1024 and meta["seed"] == 0
    assert list((out / "tb").iterdir())
    final = json.loads((out / "model.json").read_text())
    assert set(final["final_eval"]) == {"random", "heuristic"}
    assert final["learner_steps_per_s"] > 0
    agent = make_agent(f"ppo:{out / 'model.zip'}", seed=0)
    assert agent.metadata["timesteps"] == 1024


def test_resume_continues_an_interrupted_run_up_to_total_timesteps(trained, tmp_path):
    out = tmp_path / "resumed"
    checkpoint = trained / "checkpoints" / "step_512.zip"
    args = ["--set", *TINY, "--out", str(out), "--no-progress", "--resume", str(checkpoint)]
    assert main(args) == 0
    meta = json.loads((out / "model.json").read_text())
    assert meta["timesteps"] == 1024


def test_resume_from_a_run_folder_takes_its_newest_checkpoint_and_trains_further(trained, tmp_path):
    out = tmp_path / "further"
    args = ["--set", *TINY, "total_timesteps=1536", "--out", str(out), "--no-progress",
            "--resume", str(trained)]
    assert main(args) == 0
    assert json.loads((out / "model.json").read_text())["timesteps"] == 1536


def test_resume_of_a_finished_run_says_to_raise_the_budget(trained, tmp_path, capsys):
    assert main(["--set", *TINY, "--out", str(tmp_path / "done"), "--resume", str(trained)]) == 2
    assert "raise total_timesteps" in capsys.readouterr().err


def test_resume_rejects_a_corrupt_or_mismatched_checkpoint(trained, tmp_path, capsys):
    bad = tmp_path / "bad.zip"
    bad.write_bytes(b"not a zip")
    assert main(["--set", *TINY, "--out", str(tmp_path / "x"), "--resume", str(bad)]) == 2
    assert "not a checkpoint" in capsys.readouterr().err
    checkpoint = trained / "checkpoints" / "step_512.zip"
    assert main(["--set", *TINY, "num_players=3", "--out", str(tmp_path / "y"),
                 "--resume", str(checkpoint)]) == 2
    assert "num_players" in capsys.readouterr().err
    assert main(["--set", *TINY, "ppo.privileged_critic=true", "--out", str(tmp_path / "z"),
                 "--resume", str(checkpoint)]) == 2
    assert "privileged_critic" in capsys.readouterr().err


def test_privileged_critic_training_warm_starts_and_ships_a_fair_policy(tmp_path):
    """ppo.privileged_critic: imitation (data without hidden cards) leaves the critic's weights on
    them at zero; PPO then trains; the model loads as an agent over the seat's own observation."""
    from agents.critic_policy import PrivilegedCriticPolicy
    from agents.policy import load_model

    out = tmp_path / "privileged"
    args = ["--set", *TINY, "ppo.privileged_critic=true", "imitation.teacher=heuristic",
            "imitation.opponent=random", "imitation.games=6", "imitation.epochs=1",
            "--out", str(out), "--no-progress"]
    assert main(args) == 0
    model = load_model(out / "model.zip")
    assert isinstance(model.policy, PrivilegedCriticPolicy)
    assert model.observation_space.shape[0] > model.policy.actor_inputs
    agent = make_agent(f"ppo:{out / 'model.zip'}", seed=0)
    assert agent.actor.layers[0][0].shape[0] == model.policy.actor_inputs


def test_imitation_leaves_a_privileged_critics_hidden_weights_at_zero():
    import torch

    from allfours_env import Rules
    from train import imitation
    from train.trainer import make_vec_env, new_model

    config = load(None, [*TINY, "ppo.privileged_critic=true"])
    data = imitation.collect("heuristic", "random", Rules.make(), games=4, seed=1)
    env = make_vec_env(config)
    try:
        model = new_model(config, env, __import__("pathlib").Path(config.out))
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
])
def test_bad_configs_are_reported_in_one_line(override, message, capsys, tmp_path):
    assert main(["--set", override, "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_opponent_schedule_changes_the_pools_mix_during_training(tmp_path):
    """A curriculum: random only, then heuristic only from step 512 (the checkpoints' pools)."""
    out = tmp_path / "curriculum"
    tiny = [item for item in TINY if not item.startswith("opponents.mix")]
    args = ["--set", *tiny, "opponents.mix={random=1}",
            "opponents.schedule=[{at=512,mix={heuristic=1}}]", "--out", str(out), "--no-progress"]
    assert main(args) == 0
    config = load(None, [*tiny, "opponents.mix={random=1}",
                         "opponents.schedule=[{at=512,mix={heuristic=1}}]"])
    assert config.opponents.mix_at(511) == {"random": 1} and config.opponents.mix_at(512) == {"heuristic": 1}
    final = pickle.loads((out / "checkpoints" / "step_1024.pool.pkl").read_bytes())
    assert [pool.mix for pool in final] == [{"heuristic": 1}]


def test_missing_config_file_names_the_shipped_ones():
    with pytest.raises(ConfigError, match="quick"):
        load("nonexistent")


def test_policy_files_that_cannot_be_used_give_clear_errors(tmp_path):
    with pytest.raises(AgentError, match="no policy file"):
        make_agent(f"ppo:{tmp_path / 'missing.zip'}")
    corrupt = tmp_path / "corrupt.zip"
    corrupt.write_text("garbage")
    with pytest.raises(AgentError, match="corrupt"):
        make_agent(f"ppo:{corrupt}")


def test_imitation_learns_the_teachers_choices_and_dagger_labels_the_students_states():
    from agents.policy import SnapshotAgent, actor_from_sb3
    from allfours_env import Rules
    from train import imitation
    from train.trainer import make_vec_env, new_model

    config = load(None, [*TINY, "ppo.net_arch=[128]"])
    rules = Rules.make()
    data = imitation.collect("heuristic", "random", rules, games=200, seed=1)
    assert len(data["actions"]) == len(data["observations"]) == len(data["returns"]) > 200
    assert all(data["masks"][i, a] for i, a in enumerate(data["actions"]))  # labels are legal
    env = make_vec_env(config)
    try:
        model = new_model(config, env, __import__("pathlib").Path(config.out))
        history = imitation.pretrain(model, data, epochs=10, log=lambda *_: None)
    finally:
        env.close()
    guessing = float(np.mean(1.0 / data["masks"].sum(axis=1)))  # uniform over the legal actions
    assert history[-1]["loss"] < history[0]["loss"]
    assert history[-1]["accuracy"] > guessing + 0.1
    student = SnapshotAgent(actor_from_sb3(model.policy), deterministic=True, name="student")
    labelled = imitation.collect("heuristic", "random", rules, games=4, seed=2, student=student)
    assert len(labelled["actions"]) > 20


def test_a_cached_imitation_dataset_made_by_another_teacher_is_refused(tmp_path):
    from allfours_env import Rules
    from train import imitation
    from train.trainer import warm_start

    path = tmp_path / "data.npz"
    data = imitation.collect("random", "random", Rules.make(), games=2, seed=0)
    imitation.save(data, path, {"teacher": "random", "opponent": "random", "games": 2, "seed": 0})
    config = load(None, [*TINY, "imitation.teacher=heuristic", "imitation.opponent=random",
                         "imitation.games=2", f"imitation.dataset={path}"])
    with pytest.raises(ConfigError, match="recorded by .*teacher.*random.*delete the file"):
        warm_start(None, config, log=lambda *_: None, progress=False)


def test_checkpoint_average_is_the_mean_of_the_weights_and_plays(trained, tmp_path):
    from sb3_contrib import MaskablePPO

    from train import average

    out = tmp_path / "averaged.zip"
    assert average.main([str(trained), "--out", str(out)]) == 0
    steps = [MaskablePPO.load(trained / "checkpoints" / f"step_{n}.zip").policy.state_dict()
             for n in (512, 1024)]
    mean = MaskablePPO.load(out).policy.state_dict()
    for name, tensor in mean.items():
        np.testing.assert_allclose(tensor.numpy(), (steps[0][name].numpy() + steps[1][name].numpy()) / 2,
                                   rtol=1e-6, atol=1e-7)
    assert not np.allclose(steps[0]["action_net.weight"].numpy(), steps[1]["action_net.weight"].numpy())
    meta = json.loads(out.with_suffix(".json").read_text())
    assert [p.rsplit("/", 1)[1] for p in meta["averaged"]] == ["step_512.zip", "step_1024.zip"]
    assert make_agent(f"ppo:{out}", seed=0).metadata["timesteps"] == 1024
    assert average.main([str(trained), "--since", "1000", "--out", str(tmp_path / "one.zip")]) == 0
    only = MaskablePPO.load(tmp_path / "one.zip").policy.state_dict()
    np.testing.assert_array_equal(only["action_net.weight"].numpy(), steps[1]["action_net.weight"].numpy())


def test_checkpoint_average_refuses_other_networks_and_unreadable_files(trained, tmp_path, capsys):
    from train import average

    other = tmp_path / "other"
    assert main(["--set", *TINY, "total_timesteps=512", "ppo.net_arch=[16]", "--out", str(other),
                 "--no-progress"]) == 0
    assert average.main([str(trained), str(other / "checkpoints" / "step_512.zip"),
                         "--out", str(tmp_path / "x.zip")]) == 2
    assert "two checkpoints of step 512" in capsys.readouterr().err
    assert average.main([str(trained / "checkpoints" / "step_1024.zip"), str(other),
                         "--out", str(tmp_path / "x.zip")]) == 2
    assert "another network" in capsys.readouterr().err
    bad = tmp_path / "step_7.zip"
    bad.write_bytes(b"not a zip")
    assert average.main([str(bad), "--out", str(tmp_path / "x.zip")]) == 2
    assert "corrupt" in capsys.readouterr().err
    assert average.main([str(trained), "--since", "5000", "--out", str(tmp_path / "x.zip")]) == 2
    assert "no checkpoints" in capsys.readouterr().err


def test_average_since_makes_the_final_model_the_mean_of_the_late_checkpoints(tmp_path):
    from sb3_contrib import MaskablePPO

    out = tmp_path / "run"
    assert main(["--set", *TINY, "average_since=512", "--out", str(out), "--no-progress"]) == 0
    meta = json.loads((out / "model.json").read_text())
    assert [p.rsplit("/", 1)[1] for p in meta["averaged"]] == ["step_512.zip", "step_1024.zip"]
    weights = [MaskablePPO.load(out / "checkpoints" / f"step_{n}.zip").policy.state_dict()["action_net.bias"]
               for n in (512, 1024)]
    final = MaskablePPO.load(out / "model.zip").policy.state_dict()["action_net.bias"]
    np.testing.assert_allclose(final.numpy(), (weights[0].numpy() + weights[1].numpy()) / 2, rtol=1e-6)
