"""Pooling tournaments of different seeds (``python -m evaluate.pool``): the same statistics as one
tournament when given one, sums of the pieces when given several, one-line refusals otherwise."""

from __future__ import annotations

import json

import pytest

from conftest import run_cli
from evaluate.__main__ import main as evaluate_main
from evaluate.pool import main as pool_main
from evaluate.pool import pool


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Three small saved tournaments: random vs heuristic at seeds 0 and 1, and one on another preset."""
    base = tmp_path_factory.mktemp("pool")
    folders = {}
    for name, extra in (("s0", ["--seed", "0"]), ("s1", ["--seed", "1", "--games", "14"]),
                        ("other", ["--seed", "2", "--preset", "all_fours"])):
        folders[name] = base / name
        args = ["random", "heuristic", "--games", "10", *extra, "--workers", "1", "--quiet", "--no-plot",
                "--out", str(folders[name])]
        assert evaluate_main(args) == 0
    return folders


def _pairing(statistics):
    numbers = statistics["tables"][0]["results"][0]
    return {key: numbers[key] for key in ("agent", "games", "wins", "win_rate", "win_rate_ci",
                                          "points_per_hand", "margin_per_hand", "margin_per_hand_ci")}


def test_one_folder_gives_that_tournament_statistics(runs):
    result, seeds = pool([runs["s0"]])
    saved = json.loads((runs["s0"] / "results.json").read_text())["statistics"]
    assert seeds == [0]
    assert _pairing(result.summary()) == _pairing(saved)
    assert [a["rating"] for a in result.summary()["agents"]] == [a["rating"] for a in saved["agents"]]


def test_two_seeds_add_their_games_and_deal_groups(runs):
    result, seeds = pool([runs["s0"], runs["s1"]])
    pieces = [json.loads((runs[name] / "results.json").read_text())["statistics"] for name in ("s0", "s1")]
    pooled = result.summary()
    assert seeds == [0, 1]
    assert pooled["games_used"] == sum(p["games_used"] for p in pieces) == 24
    assert pooled["deal_groups_used"] == sum(p["deal_groups_used"] for p in pieces) == 12
    for agent in pooled["agents"]:
        same = [next(a for a in p["agents"] if a["agent"] == agent["agent"]) for p in pieces]
        assert agent["wins"] == sum(a["wins"] for a in same)
        assert agent["points"] == sum(a["points"] for a in same)
        assert agent["hands"] == sum(a["hands"] for a in same)


def test_command_line_report_names_the_seeds_and_omits_points_by_kind(runs, capsys):
    code, out, err = run_cli(pool_main, [str(runs["s0"]), str(runs["s1"])], capsys)
    assert code == 0, err
    assert "24 games (12 duplicate deal groups), seeds 0, 1 pooled" in out
    assert "| heuristic | random | 24 |" in out
    assert "Points per hand by kind" not in out


def test_the_same_seed_twice_is_refused(runs, capsys):
    code, out, err = run_cli(pool_main, [str(runs["s0"]), str(runs["s0"])], capsys)
    assert code == 2 and out == ""
    assert "both used seed 0" in err and len(err.strip().splitlines()) == 1


def test_another_tournament_is_refused_naming_what_differs(runs, capsys):
    code, _, err = run_cli(pool_main, [str(runs["s0"]), str(runs["other"])], capsys)
    assert code == 2 and "its preset differs" in err and len(err.strip().splitlines()) == 1


def test_missing_and_corrupt_folders_are_one_line(runs, tmp_path, capsys):
    code, _, err = run_cli(pool_main, [str(tmp_path / "nowhere")], capsys)
    assert code == 2 and "no results.json" in err
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "results.json").write_text((runs["s1"] / "results.json").read_text())
    (broken / "games.csv").write_text("game,table\n0,zero\n")
    code, _, err = run_cli(pool_main, [str(runs["s0"]), str(broken)], capsys)
    assert code == 2 and "not a games file" in err and len(err.strip().splitlines()) == 1
    code, _, err = run_cli(pool_main, [], capsys)
    assert code == 2 and len(err.strip().splitlines()) == 1
