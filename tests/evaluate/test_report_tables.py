"""Tables that read themselves (evaluate.report.markdown): the seed as the user gave it, one row per
distinct agent, the fair share beside win rates where it is not one half, the agent given first
keeps its row, and a plain word when the interval includes the fair share."""

from __future__ import annotations

import re

import numpy as np
import pytest

from evaluate import run_tournament
from evaluate.__main__ import main as evaluate_main
from evaluate.report import markdown


def _rows(text: str, title: str) -> list[list[str]]:
    """The body rows of the Markdown table after the line starting with ``title``."""
    block = text.split(title, 1)[1].split("\n\n")[1]
    return [[cell.strip() for cell in line.strip("|").split("|")] for line in block.splitlines()[2:]]


def _header(text: str, title: str) -> list[str]:
    block = text.split(title, 1)[1].split("\n\n")[1]
    return [cell.strip() for cell in block.splitlines()[0].strip("|").split("|")]


@pytest.fixture(scope="module")
def four_alone():
    """heuristic against three copies of random, everyone alone (auction_pitch, 4 players)."""
    return run_tournament(["heuristic", "random", "random", "random"], preset="auction_pitch", players=4,
                          games=24, seed=0)


def test_the_command_line_names_the_default_seed_as_such(capsys):
    args = ["random", "heuristic", "--games", "4", "--no-save", "--quiet", "--workers", "1"]
    assert evaluate_main(args) == 0
    assert ", seed 0 (default), intervals 95%" in capsys.readouterr().out
    assert evaluate_main([*args, "--seed", "7"]) == 0
    assert ", seed 7, intervals 95%" in capsys.readouterr().out


def test_a_training_table_names_the_run_seed_and_keeps_the_derived_one_for_repeating_it():
    from agents.policy import NumpyActor
    from allfours_env.observation import OBS_SIZE
    from allfours_env.seeding import derive_seed
    from train import load
    from train.evaluation import evaluate

    rng = np.random.default_rng(0)
    actor = NumpyActor([(rng.normal(size=(OBS_SIZE, 117)), np.zeros(117))], "relu")
    seed = derive_seed(0, "final")
    [(_, result)] = evaluate(actor, load(None, []), ["random"], games=2, seed=seed)
    text = markdown(result)
    assert ", run seed 0, intervals" in text and str(seed) not in text
    assert result.config()["seed"] == seed  # results.json keeps the seed that repeats the games


def test_copies_of_an_agent_share_one_row(four_alone):
    text = markdown(four_alone)
    assert [row[1] for row in _rows(text, "Leaderboard")] == ["heuristic", "random ×3"]
    assert [row[0] for row in _rows(text, "Tables")] == ["heuristic", "random ×3"]
    assert _rows(text, "Tables")[0][1] == "random ×3"
    assert [row[0] for row in _rows(text, "Points per hand by kind")] == ["heuristic", "random ×3"]
    assert "random#2" not in text.replace("random ×2", "") and "random#3" not in text
    assert "* random ×3: 3 copies of one agent; the row shows the first copy's numbers" in text


def test_copies_in_a_pairing_keep_their_names():
    text = markdown(run_tournament(["random", "random"], games=20, seed=0))
    assert [row[1] for row in _rows(text, "Leaderboard")] == ["random", "random#2"] or \
        [row[1] for row in _rows(text, "Leaderboard")] == ["random#2", "random"]
    assert _rows(text, "Pairings")[0][:2] == ["random", "random#2"]


def test_the_fair_share_stands_beside_win_rates_when_it_is_not_one_half(four_alone):
    text = markdown(four_alone)
    header = _header(text, "Tables")
    assert header[header.index("win rate (95% CI)") + 1] == "fair share"
    assert {row[header.index("fair share")] for row in _rows(text, "Tables")} == {"25.0%"}
    board = _header(text, "Leaderboard")
    assert board[board.index("win rate") + 1] == "fair share"
    pairing = markdown(run_tournament(["random", "heuristic"], games=10, seed=0))
    assert "fair share" not in _header(pairing, "Pairings")
    assert "fair share" not in _header(pairing, "Leaderboard")


@pytest.mark.parametrize("agents", [["random", "heuristic"], ["heuristic", "random"]])
def test_a_pairing_shows_the_row_of_the_agent_given_first(agents):
    text = markdown(run_tournament(agents, games=20, seed=0))
    [row] = _rows(text, "Pairings")
    assert row[:2] == agents


def test_an_interval_that_includes_the_fair_share_settles_nothing():
    close = markdown(run_tournament(["random", "random"], games=20, seed=0))
    assert re.search(r"random vs random#2 settles nothing: the interval includes the fair share \(50\.0%\)",
                     close)
    clear = markdown(run_tournament(["heuristic", "random"], games=200, seed=0))
    assert "settles nothing" not in clear
