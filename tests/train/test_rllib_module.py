"""The RLlib backend's RL module without Ray running: masked logits, the privileged critic's extra
input (the actor never reads it), and its actor in numpy and through the SB3 face of the warm start."""

import numpy as np
import pytest

pytest.importorskip("ray.rllib", reason="Ray RLlib is not installed (pip install 'allfours[rllib]')")

import torch  # noqa: E402
from ray.rllib.core.columns import Columns  # noqa: E402

from agents.policy import actor_from_sb3  # noqa: E402
from train import load  # noqa: E402
from train.rllib.module import actor_from_state, state_from_actor  # noqa: E402
from train.rllib.trainer import module_spec  # noqa: E402
from train.rllib.warm_start import SB3PolicyView  # noqa: E402


def build(privileged: bool):
    config = load(None, ["ppo.net_arch=[16, 8]", f"ppo.privileged_critic={str(privileged).lower()}"])
    torch.manual_seed(0)
    return module_spec(config, with_spaces=True).build()


def batch(module, count=6, seed=0):
    space = module.observation_space
    space.seed(seed)
    obs = {key: torch.as_tensor(np.stack([space[key].sample() for _ in range(count)]))
           for key in space.spaces}
    obs["action_mask"][:, 0] = 1  # at least one legal action per row
    return {Columns.OBS: obs}


def test_illegal_actions_get_no_probability():
    module = build(privileged=False)
    inputs = batch(module)
    logits = module.forward_exploration(inputs)[Columns.ACTION_DIST_INPUTS]
    probs = torch.softmax(logits, dim=-1)
    mask = inputs[Columns.OBS]["action_mask"].bool()
    assert torch.all(probs[~mask] == 0)
    assert torch.allclose(probs.sum(-1), torch.ones(len(probs)))


def test_the_privileged_critic_reads_the_hidden_cards_and_the_actor_does_not():
    module = build(privileged=True)
    inputs = batch(module)
    other = {Columns.OBS: dict(inputs[Columns.OBS], critic=1 - inputs[Columns.OBS]["critic"])}
    logits = module.forward_train(inputs)[Columns.ACTION_DIST_INPUTS]
    assert torch.equal(logits, module.forward_train(other)[Columns.ACTION_DIST_INPUTS])
    # the critic's weights on the hidden cards start at zero, then matter once trained
    assert torch.equal(module.compute_values(inputs), module.compute_values(other))
    with torch.no_grad():
        torch.manual_seed(1)
        module.critic[0].weight.normal_()  # trained: every input, the hidden cards too, weighs
    assert not torch.equal(module.compute_values(inputs), module.compute_values(other))


def test_the_numpy_actor_and_the_sb3_face_play_like_the_module():
    module = build(privileged=True)
    inputs = batch(module)
    observations = inputs[Columns.OBS]["observations"]
    with torch.no_grad():
        expected = module.actor(observations).numpy()
    actor = actor_from_state(module.state_dict(), "relu")
    assert np.allclose(actor.logits(observations.numpy()), expected, atol=1e-5)
    through_sb3 = actor_from_sb3(SB3PolicyView(module))
    assert np.allclose(through_sb3.logits(observations.numpy()), expected, atol=1e-5)
    assert set(state_from_actor(actor)) == {k for k in module.state_dict() if k.startswith("actor.")}


@pytest.mark.parametrize("address, restarts", [("", False), ("auto", True), ("head:6379", True)])
def test_runners_restart_on_a_cluster_and_not_on_a_private_local_instance(address, restarts):
    """Locally a failing runner is a bug to see (and Ray would warn at each start that a restart
    could fail); a cluster's runners restart."""
    from train.rllib.trainer import algorithm_config

    config = load(None, [f"rllib.address={address!r}"])
    assert algorithm_config(config).restart_failed_env_runners is restarts
