"""Resuming a run (train.runs, train.checkpoints): in its own folder from its own config, or
branched into a new one; what may not change, and damaged checkpoints, refused in one line."""

import json
import shutil

import numpy as np
import pytest

from conftest import files_of, npz
from train.__main__ import main


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
