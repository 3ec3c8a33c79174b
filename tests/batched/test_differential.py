"""The batched core against the reference AEC env at every decision, for every preset × player count
(allfours_env.batched.differential: same packs, same random legal actions; the seat to move, the
legal mask, the observation entry for entry, rewards, scores, terminated, truncated)."""

import pytest

jax = pytest.importorskip("jax", reason="the jax extra is not installed: pip install -e '.[jax]'")
pytest_plugins = ["jax_setup"]

from allfours_env.batched import make
from allfours_env.batched.differential import Report, compare
from allfours_env.rules import PRESETS

CONFIGS = [(preset, n) for preset, table in PRESETS.items() for n in table["players"]]
GAMES = 12


@pytest.mark.parametrize(("preset", "num_players"), CONFIGS, ids=[f"{p}-{n}p" for p, n in CONFIGS])
def test_batched_core_equals_reference(preset, num_players):
    report = compare(preset, num_players, GAMES, seed=7, max_hands=40)
    assert report.mismatches == []
    assert report.games + report.out_of_packs == GAMES
    assert report.games >= GAMES - 1 and report.decisions > 20 * GAMES


def test_games_do_not_depend_on_how_a_range_is_split_or_batched():
    whole = compare("all_fours", 3, 10, seed=5, batch=3)
    parts = Report(whole.config)
    for first, games in ((0, 4), (4, 6)):  # the same batch width: compiled once
        parts.add(compare("all_fours", 3, games, seed=5, first=first, batch=3))
    assert whole == parts
    assert whole.games == 10 and whole.decisions > 200 and whole.mismatches == []
    other_seed = compare("all_fours", 3, 10, seed=6, batch=3)
    assert other_seed.decisions != whole.decisions


def test_a_batched_env_under_other_rules_is_caught():
    points = make("seven_up", 2, max_hands=40, reward="points")  # the reference pays "win" rewards
    report = compare("seven_up", 2, 4, seed=1, env=points)
    assert report.mismatched_games == 4 and report.games == 4
    assert all(": rewards differs" in line for line in report.mismatches)


def test_bad_arguments_are_refused():
    with pytest.raises(ValueError, match="seed >= 0"):
        compare("seven_up", 2, 3, seed=-1)


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
