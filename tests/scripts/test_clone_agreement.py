"""scripts/clone_agreement.py: where a policy's choices part from a teacher's."""
import importlib.util
from pathlib import Path

import numpy as np
import pytest

from agents.policy import NumpyActor
from allfours_env.actions import NUM_ACTIONS
from allfours_env.cards import NUM_CARD_IDS
from allfours_env.events import Phase
from allfours_env.observation import MAX_TRICKS, OBS_SIZE, PHASE, TRICK, TRICKS

_ROOT = Path(__file__).resolve().parents[2]
_SPEC = importlib.util.spec_from_file_location("clone_agreement", _ROOT / "scripts" / "clone_agreement.py")
clone_agreement = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(clone_agreement)


def decision(phase: Phase, legal: list[int], action: int, in_trick: int = 0, tricks_done: int = 0):
    """One recorded decision: its observation (phase, cards in the trick, tricks done), mask, action."""
    obs = np.zeros(OBS_SIZE, np.float32)
    obs[PHASE + phase] = 1
    obs[TRICK * NUM_CARD_IDS:TRICK * NUM_CARD_IDS + in_trick] = 1
    obs[TRICKS] = tricks_done / MAX_TRICKS
    mask = np.zeros(NUM_ACTIONS, np.int8)
    mask[legal] = 1
    return obs, mask, action


def dataset(rows):
    obs, masks, actions = zip(*rows)
    return {"observations": np.stack(obs), "masks": np.stack(masks), "actions": np.array(actions)}


def lowest_action_actor() -> NumpyActor:
    """A policy whose masked argmax is always the lowest legal action."""
    bias = -np.arange(NUM_ACTIONS, dtype=np.float32)
    return NumpyActor([(np.zeros((OBS_SIZE, NUM_ACTIONS)), bias)], "relu")


def test_agreement_counts_only_decisions_with_a_choice_and_splits_the_card_play():
    data = dataset([
        decision(Phase.BEG, [0, 1], 0),                              # agrees
        decision(Phase.BEG, [0, 1], 1),                              # differs
        decision(Phase.PLAY, [5], 5),                                # forced: not counted
        decision(Phase.PLAY, [3, 7], 3, in_trick=0, tricks_done=0),  # leading, trick 1, agrees
        decision(Phase.PLAY, [3, 7], 7, in_trick=1, tricks_done=0),  # second card, trick 1, differs
        decision(Phase.PLAY, [2, 9], 2, in_trick=1, tricks_done=7),  # second card, trick 8, agrees
    ])
    table = {label: (count, share) for label, count, share in
             clone_agreement.agreement(lowest_action_actor(), data)}
    assert table["every decision with a choice"] == (5, 3 / 5)
    assert table["phase beg"] == (2, 0.5)
    assert table["phase play"] == (3, 2 / 3)
    assert table["play, leading"] == (1, 1.0)
    assert table["play, card 2 of the trick"] == (2, 0.5)
    assert table["play, trick 1"] == (2, 0.5)
    assert table[f"play, trick {clone_agreement.LAST_TRICK_ROW} on"] == (1, 1.0)
    assert "phase bid" not in table and "play, card 3 of the trick" not in table


def test_a_shipped_policy_against_heuristic_prints_its_table(capsys):
    clone_agreement.main([str(_ROOT / "agents" / "policies" / "seven_up_2p.npz"), "--games", "2",
                          "--workers", "1"])
    captured = capsys.readouterr()
    assert "2 games of seven_up 2p" in captured.out
    assert "| phase play |" in captured.out and "| play, leading |" in captured.out
    assert "warning" not in captured.err


def test_another_game_than_the_policys_is_played_with_a_warning(capsys):
    clone_agreement.main([str(_ROOT / "agents" / "policies" / "seven_up_2p.npz"), "--preset", "don",
                          "--games", "2", "--workers", "1"])
    captured = capsys.readouterr()
    assert "2 games of don 2p" in captured.out
    assert "was trained for seven_up" in captured.err and "expect weak play" in captured.err


@pytest.mark.parametrize("argv, message", [
    (["missing.npz"], "no policy file"),
    (["agents/policies/seven_up_2p.npz", "--preset", "bridge"], "bridge"),
    (["agents/policies/seven_up_2p.npz", "--teacher", "nobody"], "nobody"),
    (["agents/policies/seven_up_2p.npz", "--games", "0"], "--games and --workers must be >= 1"),
])
def test_bad_arguments_are_one_line_errors_before_any_work(argv, message, capsys, monkeypatch):
    monkeypatch.chdir(_ROOT)
    with pytest.raises(SystemExit) as exit_:
        clone_agreement.main(argv)
    assert exit_.value.code == 2
    assert message in capsys.readouterr().err
