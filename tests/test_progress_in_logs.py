"""Long work shows progress when its output goes to a file: ``python -m train`` and ``python -m
evaluate`` print progress lines (done/total, rate, time left) while they work, not only at the end.
The interval is ``ALLFOURS_PROGRESS_SECONDS`` (30 s by default); a short one keeps these runs small.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import TINY

ROOT = Path(__file__).resolve().parents[1]
LINE = re.compile(r"^(?P<what>.+?): (?P<done>[\d,]+)/(?P<total>[\d,]+) \(\d+%\), .*elapsed", re.M)


def _run_to_file(args: list[str], log: Path, cwd: Path, seconds: str = "0.2") -> str:
    env = dict(os.environ, PYTHONPATH=str(ROOT), ALLFOURS_PROGRESS_SECONDS=seconds, MPLBACKEND="Agg")
    with log.open("w") as handle:
        done = subprocess.run([sys.executable, *args], cwd=cwd, env=env, stdout=handle,
                              stderr=subprocess.STDOUT, timeout=600)
    text = log.read_text()
    assert done.returncode == 0, text[-3000:]
    return text


def _lines(text: str, what: str) -> list[tuple[int, int]]:
    return [(int(m["done"].replace(",", "")), int(m["total"].replace(",", "")))
            for m in LINE.finditer(text) if m["what"] == what]


def test_evaluate_prints_progress_lines_game_by_game_into_a_log(tmp_path):
    text = _run_to_file(["-m", "evaluate", "pimc", "heuristic", "--games", "8", "--workers", "2",
                         "--no-save"], tmp_path / "log.txt", tmp_path)
    lines = _lines(text, "games")
    assert lines and all(total == 8 for _, total in lines)
    during = {done for done, _ in lines if done < 8}
    assert during, text  # lines while the games were played, not only the last one
    assert {done for done, _ in lines} - {0, 8}, "progress counts games, not just the end"
    assert text.index("games: ") < text.index("**seven_up, 2 players**")  # before the report
    assert lines[-1][0] == 8 and "Traceback" not in text


def test_train_prints_progress_lines_into_a_log(tmp_path):
    text = _run_to_file(["-m", "train", "--set", *TINY, "--out", str(tmp_path / "run")],
                        tmp_path / "log.txt", tmp_path)
    training = _lines(text, "training")
    assert training and all(total == 1024 for _, total in training)
    assert any(done < 1024 for done, _ in training), text[-3000:]  # during the run
    assert any("evaluation at " in line for line in text.splitlines() if line.startswith("training: "))
    assert _lines(text, "imitation data: heuristic vs heuristic")  # the warm start too
    assert _lines(text, "games")  # and the final evaluation


def test_a_bad_interval_is_refused_before_any_work(tmp_path):
    env = dict(os.environ, PYTHONPATH=str(ROOT), ALLFOURS_PROGRESS_SECONDS="soon")
    for args in (["-m", "evaluate", "random", "heuristic", "--no-save"],
                 ["-m", "train", "--set", *TINY, "--out", str(tmp_path / "run")]):
        done = subprocess.run([sys.executable, *args], cwd=tmp_path, env=env, capture_output=True,
                              text=True, timeout=120)
        assert done.returncode == 2
        assert "ALLFOURS_PROGRESS_SECONDS must be a number of seconds above 0, got 'soon'" in done.stderr
        assert "Traceback" not in done.stderr
    assert not (tmp_path / "run").exists()


@pytest.mark.slow
def test_rllib_training_prints_progress_lines_and_none_of_rays_own_messages(tmp_path):
    """The RLlib backend (Ray starts locally: a minute or more, hence slow): progress lines into a log,
    and none of Ray's messages that are not for the user (token authentication, the API stack,
    deprecations, the core worker's warning about restarts)."""
    pytest.importorskip("ray.rllib")
    text = _run_to_file(["-m", "train", "--backend", "rllib", "--set", *TINY, "imitation.teacher=''",
                         "--out", str(tmp_path / "run")], tmp_path / "log.txt", tmp_path)
    training = _lines(text, "training")
    assert training and any(done < 1024 for done, _ in training), text[-3000:]
    for noise in ("authentication", "API stack", "DeprecationWarning", "core_worker", "Started a local Ray",
                  "gputil"):
        assert noise not in text, noise
