"""Every shipped policy (``agents/policies/<preset>_<players>p.npz``) says how to make it again and
how it was scored: its name, the game it was trained for, the config its ``reproduce`` command
trains and its evaluation command all name the same game. Both commands are read by the parsers of
``python -m train`` and ``python -m evaluate`` themselves."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from agents.policy_file import read_metadata
from evaluate.__main__ import parser as evaluate_parser
from train import load
from train.__main__ import parser as train_parser

POLICIES = sorted((Path(__file__).resolve().parents[2] / "agents" / "policies").glob("*.npz"))


def arguments(command: str, module: str) -> list[str]:
    """The arguments of ``command``, a ``python -m <module> ...`` line."""
    words = shlex.split(command)
    assert words[:3] == ["python", "-m", module], command
    return words[3:]


def test_there_are_shipped_policies():
    assert any(path.name == "seven_up_2p.npz" for path in POLICIES)


@pytest.mark.parametrize("path", POLICIES, ids=lambda path: path.stem)
def test_a_shipped_policy_names_its_game_its_recipe_and_its_table(path):
    meta = read_metadata(path)
    game = meta["trained_for"]
    assert path.stem == f"{game['preset']}_{game['num_players']}p"
    assert game["knobs"] == {}
    recipe = train_parser().parse_args(arguments(meta["reproduce"], "train"))
    config = load(recipe.config, list(recipe.set))
    assert (config.preset, config.num_players) == (game["preset"], game["num_players"])
    evaluation = meta["evaluation"]
    met = set()
    for command in evaluation["commands"]:
        table = evaluate_parser().parse_args(arguments(command, "evaluate"))
        assert table.agents[0] == f"ppo:agents/policies/{path.name}"
        assert (table.preset, table.players, table.rule) == (game["preset"], game["num_players"], [])
        assert (table.games, table.seed) == (2000, 0)
        met.update(table.agents[1:])
    for opponent in ("random", "heuristic"):
        assert opponent in met and evaluation[opponent]["games"] >= 2000
        low, high = evaluation[opponent]["win_rate_ci"]
        assert low <= evaluation[opponent]["win_rate"] <= high
