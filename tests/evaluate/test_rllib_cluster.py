"""Ray outside training: ``evaluate --backend ray`` gives the table of ``--workers 2``, and a
two-node cluster — a head and a worker started as separate ``ray start`` processes on this
machine, joined by address — runs a tournament and a tiny RLlib training."""

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

pytest.importorskip("ray.rllib", reason="Ray RLlib is not installed (pip install 'allfours[rllib]')")

from evaluate.__main__ import main as evaluate_main  # noqa: E402
from evaluate.ray_backend import SOURCE_ROOT  # noqa: E402

AGENTS = ["random", "heuristic", "--games", "60", "--seed", "3", "--no-save", "--quiet"]
RAY = str(Path(sys.executable).with_name("ray"))


def test_evaluate_on_ray_prints_the_table_of_two_worker_processes(capsys, monkeypatch):
    assert evaluate_main([*AGENTS, "--workers", "2"]) == 0
    local = capsys.readouterr().out
    monkeypatch.setenv("ALLFOURS_PROGRESS_SECONDS", "0.05")
    quiet = [word for word in AGENTS if word != "--quiet"]
    assert evaluate_main([*quiet, "--backend", "ray", "--workers", "2"]) == 0
    printed = capsys.readouterr()
    assert printed.out == local
    assert "heuristic" in local
    # the tasks' game counter reaches the progress line: every game counted, once
    assert re.search(r"^games: 60/60 \(100%\)", printed.err, re.M), printed.err[-2000:]
    assert not re.search(r"^games: (6[1-9]|[7-9]\d|\d{3,})/60", printed.err, re.M)


def test_unreachable_cluster_is_one_line_and_exit_2(capsys):
    assert evaluate_main([*AGENTS, "--ray", "127.0.0.1:1"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "cannot reach Ray at 127.0.0.1:1" in err[0]


def test_a_failing_game_on_ray_stops_the_run_naming_the_game(monkeypatch):
    from conftest import FailingAgent
    from evaluate import Tournament

    # the Ray workers import FailingAgent's module (conftest) from the tests folder
    tests = str(Path(__file__).resolve().parents[1])
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [tests, os.environ.get("PYTHONPATH")])))
    tournament = Tournament([FailingAgent(stop=3), "random"], games=20, seed=3)
    result = tournament.run(backend="ray", workers=2, on_error="stop")
    assert result.error.startswith("RuntimeError: agent crashed (in game ")
    assert result.error.endswith(", tournament seed 3)") and len(result.games) < 20


def _stop(process: subprocess.Popen) -> None:
    """End a `ray start --block` process and everything it started (its own process group)."""
    if process.poll() is not None:
        return
    os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=5)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=15)


@pytest.fixture
def two_node_cluster():
    """A head node and a worker node, one CPU each, as `ray start` processes with their own
    temporary folder (so no other Ray on this machine sees them); yields (address, environment)."""
    temp = tempfile.mkdtemp(prefix="afr-")  # short: Ray's socket paths live under it
    env = {**os.environ, "RAY_AUTH_MODE": "token",  # `ray start --head` turns token auth on
           "PYTHONPATH": os.pathsep.join(filter(None, [str(SOURCE_ROOT), os.environ.get("PYTHONPATH")]))}
    common = ["--num-cpus=1", "--object-store-memory=100000000", "--disable-usage-stats", "--block"]
    started = []
    try:
        head = subprocess.Popen([RAY, "start", "--head", "--port=0", "--include-dashboard=false",
                                 f"--temp-dir={temp}", *common], env=env, start_new_session=True,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        started.append(head)
        address_file = Path(temp) / "ray_current_cluster"
        deadline = time.time() + 120
        while not address_file.is_file() or not address_file.read_text().strip():
            assert head.poll() is None and time.time() < deadline, "the head node did not start"
            time.sleep(0.5)
        address = address_file.read_text().strip()
        worker = subprocess.Popen([RAY, "start", f"--address={address}", *common], env=env,
                                  start_new_session=True, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL)
        started.append(worker)
        probe = (f"import ray, time\nray.init(address={address!r}, log_to_driver=False)\n"
                 "while sum(n['Alive'] for n in ray.nodes()) < 2: time.sleep(0.5)\n"
                 "print(int(ray.cluster_resources()['CPU']))")
        nodes = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True,
                               timeout=120)
        assert nodes.stdout.strip() == "2", nodes.stderr[-2000:]
        yield address, env
    finally:
        for process in reversed(started):
            _stop(process)
        shutil.rmtree(temp, ignore_errors=True)


def test_a_head_and_a_worker_node_joined_by_address_run_evaluate_and_train(two_node_cluster, tmp_path,
                                                                          capsys):
    address, env = two_node_cluster
    assert evaluate_main([*AGENTS, "--workers", "2"]) == 0
    local = capsys.readouterr().out
    # two tasks at once on two one-CPU nodes: the deal groups run on both machines
    remote = subprocess.run([sys.executable, "-m", "evaluate", *AGENTS, "--ray", address, "--workers", "2"],
                            env=env, capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert remote.returncode == 0, remote.stderr[-2000:]
    assert remote.stdout == local

    # a tiny RLlib run whose two env runners (a CPU each) are spread over both nodes
    out = tmp_path / "run"
    tiny = ["total_timesteps=1024", "n_envs=1", "ppo.n_steps=512", "ppo.batch_size=128", "ppo.n_epochs=1",
            "ppo.net_arch=[16]", "eval.every=100000", "eval.games=2", "eval.final_games=2",
            "eval.final_opponents=[\"random\"]", 'imitation.teacher=""', f'rllib.address="{address}"',
            "rllib.num_env_runners=2", "rllib.num_envs_per_env_runner=2"]
    trained = subprocess.run([sys.executable, "-m", "train", "--backend", "rllib", "--no-progress",
                              "--out", str(out), "--set", *tiny], env=env, capture_output=True, text=True,
                             timeout=300, cwd=tmp_path)
    assert trained.returncode == 0, trained.stderr[-3000:]
    assert json.loads((out / "model.json").read_text())["timesteps"] >= 1024
