"""A training run end to end on a tiny budget: the files it writes, the privileged critic, the
opponent schedule, the weight average of the last checkpoints, and Ctrl-C at any moment."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from agents import make_agent
from allfours_env.observation import OBS_SIZE
from child_signals import sigint_as_in_a_terminal
from conftest import TINY, npz
from train import load
from train.__main__ import main


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


def test_average_since_makes_the_final_model_the_mean_of_the_late_checkpoints(tmp_path):
    out = tmp_path / "run"
    assert main(["--set", *TINY, "average_since=512", "--out", str(out), "--no-progress"]) == 0
    meta = json.loads((out / "model.json").read_text())
    assert [p.rsplit("/", 1)[1] for p in meta["averaged"]] == ["step_512.npz", "step_1024.npz"]
    weights = [npz(out / "checkpoints" / f"step_{n}.npz")["action_net.bias"] for n in (512, 1024)]
    np.testing.assert_allclose(npz(out / "model.npz")["action_net.bias"], (weights[0] + weights[1]) / 2,
                               rtol=1e-6)


def hang_report(process: subprocess.Popen) -> str:
    """What a process that did not exit was doing: the processes of its group (``ps``), and the stacks
    of its threads that faulthandler prints on SIGABRT (or, if it had exited, what kept its pipes open)."""
    group = subprocess.run(["ps", "-o", "pid,stat,etime,args", "-g", str(process.pid)],
                           capture_output=True, text=True).stdout
    alive = process.poll() is None
    if alive:
        os.kill(process.pid, signal.SIGABRT)
    try:
        _, err = process.communicate(timeout=10)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        _, err = process.communicate()
    return f"trainer {'alive' if alive else 'exited, its pipes held open'}; group:\n{group}\nstderr:\n{err}"


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
    # PYTHONFAULTHANDLER: should the trainer hang, SIGABRT makes it print every thread's stack.
    process = subprocess.Popen(command, cwd=tmp_path, text=True, start_new_session=True,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               preexec_fn=sigint_as_in_a_terminal,
                               env=dict(os.environ, PYTHONPATH=str(root), PYTHONFAULTHANDLER="1"))
    try:
        deadline = time.monotonic() + 120
        while not list((out / "checkpoints").glob("step_*.json")):  # learning has begun
            assert process.poll() is None and time.monotonic() < deadline, process.communicate()
            time.sleep(0.05)
        time.sleep(0.3)  # inside a rollout or an update
        os.killpg(process.pid, signal.SIGINT)
        try:
            _, err = process.communicate(timeout=120)  # a loaded machine (CI) may be slow to close workers
        except subprocess.TimeoutExpired:
            pytest.fail(f"no exit 120 s after Ctrl-C; {hang_report(process)}")
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


def test_closing_after_ctrl_c_between_two_workers_results_does_not_wait_forever():
    """Ctrl-C after the first worker's result was read and before the second's: SB3's own close()
    waits for a result from every worker and so forever for the first one; ours closes them all."""
    import threading

    from train.envs import close_vec_env, make_vec_env

    env = make_vec_env(load(None, ["n_envs=2", "opponents.mix={random=1}"]))
    env.reset()
    env.step_async(np.zeros(2, dtype=np.int64))
    env.remotes[0].recv()  # step_wait had read this one when the KeyboardInterrupt came
    closing = threading.Thread(target=close_vec_env, args=(env, True), daemon=True)
    closing.start()
    closing.join(timeout=60)  # a bound on a hang, not a measure of speed
    assert not closing.is_alive(), "closing the workers hung"
    assert env.closed and not any(process.is_alive() for process in env.processes)
