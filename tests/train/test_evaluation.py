"""How a run scores its learner (train.evaluation, train.curve): one table per opponent with
three players, the fair share on the learning curve, and Ctrl-C during an evaluation."""


import numpy as np
import pytest

from allfours_env.observation import OBS_SIZE
from train import load


@pytest.mark.parametrize("players, share", [(2, 1 / 2), (3, 1 / 3), (4, 1 / 2)])
def test_the_learning_curve_draws_the_fair_share_of_the_game(players, share, tmp_path, monkeypatch):
    import matplotlib.axes

    from train.curve import plot_curve
    from train.evaluation import fair_share

    drawn = []
    real = matplotlib.axes.Axes.axhline
    monkeypatch.setattr(matplotlib.axes.Axes, "axhline",
                        lambda self, y=0, *args, **kwargs: drawn.append(y) or real(self, y, *args, **kwargs))
    rows = [{"timesteps": 1, "opponent": "random", "win_rate": 0.5, "ci_low": 0.4, "ci_high": 0.6}]
    assert plot_curve(rows, tmp_path / "curve.png", fair_share(load(None, [f"num_players={players}"])))
    assert drawn == [pytest.approx(share)]


def test_three_player_evaluation_gives_each_opponent_its_own_table():
    from agents.policy import NumpyActor
    from train.evaluation import evaluate, scores

    rng = np.random.default_rng(0)
    actor = NumpyActor([(rng.normal(size=(OBS_SIZE, 117)), np.zeros(117))], "relu")
    config = load(None, ["num_players=3"])
    results = evaluate(actor, config, ["random", "heuristic"], games=6, seed=0)
    assert [sorted(result.labels) for _, result in results] == [
        ["learner", "random", "random#2"], ["heuristic", "heuristic#2", "learner"]]
    numbers = scores(results)
    assert numbers["random"]["opponents"] == ["random", "random#2"]
    assert numbers["heuristic"]["opponents"] == ["heuristic", "heuristic#2"]


def test_ctrl_c_during_an_evaluation_stops_the_training_run():
    """A tournament keeps the games Ctrl-C left it (the evaluate command reports them); inside a
    training run's evaluation it must stop the run instead of being taken for a short result."""
    from agents.policy import NumpyActor
    from conftest import FailingAgent
    from train.evaluation import evaluate

    rng = np.random.default_rng(0)
    actor = NumpyActor([(rng.normal(size=(OBS_SIZE, 117)), np.zeros(117))], "relu")
    with pytest.raises(KeyboardInterrupt):
        evaluate(actor, load(None, []), [FailingAgent(stop=1, error=KeyboardInterrupt)], games=8, seed=0)


def test_a_table_with_a_game_past_the_hand_cap_is_left_out_and_logged(monkeypatch):
    """Random bidders in the auction presets may never reach the target: such a table is dropped
    from the evaluation (with a line in the log) instead of ending the training run."""
    import evaluate as evaluate_package
    from agents.arena import GameTooLongError
    from agents.policy import NumpyActor
    from train.evaluation import evaluate, scores

    real = evaluate_package.run_tournament

    def capped(agents, **options):
        if any(getattr(agent, "name", agent) == "random" for agent in agents):
            raise GameTooLongError("still undecided after 500 hands")
        return real(agents, **options)

    monkeypatch.setattr(evaluate_package, "run_tournament", capped)
    rng = np.random.default_rng(0)
    actor = NumpyActor([(rng.normal(size=(OBS_SIZE, 117)), np.zeros(117))], "relu")
    lines = []
    results = evaluate(actor, load(None, ["num_players=3"]), ["random", "heuristic"], games=6, seed=0,
                       log=lines.append)
    assert list(scores(results)) == ["heuristic"]
    assert len(lines) == 1 and "against random is left out" in lines[0] and "500 hands" in lines[0]
