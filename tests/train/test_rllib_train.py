"""The RLlib backend end to end on a tiny budget (a local Ray instance, one env runner): config ->
checkpoints -> resume -> evaluation -> exported policy; resuming restores the learner's state from
the checkpoint's plain arrays and never unpickles RLlib's own checkpoints; masked actions are always
legal under RLlib; bad input is one line before any work."""

import json
import pickle
import shutil
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("ray.rllib", reason="Ray RLlib is not installed (pip install 'allfours[rllib]')")

from filelock import FileLock  # noqa: E402  (a dependency of Ray)

from agents import policy_file  # noqa: E402
from agents.policy import load_policy  # noqa: E402
from evaluate.__main__ import main as evaluate_main  # noqa: E402
from train import load  # noqa: E402
from train.__main__ import main  # noqa: E402

TINY = ["total_timesteps=2048", "n_envs=1", "ppo.n_steps=512", "ppo.batch_size=128", "ppo.n_epochs=1",
        "ppo.net_arch=[32]", "eval.every=1024", "eval.games=4", "eval.final_games=4", "eval.workers=1",
        "opponents.snapshot_every=1", "opponents.mix={random=0.5,snapshot=0.5}", 'imitation.teacher=""',
        "rllib.num_env_runners=1", "rllib.num_envs_per_env_runner=4"]


@pytest.fixture(scope="session")
def rllib_run(tmp_path_factory, worker_id) -> Path:
    """One tiny RLlib run per test session, shared by pytest-xdist workers."""
    root = tmp_path_factory.getbasetemp()
    if worker_id != "master":
        root = root.parent
    out = root / "rllib_run"
    with FileLock(str(root / "rllib_run.lock")):
        if not (out / "model.json").is_file():
            assert main(["--backend", "rllib", "--set", *TINY, "--out", str(out), "--no-progress"]) == 0
    return out


def checkpoints(out: Path) -> list[Path]:
    return sorted((out / "checkpoints").glob("step_*.npz"), key=lambda p: int(p.stem.split("_")[1]))


def test_tiny_rllib_run_writes_checkpoints_resumes_and_evaluates(rllib_run, tmp_path, capsys):
    out = rllib_run
    for name in ("config.json", "model.npz", "model.json", "eval.csv", "learning_curve.png",
                 "final_eval/table.md", "final_eval/results.json"):
        assert (out / name).is_file(), name
    saved = checkpoints(out)
    assert len(saved) == 2
    for path in saved:
        assert path.with_suffix(".json").is_file()
        assert not path.with_suffix(".rllib").exists()  # RLlib's own checkpoints are pickles: none
        with np.load(path, allow_pickle=False) as arrays:
            names = arrays.files
        assert any(n.startswith("module.critic.") for n in names), names
        assert any(n.startswith("optimizer.learner_default_optimizer.") for n in names), names
    assert list((out / "tb" / "rllib").iterdir())
    model = json.loads((out / "model.json").read_text())
    assert model["backend"] == "rllib" and model["timesteps"] >= 2048
    assert set(model["final_eval"]) == {"random", "heuristic"} and model["learner_steps_per_s"] > 0
    first = json.loads(saved[0].with_suffix(".json").read_text())
    assert first["eval"] and first["timesteps"] >= 1024 and first["training"]["backend"] == "rllib"

    # branch a new run from the first checkpoint and train further
    resumed = tmp_path / "resumed"
    args = ["--backend", "rllib", "--set", "total_timesteps=3072", "--out", str(resumed), "--no-progress",
            "--resume", str(saved[0])]
    assert main(args) == 0
    meta = json.loads((resumed / "model.json").read_text())
    assert meta["timesteps"] >= 3072
    assert all(int(p.stem.split("_")[1]) > first["timesteps"] for p in checkpoints(resumed))
    capsys.readouterr()

    # the exported policy, and any checkpoint, is an agent like any other: evaluate plays it
    for policy in (resumed / "model.npz", saved[0]):
        assert evaluate_main([f"ppo:{policy}", "random", "--games", "10", "--no-save", "--quiet",
                              "--workers", "1"]) == 0
        assert f"ppo:{policy}" in capsys.readouterr().out


def test_the_seed_fixes_the_run(rllib_run, tmp_path):
    """The same config and seed train the same weights (one env runner, CPU)."""
    again = tmp_path / "again"
    tiny = [item for item in TINY if not item.startswith(("eval.", "total_timesteps"))]
    assert main(["--backend", "rllib", "--set", *tiny, "total_timesteps=1024", "eval.every=1024",
                 "eval.games=2", "eval.final_games=2", "--out", str(again), "--no-progress"]) == 0
    first = checkpoints(rllib_run)[0]
    twin = again / "checkpoints" / first.name
    assert twin.is_file()
    ours, theirs = np.load(first), np.load(twin)
    assert ours.files == theirs.files
    assert all(np.array_equal(ours[name], theirs[name]) for name in ours.files)


def test_masked_actions_sampled_from_the_trained_module_are_always_legal(rllib_run):
    """Several hundred games sampled by RLlib's own env runner from the trained module (both seats,
    exploring): the env raises on any illegal action, and every recorded action is in its mask."""
    import torch
    from ray.rllib.env.multi_agent_env_runner import MultiAgentEnvRunner

    from allfours_env.rllib_env import AllFoursMultiAgentEnv
    from train.rllib.module import state_from_actor
    from train.rllib.trainer import MODULE_ID, algorithm_config

    torch.set_num_threads(1)
    config = load(None, TINY)
    runner_config = algorithm_config(config).environment(AllFoursMultiAgentEnv).env_runners(
        num_env_runners=0, num_envs_per_env_runner=8)
    runner_config.env_config = {"episode": "game", "illegal_action": "raise"}
    runner = MultiAgentEnvRunner(config=runner_config)
    actor, _ = load_policy(rllib_run / "model.npz")
    runner.set_state({"rl_module": {MODULE_ID: state_from_actor(actor)}})
    decisions = 0
    episodes = runner.sample(num_episodes=200, explore=True)
    assert len(episodes) >= 200
    for episode in episodes:
        assert episode.is_terminated
        for agent_episode in episode.agent_episodes.values():
            masks = agent_episode.get_observations()["action_mask"]
            actions = np.asarray(agent_episode.get_actions())
            assert masks[np.arange(len(actions)), actions].all()
            decisions += len(actions)
    assert decisions > 200 * 20
    runner.stop()


def damaged(run: Path, tmp_path: Path, name: str, drop: str = "", reshape: str = "") -> Path:
    """A copy of the run's first checkpoint (``NAME/step_N.npz``) without the arrays named
    ``drop...``, or with the array ``reshape`` cut to one entry."""
    source = checkpoints(run)[0]
    arrays = policy_file.read_arrays(source)
    arrays = {n: a for n, a in arrays.items() if not (drop and n.startswith(drop))}
    if reshape:
        arrays[reshape] = arrays[reshape].reshape(-1)[:1]
    path = tmp_path / name / source.name
    path.parent.mkdir()
    return policy_file.write(path, arrays, json.loads(source.with_suffix(".json").read_text()))


def test_bad_rllib_input_is_one_line_before_any_work(rllib_run, tmp_path, capsys):
    rllib = ["--backend", "rllib"]
    cases = [
        ([*rllib, "--set", "rllib.num_env_runners=-1"], "rllib.num_env_runners"),
        ([*rllib, "--set", "rllib.workers=2"], "unknown key(s) ['workers'] in [rllib]"),
        ([*rllib, "--set", "ppo.batch_size=4096", "n_envs=1", "ppo.n_steps=512"], "ppo.batch_size"),
        ([*rllib, "--set", "ppo.net_arch=[64]", "--resume", str(rllib_run)], "its network is fixed"),
        ([*rllib, "--set", *TINY, "--resume", str(tmp_path)], "no checkpoints in"),
        ([*rllib, "--set", 'rllib.address="127.0.0.1:1"'], "cannot reach Ray at 127.0.0.1:1"),
        (["--resume", str(rllib_run), "--timesteps", "100000"], "written by --backend rllib"),
        ([*rllib, "--resume", str(damaged(rllib_run, tmp_path, "old", drop="module.")), "--timesteps",
          "100000"], "holds no learner state"),
        ([*rllib, "--resume", str(damaged(rllib_run, tmp_path, "shape", reshape="module.critic.0.bias")),
          "--timesteps", "100000"], "array module.critic.0.bias is (1,), the module needs"),
        ([*rllib, "--resume", str(damaged(rllib_run, tmp_path, "adam", drop="optimizer.learner_default_"
                                                                           "optimizer.3.")),
          "--timesteps", "100000"], "optimizer.learner_default_optimizer.3.exp_avg is missing"),
    ]
    for args, message in cases:
        out = tmp_path / "never"
        assert main([*args, "--out", str(out), "--no-progress"]) == 2
        err = capsys.readouterr().err.strip()
        assert message in err and len(err.splitlines()) == 1, err
        assert not out.exists()


class Payload:
    """Unpickling this creates the file ``marker`` (what an attacker would run instead)."""

    def __init__(self, marker: Path) -> None:
        self.marker = str(marker)

    def __reduce__(self):
        return (open, (self.marker, "w"))


def test_resume_restores_the_learner_from_arrays_and_never_unpickles(rllib_run, tmp_path, monkeypatch,
                                                                      capsys):
    """A run folder whose newest checkpoint has a crafted ``step_N.rllib/`` beside it (RLlib's
    cloudpickled algorithm state, whose payload writes a marker): ``--resume`` continues the run
    from the ``.npz`` alone, says the folder is ignored, and the payload never runs. The learner it
    resumes with has exactly the saved module weights and optimiser state."""
    from train.rllib import trainer

    marker = tmp_path / "PAYLOAD_RAN"
    crafted = tmp_path / "crafted"
    shutil.copytree(rllib_run, crafted)
    newest = checkpoints(crafted)[-1]
    folder = newest.with_suffix(".rllib")
    folder.mkdir(exist_ok=True)
    if not (folder / "rllib_checkpoint.json").is_file():
        (folder / "rllib_checkpoint.json").write_text(json.dumps({"type": "Algorithm"}))
    for name in ("algorithm_state.pkl", "class_and_ctor_args.pkl"):
        (folder / name).write_bytes(pickle.dumps(Payload(marker)))

    restored = {}
    original = getattr(trainer, "restore_learner", None)

    def spy(algo, arrays):
        original(algo, arrays)
        restored.update(trainer.learner_arrays(algo))

    monkeypatch.setattr(trainer, "restore_learner", spy, raising=False)
    step = int(newest.stem.split("_")[1])
    capsys.readouterr()
    code = main(["--backend", "rllib", "--resume", str(crafted), "--timesteps", str(step + 512),
                 "--no-progress"])
    assert not marker.exists(), "RLlib's pickled checkpoint was opened"
    assert code == 0
    out = capsys.readouterr().out
    assert f"ignoring {folder.name}/" in out
    later = checkpoints(crafted)[-1]
    assert int(later.stem.split("_")[1]) > step and not later.with_suffix(".rllib").exists()

    with np.load(newest, allow_pickle=False) as stored:
        saved = {n: stored[n] for n in stored.files if n.startswith(("module.", "optimizer."))}
    assert set(restored) == set(saved)
    keys = {n.split(".")[-1] for n in saved if n.startswith("optimizer.")}
    assert keys == {"step", "exp_avg", "exp_avg_sq"}
    assert all(saved[n] > 0 for n in saved if n.endswith(".step"))  # a trained optimiser, not a fresh one
    for name, array in saved.items():
        assert restored[name].shape == array.shape, name
        assert np.allclose(restored[name], array, rtol=1e-6, atol=1e-8), name
