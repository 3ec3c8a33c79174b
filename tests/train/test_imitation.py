"""The warm start by imitation (train.imitation): the teacher's choices learnt, DAgger's labels, the
cached data set, and a privileged critic's hidden weights left at zero."""

from pathlib import Path

import numpy as np
import pytest

from conftest import TINY
from train import ConfigError, load


def test_imitation_leaves_a_privileged_critics_hidden_weights_at_zero():
    import torch

    from allfours_env import Rules
    from train import imitation
    from train.envs import make_vec_env
    from train.model import new_model

    config = load(None, [*TINY, "ppo.privileged_critic=true"])
    data = imitation.collect("heuristic", "random", Rules.make(), games=4, seed=1)
    env = make_vec_env(config)
    try:
        model = new_model(config, env, Path(config.out))
        imitation.pretrain(model, data, epochs=2, log=lambda *_: None)
    finally:
        env.close()
    weight = model.policy.mlp_extractor.value_net[0].weight
    inputs = model.policy.actor_inputs
    assert torch.all(weight[:, inputs:] == 0) and torch.any(weight[:, :inputs] != 0)


def test_imitation_learns_the_teachers_choices_and_dagger_labels_the_students_states():
    from agents.policy import SnapshotAgent, actor_from_sb3
    from allfours_env import Rules
    from train import imitation
    from train.envs import make_vec_env
    from train.model import new_model

    config = load(None, [*TINY, "ppo.net_arch=[128]"])
    rules = Rules.make()
    data = imitation.collect("heuristic", "random", rules, games=200, seed=1)
    assert len(data["actions"]) == len(data["observations"]) == len(data["returns"]) > 200
    assert all(data["masks"][i, a] for i, a in enumerate(data["actions"]))  # labels are legal
    env = make_vec_env(config)
    try:
        model = new_model(config, env, Path(config.out))
        history = imitation.pretrain(model, data, epochs=10, log=lambda *_: None)
    finally:
        env.close()
    guessing = float(np.mean(1.0 / data["masks"].sum(axis=1)))  # uniform over the legal actions
    assert history[-1]["loss"] < history[0]["loss"]
    assert history[-1]["accuracy"] > guessing + 0.1
    student = SnapshotAgent(actor_from_sb3(model.policy), deterministic=True, name="student")
    labelled = imitation.collect("heuristic", "random", rules, games=4, seed=2, student=student)
    assert len(labelled["actions"]) > 20


def test_a_cached_imitation_dataset_is_reused_and_one_made_by_another_teacher_is_refused(tmp_path):
    from allfours_env import Rules
    from train import imitation

    path = tmp_path / "data.npz"
    data = imitation.collect("random", "random", Rules.make(), games=2, seed=0)
    imitation.save(data, path, {"teacher": "random", "opponent": "random", "games": 2, "seed": 0})
    same = load(None, [*TINY, "imitation.teacher=random", "imitation.opponent=random",
                       "imitation.games=2", f"imitation.dataset={path}"])
    cached, _ = imitation.check_dataset(same)
    assert all(np.array_equal(cached[key], data[key]) for key in data)
    other = load(None, [*TINY, "imitation.teacher=heuristic", "imitation.opponent=random",
                        "imitation.games=2", f"imitation.dataset={path}"])
    with pytest.raises(ConfigError, match="recorded by .*teacher.*random.*delete the file"):
        imitation.check_dataset(other)
