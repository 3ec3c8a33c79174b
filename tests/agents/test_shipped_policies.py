"""Every shipped policy (``agents/policies/<preset>_<players>p.npz``) says how to make it again and
how it was scored: its name, the game it was trained for, the config its ``reproduce`` command
trains and its evaluation command all name the same game."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from agents.policy_file import read_metadata
from train.config import load

POLICIES = sorted((Path(__file__).resolve().parents[2] / "agents" / "policies").glob("*.npz"))


def option(command: str, name: str, default: str | None = None) -> str | None:
    """The value of ``--name`` in a command line, or ``default``."""
    words = shlex.split(command)
    return words[words.index(name) + 1] if name in words else default


def test_there_are_shipped_policies():
    assert any(path.name == "seven_up_2p.npz" for path in POLICIES)


@pytest.mark.parametrize("path", POLICIES, ids=lambda path: path.stem)
def test_a_shipped_policy_names_its_game_its_recipe_and_its_table(path):
    meta = read_metadata(path)
    game = meta["trained_for"]
    assert path.stem == f"{game['preset']}_{game['num_players']}p"
    assert game["knobs"] == {}
    config = load(option(meta["reproduce"], "--config"))
    assert (config.preset, config.num_players) == (game["preset"], game["num_players"])
    evaluation = meta["evaluation"]
    command = evaluation["command"]
    assert f"ppo:agents/policies/{path.name}" in shlex.split(command)
    assert option(command, "--preset", "seven_up") == game["preset"]
    assert int(option(command, "--players", "2")) == game["num_players"]
    assert option(command, "--games") == "2000" and option(command, "--seed") == "0"
    for opponent in ("random", "heuristic"):
        assert evaluation[opponent]["games"] == 2000
        low, high = evaluation[opponent]["win_rate_ci"]
        assert low <= evaluation[opponent]["win_rate"] <= high
