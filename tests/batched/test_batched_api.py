"""The batched core's API: determinism, vmapped and single games agree, refusals, illegal actions,
auto-reset, the numpy vector wrapper, and ``import allfours_env`` staying free of JAX."""

import pytest

jax = pytest.importorskip("jax", reason="the jax extra is not installed: pip install -e '.[jax]'")
pytest_plugins = ["jax_setup"]

import subprocess
import sys

import jax.numpy as jnp
import numpy as np

from allfours_env import batched
from allfours_env.observation import OBS_SIZE
from allfours_env.rules import RulesError

ENV = batched.make("seven_up", 3)
INIT = jax.jit(ENV.init)
STEP = jax.jit(ENV.step)
VINIT = jax.jit(jax.vmap(ENV.init))
VSTEP = jax.jit(jax.vmap(ENV.step))


def _random_action(key, mask):
    """An action drawn from the legal mask inside jit (what a random player does)."""
    return jax.random.categorical(key, jnp.where(mask, 0.0, -jnp.inf)).astype(jnp.int32)


def _play(keys, steps):
    """Random play of ``len(keys)`` games vmapped; every state along the way."""
    state = VINIT(keys)
    states = [state]
    choose = jax.jit(jax.vmap(_random_action))
    for i in range(steps):
        action_keys = jax.vmap(lambda k, i=i: jax.random.fold_in(k, 1000 + i))(keys)
        state = VSTEP(state, choose(action_keys, state.legal_action_mask))
        states.append(state)
    return states


def test_same_key_same_games():
    keys = jax.random.split(jax.random.PRNGKey(3), 8)
    first, second = _play(keys, 40), _play(keys, 40)
    for a, b in zip(first, second):
        assert all(np.array_equal(x, y) for x, y in zip(jax.tree.leaves(a), jax.tree.leaves(b)))
    other = _play(jax.random.split(jax.random.PRNGKey(4), 8), 0)[0]
    assert not np.array_equal(other.place, first[0].place)


def test_vmapped_and_single_games_agree():
    keys = jax.random.split(jax.random.PRNGKey(5), 4)
    states = _play(keys, 30)
    choose = jax.jit(_random_action)
    for g in range(4):
        state = INIT(keys[g])
        for i in range(30):
            lane = jax.tree.map(lambda x, g=g: x[g], states[i])
            assert all(np.array_equal(x, y) for x, y in zip(jax.tree.leaves(state), jax.tree.leaves(lane)))
            state = STEP(state, choose(jax.random.fold_in(keys[g], 1000 + i), state.legal_action_mask))


def test_stacked_decks_are_dealt_in_order():
    pack = np.arange(52)[::-1]
    state = ENV.init(jax.random.PRNGKey(0), decks=[pack], dealer=2)
    assert int(state.dealer) == 2
    eldest = 0  # the seat after the dealer receives the first packet of 3 (R11)
    assert set(np.nonzero(np.asarray(state.hold) == eldest)[0]) >= {51, 50, 49}
    assert np.asarray(state.turned)[pack[18]]  # 3 players x 6 cards, then the turn-up


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({"episode": "hand"}, "episode='hand'"),
        ({"reward": "money"}, "reward='money'"),
        ({"max_hands": 0}, "max_hands"),
    ],
)
def test_unsupported_options_are_refused(kwargs, words):
    with pytest.raises(ValueError, match=words):
        batched.make("seven_up", 2, **kwargs)


@pytest.mark.parametrize(("kwargs", "words"), [
    ({"reward": "points", "points_share": 0.1}, "needs reward='win'"),
    ({"points_share": -0.5}, "points_share must be a number >= 0"),
    ({"points_share": float("nan")}, "points_share must be a number >= 0"),
    ({"points_share": True}, "points_share must be a number >= 0"),
])
def test_a_bad_points_share_is_refused(kwargs, words):
    with pytest.raises(ValueError, match=words):
        batched.make("auction_pitch", 4, **kwargs)


def test_a_points_share_adds_that_share_of_the_points_rewards_to_the_win_rewards():
    """The same games under reward="win", "points" and "win" with points_share: the states agree
    and every step pays win + share x points (set-backs included: auction_pitch)."""
    share = 0.25
    envs = [batched.make("auction_pitch", 4, reward=reward, points_share=s)
            for reward, s in (("win", 0.0), ("points", 0.0), ("win", share))]
    inits = [jax.jit(jax.vmap(env.init)) for env in envs]
    steps = [jax.jit(jax.vmap(env.step)) for env in envs]
    choose = jax.jit(jax.vmap(_random_action))
    keys = jax.random.split(jax.random.PRNGKey(11), 16)
    states = [init(keys) for init in inits]
    paid = [np.zeros((16, 4)) for _ in envs]
    for i in range(400):
        actions = choose(jax.vmap(lambda k, i=i: jax.random.fold_in(k, i))(keys), states[0].legal_action_mask)
        states = [step(state, actions) for step, state in zip(steps, states)]
        win, points, blended = (np.asarray(state.rewards, dtype=np.float64) for state in states)
        assert np.allclose(blended, win + share * points, atol=1e-6)
        for total, state in zip(paid, states):
            total += np.asarray(state.rewards)
        assert np.array_equal(states[0].scores, states[2].scores)
        assert np.array_equal(states[0].legal_action_mask, states[2].legal_action_mask)
    assert np.asarray(states[0].terminated).any()  # some games were won
    assert (paid[1] < 0).any() and np.abs(paid[2] - paid[0]).max() > 0  # points (and set-backs) were paid


def test_bad_rules_are_refused_as_the_reference_does():
    with pytest.raises(RulesError, match="unknown knob"):
        batched.make("seven_up", 2, trump_colour="red")
    with pytest.raises(RulesError, match="played by 2 players"):
        batched.make("california_jack", 3)


def test_bad_decks_and_dealer_are_refused():
    with pytest.raises(ValueError):
        ENV.init(jax.random.PRNGKey(0), decks=[list(range(51))])
    with pytest.raises(ValueError, match="dealer"):
        ENV.init(jax.random.PRNGKey(0), dealer=3)


def test_an_illegal_action_ends_the_game_for_its_player():
    state = INIT(jax.random.PRNGKey(1))
    illegal = int(np.nonzero(~np.asarray(state.legal_action_mask))[0][0])
    after = STEP(state, illegal)
    assert bool(after.terminated)
    seat = int(state.current_player)
    assert after.rewards.tolist() == [-1.0 if s == seat else 0.0 for s in range(3)]
    again = STEP(after, 0)
    assert bool(again.terminated) and not np.asarray(again.rewards).any()


def test_auto_reset_starts_a_new_game_when_one_ends():
    step = jax.jit(batched.auto_reset(ENV))
    state = INIT(jax.random.PRNGKey(2))
    key = jax.random.PRNGKey(9)
    ended = 0
    for _ in range(400):
        key, choose_key, step_key = jax.random.split(key, 3)
        action = _random_action(choose_key, state.legal_action_mask)
        state, rewards, terminated, truncated = step(state, action, step_key)
        assert not bool(state.terminated) and np.asarray(state.legal_action_mask).any()
        if bool(terminated):
            ended += 1
            assert sorted(np.asarray(rewards).tolist()) == [-0.5, -0.5, 1.0]  # reward="win", 3 players
            assert int(state.scores.max()) < 7
    assert ended >= 1


def test_auto_reset_deals_the_new_game_as_a_game_dealt_from_scratch():
    """The restart keeps nothing of the finished game: the next state is the first decision of a
    blank game dealt from the step's reset key and dealer, field for field."""
    from allfours_env.batched.env import RESET_DEALS

    env = batched.make("seven_up", 2, max_hands=1)  # every hand ends the game (truncated)
    core = env.core
    step = jax.jit(batched.auto_reset(env))

    @jax.jit
    def from_scratch(key, stacked):
        _, reset_key, dealer_key = jax.random.split(key, 3)
        dealer = jax.random.randint(dealer_key, (), 0, 2, dtype=jnp.int32)
        blank = core.without_view(core.blank(reset_key, stacked, dealer))
        blank = blank._replace(deals=jnp.int32(RESET_DEALS))
        return core.finish(core.chance(blank))

    state = jax.jit(env.init)(jax.random.PRNGKey(4))
    key = jax.random.PRNGKey(8)
    restarts = 0
    for _ in range(60):
        key, choose_key, step_key = jax.random.split(key, 3)
        state, _, terminated, truncated = step(state, _random_action(choose_key, state.legal_action_mask),
                                               step_key)
        if bool(terminated | truncated):
            restarts += 1
            expected = from_scratch(step_key, state.stacked)
            for name, x, y in zip(state._fields, state, expected):
                assert np.array_equal(x, y), name
    assert restarts >= 2


def test_vector_env_plays_numpy_actions_with_auto_reset():
    vec = batched.VectorEnv("seven_up", 2, num_envs=16, seed=0)
    view = vec.reset()
    assert view["observation"].shape == (16, OBS_SIZE) and view["action_mask"].shape == (16, 117)
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(150):
        actions = np.array([rng.choice(np.nonzero(m)[0]) for m in view["action_mask"]])
        view, rewards, terminated, truncated = vec.step(actions)
        assert rewards.shape == (16, 2) and view["action_mask"].any(axis=1).all()
        ended += int(terminated.sum())
        assert np.all(rewards.sum(axis=1) == 0)
    assert ended > 0
    with pytest.raises(ValueError, match="actions must be 16"):
        vec.step(np.zeros(3, dtype=np.int64))


def test_random_action_is_legal_and_uniform_over_the_legal_actions():
    masks = np.zeros((3, 117), dtype=bool)
    masks[0, [4, 9, 116]] = True
    masks[1, 60] = True
    masks[2, :] = True
    draws = jax.jit(jax.vmap(batched.random_action, in_axes=(0, None)))(
        jax.random.split(jax.random.PRNGKey(0), 6000), jnp.asarray(masks))
    draws = np.asarray(draws)
    assert draws.shape == (6000, 3)
    counts = np.bincount(draws[:, 0], minlength=117)
    assert counts.sum() == counts[[4, 9, 116]].sum()
    assert all(1800 < c < 2200 for c in counts[[4, 9, 116]])  # 2,000 expected each (sd ~37)
    assert (draws[:, 1] == 60).all()
    assert np.bincount(draws[:, 2], minlength=117).min() > 20  # every id drawn (~51 expected each)
    assert int(batched.random_action(jax.random.PRNGKey(1), jnp.zeros(117, bool))) == 0


def test_import_allfours_env_does_not_import_jax():
    code = ("import sys, allfours_env, allfours_env.aec; "
            "print('jax' in sys.modules, 'allfours_env.batched' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["False", "False"]
