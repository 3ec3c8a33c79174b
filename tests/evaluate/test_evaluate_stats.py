"""evaluate.stats and evaluate.rating against known values and hand-made game summaries."""

from __future__ import annotations

import numpy as np
import pytest

from evaluate.games import DECISIONS, GameSummary
from evaluate.rating import expected_score, fit_ratings
from evaluate.schedule import make_tables
from evaluate.stats import (
    bootstrap_sums,
    comparisons,
    complete_games,
    describe,
    percentile_interval,
    summarize,
    tally,
    wilson_interval,
    z_value,
)


def test_wilson_textbook_value():
    # 60 wins in 100 games: the Wilson 95% interval of every statistics textbook.
    low, high = wilson_interval(60, 100)
    assert low == pytest.approx(0.5020, abs=5e-5)
    assert high == pytest.approx(0.6906, abs=5e-5)
    assert z_value(0.95) == pytest.approx(1.959964, abs=1e-6)


def test_wilson_edges():
    assert wilson_interval(0, 0) == (0.0, 1.0)
    low, high = wilson_interval(0, 10)
    assert low == 0.0 and 0.25 < high < 0.35  # 0.2775
    low, high = wilson_interval(10, 10)
    assert 0.65 < low < 0.75 and high == 1.0
    with pytest.raises(ValueError):
        wilson_interval(11, 10)
    narrow, wide = wilson_interval(50, 100, 0.9), wilson_interval(50, 100, 0.99)
    assert wide[0] < narrow[0] < 0.5 < narrow[1] < wide[1]


def test_ratings_fit_win_rates():
    ratings, errors = fit_ratings([[0, 60], [40, 0]])
    assert sum(ratings) / 2 == pytest.approx(1500)
    assert expected_score(ratings[0], ratings[1]) == pytest.approx(0.6, abs=1e-3)  # the prior is weak
    assert errors[0] == pytest.approx(errors[1]) and 10 < errors[0] < 30
    even, _ = fit_ratings([[0, 50], [50, 0]])
    assert even == pytest.approx([1500, 1500])


def test_ratings_unbeaten_agent_stays_finite_and_order_is_kept():
    ratings, errors = fit_ratings([[0, 500, 500], [0, 0, 300], [0, 200, 0]])
    assert all(np.isfinite(ratings)) and all(np.isfinite(errors))
    assert ratings[0] > ratings[1] > ratings[2]


def test_bootstrap_is_seeded_and_brackets_the_estimate():
    rows = np.array([[1.0, 2.0], [3.0, 2.0], [2.0, 2.0], [0.0, 2.0]])
    first = bootstrap_sums(rows, np.random.default_rng(1), resamples=500)
    again = bootstrap_sums(rows, np.random.default_rng(1), resamples=500)
    assert np.array_equal(first, again)
    assert np.allclose(first[:, 1], 8.0)  # every resample holds 4 groups of 2 hands
    low, high = percentile_interval(first[:, 0] / first[:, 1])
    assert low < 6 / 8 < high


def _game(index, group, seating, sides, scores, winner, hands=3, awards=None, decisions=(), contracts=None):
    """A game summary; ``decisions[side]`` lists counts in DECISIONS order (missing ones are 0)."""
    decisions = decisions or tuple(() for _ in sides)
    return GameSummary(
        index=index, table=0, group=group, seating=seating, sides=sides, scores=scores, winner=winner,
        hands=hands, deals=hands, awards=awards or {"high": scores}, record=None,
        decisions=tuple((*d, *[0] * (len(DECISIONS) - len(d))) for d in decisions), contracts=contracts,
    )


def test_describe_counts_kinds_and_decision_rates():
    games = [
        _game(0, 0, 0, (0, 1), (7, 3), 0, hands=4,
              awards={"high": (2, 1), "jack": (1, 0), "hang_jack": (3, 0), "game": (1, 2)},
              decisions=((3, 1, 0, 0), (1, 0, 1, 2))),
        _game(1, 0, 1, (1, 0), (7, 5), 0, hands=5,
              awards={"high": (3, 2), "turnup": (4, 3)},
              decisions=((0, 2, 0, 1), (2, 2, 0, 0))),
    ]
    a = describe(tally(games, 0))
    assert a["games"] == 2 and a["wins"] == 1 and a["hands"] == 9 and a["points"] == 7 + 5
    assert a["points_by_kind"]["jack"] == 4 and a["points_by_kind"]["hang_jack"] == 3
    assert a["points_by_kind"]["turnup"] == 3 and a["points_by_kind"]["gift"] == 0
    assert a["points_per_hand"] == pytest.approx(12 / 9)
    # agent 0: side 0 of game 0 (3 stand, 1 beg) and side 1 of game 1 (2 stand, 2 beg)
    assert a["decisions"] == {"stand": 5, "beg": 3, "gift": 0, "run": 0, "pass": 0, "bid": 0, "hold": 0}
    assert a["beg_rate"] == pytest.approx(3 / 8) and a["gift_rate"] is None
    b = describe(tally(games, 1))
    assert b["decisions"] == {"stand": 1, "beg": 2, "gift": 1, "run": 3, "pass": 0, "bid": 0, "hold": 0}
    assert b["gift_rate"] == pytest.approx(1 / 4) and b["run_rate"] == pytest.approx(3 / 4)
    assert b["bid_rate"] is None and b["contract_rate"] is None and b["made_rate"] is None


def test_describe_counts_auction_rates():
    no_beg = (0, 0, 0, 0)
    games = [
        _game(0, 0, 0, (0, 1), (11, 4), 0, hands=6, decisions=((*no_beg, 2, 3, 1), (*no_beg, 5, 1, 0)),
              contracts=((4, 3, 9), (1, 0, 2))),
        _game(1, 0, 1, (1, 0), (6, 11), 1, hands=4, decisions=((*no_beg, 1, 2, 0), (*no_beg, 4, 0, 0)),
              contracts=((2, 2, 5), (0, 0, 0))),
    ]
    a = describe(tally(games, 0))  # side 0 of game 0 and side 1 of game 1
    assert a["decisions"]["pass"] == 2 + 4 and a["decisions"]["bid"] == 3 and a["decisions"]["hold"] == 1
    assert a["bid_rate"] == pytest.approx(4 / 10)
    assert a["contracts"] == {"won": 4, "made": 3, "points": 9}
    assert a["contract_rate"] == pytest.approx(4 / 10) and a["made_rate"] == pytest.approx(3 / 4)
    assert a["mean_contract"] == pytest.approx(9 / 4)
    b = describe(tally(games, 1))
    assert b["contract_rate"] == pytest.approx(3 / 10) and b["made_rate"] == pytest.approx(2 / 3)
    assert b["bid_rate"] == pytest.approx(3 / 9)


def test_games_without_contract_counts_give_no_contract_rates():
    """Pooled games (games.csv) know no contracts: their rates are unknown, not 0%."""
    games = [_game(0, 0, 0, (0, 1), (11, 4), 0, decisions=((0, 0, 0, 0, 2, 3, 1), ()))]
    a = describe(tally(games, 0))
    assert a["bid_rate"] == pytest.approx(4 / 6)
    assert a["contract_rate"] is None and a["made_rate"] is None and a["mean_contract"] is None


def test_summary_uses_complete_deal_groups_only():
    tables = make_tables(2, 2, games=6, table_size=2)
    games = [
        _game(0, 0, 0, (0, 1), (7, 2), 0),
        _game(1, 0, 1, (1, 0), (7, 4), 0),
        _game(2, 1, 0, (0, 1), (7, 1), 0),
        _game(3, 1, 1, (1, 0), (3, 7), 1),
        _game(4, 2, 0, (0, 1), (7, 0), 0),  # its mirror game never finished
    ]
    assert [g.index for g in complete_games(tables, games)] == [0, 1, 2, 3]
    assert comparisons(complete_games(tables, games), 2) == [[0, 3], [1, 0]]
    summary = summarize(tables, games, ["a", "b"], seed=0)
    assert summary["games_played"] == 5 and summary["games_used"] == 4
    row = summary["tables"][0]["results"][0]
    assert row["agent"] == "a" and row["opponents"] == ["b"]
    assert row["wins"] == 3 and row["win_rate"] == 0.75
    # a scored 7 + 4 + 7 + 7 = 25 in 12 hands, b 2 + 7 + 1 + 3 = 13
    assert row["points_per_hand"] == pytest.approx(25 / 12)
    assert row["margin_per_hand"] == pytest.approx(12 / 12)
    low, high = row["margin_per_hand_ci"]
    assert low <= row["margin_per_hand"] <= high
    assert summary["agents"][0]["agent"] == "a" and summary["agents"][0]["rank"] == 1
    assert summary["head_to_head_wins"] == {"a": {"b": 3}, "b": {"a": 1}}
