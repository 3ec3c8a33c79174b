"""scripts/decision_gain.py: the screen of a bot's decisions against heuristic's."""
import importlib.util
from pathlib import Path

import pytest

from allfours_env import Rules

_PATH = Path(__file__).resolve().parents[2] / "scripts" / "decision_gain.py"
_SPEC = importlib.util.spec_from_file_location("decision_gain", _PATH)
decision_gain = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(decision_gain)


def test_heuristic_never_deviates_from_itself_and_random_loses_points_where_it_does():
    rules = Rules.make("auction_pitch", 2)
    gains, seconds = decision_gain.screen(["heuristic", "random"], rules, 60, seed=3)
    assert gains[0] == []
    points = [g[0] for g in gains[1]]
    assert len(points) > 20
    assert sum(points) / len(points) < 0  # a random card or bid is worse than the heuristic's


def test_the_positions_are_decisions_with_a_choice_in_the_screened_phases():
    found = decision_gain.positions(Rules.make("auction_pitch", 4), 30, seed=0)
    assert len(found) == 30
    for game in found:
        assert game.phase in decision_gain.SCREENED
        assert len(game.legal_actions()) > 1


@pytest.mark.parametrize("argv, message", [
    (["heuristic", "--preset", "bridge"], "bridge"),
    (["pimc:samples=0"], "samples"),
    (["heuristic", "--positions", "0"], "--positions must be >= 1"),
])
def test_bad_arguments_are_one_line_errors_before_any_work(argv, message, capsys):
    with pytest.raises(SystemExit) as exit_:
        decision_gain.main(argv)
    assert exit_.value.code == 2
    assert message in capsys.readouterr().err
