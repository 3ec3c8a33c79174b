"""The JAX backend's warm start: behaviour cloning in JAX fits a teacher's actions and the hands'
returns, leaves a privileged critic's weights on the hidden cards at zero, and runs end to end with
DAgger rounds whose games are played in worker processes after JAX has started."""

import numpy as np
import pytest

pytest.importorskip("jax", reason="JAX is not installed (pip install 'allfours[jax]')")
pytest_plugins = ["jax_setup"]

from test_jax_train import TINY  # noqa: E402  (this folder)

from allfours_env.actions import NUM_ACTIONS  # noqa: E402
from allfours_env.observation import OBS_SIZE  # noqa: E402
from train.__main__ import main  # noqa: E402


def teacher_data(count: int, seed: int = 0) -> dict[str, np.ndarray]:
    """Decisions of a made-up teacher: the observation's first ten entries name its action (one of
    them set), a few other actions are legal too; the return grows with that action's number."""
    rng = np.random.default_rng(seed)
    target = rng.integers(0, 10, count)
    obs = (rng.random((count, OBS_SIZE)) < 0.01).astype(np.float16)
    obs[:, :10] = 0
    obs[np.arange(count), target] = 1
    masks = rng.random((count, NUM_ACTIONS)) < 0.1
    masks[np.arange(count), target] = True
    return {"observations": obs, "masks": masks, "actions": target.astype(np.int16),
            "returns": (0.2 * target - 1.0).astype(np.float32)}


@pytest.mark.parametrize("privileged", [False, True], ids=["critic", "privileged-critic"])
def test_cloning_learns_the_teachers_actions_and_the_returns(privileged):
    import jax

    from train.jax import network
    from train.jax.warm_start import fit

    params = network.init_params(jax.random.PRNGKey(0), [32], privileged)
    data = teacher_data(3000)
    fitted, history = fit(params, data, epochs=30, learning_rate=3e-3, seed=0, activation="relu",
                          log=lambda line: None)
    assert history[0]["accuracy"] < 0.75 and history[-1]["accuracy"] > 0.85
    assert history[-1]["loss"] < history[0]["loss"] / 2
    rows = np.arange(0, 3000, 10)  # the held-out decisions
    width = network.critic_inputs(privileged)
    x = np.zeros((len(rows), width), np.float32)
    x[:, :OBS_SIZE] = data["observations"][rows]
    value = np.asarray(network.mlp(fitted["critic"], x, "relu"))[:, 0]
    assert np.mean((value - data["returns"][rows]) ** 2) < 0.25 * np.var(data["returns"][rows])
    if privileged:
        assert not np.asarray(fitted["critic"][0][0])[OBS_SIZE:].any()


def test_a_jax_run_warm_starts_with_dagger_rounds_in_worker_processes(tmp_path, capsys):
    out = tmp_path / "run"
    warm = ['imitation.teacher="heuristic"', "imitation.games=6", "imitation.epochs=2", "imitation.workers=2",
            "imitation.dagger_rounds=1", "imitation.dagger_games=4", "imitation.dagger_epochs=1",
            "ppo.privileged_critic=true"]
    assert main(["--backend", "jax", "--set", *TINY, *warm, "--out", str(out), "--no-progress"]) == 0
    printed = capsys.readouterr().out
    assert "imitation epoch 2/2" in printed and "DAgger round 1:" in printed
    assert (out / "model.npz").is_file()
