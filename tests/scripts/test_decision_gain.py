"""scripts/decision_gain.py: the screen of a bot's decisions against heuristic's."""
import importlib.util
from pathlib import Path

import pytest

from allfours_env import Rules
from allfours_env.events import Phase

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


def test_the_stand_beg_and_gift_run_can_be_screened():
    """``--decisions beg,gift_or_run``: positions in those phases only, and random's stand/beg and
    gift/run, which deviate from heuristic's in some of them, are played out to the hand's end."""
    rules = Rules.make("seven_up", 2)
    phases = (Phase.BEG, Phase.GIFT_OR_RUN)
    found = decision_gain.positions(rules, 20, seed=0, phases=phases)
    assert {game.phase for game in found} == set(phases)
    gains, _ = decision_gain.screen(["heuristic", "random"], rules, 40, seed=1, phases=phases)
    assert gains[0] == [] and len(gains[1]) > 5


@pytest.mark.parametrize("argv, message", [
    (["heuristic", "--preset", "bridge"], "bridge"),
    (["pimc:samples=0"], "samples"),
    (["heuristic", "--positions", "0"], "--positions must be >= 1"),
    (["heuristic", "--decisions", "beg,discard"], "unknown phase discard"),
    (["heuristic", "--preset", "auction_pitch", "--decisions", "beg"], "no decision with a choice in beg"),
])
def test_bad_arguments_are_one_line_errors_before_any_work(argv, message, capsys):
    with pytest.raises(SystemExit) as exit_:
        decision_gain.main(argv)
    assert exit_.value.code == 2
    assert message in capsys.readouterr().err
