"""Pooling tournaments of different seeds (``python -m evaluate.pool``): the same statistics as one
tournament when given one, sums of the pieces when given several, one-line refusals otherwise."""

from __future__ import annotations

import csv
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
                        ("other", ["--seed", "2", "--preset", "all_fours"]),
                        ("auction", ["--seed", "3", "--preset", "auction_pitch"])):
        folders[name] = base / name
        args = ["random", "heuristic", "--games", "10", *extra, "--workers", "1", "--quiet", "--no-plot",
                "--out", str(folders[name])]
        assert evaluate_main(args) == 0
    return folders


@pytest.mark.parametrize("name", ["s0", "auction"])
def test_one_folder_gives_that_tournament_statistics(runs, name):
    """Every number: win rates, margins, ratings, points by kind, beg/gift/run and the contracts."""
    result, detailed = pool([runs[name]])
    saved = json.loads((runs[name] / "results.json").read_text())
    assert result.pooled_seeds == (saved["config"]["seed"],) and detailed
    assert json.loads(json.dumps(result.summary())) == saved["statistics"]


def _scores_only(folder, to):
    """A copy of the tournament ``folder`` whose games.csv keeps only the scores (older versions)."""
    to.mkdir()
    (to / "results.json").write_text((folder / "results.json").read_text())
    with (folder / "games.csv").open(newline="") as source, (to / "games.csv").open("w", newline="") as out:
        reader = csv.DictReader(source)
        kept = [c for c in reader.fieldnames if not any(f"_{part}_" in c for part in ("points", "decisions"))]
        writer = csv.DictWriter(out, kept, extrasaction="ignore")
        writer.writeheader()
        writer.writerows(reader)
    return to


def test_a_folder_of_scores_only_leaves_the_details_out(runs, tmp_path, capsys):
    old = _scores_only(runs["s1"], tmp_path / "old")
    result, detailed = pool([runs["s0"], old])
    assert not detailed and result.summary()["games_used"] == 24
    heuristic = next(a for a in result.summary()["agents"] if a["agent"] == "heuristic")
    assert heuristic["beg_rate"] is None and heuristic["points_by_kind"]["high"] == 0
    code, out, err = run_cli(pool_main, [str(runs["s0"]), str(old)], capsys)
    assert code == 0, err
    assert "Points per hand by kind" not in out and "| – | – | – |" in out


def test_two_seeds_add_their_games_and_deal_groups(runs):
    result, _ = pool([runs["s0"], runs["s1"]])
    pieces = [json.loads((runs[name] / "results.json").read_text())["statistics"] for name in ("s0", "s1")]
    pooled = result.summary()
    assert result.pooled_seeds == (0, 1)
    assert pooled["games_used"] == sum(p["games_used"] for p in pieces) == 24
    assert pooled["deal_groups_used"] == sum(p["deal_groups_used"] for p in pieces) == 12
    for agent in pooled["agents"]:
        same = [next(a for a in p["agents"] if a["agent"] == agent["agent"]) for p in pieces]
        assert agent["wins"] == sum(a["wins"] for a in same)
        assert agent["points"] == sum(a["points"] for a in same)
        assert agent["hands"] == sum(a["hands"] for a in same)
        assert agent["points_by_kind"] == {kind: sum(a["points_by_kind"].get(kind, 0) for a in same)
                                           for kind in agent["points_by_kind"]}
        assert agent["decisions"] == {name: sum(a["decisions"][name] for a in same)
                                      for name in agent["decisions"]}


def test_command_line_report_names_the_seeds_and_shows_points_by_kind(runs, capsys):
    code, out, err = run_cli(pool_main, [str(runs["s0"]), str(runs["s1"])], capsys)
    assert code == 0, err
    assert "24 games (12 duplicate deal groups), seeds 0, 1 pooled" in out
    assert "| random | heuristic | 24 |" in out  # the row of the agent given first
    assert "Points per hand by kind" in out


def test_the_same_seed_twice_is_refused(runs, capsys):
    code, out, err = run_cli(pool_main, [str(runs["s0"]), str(runs["s0"])], capsys)
    assert code == 2 and out == ""
    assert "both hold the games of seed 0" in err and len(err.strip().splitlines()) == 1


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


def test_a_saved_pool_is_a_tournament_folder_that_pools_again_but_never_with_its_own_seeds(
        runs, tmp_path, capsys):
    out = tmp_path / "pooled"
    args = [str(runs["s0"]), str(runs["s1"]), "--out", str(out), "--no-plot"]
    code, printed, err = run_cli(pool_main, args, capsys)
    assert code == 0 and f"to {out}" in err
    saved = json.loads((out / "results.json").read_text())
    assert saved["config"]["pooled_seeds"] == [0, 1] and saved["statistics"]["games_used"] == 24
    pieces = [json.loads((runs[name] / "results.json").read_text())["run"] for name in ("s0", "s1")]
    assert saved["run"]["elapsed_s"] == pytest.approx(sum(piece["elapsed_s"] for piece in pieces))
    assert saved["run"]["workers"] == 1 and saved["run"]["games_finished"] == 24
    again, _ = pool([out])
    assert json.loads(json.dumps(again.summary())) == saved["statistics"]
    assert run_cli(pool_main, [str(out)], capsys)[1] == printed  # the same report, read back
    code, _, err = run_cli(pool_main, [str(out), str(runs["s1"])], capsys)
    assert code == 2 and "both hold the games of seed 1" in err


def test_pool_output_is_checked_before_anything_is_written(runs, tmp_path, capsys):
    for args, message in (
        ([str(runs["s0"]), "--out", str(runs["s0"])], "is one of the folders pooled"),
        ([str(runs["s0"]), "--overwrite"], "give --out"),
        ([str(runs["s0"]), "--out", str(runs["s1"])], "already holds results"),
        ([str(runs["s0"]), str(runs["s0"]), "--out", str(tmp_path / "new")], "both hold the games of seed 0"),
    ):
        code, out, err = run_cli(pool_main, args, capsys)
        assert code == 2 and out == "" and message in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "new").exists()


def test_a_table_of_copies_pools_as_it_was_played(tmp_path):
    """A candidate against three copies of a bot: the pool rebuilds the 4 seatings it was played in."""
    folder = tmp_path / "copies"
    args = ["heuristic", "random", "random", "random", "--preset", "auction_pitch", "--players", "4",
            "--games", "8", "--seed", "4", "--workers", "1", "--quiet", "--no-plot", "--out", str(folder)]
    assert evaluate_main(args) == 0
    result, _ = pool([folder])
    assert [len(table.seatings) for table in result.tables] == [4]
    saved = json.loads((folder / "results.json").read_text())
    assert json.loads(json.dumps(result.summary())) == saved["statistics"]
