"""Where a training run may write (train.runs): a new or empty folder, or one holding an earlier run
(moved aside whole); any other folder that is not empty is refused in one line before anything is
written, for a fresh run and for a branch (``--resume CKPT --out DIR``) alike. A folder that cannot
be written is found out by writing to it, not by ``os.access`` (always yes for root)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from train.__main__ import main
from train.checkpoints import find
from train.curve import read_curve
from train.runs import drop_torn_checkpoint, is_run

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = ROOT / "agents" / "policies" / "seven_up_2p"
TINY = ["total_timesteps=512", "n_envs=1", "ppo.n_steps=256", "ppo.batch_size=64", "ppo.n_epochs=1",
        "ppo.net_arch=[16]", "eval.every=256", "eval.games=2", "eval.final_games=2", "eval.workers=1",
        "opponents.mix={random=1}", "imitation.teacher=''"]


def files_of(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def one_line(err: str) -> bool:
    return err.count("\n") == 1 and "Traceback" not in err


def user_folder(path: Path) -> Path:
    """The issue's folder: the shipped policy renamed model.npz / model.json, and the user's notes."""
    path.mkdir()
    shutil.copy(SHIPPED.with_suffix(".npz"), path / "model.npz")
    shutil.copy(SHIPPED.with_suffix(".json"), path / "model.json")
    (path / "eval.csv").write_text("notes\n")
    return path


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("folders") / "run"
    assert main(["--set", *TINY, "--out", str(out), "--no-progress"]) == 0
    return out


def test_a_folder_of_the_users_files_is_refused_before_anything_is_written(tmp_path, capsys):
    userdir = user_folder(tmp_path / "userdir")
    before = files_of(userdir)
    assert main(["--set", *TINY, "--out", str(userdir), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert one_line(err), err
    assert "not an allfours run (eval.csv, model.json, model.npz)" in err and "empty or new folder" in err
    assert files_of(userdir) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["userdir"]  # nothing moved aside either


def test_a_config_json_that_is_not_a_runs_config_does_not_make_a_run(tmp_path, capsys):
    """e.g. a model folder of another library: its config.json is not ours, so it is not moved aside."""
    other = tmp_path / "hf_model"
    other.mkdir()
    (other / "config.json").write_text(json.dumps({"architectures": ["Bert"], "hidden_size": 768}))
    assert not is_run(other)
    assert main(["--set", *TINY, "--out", str(other), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert one_line(err) and "not an allfours run (config.json)" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["hf_model"]


def test_a_branch_into_a_folder_of_the_users_files_is_refused(run, tmp_path, capsys):
    userdir = user_folder(tmp_path / "userdir")
    before, run_before = files_of(userdir), files_of(run)
    checkpoint = run / "checkpoints" / "step_256.npz"
    assert main(["--resume", str(checkpoint), "--timesteps", "768", "--out", str(userdir),
                 "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert one_line(err) and "not an allfours run" in err, err
    assert files_of(userdir) == before and files_of(run) == run_before


def test_an_earlier_run_is_moved_aside_whole_and_an_empty_folder_is_used(run, tmp_path, capsys):
    again = tmp_path / "again"
    shutil.copytree(run, again)
    (again / "notes.txt").write_text("mine")  # a user's file inside a run goes with the run
    before = files_of(again)
    assert is_run(again)
    assert main(["--set", *TINY, "--out", str(again), "--no-progress"]) == 0
    kept = [p for p in tmp_path.iterdir() if p.name.startswith("again.")]
    assert len(kept) == 1 and files_of(kept[0]) == before
    assert (again / "model.npz").is_file() and not (again / "notes.txt").exists()
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["--set", *TINY, "--out", str(empty), "--no-progress"]) == 0
    assert (empty / "model.npz").is_file()
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("empty")) == ["empty"]


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs Linux's /proc")
def test_an_output_that_cannot_be_written_is_found_by_writing_not_by_os_access(capsys):
    """/proc is 'writable' to os.access for root; creating a file there fails."""
    assert main(["--set", *TINY, "--out", "/proc/allfours-run", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert one_line(err) and "cannot write in /proc" in err, err


def test_a_damaged_eval_csv_leaves_its_bad_rows_out_of_the_curve(tmp_path):
    (tmp_path / "eval.csv").write_text("timesteps,opponent,win_rate,ci_low,ci_high,games\n"
                                       "256,random,0.5,0.2,0.8,2\n"
                                       "oops\n"
                                       "512,random,half,0.2,0.8,2\n")
    assert [row["timesteps"] for row in read_curve(tmp_path)] == [256]
    (tmp_path / "eval.csv").write_text("notes\n")
    assert read_curve(tmp_path) == []


def test_a_checkpoint_cut_by_ctrl_c_while_it_was_saved_is_dropped_so_the_run_resumes(run, tmp_path):
    """Its .npz was written, its .json not (or not whole): --resume RUN would refuse the run."""
    copy = tmp_path / "run"
    shutil.copytree(run, copy)
    folder = copy / "checkpoints"
    assert drop_torn_checkpoint(copy, log=None) is None  # whole: kept
    (folder / "step_512.json").write_text('{"kind": "checkp')
    assert drop_torn_checkpoint(copy, since=512, log=None) is None  # not this process's: kept
    dropped = []
    assert drop_torn_checkpoint(copy, log=dropped.append) == folder / "step_512.npz"
    assert sorted(p.name for p in folder.iterdir()) == ["step_256.json", "step_256.npz"]
    assert find(copy) == folder / "step_256.npz" and "step_512.npz" in dropped[0]
    (folder / "step_256.json").unlink()
    assert drop_torn_checkpoint(copy, log=dropped.append) == folder / "step_256.npz"
    assert list(folder.iterdir()) == []


def test_a_folder_whose_config_json_is_deeply_nested_is_no_run_and_is_refused_in_one_line(tmp_path, capsys):
    folder = tmp_path / "crafted"
    folder.mkdir()
    (folder / "config.json").write_text("[" * 100_000 + "]" * 100_000)
    assert not is_run(folder)
    before = files_of(folder)
    assert main(["--set", *TINY, "--out", str(folder), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert one_line(err), err
    assert "not an allfours run (config.json)" in err
    assert files_of(folder) == before
