"""The single-agent Gymnasium wrapper (SB3 / sb3-contrib) and the RLlib key adapter."""

import warnings

import numpy as np
import pytest

import allfours_env
from allfours_env.actions import PLAY_BASE
from allfours_env.engine import IllegalActionError
from allfours_env.events import EventKind
from allfours_env.observation import TO_MOVE
from allfours_env.wrappers import RLlibActionMaskWrapper, SingleAgentEnv
from conftest import PRESET_PLAYERS


def play_episode(env, rng, seed=None):
    obs, info = env.reset(seed=seed)
    total, steps = 0.0, 0
    while True:
        assert obs[TO_MOVE] == 1.0  # the learner sees only its own decisions
        legal = np.flatnonzero(env.action_masks())
        obs, reward, terminated, truncated, info = env.step(int(rng.choice(legal)))
        total += reward
        steps += 1
        if terminated or truncated:
            return total, steps, info


@pytest.mark.parametrize("preset, num_players", PRESET_PLAYERS)
def test_sb3_check_env_passes(preset, num_players):
    from stable_baselines3.common.env_checker import check_env

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(SingleAgentEnv(preset, num_players, seed=0))


@pytest.mark.parametrize("preset, num_players", PRESET_PLAYERS)
def test_learner_gets_the_game_result_as_its_reward(preset, num_players):
    env = SingleAgentEnv(preset, num_players, seed=1)
    rng = np.random.default_rng(1)
    for _ in range(3):
        total, steps, info = play_episode(env, rng)
        sides = env.aec.rules.num_sides
        won = env.aec.rules.side_of(info["seat"]) == info["winner"]
        assert total == pytest.approx(1.0 if won else -1.0 / (sides - 1))


def test_learner_seat_is_drawn_per_episode_or_fixed():
    env = SingleAgentEnv(seed=3)
    seats = {play_episode(env, np.random.default_rng(i))[2]["seat"] for i in range(12)}
    assert seats == {0, 1}
    fixed = SingleAgentEnv(learner_seat=1, seed=3)
    assert {play_episode(fixed, np.random.default_rng(i))[2]["seat"] for i in range(4)} == {1}


def test_seeded_episodes_repeat_exactly():
    runs = []
    for _ in range(2):
        env = SingleAgentEnv("trinidad", 4, seed=9)
        rng = np.random.default_rng(0)
        runs.append([play_episode(env, rng)[:2] for _ in range(3)])
    assert runs[0] == runs[1]


class SpyPolicy:
    """Plays the lowest legal action and remembers which seats' views it was shown."""

    def __init__(self):
        self.seats = set()

    def act(self, observation, view):
        self.seats.add(view.seat)
        assert view.current_player == view.seat  # a policy only ever decides for its own seat
        return int(np.flatnonzero(observation["action_mask"])[0])


def test_opponent_policies_see_only_their_own_seat_and_partners_follow_the_config():
    spy = SpyPolicy()
    env = SingleAgentEnv("seven_up", 4, opponents=spy, learner_seat=0, seed=0)
    play_episode(env, np.random.default_rng(0))
    assert spy.seats == {1, 3}  # the learner plays its partner (seat 2) itself by default
    partner = SpyPolicy()
    env = SingleAgentEnv("seven_up", 4, opponents=SpyPolicy(), partner=partner, learner_seat=0, seed=0)
    play_episode(env, np.random.default_rng(0))
    assert partner.seats == {2}


def test_opponent_pools_are_sampled_at_every_reset_and_plain_callables_work():
    class Pool:
        def __init__(self):
            self.draws = 0

        def sample(self, rng):
            self.draws += 1
            return lambda observation: int(np.flatnonzero(observation["action_mask"])[-1])

    pool = Pool()
    env = SingleAgentEnv("seven_up", 3, opponents=pool, seed=0)
    for i in range(3):
        play_episode(env, np.random.default_rng(i))
    assert pool.draws == 6  # two opponent seats, three episodes


def test_illegal_learner_action_terminates_with_minus_one_or_raises():
    env = SingleAgentEnv(seed=0)
    obs, info = env.reset()
    illegal = int(np.flatnonzero(env.action_masks() == 0)[0])
    with pytest.warns(UserWarning, match="illegal learner action"):
        _, reward, terminated, _, info = env.step(illegal)
    assert reward == -1.0 and terminated and info["illegal_action"]
    strict = SingleAgentEnv(seed=0, illegal_action="raise")
    strict.reset()
    with pytest.raises(IllegalActionError):
        strict.step(illegal)


def test_bad_wrapper_arguments_raise():
    with pytest.raises(ValueError, match="learner_seat"):
        SingleAgentEnv(learner_seat=2)
    with pytest.raises(ValueError, match="illegal_action"):
        SingleAgentEnv(illegal_action="ignore")
    with pytest.raises(TypeError, match="opponents"):
        SingleAgentEnv(opponents=42)


def test_a_pool_returning_none_is_one_clear_error():
    class SelfPlay:  # None means "leave the seat to the learner" in the RLlib env only
        def sample(self, rng):
            return None

    with pytest.raises(TypeError, match=r"sample\(\) returned None"):
        SingleAgentEnv(opponents=SelfPlay(), seed=0).reset()


def test_points_reward_hand_episodes():
    env = SingleAgentEnv(episode="hand", seed=2)
    total, steps, info = play_episode(env, np.random.default_rng(0))
    assert steps >= 6 and total == int(total)


def test_maskable_ppo_runs_a_few_thousand_steps_on_the_wrapper():
    from sb3_contrib import MaskablePPO

    env = SingleAgentEnv(seed=0)
    model = MaskablePPO("MlpPolicy", env, n_steps=256, batch_size=64, n_epochs=1, seed=0, verbose=0)
    model.learn(2048)
    obs, _ = env.reset()
    action, _ = model.predict(obs, action_masks=env.action_masks(), deterministic=True)
    assert env.action_masks()[int(action)]


@pytest.mark.parametrize("preset, num_players, reward", [("auction_pitch", 4, "win"),
                                                         ("auction_pitch", 3, "points"),
                                                         ("trinidad", 4, "points")])
def test_the_hand_cap_truncates_the_episode(preset, num_players, reward):
    """Issue 24: a game still undecided at ``max_hands`` ends with truncated=True, terminated=False
    (Gymnasium's convention), paying what the learner is owed and never asking for a move with an
    all-zero mask; SB3's vectorised env then bootstraps from the truncation."""
    from stable_baselines3.common.vec_env import DummyVecEnv

    env = SingleAgentEnv(preset, num_players, seed=7, max_hands=2, reward=reward)
    rng = np.random.default_rng(0)
    for _ in range(3):
        env.reset()
        total = 0.0
        while True:
            legal = np.flatnonzero(env.action_masks())
            assert len(legal)
            _, paid, terminated, truncated, info = env.step(int(rng.choice(legal)))
            total += paid
            if terminated or truncated:
                break
        game, rules = env.aec.game, env.aec.rules
        assert truncated and not terminated and info["winner"] is None and game.hand_number == 2
        assert not env.action_masks().any()
        side = rules.side_of(info["seat"])
        owed = sum(value.points if s == side else -value.points / (rules.num_sides - 1)
                   for kind, s, value in game.log if kind == EventKind.AWARD)
        assert total == pytest.approx(owed if reward == "points" else 0.0)
        with pytest.raises(RuntimeError, match="episode has ended"):
            env.step(0)

    vec = DummyVecEnv([lambda: SingleAgentEnv(preset, num_players, seed=7, max_hands=1)])
    vec.reset()
    for _ in range(10_000):
        masks = vec.env_method("action_masks")[0]
        _, _, dones, infos = vec.step(np.array([rng.choice(np.flatnonzero(masks))]))
        if dones[0]:
            break
    assert infos[0]["TimeLimit.truncated"] and "terminal_observation" in infos[0]
    assert vec.env_method("action_masks")[0].any()  # reset on its own, the next game goes on


def test_rllib_wrapper_renames_the_observation_keys():
    env = RLlibActionMaskWrapper(allfours_env.raw_env())
    env.reset(seed=0)
    observation = env.observe(env.agent_selection)
    assert set(observation) == {"observations", "action_mask"}
    assert set(env.observation_space("player_0").spaces) == {"observations", "action_mask"}
    assert env.observation_space("player_0")["observations"].contains(observation["observations"])
    assert observation["action_mask"][PLAY_BASE:].sum() == 0  # the beg decision comes first


@pytest.mark.parametrize("illegal_action", ["terminate", "raise"])
@pytest.mark.parametrize("action", [True, np.bool_(False), 0.9, 1.0, "1", None, np.array([0])], ids=repr)
def test_actions_that_are_not_integers_raise_in_either_mode(illegal_action, action):
    env = SingleAgentEnv(seed=0, illegal_action=illegal_action)
    obs, _ = env.reset()
    with pytest.raises(TypeError, match=r"an action is an integer id 0\.\.116 .*got "):
        env.step(action)
    legal = int(np.flatnonzero(env.action_masks())[0])
    assert env.step(legal)[2] in (True, False)  # the episode goes on: nothing was coerced or ended


@pytest.mark.parametrize("action", [117, -1, np.int64(500)], ids=repr)
def test_ids_out_of_range_raise_instead_of_ending_the_episode(action):
    env = SingleAgentEnv(seed=0)
    env.reset()
    with pytest.raises(ValueError, match="out of range: action ids are 0..116"):
        env.step(action)


@pytest.mark.parametrize("kind", [int, np.int32, np.int64, np.array], ids=lambda k: k.__name__)
def test_integer_actions_of_every_kind_are_accepted(kind):
    env = SingleAgentEnv(seed=0, illegal_action="raise")
    env.reset()
    legal = int(np.flatnonzero(env.action_masks())[0])
    _, _, terminated, _, info = env.step(kind(legal))
    assert "illegal_action" not in info


def test_step_before_reset_and_after_the_end_say_to_reset():
    env = SingleAgentEnv(seed=0)
    with pytest.raises(RuntimeError, match=r"step\(\) before reset\(\)"):
        env.step(0)
    play_episode(env, np.random.default_rng(0))
    with pytest.raises(RuntimeError, match=r"episode has ended .*call reset\(\)"):
        env.step(0)
    env.reset()
    illegal = int(np.flatnonzero(env.action_masks() == 0)[0])
    with pytest.warns(UserWarning, match="illegal learner action"):
        assert env.step(illegal)[2] is True
    with pytest.raises(RuntimeError, match="episode has ended"):  # no second -1 after the end
        env.step(illegal)
    env.reset()
    play_episode(env, np.random.default_rng(1))
