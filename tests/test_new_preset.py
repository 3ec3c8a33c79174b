"""A new preset is one entry in the rules module's table: everything else — the engine, records, the
PettingZoo env, the observation, the bots, tournaments and the training config — plays it without a
change (docs/architecture.md, "Adding a preset")."""

from __future__ import annotations

import random
import warnings
from types import MappingProxyType

import pytest
from pettingzoo.test import api_test

import allfours_env
from agents import make_agent
from agents.arena import play_game
from allfours_env import Game, Rules, replay
from allfours_env import rules as rules_module
from evaluate import run_tournament
from train.config import load

#: A variant no preset plays: All Fours' knobs to 9 points, with the under-trump ban and High and
#: Low to their captor, for three players.
NEW = "captors_nine"
KNOBS = dict(rules_module.PRESETS["all_fours"]) | {
    "players": (3,), "target_points": 9, "undertrump": "banned_unless_no_choice",
    "high_rule": "captured", "low_rule": "captured"}


@pytest.fixture
def new_preset(monkeypatch):
    """The table with the new entry, as a developer adding a preset to rules.py would leave it."""
    monkeypatch.setitem(rules_module._PRESET_TABLE, NEW, MappingProxyType(KNOBS))
    return Rules.make(NEW, 3)


def test_the_engine_plays_and_records_a_preset_added_to_the_table(new_preset):
    plan = new_preset.plan
    assert plan.undertrump_banned and plan.high_by_captor and plan.low_by_captor and plan.turnup
    for seed in range(20):
        game = Game(new_preset, seed=seed)
        rng = random.Random(seed)
        while not game.is_over:
            game.apply(rng.choice(game.legal_actions()))
        assert max(game.scores) >= 9
        assert replay(game.record()).record() == game.record()


def test_the_pettingzoo_env_and_the_bots_play_it(new_preset):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(allfours_env.env(preset=NEW, num_players=3), num_cycles=40)
    players = [make_agent("heuristic", seed=0), make_agent("pimc:samples=2", seed=1), make_agent("random")]
    assert play_game(new_preset, players, seed=0).winner is not None


def test_tournaments_and_the_training_config_accept_it(new_preset):
    result = run_tournament(["heuristic", "random", "random"], preset=NEW, players=3, games=6, seed=0)
    assert result.summary()["games_played"] == 6
    assert load(None, [f"preset={NEW!r}", "num_players=3"]).preset == NEW
