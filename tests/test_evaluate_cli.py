"""The evaluate command line: its report, its files, its error messages and Ctrl-C."""

from __future__ import annotations

import csv
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from allfours_env import replay
from evaluate.__main__ import main

ROOT = Path(__file__).resolve().parents[1]


def _run(args, capsys):
    try:
        code = main(args)
    except SystemExit as stop:  # argparse's own errors
        code = stop.code
    out, err = capsys.readouterr()
    return code, out, err


def test_report_and_files(tmp_path, capsys):
    code, out, err = _run(["random", "random", "--games", "10", "--seed", "2", "--workers", "1",
                           "--out", str(tmp_path), "--records", "--quiet"], capsys)
    assert code == 0, err
    assert "| rank | agent | rating (95% CI) |" in out
    assert "| random | random#2 | 10 |" in out or "| random#2 | random | 10 |" in out
    assert "Points per hand by kind" in out
    for name in ("results.json", "agents.csv", "tables.csv", "games.csv", "records.jsonl", "results.png"):
        assert (tmp_path / name).stat().st_size > 0, name
    data = json.loads((tmp_path / "results.json").read_text())
    assert data["config"]["games_per_table"] == 10 and data["config"]["seed"] == 2
    assert data["statistics"]["games_used"] == 10 and data["run"]["interrupted"] is False
    with (tmp_path / "tables.csv").open() as handle:
        rows = list(csv.DictReader(handle))
    assert {r["agent"] for r in rows} == {"random", "random#2"}
    assert {"win_rate_ci_low", "margin_per_hand_ci_high", "points_per_hand_by_kind_jack"} <= set(rows[0])
    lines = (tmp_path / "records.jsonl").read_text().splitlines()
    assert len(lines) == 10
    first = json.loads(lines[0])
    assert first["seats"] == ["random", "random#2"]
    assert replay(first["record"]).winner == first["record"]["winner"]
    assert "wrote results.json" in err


def test_json_identical_for_one_and_two_workers(tmp_path, capsys):
    outputs = []
    for workers in ("1", "2"):
        out = tmp_path / workers
        code, _, err = _run(["random", "random", "random", "--games", "20", "--seed", "5", "--workers",
                             workers, "--out", str(out), "--quiet", "--no-plot"], capsys)
        assert code == 0, err
        data = json.loads((out / "results.json").read_text())
        assert data["run"]["workers"] == int(workers)
        outputs.append((data["config"], data["statistics"], (out / "games.csv").read_text()))
    assert outputs[0] == outputs[1]


def test_games_rounded_up_to_whole_deal_groups(tmp_path, capsys):
    code, _, err = _run(["random", "random", "--players", "3", "--games", "5", "--workers", "1",
                         "--no-save", "--quiet"], capsys)
    assert code == 0
    assert "--games 5 rounded up to 6 per pairing (whole deal groups of 6 seatings)" in err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["nosuch", "random"], "unknown agent 'nosuch'"),
        (["random", "random", "--games", "0"], "games must be a whole number >= 1"),
        (["random", "ppo:nope.zip"], "model file 'nope.zip' not found"),
        (["random", "random", "--preset", "trinidad", "--players", "3"],
         "preset 'trinidad' is played by 2, 4 players, not 3"),
        (["random", "random", "--workers", "0"], "--workers must be at least 1"),
        (["random", "random", "--preset", "nosuch"], "unknown preset 'nosuch'"),
        (["random", "random", "--rule", "target_points"], "must look like knob=value"),
        (["random", "random", "--games", "many"], "invalid int value: 'many'"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(args, message, capsys):
    code, out, err = _run(args, capsys)
    assert code == 2
    assert out == ""
    assert message in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_corrupt_model_file(tmp_path, capsys):
    bad = tmp_path / "bad.zip"
    bad.write_bytes(b"not a zip file")
    code, _, err = _run(["random", f"ppo:{bad}"], capsys)
    assert code == 2 and "bad.zip" in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


def _cli(*args):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return [sys.executable, "-m", "evaluate", *args], env


def test_module_entry_point_error_has_no_traceback():
    command, env = _cli("random", "heuristc")
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert done.stderr.startswith("allfours-evaluate: error: unknown agent 'heuristc'")
    assert "Traceback" not in done.stderr


def test_ctrl_c_keeps_finished_games(tmp_path):
    """Ctrl-C (SIGINT to the whole process group, as a terminal sends it) with two workers, once
    the progress bar shows finished games."""
    command, env = _cli("random", "random", "--games", "2000000", "--workers", "2", "--no-plot",
                        "--out", str(tmp_path))
    # A terminal's Ctrl-C reaches a process whose SIGINT is the default; restore it in the child,
    # as a background or nohup launch of the test run hands down SIGINT ignored.
    with subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          start_new_session=True,
                          preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL)) as process:
        chunks: list[bytes] = []
        reader = threading.Thread(target=lambda: chunks.extend(iter(lambda: process.stderr.read1(4096), b"")))
        reader.start()
        deadline = time.monotonic() + 60
        while not re.search(rb"[1-9][0-9]*/2000000", b"".join(chunks)) and time.monotonic() < deadline:
            time.sleep(0.05)
        os.killpg(process.pid, signal.SIGINT)
        out = process.stdout.read().decode()
        process.wait(timeout=60)
        reader.join(timeout=60)
    err = b"".join(chunks).decode()
    assert process.returncode == 130, err[-2000:]
    assert "interrupted by Ctrl-C: kept" in err and "Traceback" not in err
    assert "INTERRUPTED" in out
    data = json.loads((tmp_path / "results.json").read_text())
    assert data["run"]["interrupted"] is True
    assert 0 < data["statistics"]["games_used"] == data["run"]["games_finished"] < 2_000_000
