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

from agents.base import _REGISTRY
from allfours_env import replay
from child_signals import sigint_as_in_a_terminal
from conftest import FailingAgent, run_cli
from evaluate.__main__ import main

ROOT = Path(__file__).resolve().parents[2]


def _run(args, capsys):
    return run_cli(main, args, capsys)


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
    assert replay(lines[0]).record() == first["record"]  # a line replays as it is
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
        (["random", "random", "--games", "0"], "--games: must be a whole number from 1 to 10,000,000"),
        (["random", "random", "--games", "99999999999999999999"],
         "argument --games: must be a whole number from 1 to 10,000,000, got 99,999,999,999,999,999,999"),
        (["random", "random", "--workers", "100000"], "--workers: must be a whole number from 1 to 256"),
        (["random", "ppo:nope.zip"], "model file 'nope.zip' not found"),
        (["random", "random", "--preset", "trinidad", "--players", "3"],
         "preset 'trinidad' is played by 2, 4 players, not 3"),
        (["random", "random", "--workers", "0"], "argument --workers: must be a whole number from 1 to 256"),
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
    env = dict(os.environ, PYTHONPATH=str(ROOT), ALLFOURS_PROGRESS_SECONDS="0.2")  # progress lines
    return [sys.executable, "-m", "evaluate", *args], env


def test_module_entry_point_error_has_no_traceback():
    command, env = _cli("random", "heuristc")
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert done.stderr.startswith("allfours-evaluate: error: unknown agent 'heuristc'")
    assert "Traceback" not in done.stderr


def test_ctrl_c_keeps_finished_games(tmp_path):
    """Ctrl-C (SIGINT to the whole process group, as a terminal sends it) with two workers, once
    the progress line shows finished games."""
    command, env = _cli("random", "random", "--games", "2000000", "--workers", "2", "--no-plot",
                        "--out", str(tmp_path))
    with subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          start_new_session=True,
                          preexec_fn=sigint_as_in_a_terminal) as process:
        chunks: list[bytes] = []
        reader = threading.Thread(target=lambda: chunks.extend(iter(lambda: process.stderr.read1(4096), b"")))
        reader.start()
        deadline = time.monotonic() + 60
        while not re.search(rb"[1-9][0-9,]*/2,000,000", b"".join(chunks)) and time.monotonic() < deadline:
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


def _snapshot(folder: Path) -> dict:
    """Every file under ``folder`` with its bytes and modification time."""
    return {str(p.relative_to(folder)): (p.read_bytes(), p.stat().st_mtime_ns)
            for p in sorted(folder.rglob("*")) if p.is_file()}


def _no_games(monkeypatch):
    """Make playing a game fail the test: the checks must come before any game."""
    from evaluate.tournament import Tournament

    def run(self, *args, **kwargs):
        raise AssertionError("a game was played before the input was checked")

    monkeypatch.setattr(Tournament, "run", run)


def _one_line_error(code, out, err, message):
    assert code == 2, err
    assert out == ""
    assert re.search(message, err), err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_out_holding_results_is_refused_before_any_game(tmp_path, capsys, monkeypatch):
    out = tmp_path / "results"
    code, _, err = _run(["random", "random", "--games", "4", "--workers", "1", "--out", str(out),
                         "--quiet", "--no-plot"], capsys)
    assert code == 0, err
    before = _snapshot(tmp_path)
    _no_games(monkeypatch)
    code, stdout, err = _run(["random", "heuristic", "--games", "10000000", "--out", str(out), "--quiet"],
                             capsys)
    _one_line_error(code, stdout, err, r"--out .*results already holds results \(results.json, agents.csv, "
                                       r"tables.csv, games.csv\): give a new folder, or add --overwrite")
    assert _snapshot(tmp_path) == before


def test_overwrite_replaces_the_results_and_drops_stale_files(tmp_path, capsys):
    out = tmp_path / "results"
    common = ["--workers", "1", "--out", str(out), "--quiet", "--no-plot"]
    code, _, err = _run(["random", "random", "--games", "4", "--records", *common], capsys)
    assert code == 0 and (out / "records.jsonl").exists(), err
    (out / "notes.txt").write_text("mine")
    code, _, err = _run(["random", "heuristic", "--games", "6", "--overwrite", *common], capsys)
    assert code == 0, err
    data = json.loads((out / "results.json").read_text())
    assert data["config"]["agents"] == ["random", "heuristic"] and data["config"]["games_per_table"] == 6
    assert not (out / "records.jsonl").exists()  # the old run's records do not describe this one
    assert (out / "notes.txt").read_text() == "mine"  # files of other names are left alone


@pytest.mark.parametrize(("setup", "args", "message"), [
    ("file", ["--out", "{tmp}/taken"], r"--out .*taken is a file, not a folder"),
    ("file", ["--out", "{tmp}/taken/sub"], r"cannot create the results folder .*taken/sub"),
    (None, ["--overwrite"], r"--overwrite replaces the results in --out DIR: give --out"),
    (None, ["--out", " "], r"--out needs a folder name, got an empty one"),
    (None, ["--no-save", "--out", "{tmp}/x"], r"--no-save writes no files: drop --out"),
    (None, ["--no-save", "--records"], r"--no-save writes no files: drop --records"),
])
def test_bad_output_options_are_one_line_before_any_game(tmp_path, capsys, monkeypatch, setup, args, message):
    if setup == "file":
        (tmp_path / "taken").write_text("a file")
    monkeypatch.chdir(tmp_path)
    before = _snapshot(tmp_path)
    _no_games(monkeypatch)
    code, out, err = _run(["random", "random", *[a.format(tmp=tmp_path) for a in args]], capsys)
    _one_line_error(code, out, err, message)
    assert _snapshot(tmp_path) == before and not (tmp_path / "runs").exists()


def test_without_out_every_tournament_gets_its_own_folder(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    args = ["random", "heuristic", "--games", "4", "--workers", "1", "--quiet", "--no-plot"]
    code, _, err = _run(args, capsys)
    assert code == 0, err
    first = tmp_path / "runs" / "evaluate" / "random-vs-heuristic-seven_up-2p-seed0"
    assert f"to {first.relative_to(tmp_path)}" in err
    kept = _snapshot(first)
    code, _, err = _run([*args[:3], "8"] + args[4:], capsys)  # the same agents, preset and seed again
    assert code == 0, err
    second = first.with_name(first.name + "-2")
    assert json.loads((second / "results.json").read_text())["config"]["games_per_table"] == 8
    assert _snapshot(first) == kept


def test_default_folder_names_are_safe_paths():
    from allfours_env import Rules
    from evaluate.output import default_name

    assert default_name(["ppo:runs/a b/model.zip", "pimc:samples=8", "random#2"], Rules.make("trinidad", 4),
                        7) == "ppo-runs-a-b-model.zip-vs-pimc-samples=8-vs-random-2-trinidad-4p-seed7"


def test_a_run_whose_first_game_fails_saves_nothing_and_leaves_no_folder(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setitem(_REGISTRY, "failing", FailingAgent)
    code, _, err = _run(["failing:stop=0", "random", "--games", "4", "--workers", "1", "--quiet"], capsys)
    assert code == 1
    assert err.strip().splitlines()[-1] == (
        "allfours-evaluate: error: a game failed: RuntimeError: agent crashed (in game 0: table 0, deal "
        "group 0, seating 0, tournament seed 0); no game had finished, nothing saved")
    assert not (tmp_path / "runs").exists()


def test_a_failing_game_stops_the_run_and_saves_the_finished_deal_groups(tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(_REGISTRY, "failing", FailingAgent)
    code, out, err = _run(["failing:stop=5", "random", "--games", "20", "--workers", "1", "--quiet",
                           "--no-plot", "--out", str(tmp_path / "run")], capsys)
    assert code == 1 and "Traceback" not in err
    assert ("error: a game failed: RuntimeError: agent crashed (in game 5: table 0, deal group 2, seating 1, "
            "tournament seed 0); kept 4 finished games of 20 (4 in complete deal groups") in err
    assert "STOPPED BY AN ERROR: 4 of 20 games finished" in out
    data = json.loads((tmp_path / "run" / "results.json").read_text())
    assert data["run"]["error"].startswith("RuntimeError: agent crashed")
    assert data["statistics"]["games_used"] == 4



@pytest.mark.parametrize(("preset", "columns"), [
    ("seven_up", "| beg | gift | run |"),
    ("auction_pitch", "| bid | contracts | made | mean contract |"),
    ("california_jack", "| points/hand |"),
])
def test_the_leaderboard_shows_the_bidding_of_the_preset(preset, columns, capsys):
    code, out, err = _run(["heuristic", "random", "--preset", preset, "--games", "10", "--workers", "1",
                           "--no-save", "--quiet"], capsys)
    assert code == 0, err
    header = next(line for line in out.splitlines() if line.startswith("| rank |"))
    assert header.endswith(columns)
    row = next(line for line in out.splitlines() if line.startswith("| 1 |"))
    assert row.count("|") == header.count("|") and "| – |" not in row


def test_the_other_command_lines_bound_their_counts_too(capsys):
    """allfours-play: a --delay beyond a minute is a typo, refused before the game (one line, 2)."""
    from agents.play.cli import main as play_main

    assert play_main(["--delay", "1e9", "--opponent", "random"], input_fn=lambda prompt: "q") == 2
    err = capsys.readouterr().err
    assert "--delay is at most 60 seconds" in err and len(err.strip().splitlines()) == 1
