"""scripts/ship_policy.py: a run becomes a shipped policy with its recipe and its scores."""
import importlib.util
import json
import shutil
from pathlib import Path

import pytest

from agents import make_agent
from agents.policy_file import read_metadata
from train import load

ROOT = Path(__file__).resolve().parents[2]
_SPEC = importlib.util.spec_from_file_location("ship_policy", ROOT / "scripts" / "ship_policy.py")
ship_policy = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(ship_policy)


def fake_run(folder: Path, recipe: str | Path = "don_2p", games: int = 4, **changes) -> Path:
    """A finished run's folder: the shipped don policy's weights, the recipe's settings (with
    ``changes``) and the metadata a JAX run writes (``games`` in its final table)."""
    folder.mkdir()
    shutil.copyfile(ROOT / "agents" / "policies" / "don_2p.npz", folder / "model.npz")
    shipped = read_metadata(ROOT / "agents" / "policies" / "don_2p.npz")
    meta = {key: shipped[key] for key in ship_policy.KEYS}
    settings = {**load(recipe).to_dict(), "out": str(folder), **changes}
    meta["trained_for"] = {"preset": settings["preset"], "num_players": settings["num_players"], "knobs": {}}
    meta.update(seed=0, timesteps=1_000_000, learner_steps_per_s=5000.0, backend="jax", devices=["cpu:0"],
                averaged=[str(folder / "checkpoints" / f"step_{n}.npz") for n in (1_000_000, 500_000)],
                final_eval={"heuristic": {"win_rate": 0.5, "win_rate_ci": [0.4, 0.6], "games": games}})
    (folder / "model.json").write_text(json.dumps(meta))
    (folder / "config.json").write_text(json.dumps(settings))
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
    assert evaluation["commands"] == [
        "python -m evaluate ppo:agents/policies/don_2p.npz random heuristic --schedule first-vs-rest "
        "--games 4 --seed 0 --preset don --players 2 --workers 1"]
    for opponent in ("random", "heuristic"):
        low, high = evaluation[opponent]["win_rate_ci"]
        assert evaluation[opponent]["games"] == 4 and low <= evaluation[opponent]["win_rate"] <= high
    assert set(evaluation["other_deal_sets"]["heuristic"]) == {"seed 1", "run final"}
    assert "over the 3 deal sets" in evaluation["bar"]

    assert ship_policy.main(argv) == 2  # shipped already: refused before any game
    assert "pass --replace" in capsys.readouterr().err


@pytest.mark.parametrize("changes, recipe, message", [
    ({"total_timesteps": 9_000_000}, None, "differ from config 'don_2p' in total_timesteps"),
    ({}, "no_such_recipe", "--config"),
])
def test_a_run_that_is_not_its_recipe_is_refused_before_any_game(tmp_path, capsys, changes, recipe, message):
    run = fake_run(tmp_path / "run", **changes)
    argv = [str(run), "--dest", str(tmp_path / "policies")] + (["--config", recipe] if recipe else [])
    assert ship_policy.main(argv) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "policies").exists()


def test_a_run_made_before_a_setting_existed_ran_with_its_default(tmp_path):
    run = fake_run(tmp_path / "run")
    settings = json.loads((run / "config.json").read_text())
    del settings["jax"]["points_share"]  # the recipe's value is the default
    (run / "config.json").write_text(json.dumps(settings))
    args = ship_policy.parser().parse_args([str(run), "--dest", str(tmp_path / "policies")])
    assert ship_policy.checked(args)[1:] == ("don_2p", "don_2p")
    settings["jax"]["self_play"] = 0.25  # a setting the run did change is still refused
    (run / "config.json").write_text(json.dumps(settings))
    with pytest.raises(ship_policy.ShipError, match="differ from config 'don_2p' in jax"):
        ship_policy.checked(args)


def test_a_free_for_all_is_scored_against_copies_of_each_bot(tmp_path):
    # three players, each alone (the stand-in weights, don's, bid too badly to end four-player
    # auction games against three random bidders)
    recipe = tmp_path / "auction_pitch_3p.toml"
    recipe.write_text(f'base = "{ROOT / "train" / "configs" / "don_2p.toml"}"\n'
                      'preset = "auction_pitch"\nnum_players = 3\n')
    run = fake_run(tmp_path / "run", recipe, games=6)
    dest = tmp_path / "policies"
    argv = [str(run), "--config", str(recipe), "--dest", str(dest), "--games", "4", "--seeds", "1",
            "--workers", "1"]
    assert ship_policy.main(argv) == 0
    evaluation = read_metadata(dest / "auction_pitch_3p.npz")["evaluation"]
    assert evaluation["commands"] == [
        f"python -m evaluate ppo:agents/policies/auction_pitch_3p.npz {bot} {bot} --games 4 --seed 0 "
        f"--preset auction_pitch --players 3 --workers 1" for bot in ("random", "heuristic")]
    for opponent in ("random", "heuristic"):  # two deal groups, the policy at each of the 3 sides
        assert evaluation[opponent]["games"] == 6
    assert set(evaluation["other_deal_sets"]["heuristic"]) == {"seed 1", "run final"}
    assert "41.67% against 2 copies of heuristic" in evaluation["bar"]
    assert "fair share of 33%" in evaluation["bar"]
    assert "heuristic random random --games 4" in evaluation["bar"]


_ENDGAME = importlib.util.spec_from_file_location("ship_endgame", ROOT / "scripts" / "ship_endgame.py")
ship_endgame = importlib.util.module_from_spec(_ENDGAME)
_ENDGAME.loader.exec_module(ship_endgame)


def network_alone_copy(dest: Path, name: str) -> None:
    """Copy the shipped policy ``name`` into ``dest`` and return the copy to its network alone
    (``--endgame 0``), whether or not it ships with the search."""
    dest.mkdir()
    for suffix in (".npz", ".json"):
        shutil.copyfile(ROOT / "agents" / "policies" / f"{name}{suffix}", dest / f"{name}{suffix}")
    assert ship_endgame.main([name, "--endgame", "0", "--dest", str(dest)]) == 0
    assert "play" not in read_metadata(dest / f"{name}.npz")


@pytest.mark.parametrize(("samples", "play"), [([], {"endgame": 8}),
                                               (["--samples", "3"], {"endgame": 8, "samples": 3})])
def test_a_shipped_policy_gets_its_endgame_search_with_both_tables_and_can_drop_it(tmp_path, samples, play):
    dest = tmp_path / "policies"
    network_alone_copy(dest, "trinidad_4p")
    before = read_metadata(dest / "trinidad_4p.npz")
    argv = ["trinidad_4p", "--endgame", "8", "--dest", str(dest), "--games", "4", "--seeds", "1",
            "--workers", "1", *samples]
    assert ship_endgame.main(argv) == 0
    meta = read_metadata(dest / "trinidad_4p.npz")
    assert meta["play"] == play
    assert ("3 deals a decision" in meta["evaluation"]["note"]) == bool(samples)
    assert meta["evaluation"]["commands"] == [
        "python -m evaluate ppo:agents/policies/trinidad_4p.npz random heuristic "
        "--schedule first-vs-rest --games 4 --seed 0 --preset trinidad --players 4 --workers 1"]
    assert meta["evaluation"]["heuristic"]["games"] == 4
    network = meta["evaluation_network"]
    assert network["heuristic"] == before["evaluation"]["heuristic"]
    searchless = "ppo:agents/policies/trinidad_4p.npz,endgame=0 "
    assert all(searchless in line for line in network["commands"])
    assert ship_endgame.main(["trinidad_4p", "--endgame", "0", "--dest", str(dest)]) == 0
    assert read_metadata(dest / "trinidad_4p.npz") == before


class Scored(Exception):
    """Raised by a stand-in for ``ship_policy.score`` with the agent spec it was asked to score."""


@pytest.mark.parametrize(("samples", "spec_tail"), [([], ",endgame=8,endgame_samples=auto"),
                                                    (["--samples", "5"], ",endgame=8,endgame_samples=5")])
def test_ship_endgame_scores_the_search_it_writes_not_the_files_old_deals(tmp_path, monkeypatch, samples,
                                                                          spec_tail):
    """A file that already says ``"samples": 3`` is re-shipped without it (or with 5): the games are
    played with the deals the new ``play`` will name, never the old count."""
    dest = tmp_path / "policies"
    network_alone_copy(dest, "seven_up_2p")
    meta = read_metadata(dest / "seven_up_2p.npz") | {"play": {"endgame": 8, "samples": 3}}
    (dest / "seven_up_2p.json").write_text(json.dumps(meta))

    def score(args, label, game, model):
        raise Scored(model)

    monkeypatch.setattr(ship_endgame.ship_policy, "score", score)
    with pytest.raises(Scored) as scored:
        ship_endgame.main(["seven_up_2p", "--endgame", "8", "--dest", str(dest), *samples])
    assert str(scored.value).endswith(spec_tail)
    assert make_agent(str(scored.value)).endgame.samples == (int(samples[1]) if samples else "auto")


@pytest.mark.parametrize(("argv", "message"), [
    (["seven_up_2p", "--endgame", "1"], "endgame must be 0 (off) or a whole number of cards >= 2"),
    (["no_such_2p", "--endgame", "8"], "no_such_2p.npz not found"),
    (["seven_up_2p", "--endgame", "8", "--seeds", "0"], "must not repeat seed 0"),
    (["seven_up_2p", "--endgame", "8", "--samples", "0"], "endgame samples must be 'auto' or a whole number"),
    (["seven_up_2p", "--endgame", "0", "--samples", "40"], "--samples needs an --endgame of at least 2"),
])
def test_ship_endgame_refuses_bad_arguments_before_any_game(argv, message, capsys, tmp_path):
    dest = tmp_path / "policies"
    network_alone_copy(dest, "seven_up_2p")
    assert ship_endgame.main([*argv, "--dest", str(dest)]) == 2
    assert message in capsys.readouterr().err
    assert "play" not in read_metadata(dest / "seven_up_2p.npz")
