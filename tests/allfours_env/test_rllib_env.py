"""The RLlib MultiAgentEnv adapter: turn-based observations, reward bookkeeping, opponents inside
the env, the privileged critic's extra input, illegal actions, seeding, and RLlib's own checks."""

import numpy as np
import pytest

pytest.importorskip("ray.rllib", reason="Ray RLlib is not installed (pip install 'allfours[rllib]')")

from allfours_env.engine import IllegalActionError  # noqa: E402
from allfours_env.events import EventKind  # noqa: E402
from allfours_env.hidden import HIDDEN_SIZE  # noqa: E402
from allfours_env.observation import OBS_SIZE  # noqa: E402
from allfours_env.rllib_env import AllFoursMultiAgentEnv  # noqa: E402
from allfours_env.wrappers import RandomPolicy  # noqa: E402


def play(env, seed, rng=None, truncate=False, actions=None):
    """One episode with random legal actions; returns the steps as (obs, rewards, terminateds,
    truncateds, infos) and appends the action dicts to ``actions`` if given. Checks at every decision
    that exactly one agent observes, the one to move, and that its mask is the engine's legal set (so
    never all zeros); unless ``truncate``, that no step truncates."""
    rng = rng or np.random.default_rng(seed)
    observations, infos = env.reset(seed=seed)
    steps = [(observations, {}, {"__all__": False}, {"__all__": False}, infos)]
    while not (steps[-1][2]["__all__"] or steps[-1][3]["__all__"]):
        (agent, observation), = observations.items()
        game = env.aec.game
        assert agent == f"player_{game.current_player}"
        legal = game.legal_action_bits()
        assert legal and [a for a in range(legal.bit_length()) if legal >> a & 1] == \
            np.flatnonzero(observation["action_mask"]).tolist()
        action = int(rng.choice(np.flatnonzero(observation["action_mask"])))
        if actions is not None:
            actions.append({agent: action})
        observations, rewards, terminateds, truncateds, infos = env.step({agent: action})
        assert truncate or truncateds == {"__all__": False}
        steps.append((observations, rewards, terminateds, truncateds, infos))
    return steps


@pytest.mark.parametrize("preset,players,episode", [("seven_up", 2, "hand"), ("seven_up", 3, "game"),
                                                    ("trinidad", 4, "hand"), ("all_fours", 2, "game")])
def test_only_the_agent_to_move_observes_and_its_mask_is_the_legal_set(preset, players, episode):
    env = AllFoursMultiAgentEnv({"preset": preset, "num_players": players, "episode": episode})
    for seed in range(3):
        steps = play(env, seed)
        for observations, *_ in steps[:-1]:
            (agent, observation), = observations.items()
            assert set(observation) == {"observations", "action_mask"}
            assert observation["observations"].shape == (OBS_SIZE,)
            assert observation["observations"].dtype == np.float32
            assert observation["action_mask"].dtype == np.int8
            assert env.observation_spaces[agent].contains(observation)
        assert steps[-1][2]["__all__"] is True


def test_rewards_wait_for_the_next_decision_and_sum_to_each_sides_points():
    env = AllFoursMultiAgentEnv({"episode": "hand", "reward": "points"})
    for seed in range(20):
        steps = play(env, seed)
        acted, totals = set(), {}
        for observations, rewards, terminateds, _, _ in steps:
            # rewards only go to agents that observe now, and only after they have acted
            assert set(rewards) <= set(observations)
            assert set(rewards) <= acted
            for agent, reward in rewards.items():
                totals[agent] = totals.get(agent, 0.0) + reward
            if not terminateds["__all__"]:
                acted |= set(observations)
        final_observations, final_rewards, terminateds, _, _ = steps[-1]
        # every agent that acted gets a last observation (no legal action), a reward and terminated
        assert set(final_observations) == acted == set(final_rewards)
        assert all(terminateds[agent] for agent in acted)
        assert all(not o["action_mask"].any() for o in final_observations.values())
        points = [0, 0]
        for kind, side, value in env.aec.game.log:
            if kind == EventKind.AWARD:
                points[side] += value.points
        assert totals == {"player_0": points[0] - points[1], "player_1": points[1] - points[0]}


def award_shares(env):
    """Each agent's share of every award of the game so far (the AEC env's ``reward="points"``)."""
    rules, totals = env.aec.rules, dict.fromkeys(env.possible_agents, 0.0)
    loser_share = 1 / (rules.num_sides - 1)
    for kind, side, value in env.aec.game.log:
        if kind == EventKind.AWARD:
            for seat, agent in enumerate(env.possible_agents):
                totals[agent] += value.points if rules.side_of(seat) == side else -value.points * loser_share
    return totals


@pytest.mark.parametrize("config", [
    {"preset": "auction_pitch", "num_players": 4},
    {"preset": "auction_pitch", "num_players": 4, "reward": "points"},
    {"preset": "auction_pitch", "num_players": 3, "opponents": "pool"},
    {"preset": "trinidad", "num_players": 4, "reward": "points", "opponents": "pool"},
])
def test_the_hand_cap_truncates_the_episode_as_rllib_expects(config):
    """Issue 24: at the AEC env's max_hands cap the episode is truncated — every agent that acted gets
    a final observation and what it is owed — instead of asking the agent to move to act with an
    all-zero action mask (hand 500 of seeds 7 and 43 with the default cap)."""
    from ray.rllib.env.multi_agent_episode import MultiAgentEpisode

    config = dict(config, max_hands=2)
    if config.get("opponents") == "pool":
        config["opponents"] = RandomPool()
    env = AllFoursMultiAgentEnv(config)
    for seed in (7, 43):
        actions = []
        steps = play(env, seed, truncate=True, actions=actions)
        final_observations, final_rewards, terminateds, truncateds, _ = steps[-1]
        game = env.aec.game
        assert game.hand_number == 2 and game.winner is None
        # "__all__" alone: per-agent flags would make RLlib's episode terminated (see _end)
        assert terminateds == {"__all__": False} and truncateds == {"__all__": True}
        assert all(not t["__all__"] for *_, t, _ in steps[:-1])
        acted = {agent for observations, *_ in steps[:-1] for agent in observations}
        assert set(final_observations) == set(final_rewards) == acted
        assert all(not o["action_mask"].any() for o in final_observations.values())
        assert all(env.observation_spaces[a].contains(o) for a, o in final_observations.items())
        totals = dict.fromkeys(acted, 0.0)
        for _, rewards, *_ in steps:
            for agent, reward in rewards.items():
                totals[agent] += reward
        if config.get("reward") == "points":  # what was paid arrives, the last hand's points included
            assert totals == pytest.approx({a: r for a, r in award_shares(env).items() if a in acted})
        else:  # no winner, no reward
            assert not any(totals.values())
        with pytest.raises(RuntimeError, match="reset"):
            env.step({next(iter(acted)): 0})

        # RLlib's episode takes the steps and truncates every agent's episode (values bootstrap)
        episode = MultiAgentEpisode(observation_space=env.observation_spaces,
                                    action_space=env.action_spaces)
        episode.add_env_reset(observations=steps[0][0], infos=steps[0][4])
        for action, (observations, rewards, terminateds, truncateds, infos) in zip(actions, steps[1:]):
            episode.add_env_step(observations=observations, actions=action, rewards=rewards,
                                 terminateds=terminateds, truncateds=truncateds, infos=infos)
        assert episode.is_done and episode.is_truncated and not episode.is_terminated
        assert set(episode.agent_episodes) == acted
        assert all(e.is_truncated and not e.is_terminated for e in episode.agent_episodes.values())
        assert sum(len(e) for e in episode.agent_episodes.values()) == len(actions)

        # the next episode starts normally
        observations, _ = env.reset()
        (agent, observation), = observations.items()
        assert observation["action_mask"].any()
        env.step({agent: int(np.flatnonzero(observation["action_mask"])[0])})


def test_hand_episodes_are_not_truncated_by_the_cap():
    env = AllFoursMultiAgentEnv({"preset": "auction_pitch", "num_players": 4, "episode": "hand",
                                 "max_hands": 1})
    for seed in range(3):
        assert play(env, seed)[-1][2]["__all__"] is True


def test_win_rewards_reach_every_player_at_the_end_of_the_game():
    env = AllFoursMultiAgentEnv({"num_players": 3})
    steps = play(env, seed=5)
    assert all(not any(rewards.values()) for _, rewards, *_ in steps[:-1])
    winner = env.aec.game.winner
    final = steps[-1][1]
    assert final == {f"player_{s}": 1.0 if s == winner else -0.5 for s in range(3)}


def test_opponents_play_inside_the_env_and_only_the_learner_side_is_an_rllib_agent():
    policy = RandomPolicy(np.random.default_rng(0))
    env = AllFoursMultiAgentEnv({"opponents": policy, "learner_seat": 1, "episode": "hand"})
    for seed in range(5):
        for observations, *_ in play(env, seed):
            assert set(observations) <= {"player_1"}
    partners = AllFoursMultiAgentEnv({"preset": "trinidad", "num_players": 4, "opponents": policy})
    for seed in range(5):
        seats = set()
        for observations, *_ in play(partners, seed):
            seats |= set(observations)
        first, second = sorted(int(agent[-1]) for agent in partners.agents)
        assert second == first + 2 and seats <= set(partners.agents)


def test_a_pool_returning_none_leaves_the_seat_to_rllib():
    class SelfPlay:
        def sample(self, rng):
            return None

    env = AllFoursMultiAgentEnv({"opponents": SelfPlay()})
    seen = set()
    for observations, *_ in play(env, seed=0):
        seen |= set(observations)
    assert seen == {"player_0", "player_1"}


def test_critic_state_adds_the_hidden_cards():
    env = AllFoursMultiAgentEnv({"critic_state": True})
    observations, _ = env.reset(seed=0)
    (agent, observation), = observations.items()
    assert observation["critic"].shape == (HIDDEN_SIZE,)
    assert env.observation_spaces[agent].contains(observation)
    assert observation["critic"].sum() > 0


def test_illegal_actions_end_the_episode_or_raise():
    env = AllFoursMultiAgentEnv({})
    observations, _ = env.reset(seed=0)
    (agent, observation), = observations.items()
    illegal = int(np.flatnonzero(observation["action_mask"] == 0)[0])
    observations, rewards, terminateds, _, infos = env.step({agent: illegal})
    assert terminateds["__all__"] and rewards[agent] == -1.0 and infos[agent]["illegal_action"]
    with pytest.raises(RuntimeError, match="reset"):
        env.step({agent: illegal})  # the episode is over
    strict = AllFoursMultiAgentEnv({"illegal_action": "raise"})
    observations, _ = strict.reset(seed=0)
    with pytest.raises(IllegalActionError, match="not legal"):
        strict.step({agent: illegal})
    for bad, error in ((True, TypeError), (1.0, TypeError), (117, ValueError)):
        with pytest.raises(error):
            strict.step({agent: bad})
    with pytest.raises(ValueError, match="is to move"):
        strict.step({"player_9": 0})
    legal = int(np.flatnonzero(observations[agent]["action_mask"])[0])
    strict.step({agent: np.array(legal)})  # a 0-d numpy integer array is an id too


class RandomPool:
    """Fresh random opponents seeded from the env's generator (so a seeded reset fixes them)."""

    def sample(self, rng):
        return RandomPolicy(np.random.default_rng(int(rng.integers(2**63))))


def test_seeded_resets_repeat_and_bad_config_is_one_clear_error():
    env = AllFoursMultiAgentEnv({"episode": "hand", "opponents": RandomPool()})

    def trace(seed):
        steps = play(env, seed, np.random.default_rng(0))
        return [(agent, o["observations"].tobytes()) for observations, *_ in steps
                for agent, o in observations.items()]

    assert trace(3) == trace(3) != trace(4)
    with pytest.raises(ValueError, match="unknown env_config key"):
        AllFoursMultiAgentEnv({"players": 2})
    with pytest.raises(ValueError, match="learner_seat"):
        AllFoursMultiAgentEnv({"opponents": RandomPolicy(np.random.default_rng(1)), "learner_seat": 5})
    with pytest.raises(ValueError, match="max_hands"):
        AllFoursMultiAgentEnv({"max_hands": 0})


def test_rllib_env_checker_accepts_the_env():
    from ray.rllib.utils.pre_checks.env import check_multiagent_environments

    for config in ({}, {"num_players": 4, "critic_state": True}):
        check_multiagent_environments(AllFoursMultiAgentEnv(config))


def test_rllib_example_masking_module_reads_the_observations():
    """RLlib's own example ActionMaskingTorchRLModule works with these observations (int8 mask)."""
    import torch
    from ray.rllib.core.columns import Columns
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule

    env = AllFoursMultiAgentEnv({})
    space = env.observation_spaces["player_0"]
    module = RLModuleSpec(module_class=ActionMaskingTorchRLModule, observation_space=space,
                          action_space=env.action_spaces["player_0"],
                          model_config={"fcnet_hiddens": [16]}).build()
    observations = [next(iter(play(env, seed)[0][0].values())) for seed in range(4)]
    batch = {Columns.OBS: {key: torch.as_tensor(np.stack([o[key] for o in observations]))
                           for key in ("observations", "action_mask")}}
    logits = module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS]
    for row, observation in zip(logits, observations):
        assert observation["action_mask"][int(row.argmax())] == 1
