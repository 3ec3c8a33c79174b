"""The privileged critic: the hidden cards appended for the value network in training only, and a
policy whose actor never reads them (so a trained policy plays on its own seat's information)."""

import numpy as np
import pytest
import torch

from allfours_env.cards import NUM_CARD_IDS, cards_of
from allfours_env.hidden import HIDDEN_SIZE, hidden_cards
from allfours_env.observation import OBS_SIZE
from allfours_env.wrappers import SingleAgentEnv
from conftest import PRESET_PLAYERS


def plane_cards(vector, plane):
    return np.flatnonzero(vector[plane * NUM_CARD_IDS:(plane + 1) * NUM_CARD_IDS]).tolist()


@pytest.mark.parametrize("preset, num_players", PRESET_PLAYERS)
def test_hidden_cards_are_the_other_hands_in_turn_order_and_the_stock(preset, num_players):
    env = SingleAgentEnv(preset, num_players, seed=3, critic_state=True, episode="hand")
    rng = np.random.default_rng(0)
    for _ in range(3):
        obs, _ = env.reset()
        while True:
            game, seat = env.aec.game, env._seat
            hidden = obs[OBS_SIZE:]
            assert obs.shape == (OBS_SIZE + HIDDEN_SIZE,)
            for relative in range(1, 4):
                expected = (cards_of(game.hands[(seat + relative) % num_players])
                            if relative < num_players else [])
                assert plane_cards(hidden, relative - 1) == expected
            assert plane_cards(hidden, 3) == sorted(game.deck[game.pos:])
            assert not set(plane_cards(hidden, 3)) & set(cards_of(game.hands[seat]))
            obs, _, terminated, _, _ = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
            if terminated:
                break


def test_critic_state_only_appends_to_the_seats_own_observation():
    plain = SingleAgentEnv(seed=11, episode="hand")
    privileged = SingleAgentEnv(seed=11, episode="hand", critic_state=True)
    rng = np.random.default_rng(1)
    a, _ = plain.reset()
    b, _ = privileged.reset()
    for _ in range(200):
        assert np.array_equal(a, b[:OBS_SIZE])
        assert np.array_equal(b[OBS_SIZE:], hidden_cards(privileged.aec.game, privileged._seat))
        action = int(rng.choice(np.flatnonzero(plain.action_masks())))
        a, _, done_a, _, _ = plain.step(action)
        b, _, done_b, _, _ = privileged.step(action)
        assert done_a == done_b
        if done_a:
            a, _ = plain.reset()
            b, _ = privileged.reset()


def test_bad_critic_state_value_raises():
    with pytest.raises(TypeError, match="critic_state"):
        SingleAgentEnv(critic_state="yes")


def privileged_model():
    from sb3_contrib import MaskablePPO

    from agents.critic_policy import PrivilegedCriticPolicy

    env = SingleAgentEnv(seed=0, episode="hand", critic_state=True)
    return MaskablePPO(PrivilegedCriticPolicy, env, n_steps=64, batch_size=32, seed=0, device="cpu",
                       policy_kwargs={"net_arch": [32, 32], "actor_inputs": OBS_SIZE})


def test_the_actor_ignores_the_hidden_cards_and_the_critic_learns_from_them():
    from agents.policy import actor_from_sb3

    model = privileged_model()
    policy = model.policy
    first = policy.mlp_extractor.value_net[0].weight
    assert torch.all(first[:, OBS_SIZE:] == 0)  # a fitted critic starts PPO unchanged
    model.learn(256)
    assert torch.any(policy.mlp_extractor.value_net[0].weight[:, OBS_SIZE:] != 0)
    rng = np.random.default_rng(2)
    obs = torch.as_tensor(rng.random((8, OBS_SIZE + HIDDEN_SIZE), dtype=np.float32))
    other = obs.clone()
    other[:, OBS_SIZE:] = torch.as_tensor(rng.random((8, HIDDEN_SIZE), dtype=np.float32))
    with torch.no_grad():
        logits = policy.action_net(policy.mlp_extractor.forward_actor(obs))
        assert torch.equal(logits, policy.action_net(policy.mlp_extractor.forward_actor(other)))
        assert not torch.equal(policy.predict_values(obs), policy.predict_values(other))
    actor = actor_from_sb3(policy)
    assert actor.layers[0][0].shape[0] == OBS_SIZE
    assert np.allclose(actor.logits(obs[:, :OBS_SIZE].numpy()), logits.numpy(), atol=1e-5)


def test_a_privileged_model_loads_as_an_agent_that_plays_on_its_own_observation(tmp_path):
    from agents import make_agent
    from agents.policy import actor_from_sb3, save_policy
    from evaluate import run_tournament

    path = save_policy(tmp_path / "model.npz", actor_from_sb3(privileged_model().policy),
                       {"preset": "seven_up", "num_players": 2, "knobs": {}})
    agent = make_agent(f"ppo:{path}", seed=0)
    assert agent.actor.inputs == OBS_SIZE
    result = run_tournament([agent, "random"], games=2, seed=0)
    assert result.result_for(agent.name, "random")["games"] == 2
