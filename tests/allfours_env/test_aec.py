"""The PettingZoo AEC environment: peer test suite, observation correctness, no leaks, rewards."""

import pickle
import random
import warnings

import numpy as np
import pytest
from pettingzoo.test import api_test, render_test, seed_test

import allfours_env
from allfours_env import Game, Rules, str_to_action
from allfours_env.actions import BID_BASE, DISCARD_BASE, HOLD, PASS, PLAY_BASE, STAND
from allfours_env.cards import JOKER
from allfours_env.engine import stack_deck
from allfours_env.events import EventKind
from allfours_env.observation import (
    BEATS,
    BELOW_ZERO,
    BID_SLOTS,
    BIDDING,
    BIDS,
    CAPTURED,
    CAPTURED_SIDE3,
    CARD_POINTS,
    CONTRACT,
    DEALER,
    DISCARDS,
    DRAWN,
    ELDEST,
    HAND_SIZE,
    HIGH_BID,
    HIGH_BIDDER,
    LEADER,
    MASTER,
    MAX_TRICKS,
    MY_DISCARD,
    NEEDED,
    OBS_SIZE,
    PHASE,
    PITCHER,
    PLAY_ORDER,
    PLAYED_BY,
    PROPOSED,
    REJECTED,
    RULES,
    RULES2,
    RULES_SIZE,
    RUNS,
    SCORE,
    SIDE3,
    STOCK_LEFT,
    STOCK_TOP,
    TO_MOVE,
    TRICK,
    TRICKS,
    TRICKS_26,
    TRUMP,
    TRUMP_PLANE,
    TRUMP_RANKS,
    TRUMPS_LEFT,
    TURNUP,
    UNSEEN,
    VOIDS,
    WINNING,
    rules_features,
    selection_and_pack_features,
)
from allfours_env.render import render_table
from conftest import ALL_PRESET_PLAYERS, PRESET_PLAYERS

NC = 53


def random_rollout(env, rng, steps=None, check=None):
    """Masked random rollout of whole episodes through agent_iter/last/step."""
    done = 0
    for agent in env.agent_iter():
        observation, reward, termination, truncation, info = env.last()
        if check:
            check(env, agent, observation)
        if termination or truncation:
            env.step(None)
            continue
        legal = np.flatnonzero(observation["action_mask"])
        assert len(legal) > 0
        env.step(int(rng.choice(legal)))
        done += 1
        if steps and done >= steps:
            break
    return done


# ---------------------------------------------------------------- PettingZoo's own tests

@pytest.mark.parametrize("preset, num_players", ALL_PRESET_PLAYERS)
def test_pettingzoo_api_seed_and_render_tests(preset, num_players, capsys):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(allfours_env.env(preset=preset, num_players=num_players), num_cycles=60)
        seed_test(lambda: allfours_env.env(preset=preset, num_players=num_players), num_cycles=60)
        render_test(lambda render_mode=None: allfours_env.env(
            preset=preset, num_players=num_players, render_mode=render_mode))
    capsys.readouterr()


@pytest.mark.parametrize("preset, num_players", ALL_PRESET_PLAYERS)
def test_pickle_round_trip_and_masked_random_rollouts(preset, num_players):
    env = allfours_env.env(preset=preset, num_players=num_players)
    env.reset(seed=3)
    rng = np.random.default_rng(0)
    random_rollout(env, rng, steps=25)
    clone = pickle.loads(pickle.dumps(env))
    assert clone.unwrapped.rules == env.unwrapped.rules
    clone.reset(seed=3)
    fresh = allfours_env.env(preset=preset, num_players=num_players)
    fresh.reset(seed=3)
    for a, b in zip(clone.agent_iter(50), fresh.agent_iter(50)):
        obs_a, obs_b = clone.last()[0], fresh.last()[0]
        assert a == b and np.array_equal(obs_a["observation"], obs_b["observation"])
        ended = clone.terminations[a] or clone.truncations[a]
        action = None if ended else int(np.flatnonzero(obs_a["action_mask"])[0])
        clone.step(action)
        fresh.step(action)
    for game_seed in range(3):
        env.reset(seed=game_seed)
        random_rollout(env, rng)
        raw = env.unwrapped  # a winner, or random bidders truncated at the hand cap (MAX_HANDS)
        assert raw.winner is not None or raw.game.hand_number >= raw.max_hands


def test_spaces_are_identical_objects_for_every_agent_and_shape_for_every_preset():
    shapes = set()
    for preset, num_players in ALL_PRESET_PLAYERS:
        env = allfours_env.raw_env(preset=preset, num_players=num_players)
        spaces = {id(env.observation_space(a)) for a in env.possible_agents}
        assert len(spaces) == 1 and len({id(env.action_space(a)) for a in env.possible_agents}) == 1
        shapes.add((env.observation_space("player_0")["observation"].shape, env.action_space("player_0").n))
    assert shapes == {((OBS_SIZE,), 117)}


def test_registered_with_pettingzoo():
    import pettingzoo

    env = pettingzoo.make("aec", allfours_env.ENV_ID, preset="trinidad", num_players=4)
    env.reset(seed=0)
    assert env.unwrapped.metadata["name"] == "all_fours_v0"
    assert env.unwrapped.rules.preset == "trinidad"


def test_action_text_helpers_on_the_raw_env():
    env = allfours_env.raw_env()
    assert env.action_to_str(0) == "stand" and env.str_to_action("play AS") == 108
    with pytest.raises(ValueError, match="not an action"):
        env.str_to_action("fold")


def test_bad_constructor_arguments_raise_clear_errors():
    with pytest.raises(allfours_env.RulesError, match="unknown preset"):
        allfours_env.env(preset="whist")
    with pytest.raises(allfours_env.RulesError, match="unknown knob"):
        allfours_env.env(targett=7)
    with pytest.raises(ValueError, match="render_mode"):
        allfours_env.raw_env(render_mode="rgb_array")
    with pytest.raises(ValueError, match="episode"):
        allfours_env.raw_env(episode="trick")


# ---------------------------------------------------------------- the observation, against a reference

def reference_observation(game: Game, seat: int) -> np.ndarray:
    """The observation rebuilt from scratch from the engine state and the hand log (slow, simple)."""
    n, rules = game.n, game.rules
    obs = np.zeros(OBS_SIZE)
    sides = [rules.side_of(s) for s in range(n)]
    order = []
    for k in range(n):
        if sides[(seat + k) % n] not in order:
            order.append(sides[(seat + k) % n])
    rel_side = {side: order.index(side) for side in set(sides)}
    face_up = rules.trump_selection == "stock_top" and rules.stock_face_up

    def cards(mask):
        return [c for c in range(53) if mask >> c & 1]

    def captured_plane(side):
        return (CAPTURED + rel_side[side]) * NC if rel_side[side] < 3 else CAPTURED_SIDE3

    for c in cards(game.hands[seat]):
        obs[c] = 1
    tricks = 0
    led, trump = None, game.trump
    hand_log = game.hand_log()
    revealed = [set() for _ in range(n)]  # suits a seat showed it lacks (R3), by relative seat
    seen = [set() for _ in range(n)]  # cards I saw a seat draw and not play yet
    if rules.trump_selection == "auction":
        for k in range(n):
            obs[BIDS + BID_SLOTS * k] = 1
    for kind, who, value in hand_log:
        rel = (who - seat) % n
        if kind == "act" and PLAY_BASE <= value < PASS:
            card = value - PLAY_BASE
            obs[(PLAYED_BY + rel) * NC + card] = 1
            obs[PLAY_ORDER * NC + card] = min((tricks + 1) / MAX_TRICKS, 1)
            suit = trump if card == JOKER else card // 13
            if led is None:
                led = suit
            elif suit not in (led, trump):
                revealed[rel].add(led)
            seen[rel].discard(card)
        elif kind == "act" and value < DISCARD_BASE:
            obs[BIDDING + value] = 1
        elif kind == "act" and value >= PASS:
            obs[BIDS + BID_SLOTS * rel] = 0
            obs[BIDS + BID_SLOTS * rel + 1 + value - PASS] = 1
            if BID_BASE <= value < HOLD:
                obs[HIGH_BID] = (value - PASS) / 5
                obs[HIGH_BIDDER:HIGH_BIDDER + 4] = 0
                obs[HIGH_BIDDER + rel] = 1
        elif kind == "trick":
            tricks += 1
            led = None
            for c in cards(value):
                obs[captured_plane(sides[who]) + c] = 1
        elif kind == EventKind.DRAW:
            if face_up or who == seat:
                obs[DRAWN + rel * NC + value] = 1
                seen[rel].add(value)
            else:  # RD10: a hidden draw may bring any suit
                revealed[rel] = set()
    for rel in range(n):
        for suit in revealed[rel]:
            if not any(c // 13 == suit for c in seen[rel]):
                obs[VOIDS + 4 * rel + suit] = 1
    for c in game.trick_cards:
        obs[TRICK * NC + c] = 1
    for c in game.turnups:
        obs[TURNUP * NC + c] = 1
    for c in cards(game.discards[seat]):
        obs[MY_DISCARD * NC + c] = 1
    obs[PHASE + game.phase] = 1
    obs[TRUMP + (game.trump if game.trump >= 0 else 4)] = 1
    if game.turnups:
        obs[PROPOSED + game.turnups[-1] // 13] = 1
        obs[RUNS] = 0.2 * (len(game.turnups) - 1)
        if len(game.turnups) > 1:
            obs[REJECTED + game.turnups[0] // 13] = 1
    dealer = hand_log[0][1]
    obs[DEALER + (dealer - seat) % n] = 1
    obs[ELDEST + (dealer + 1 - seat) % n] = 1
    if game.current_player >= 0:
        obs[TO_MOVE + (game.current_player - seat) % n] = 1
        obs[LEADER + (game.current_player - len(game.trick_cards) - seat) % n] = 1
    for side in range(game.num_sides):
        k = rel_side[side]
        score_slot, needed_slot, points_slot = (SCORE + k, NEEDED + k, CARD_POINTS + k) if k < 3 else (
            SIDE3, SIDE3 + 1, SIDE3 + 2)
        obs[score_slot] = min(max(game.scores[side], 0) / game.target, 1)
        obs[needed_slot] = min(max(game.target - game.scores[side], 0) / game.target, 1)
        obs[points_slot] = game.captured_points[side] / 80
        obs[BELOW_ZERO + k] = min(max(-game.scores[side], 0) / game.target, 1)
    for k in range(n):
        obs[HAND_SIZE + k] = game.hands[(seat + k) % n].bit_count() / MAX_TRICKS
        obs[DISCARDS + k] = game.discards[(seat + k) % n].bit_count() / 15
    obs[TRICKS] = min(tricks / MAX_TRICKS, 1)
    obs[TRICKS_26] = tricks / 26
    if game.pitcher >= 0:
        obs[PITCHER + (game.pitcher - seat) % n] = 1
        obs[CONTRACT] = game.contract / 5
    pack = 53 if rules.joker else 52
    if rules.trump_selection in ("turnup", "stock_top"):
        obs[STOCK_LEFT] = (pack - game.pos) / 40
    if face_up and game.pos < pack:
        obs[STOCK_TOP + game.deck[game.pos]] = 1
    obs[RULES:RULES + RULES_SIZE] = rules_features(rules)
    obs[RULES2:TRUMP_PLANE] = selection_and_pack_features(rules)
    played = [value - PLAY_BASE for kind, _, value in hand_log if kind == "act" and PLAY_BASE <= value < PASS]
    counted_entries(obs, game, seat, played)
    return obs


def counted_entries(obs: np.ndarray, game: Game, seat: int, played: list[int]) -> None:
    """Index 1027 on, from the state by rank comparisons: trumps, the best card left of each suit, the
    hand's cards that beat the trick, who wins it, the unseen cards and the trumps by rank."""
    n, rules, trump = game.n, game.rules, game.trump
    pack = range(53 if rules.joker else 52)
    out = set(played) | set(game.turnups) | {c for c in pack if game.discards[seat] >> c & 1}
    hand = {c for c in pack if game.hands[seat] >> c & 1}

    def suit(card):  # the joker is a trump (RD22), of no suit before trump is fixed
        return (trump if trump >= 0 else None) if card == JOKER else card // 13

    def rank(card):  # RD22: between the king and the ace, or below the two
        if card == JOKER:
            return 11.5 if rules.joker_rank == "second_highest" else -1
        return card % 13

    by_suit = {}
    for card in pack:
        by_suit.setdefault(suit(card), []).append(card)
    for card in pack:
        if card in out or suit(card) is None:
            continue
        if all(d in out or d in hand for d in by_suit[suit(card)] if rank(d) > rank(card)):
            obs[MASTER + card] = 1
    unseen = [c for c in pack if c not in out and c not in hand]
    for s in range(4):
        obs[UNSEEN + s] = sum(1 for c in unseen if c != JOKER and c // 13 == s) / 13
    if trump < 0:
        return
    trick = game.trick_cards
    if trick:
        led = suit(trick[0])

        def power(card):
            return 100 + rank(card) if suit(card) == trump else rank(card) if suit(card) == led else -100

        best = max(range(len(trick)), key=lambda i: (power(trick[i]), -i))
        leader = game.current_player - len(trick)
        obs[WINNING + (leader + best - seat) % n] = 1
        for card in hand:
            obs[BEATS + card] = power(card) > power(trick[best])
    trumps = [c for c in pack if suit(c) == trump]
    obs[TRUMPS_LEFT] = sum(1 for c in unseen if c in trumps) / 14
    mine = rules.side_of(seat)
    rows = [hand, set(trick),
            {c for c in pack if game.captured[mine] >> c & 1},
            {c for side in range(game.num_sides) if side != mine
             for c in pack if game.captured[side] >> c & 1}]
    for row, cards_in_row in enumerate(rows):
        for card in trumps:
            obs[TRUMP_PLANE + card] = 1
            obs[TRUMP_RANKS + 14 * row + (13 if card == JOKER else card % 13)] = card in cards_in_row


def test_rules_block_has_the_documented_size():
    for preset, num_players in ALL_PRESET_PLAYERS:
        assert len(rules_features(Rules.make(preset, num_players))) == RULES_SIZE
        assert RULES2 + len(selection_and_pack_features(Rules.make(preset, num_players))) == TRUMP_PLANE


@pytest.mark.parametrize("preset, num_players", ALL_PRESET_PLAYERS)
@pytest.mark.parametrize("episode", ["game", "hand"])
def test_incremental_observation_equals_the_reference_at_every_step(preset, num_players, episode):
    check_observations_at_every_step(allfours_env.raw_env(preset=preset, num_players=num_players,
                                                          episode=episode), episode)


def test_observation_with_the_joker_ranked_lowest_equals_the_reference():
    check_observations_at_every_step(allfours_env.raw_env(preset="pitch_with_joker", num_players=4,
                                                          joker_rank="lowest"), "game", games=1)


def check_observations_at_every_step(env, episode: str, games: int = 4) -> None:
    """Random games (``games`` of them, or three times as many hand episodes): every seat's observation
    equals :func:`reference_observation` at every step."""
    rng = np.random.default_rng(1)
    checked = 0
    for episode_number in range(games if episode == "game" else 3 * games):
        if episode_number % 4 == 0:
            env.reset(seed=episode_number)
        else:
            env.reset()  # the next game, or in hand episodes the next hand of the same game
        observers = list(env.possible_agents)
        for agent in env.agent_iter():
            watcher = observers[rng.integers(len(observers))]  # someone else catches up lazily
            for name in {agent, watcher}:
                seat = env.possible_agents.index(name)
                got = env.observe(name)
                np.testing.assert_allclose(got["observation"], reference_observation(env.game, seat),
                                           atol=1e-6, err_msg=f"{name} step {checked}")
                assert got["observation"].dtype == np.float32 and got["action_mask"].dtype == np.int8
                assert 0.0 <= got["observation"].min() and got["observation"].max() <= 1.0
                expected_mask = np.zeros(117, np.int8)
                if name == agent and not (env.terminations[agent] or env.truncations[agent]):
                    expected_mask[list(env.game.legal_actions())] = 1
                assert np.array_equal(got["action_mask"], expected_mask)
                checked += 1
            if env.terminations[agent] or env.truncations[agent]:
                env.step(None)
                continue
            env.step(int(rng.choice(np.flatnonzero(env.observe(agent)["action_mask"]))))
    assert checked > 100


def test_observations_are_copies_not_views_of_the_internal_state():
    env = allfours_env.raw_env()
    env.reset(seed=0)
    first = env.observe(env.agent_selection)
    first["observation"][:] = 0.5
    second = env.observe(env.agent_selection)
    assert not np.array_equal(first["observation"], second["observation"])


# ---------------------------------------------------------------- no information leaks

@pytest.mark.parametrize("preset, num_players", [("seven_up", 2), ("trinidad", 4), ("all_fours", 3)])
def test_deals_differing_only_in_hidden_cards_give_identical_observations(preset, num_players):
    rng = random.Random(num_players)
    mine = "KC 4C AD KH 5S 3D".split()
    others = [c for c in (r + s for s in "CDHS" for r in "23456789TJQKA") if c not in mine + ["8C"]]
    observations = []
    for _ in range(2):
        rng.shuffle(others)  # other hands and the stock differ; my hand and the turn-up do not
        hands = [mine] + [others[6 * k: 6 * k + 6] for k in range(num_players - 1)]
        deck = stack_deck(num_players, num_players - 1, hands, "8C",
                          rest=others[6 * (num_players - 1):])
        env = allfours_env.raw_env(preset=preset, num_players=num_players)
        env.reset(seed=0, options={"dealer": num_players - 1, "decks": [deck]})
        assert env.agent_selection == "player_0"  # eldest: the first decision is mine
        observations.append(env.observe("player_0")["observation"])
    assert np.array_equal(observations[0], observations[1])


def test_discards_of_another_player_change_only_that_players_card_counts():
    hands = ("2C 3C 4C 5C 6C 7C", "2D 3D 4D 5D 6D 7D")
    run = (["8C 9C TC".split(), "8D 9D TD".split()], "4S")
    deck = stack_deck(2, 0, [h.split() for h in hands], "9H", [run])
    env = allfours_env.raw_env()
    env.reset(seed=0, options={"dealer": 0, "decks": [deck]})
    env.step(str_to_action("beg"))
    env.step(str_to_action("run"))
    assert env.agent_selection == "player_1"  # eldest discards first
    before = env.observe("player_0")["observation"]
    env.step(str_to_action("discard 8D"))
    after = env.observe("player_0")["observation"]
    changed = set(np.flatnonzero(before != after))
    assert changed == {HAND_SIZE + 1, DISCARDS + 1}
    mine = env.observe("player_1")["observation"]
    assert mine[MY_DISCARD * NC + str_to_action("discard 8D") - DISCARD_BASE] == 1.0


# ---------------------------------------------------------------- rewards and episodes

def rollout_rewards(env, rng):
    """Play one episode at random and return each agent's total reward; every step's rewards
    must sum to zero."""
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        assert abs(sum(env.rewards.values())) < 1e-9
        for name, value in env.rewards.items():
            totals[name] += value
        if env.terminations[agent] or env.truncations[agent]:
            env.step(None)
            continue
        env.step(int(rng.choice(np.flatnonzero(env.observe(agent)["action_mask"]))))
    return totals


@pytest.mark.parametrize("preset, num_players", PRESET_PLAYERS)
@pytest.mark.parametrize("reward", ["win", "points"])
def test_rewards_are_zero_sum_and_pay_the_win_or_the_points(preset, num_players, reward):
    env = allfours_env.raw_env(preset=preset, num_players=num_players, reward=reward)
    rng = np.random.default_rng(2)
    env.reset(seed=5)
    totals = rollout_rewards(env, rng)
    game = env.game
    sides = [game.rules.side_of(s) for s in range(num_players)]
    share = 1 / (game.num_sides - 1)
    for seat, name in enumerate(env.possible_agents):
        if reward == "win":
            expected = 1.0 if sides[seat] == game.winner else -share
        else:
            own = game.scores[sides[seat]] - game.initial_scores[sides[seat]]
            expected = own - share * (sum(game.scores) - sum(game.initial_scores) - own)
        assert totals[name] == pytest.approx(expected)


def test_hand_episodes_end_after_each_hand_and_continue_the_same_game():
    env = allfours_env.raw_env(episode="hand")
    rng = np.random.default_rng(4)
    env.reset(seed=1)
    game = env.game
    hands, scores_seen = 0, []
    while True:
        random_rollout(env, rng)
        assert env.phase in ("hand_over", "game_over")
        hands += 1
        scores_seen.append(env.scores)
        if env.phase == "game_over":
            break
        env.reset()
        assert env.game is game and env.phase != "hand_over"
    assert hands == game.hand_number or env.phase == "game_over"
    assert scores_seen == sorted(scores_seen, key=sum)
    env.reset()
    assert env.game is not game  # a new game after the last one ended


def test_points_reward_in_hand_episodes_is_the_hand_point_difference():
    env = allfours_env.raw_env(episode="hand")
    assert env.reward_mode == "points"
    env.reset(seed=2)
    before = env.scores
    totals = rollout_rewards(env, np.random.default_rng(0))
    gained = [a - b for a, b in zip(env.scores, before)]
    assert totals["player_0"] == pytest.approx(gained[0] - gained[1])


# ---------------------------------------------------------------- reset, seeding, public state

def test_reset_options_stack_decks_fix_the_dealer_and_set_scores():
    deck = stack_deck(2, 1, ["2C 3C 4C 5C 6C 7C".split(), "2D 3D 4D 5D 6D 7D".split()], "9H")
    env = allfours_env.raw_env()
    env.reset(seed=0, options={"dealer": 1, "decks": [deck], "scores": (5, 6)})
    assert env.game.dealer == 1 and env.agent_selection == "player_0"
    assert env.game.hands[0] == sum(1 << c for c in range(6))
    assert env.scores == [5, 6] and env.winner is None and env.phase == "beg"
    with pytest.warns(UserWarning, match="unknown option"):
        env.reset(seed=0, options={"dealr": 1})


def test_scores_are_one_type_everywhere_a_list_copied_from_the_game():
    env = allfours_env.env(preset="seven_up", num_players=2)
    env.reset(seed=0)
    for agent in env.agent_iter():
        observation, _, termination, truncation, _ = env.last()
        mask = observation["action_mask"]
        env.step(None if termination or truncation else env.action_space(agent).sample(mask))
    game = env.unwrapped.game
    assert type(env.unwrapped.scores) is list and type(game.scores) is list
    assert env.unwrapped.scores == game.scores == game.record()["scores"]
    env.unwrapped.scores[0] += 100  # a copy: the game is not changed
    assert env.unwrapped.scores == game.scores


def test_reset_without_seed_continues_the_stream_and_constructor_args_survive():
    a = allfours_env.raw_env(preset="all_fours", num_players=3, target_points=5)
    b = allfours_env.raw_env(preset="all_fours", num_players=3, target_points=5)
    a.reset(seed=7)
    b.reset(seed=7)
    decks = []
    for env in (a, b):
        env.reset()
        decks.append(env.game.decks[0])
        assert env.game.rules.target_points == 5 and env.game.n == 3
    assert decks[0] == decks[1]
    a.reset(seed=7)
    first = a.game.decks[0]
    a.reset()
    assert a.game.decks[0] != first


def test_record_replays_the_environments_game():
    env = allfours_env.raw_env(preset="trinidad", num_players=4)
    env.reset(seed=3)
    random_rollout(env, np.random.default_rng(3))
    game = allfours_env.replay(env.record)
    assert game.scores == list(env.scores) and game.winner == env.winner


def test_game_won_at_the_turnup_ends_the_episode_at_reset():
    deck = stack_deck(2, 0, ["2C 3C 4C 5C 6C 7C".split(), "2D 3D 4D 5D 6D 7D".split()], "JH")
    env = allfours_env.raw_env()
    env.reset(seed=0, options={"dealer": 0, "decks": [deck], "scores": (6, 0)})
    assert all(env.terminations.values()) and env.winner == 0
    assert env._cumulative_rewards == {"player_0": 1.0, "player_1": -1.0}


def test_render_ansi_shows_the_table_and_none_mode_warns():
    env = allfours_env.raw_env(render_mode="ansi")
    env.reset(seed=0)
    text = env.render()
    assert "seven_up" in text and "player_0" in text and any(s in text for s in "♣♦♥♠")
    quiet = allfours_env.raw_env()
    quiet.reset(seed=0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert quiet.render() is None
    assert caught


@pytest.mark.parametrize("preset, num_players", ALL_PRESET_PLAYERS)
def test_render_seat_keeps_the_render_contract_and_hides_the_other_hands(preset, num_players, capsys):
    seat = num_players - 1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        render_test(lambda render_mode=None: allfours_env.env(
            preset=preset, num_players=num_players, render_mode=render_mode, render_seat=seat))
    capsys.readouterr()
    env = allfours_env.raw_env(preset, num_players, render_mode="ansi", render_seat=f"player_{seat}")
    env.reset(seed=1)
    text = env.render()
    for other in range(num_players - 1):
        assert f"player_{other}: {env.game.hands[other].bit_count()} cards" in text
    assert text == render_table(env.game, seat=seat) and text != render_table(env.game)


def test_reading_state_before_reset_is_a_clear_error():
    with pytest.raises(RuntimeError, match="reset"):
        _ = allfours_env.raw_env().scores


def test_illegal_move_through_the_wrapped_env_ends_the_game_for_the_offender():
    env = allfours_env.env()
    env.reset(seed=0)
    agent = env.agent_selection
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        env.step(str_to_action("play AS") if STAND in np.flatnonzero(env.observe(agent)["action_mask"])
                 else STAND)
    assert all(env.terminations.values())
    assert env._cumulative_rewards[agent] == -1  # and 0 to the others: the one reward that is not zero-sum
    assert all(reward == 0 for other, reward in env._cumulative_rewards.items() if other != agent)


def test_raw_env_rejects_illegal_actions_with_a_clear_error():
    env = allfours_env.raw_env()
    env.reset(seed=0)
    with pytest.raises(allfours_env.IllegalActionError, match="not legal"):
        env.step(str_to_action("gift"))


def test_random_game_through_env_matches_the_engine_with_the_same_decisions():
    env = allfours_env.raw_env(preset="seven_up", num_players=3)
    env.reset(seed=11)
    rng = random.Random(0)
    for agent in env.agent_iter():
        if env.terminations[agent] or env.truncations[agent]:
            env.step(None)
            continue
        env.step(rng.choice(env.game.legal_actions()))
    record = env.record
    assert allfours_env.replay(record).record() == record


# ---------------------------------------------------------------- what step() accepts

NOT_INTEGERS = [True, False, np.bool_(True), 0.9, 1.0, np.float32(0), "1", "stand", np.array([0]), [0]]
OUT_OF_RANGE = [117, -1, np.int64(200), 10**20]


def _state(env):
    raw = env.unwrapped
    return (len(raw.game.log), raw.agent_selection, dict(raw.terminations), dict(raw._cumulative_rewards))


@pytest.mark.parametrize("make", [allfours_env.raw_env, allfours_env.env], ids=["raw_env", "env"])
@pytest.mark.parametrize("action, error, message", [
    *((action, TypeError, r"an action is an integer id 0\.\.116 .*got ") for action in NOT_INTEGERS),
    *((action, ValueError, rf"action {int(action)} is out of range: action ids are 0\.\.116")
      for action in OUT_OF_RANGE),
], ids=repr)
def test_step_rejects_what_is_not_an_action_id_and_changes_nothing(make, action, error, message):
    """Not an integer (TypeError) or out of range (ValueError): nothing is coerced, and the game
    does not end for the offender."""
    env = make()
    env.reset(seed=0)
    before = _state(env)
    with pytest.raises(error, match=message):
        env.step(action)
    assert _state(env) == before


@pytest.mark.parametrize("make", [allfours_env.raw_env, allfours_env.env], ids=["raw_env", "env"])
def test_step_none_for_an_agent_to_move_is_a_clear_error(make):
    env = make()
    env.reset(seed=0)
    with pytest.raises(TypeError, match="only for an agent whose episode has ended; player_1 is to move"):
        env.step(None)


@pytest.mark.parametrize("make", [allfours_env.raw_env, allfours_env.env], ids=["raw_env", "env"])
@pytest.mark.parametrize("kind", [int, np.int32, np.int64, np.uint8, np.array], ids=lambda k: k.__name__)
def test_step_accepts_python_and_numpy_integers(make, kind):
    env = make()
    env.reset(seed=0)
    env.step(kind(STAND))
    assert env.unwrapped.phase == "play" and not any(env.terminations.values())


def test_step_before_reset_says_to_reset():
    with pytest.raises(RuntimeError, match=r"step\(\) before reset\(\)"):
        allfours_env.raw_env().step(0)
    with pytest.raises(AssertionError, match=r"reset\(\) needs to be called before step"):
        allfours_env.env().step(0)  # PettingZoo's OrderEnforcingWrapper


def test_step_after_the_end_says_to_reset():
    env = allfours_env.raw_env()
    env.reset(seed=0)
    rng = random.Random(0)
    while not all(env.terminations.values()):
        env.step(rng.choice(env.game.legal_actions()))
    with pytest.raises(ValueError, match=r"episode has ended: step\(None\) takes it out"):
        env.step(0)
    while env.agents:
        env.step(None)
    with pytest.raises(RuntimeError, match=r"episode is over .*call reset\(\)"):
        env.step(None)
    env.reset(seed=1)
    env.step(np.int64(STAND))  # a reset makes the env usable again
