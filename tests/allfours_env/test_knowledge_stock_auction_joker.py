"""What each seat may know with a stock, an auction or the joker (RD10, RD13, RD21): observations
and the bots' knowledge never hold a card hidden from the seat — the stock below its face-up top, a face-down
draw, the face-down top card's rank, another hand, an auction's unused cards."""

from __future__ import annotations

import random

import numpy as np
import pytest

import allfours_env
from allfours_env import Game, Rules
from allfours_env.cards import card_str, parse_card
from allfours_env.engine import stack_deck
from allfours_env.events import EventKind
from allfours_env.knowledge import SeatView, known_voids, seen_draws
from allfours_env.observation import DRAWN, STOCK_TOP, VOIDS

NC = 53
PACK = [card_str(c) for c in range(52)]


def twin_games(preset, num_players, decks, dealer):
    """Two raw envs dealt the two ``decks``; the same decisions are applied to both."""
    envs = []
    for deck in decks:
        env = allfours_env.raw_env(preset, num_players)
        env.reset(seed=0, options={"dealer": dealer, "decks": [deck]})
        envs.append(env)
    return envs


def play_twins(envs, steps, watchers, rng):
    """Apply moves legal in both games (chosen at random) and check that every seat in ``watchers``
    observes the same in both, at every step; return how many steps were compared."""
    compared = 0
    for _ in range(steps):
        for seat in watchers:
            agent = f"player_{seat}"
            a, b = (env.observe(agent)["observation"] for env in envs)
            assert np.array_equal(a, b), (seat, compared, np.flatnonzero(a != b))
        compared += 1
        if any(env.game.is_over for env in envs):
            break
        assert envs[0].game.current_player == envs[1].game.current_player
        shared = sorted(set(envs[0].game.legal_actions()) & set(envs[1].game.legal_actions()))
        if not shared:
            break
        move = rng.choice(shared)
        for env in envs:
            env.step(move)
    return compared


def swapped(deck, i, j):
    deck = list(deck)
    deck[i], deck[j] = deck[j], deck[i]
    return deck


def test_RD10_california_jack_observations_hide_the_stock_below_its_top():
    hands = [PACK[:6], PACK[6:12]]
    deck = stack_deck(2, 0, hands, rest=PACK[12:])
    other = swapped(deck, 30, 45)  # deep in the stock: on top after trick 9
    envs = twin_games("california_jack", 2, [deck, other], dealer=0)
    assert play_twins(envs, 18, watchers=(0, 1), rng=random.Random(1)) == 18  # 9 tricks
    assert envs[0].observe("player_0")["observation"][STOCK_TOP + envs[0].game.deck[envs[0].game.pos]] == 1


def test_RD10_shasta_sam_hides_the_top_cards_rank_and_the_opponents_draws():
    hands = [PACK[13:19], PACK[26:32]]  # player_0 (dealer): diamonds; player_1 (eldest): hearts
    rest = [c for c in PACK if c not in hands[0] + hands[1]]
    rest = ["2C"] + [c for c in rest if c[1] != "C"] + [c for c in rest if c[1] == "C" and c != "2C"]
    deck = stack_deck(2, 0, hands, rest=rest)  # 2C on top: clubs are trump; AC at the bottom
    other = swapped(deck, 12, len(deck) - 1)  # another club on top, 2C at the bottom of the stock
    assert deck[12] == "2C" and other[12][1] == "C"
    envs = twin_games("shasta_sam", 2, [deck, other], dealer=0)
    assert envs[0].game.trump == envs[1].game.trump  # the trump suit is public, the rank is not
    assert play_twins(envs, 1, watchers=(0, 1), rng=random.Random(0)) == 1
    # player_1 wins trick 1 (player_0 neither follows nor trumps) and draws the top card face down:
    # player_0 sees the same game whichever club it was, as long as it stays in player_1's hand
    envs = twin_games("shasta_sam", 2, [deck, other], dealer=0)
    for env in envs:
        env.step(allfours_env.str_to_action("play 2H"))
        env.step(allfours_env.str_to_action("play 2D"))
    assert all(env.game.hands[1] >> parse_card(d[12]) & 1 for env, d in zip(envs, (deck, other)))
    assert play_twins(envs, 12, watchers=(0,), rng=random.Random(2)) >= 6


@pytest.mark.parametrize("preset, num_players", [("auction_pitch", 4), ("pitch_with_joker", 3)])
def test_RD13_RD21_auction_observations_hide_other_hands_and_the_unused_cards(preset, num_players):
    joker = preset == "pitch_with_joker"
    cards = [card_str(c) for c in range(53 if joker else 52)]
    mine = cards[:6]
    rng = random.Random(num_players)
    decks = []
    for _ in range(2):
        others = cards[6:]
        rng.shuffle(others)  # the joker may be dealt to another seat or left unused
        hands = [mine] + [others[6 * k: 6 * k + 6] for k in range(num_players - 1)]
        decks.append(stack_deck(num_players, num_players - 1, hands, rest=others[6 * (num_players - 1):],
                                joker=joker))
    envs = twin_games(preset, num_players, decks, dealer=num_players - 1)
    assert envs[0].agent_selection == "player_0"  # eldest bids first
    play_twins(envs, num_players, watchers=(0,), rng=random.Random(3))  # the whole auction


def cj_game(decisions: int, seed: int, preset="california_jack") -> Game:
    game = Game(Rules.make(preset, 2), seed=seed)
    rng = random.Random(seed)
    for _ in range(decisions):
        game.apply(rng.choice(game.legal_actions()))
    return game


def test_RD10_cards_seen_drawn_are_known_until_played_and_the_top_is_seen_face_up():
    game = cj_game(decisions=6, seed=4)
    view = SeatView(game, 0)
    drawn = [0, 0]
    for kind, who, value in game.hand_log():
        if kind == EventKind.DRAW:
            drawn[who] |= 1 << value
        elif kind == EventKind.ACT:
            for seat in (0, 1):
                drawn[seat] &= ~(1 << (value - 57))
    assert view.seen_draws() == drawn and drawn[1]
    assert not view.unseen() & drawn[1] and not view.unseen() >> game.deck[game.pos] & 1
    assert view.stock_top() == game.deck[game.pos]
    ss = cj_game(decisions=6, seed=4, preset="shasta_sam")
    view = SeatView(ss, 0)
    assert view.seen_draws()[1] == 0 and view.stock_top() == -1
    assert view.unseen() >> ss.deck[ss.pos] & 1  # the face-down top is unseen


def test_RD10_a_face_down_draw_ends_the_drawers_known_voids_but_a_face_up_one_does_not():
    # player_1 (eldest) leads hearts, player_0 holds none and discards a club: void in hearts
    hands = ["2C 3C 4C 5C 6C 7C".split(), "2H 3H 4H 5H 6H 7H".split()]
    rest = [c for c in PACK if c not in hands[0] + hands[1] + ["2S"]]
    deck = stack_deck(2, 0, hands, rest=["2S", *rest])  # spades trump
    for preset, face_up in (("california_jack", True), ("shasta_sam", False)):
        game = Game(Rules.make(preset, 2), seed=0, dealer=0, decks=[deck])
        game.apply(allfours_env.str_to_action("play 7H"))
        game.apply(allfours_env.str_to_action("play 2C"))
        # the trick is won by player_1; both drew: player_0's void in hearts (shown) ...
        hearts = sum(1 << c for c in range(26, 39))
        voids = known_voids(game, observer=1)
        assert bool(voids[0] & hearts) == face_up  # ... stands face up, ends with a hidden draw
        assert known_voids(game, observer=0)[0] & hearts  # the drawer knows its own cards anyway
        env_obs = VOIDS + 4 * 1 + 2  # player_1's view of relative seat 1 (player_0), hearts
        env = allfours_env.raw_env(preset, 2)
        env.reset(seed=0, options={"dealer": 0, "decks": [deck]})
        env.step(allfours_env.str_to_action("play 7H"))
        env.step(allfours_env.str_to_action("play 2C"))
        drew = parse_card(card_str(game.deck[13]))  # player_0 drew the second card
        obs = env.observe("player_1")["observation"]
        assert obs[env_obs] == (1.0 if face_up and drew // 13 != 2 else 0.0)
        assert obs[DRAWN + NC + drew] == (1.0 if face_up else 0.0)


@pytest.mark.parametrize("preset", ["california_jack", "shasta_sam"])
def test_RD10_resample_keeps_what_the_seat_saw_and_redraws_the_stock_order(preset):
    rng = random.Random(5)
    differs = 0
    for seed in range(20):
        game = cj_game(decisions=10 + seed, seed=seed, preset=preset)
        seat = game.current_player
        view = SeatView(game, seat)
        seen = seen_draws(game, seat)
        world = view.resample(rng)
        assert world.hands[seat] == game.hands[seat]
        for q in (0, 1):
            assert world.hands[q] & seen[q] == seen[q]
        if view.stock_top() >= 0:
            assert world.deck[world.pos] == game.deck[game.pos]
        differs += world.deck[world.pos + 1:] != game.deck[game.pos + 1:]
    assert differs >= 15


def test_RD10_shasta_sam_resample_keeps_the_undrawn_top_a_trump():
    game = Game(Rules.make("shasta_sam", 2), seed=9)
    rng = random.Random(1)
    for _ in range(30):
        world = SeatView(game, game.current_player).resample(rng)
        assert world.deck[world.pos] // 13 == game.trump


def test_RD10_shasta_sam_only_the_drawer_of_the_top_card_is_known_to_hold_a_trump():
    # player_1 leads 7H, player_0 discards 2C: player_1 wins, draws the face-down top (2S, a trump:
    # spades are trump), then player_0 draws 8D. player_1 knows player_0's draw was any card.
    hands = ["2C 3C 4C 5C 6C 7C".split(), "2H 3H 4H 5H 6H 7H".split()]
    rest = [c for c in PACK if c not in hands[0] + hands[1] + ["2S", "8D"]]
    deck = stack_deck(2, 0, hands, rest=["2S", "8D", *rest])
    game = Game(Rules.make("shasta_sam", 2), seed=0, dealer=0, decks=[deck])
    game.apply(allfours_env.str_to_action("play 7H"))
    game.apply(allfours_env.str_to_action("play 2C"))
    assert game.hands[1] >> parse_card("2S") & 1 and game.hands[0] >> parse_card("8D") & 1
    spades = sum(1 << c for c in range(39, 52))
    rng = random.Random(0)
    opponent_spades = [bool(SeatView(game, 1).resample(rng).hands[0] & spades) for _ in range(100)]
    assert not all(opponent_spades)  # 12 spades among 44 hidden cards: often none in 6 (~13%)
    drawer_spades = [bool(SeatView(game, 0).resample(rng).hands[1] & spades) for _ in range(100)]
    assert all(drawer_spades)  # player_1 drew the trump and has played no trump since


def test_RD22_a_seat_that_did_not_follow_a_trump_lead_holds_no_joker():
    """The joker is a trump (RD22): a follower who played a plain card to a trump lead holds none, and
    a sampled deal never gives it the joker, though the pitcher has not seen where it is."""
    rules = Rules.make("pitch_with_joker", 3)
    hands = [["AS", "KS", "2C", "3C", "4C", "5C"], ["2H", "3H", "4H", "5H", "6H", "7H"],
             ["2D", "3D", "4D", "5D", "6D", "7D"]]
    deck = stack_deck(3, 2, hands, rest=["JK"] + [c for c in PACK if c not in sum(hands, [])], joker=True)
    game = Game(rules, seed=0, dealer=2, decks=[deck])
    for action in ("bid 4", "pass", "pass", "play AS"):
        game.apply(allfours_env.str_to_action(action))
    assert known_voids(game, observer=0)[1] & (1 << parse_card("JK")) == 0  # not yet shown
    game.apply(allfours_env.str_to_action("play 2H"))  # seat 1 shows no trump
    assert known_voids(game, observer=0)[1] & (1 << parse_card("JK"))
    assert not known_voids(game, observer=0)[2] & (1 << parse_card("JK"))  # seat 2 is still to play
    rng = random.Random(0)
    holders = {seat for seat in (1, 2) for _ in range(40)
               if SeatView(game, 0).resample(rng).hands[seat] >> parse_card("JK") & 1}
    assert 1 not in holders
