"""The batched core against the reference AEC env at every decision, for every preset × player count
(allfours_env.batched.differential: same packs, same random legal actions; the seat to move, the
legal mask, the observation entry for entry, rewards, scores, terminated, truncated)."""

import pytest

jax = pytest.importorskip("jax", reason="the jax extra is not installed: pip install -e '.[jax]'")
pytest_plugins = ["jax_setup"]

from allfours_env.batched.differential import compare
from allfours_env.rules import PRESETS

CONFIGS = [(preset, n) for preset, table in PRESETS.items() for n in table["players"]]
GAMES = 12


@pytest.mark.parametrize(("preset", "num_players"), CONFIGS, ids=[f"{p}-{n}p" for p, n in CONFIGS])
def test_batched_core_equals_reference(preset, num_players):
    report = compare(preset, num_players, GAMES, seed=7, max_hands=40)
    assert report.mismatches == []
    assert report.games + report.out_of_packs == GAMES
    assert report.games >= GAMES - 1 and report.decisions > 20 * GAMES


@pytest.mark.parametrize(
    ("preset", "num_players", "options"),
    [
        # K15 banned under-trumps, K16 discards in play, K11 High/Low to the captor; points rewards.
        ("seven_up", 3, {"undertrump": "banned_unless_no_choice", "discards_in_play": True,
                         "high_rule": "captured", "low_rule": "captured", "reward": "points"}),
        # The hand cap truncates; K13 ties to the non-dealers; 4 players each alone.
        ("all_fours", 4, {"partnerships": False, "game_tie_rule": "non_dealer", "max_hands": 2}),
    ],
    ids=["seven_up-3p-knobs", "all_fours-4p-alone-capped"],
)
def test_batched_core_equals_reference_with_knob_overrides(preset, num_players, options):
    options = dict(options)
    max_hands = options.pop("max_hands", 40)
    reward = options.pop("reward", None)
    report = compare(preset, num_players, GAMES, seed=11, max_hands=max_hands, reward=reward, **options)
    assert report.mismatches == []
    assert report.games == GAMES


@pytest.mark.slow
@pytest.mark.parametrize(("preset", "num_players"), CONFIGS, ids=[f"{p}-{n}p" for p, n in CONFIGS])
def test_batched_core_equals_reference_long(preset, num_players):
    report = compare(preset, num_players, 500, seed=3, max_hands=40)
    assert report.mismatches == []
