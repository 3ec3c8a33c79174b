"""scripts/ship_policy.py: a run becomes a shipped policy with its recipe and its scores."""
import importlib.util
import json
import shutil
from pathlib import Path

import pytest

from agents.policy_file import read_metadata
from train import load

ROOT = Path(__file__).resolve().parents[2]
_SPEC = importlib.util.spec_from_file_location("ship_policy", ROOT / "scripts" / "ship_policy.py")
ship_policy = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(ship_policy)


def fake_run(folder: Path, recipe: str = "don_2p", **changes) -> Path:
    """A finished run's folder: the shipped don policy's weights, the recipe's settings (with
    ``changes``) and the metadata a JAX run writes."""
    folder.mkdir()
    shutil.copyfile(ROOT / "agents" / "policies" / "don_2p.npz", folder / "model.npz")
    shipped = read_metadata(ROOT / "agents" / "policies" / "don_2p.npz")
    meta = {key: shipped[key] for key in ship_policy.KEYS}
    meta.update(seed=0, timesteps=1_000_000, learner_steps_per_s=5000.0, backend="jax", devices=["cpu:0"],
                averaged=[str(folder / "checkpoints" / f"step_{n}.npz") for n in (1_000_000, 500_000)],
                final_eval={"heuristic": {"win_rate": 0.5, "win_rate_ci": [0.4, 0.6], "games": 4}})
    (folder / "model.json").write_text(json.dumps(meta))
    (folder / "config.json").write_text(json.dumps({**load(recipe).to_dict(), "out": str(folder), **changes}))
    return folder


def test_a_run_is_shipped_with_its_recipe_its_tables_and_the_bar(tmp_path, capsys):
    run = fake_run(tmp_path / "run")
    dest = tmp_path / "policies"
    argv = [str(run), "--dest", str(dest), "--games", "4", "--seeds", "1", "--workers", "1",
            "--note", "wall 1 s"]
    assert ship_policy.main(argv) == 0
    assert (dest / "don_2p.npz").read_bytes() == (run / "model.npz").read_bytes()
    meta = read_metadata(dest / "don_2p.npz")
    assert meta["reproduce"] == "python -m train --backend jax --config don_2p"
    assert meta["config"] == load("don_2p").to_dict()
    assert meta["averaged_steps"] == [500_000, 1_000_000]
    assert meta["provenance"].endswith("; wall 1 s")
    evaluation = meta["evaluation"]
    assert evaluation["command"].startswith(
        "python -m evaluate ppo:agents/policies/don_2p.npz random heuristic --schedule first-vs-rest "
        "--games 4 --seed 0 --preset don --players 2")
    for opponent in ("random", "heuristic"):
        low, high = evaluation[opponent]["win_rate_ci"]
        assert evaluation[opponent]["games"] == 4 and low <= evaluation[opponent]["win_rate"] <= high
    assert set(evaluation["other_deal_sets"]["heuristic"]) == {"seed 1", "run final"}
    assert "over the 3 deal sets" in evaluation["bar"]

    assert ship_policy.main(argv) == 2  # shipped already: refused before any game
    assert "pass --replace" in capsys.readouterr().err


@pytest.mark.parametrize("changes, recipe, message", [
    ({"total_timesteps": 5}, None, "differ from config 'don_2p' in total_timesteps"),
    ({}, "no_such_recipe", "--config"),
])
def test_a_run_that_is_not_its_recipe_is_refused_before_any_game(tmp_path, capsys, changes, recipe, message):
    run = fake_run(tmp_path / "run", **changes)
    argv = [str(run), "--dest", str(tmp_path / "policies")] + (["--config", recipe] if recipe else [])
    assert ship_policy.main(argv) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "policies").exists()
