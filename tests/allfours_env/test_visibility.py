"""The one visibility filter (allfours_env.visibility): what each observer sees of the log, the table
and the voids (docs/rules.md §1, P5/D8, RD10, R3/D15/D17), and that every consumer goes through it."""

from __future__ import annotations

import pickle
import random
import warnings

import numpy as np
import pytest
from pettingzoo.test import render_test

import allfours_env
from allfours_env import Game, Rules, str_to_action
from allfours_env.actions import DISCARDED_CARD, PLAYED_CARD
from allfours_env.cards import JOKER, NUM_CARD_IDS, SUIT_MASKS, card_str, cards_of, parse_card
from allfours_env.engine import stack_deck
from allfours_env.events import Event, EventKind
from allfours_env.knowledge import SeatView, known_voids
from allfours_env.observation import VOIDS, SeatEncoder
from allfours_env.render import describe_event, pretty_card, render_table
from allfours_env.visibility import (
    LEADS,
    PUBLIC,
    SPECTATOR,
    VoidTracker,
    seen_events,
    sees_discard,
    sees_draw,
    sees_hand,
    sees_stock_top,
    visible_event,
    void_suits,
)
from conftest import ALL_PRESET_PLAYERS, play, random_game, stacked_game

ACT, DRAW = EventKind.ACT, EventKind.DRAW


# ---------------------------------------------------------------- the filter


def test_another_players_discard_shows_as_a_fact_and_ones_own_with_its_card():
    rules = Rules.make()
    discard = Event(ACT, 1, str_to_action("discard 8D"))
    assert visible_event(discard, 0, rules) == Event(ACT, 1, None)  # P5, D8
    assert visible_event(discard, 1, rules) is discard
    assert visible_event(discard, SPECTATOR, rules) is discard
    assert visible_event(discard, PUBLIC, rules) == Event(ACT, 1, None)
    hidden = visible_event(discard, 0, rules)
    assert visible_event(hidden, 0, rules) is hidden  # filtering twice changes nothing


def test_RD10_draws_are_public_face_up_and_the_drawers_own_face_down():
    card = parse_card("QH")
    draw = Event(DRAW, 1, card)
    face_up, face_down = Rules.make("california_jack", 2), Rules.make("shasta_sam", 2)
    assert visible_event(draw, 0, face_up) is draw
    assert visible_event(draw, 0, face_down) == Event(DRAW, 1, None)
    assert visible_event(draw, 1, face_down) is draw
    assert visible_event(draw, SPECTATOR, face_down) is draw
    assert sees_draw(face_up, 1, PUBLIC) and not sees_draw(face_down, 1, PUBLIC)
    assert sees_stock_top(face_up, 0) and not sees_stock_top(face_down, 0)
    assert sees_stock_top(face_down, SPECTATOR) and not sees_stock_top(Rules.make(), SPECTATOR)


def test_hands_and_discards_are_seen_by_their_owner_and_the_spectator_only():
    assert sees_hand(2, 2) and sees_hand(2, SPECTATOR) and not sees_hand(2, 0) and not sees_hand(2, PUBLIC)
    assert sees_discard(1, 1) and sees_discard(1, SPECTATOR) and not sees_discard(1, 0)


@pytest.mark.parametrize("preset, num_players", ALL_PRESET_PLAYERS)
def test_seen_events_hide_exactly_the_others_discards_and_unseen_draws(preset, num_players):
    game = random_game(preset, num_players, seed=7, decisions=300)
    rules = game.rules
    assert list(seen_events(game.log, SPECTATOR, rules)) == game.log
    for seat in range(num_players):
        seen = list(seen_events(game.log, seat, rules))
        assert len(seen) == len(game.log)
        for event, shown in zip(game.log, seen):
            kind, who, value = event
            hidden = (kind == ACT and who != seat and DISCARDED_CARD[value] >= 0) or (
                kind == DRAW and who != seat and not rules.stock_face_up)
            assert shown == (Event(kind, who, None) if hidden else event)
            if not hidden:
                assert shown is event


def test_seat_view_history_is_the_filtered_hand_log_and_hides_face_down_draws():
    game = random_game("shasta_sam", 2, seed=3, decisions=12)
    assert any(kind == DRAW for kind, _, _ in game.hand_log())
    for seat in (0, 1):
        history = SeatView(game, seat).history()
        assert history == list(seen_events(game.hand_log(), seat, game.rules))
        for kind, who, value in history:
            if kind == DRAW:
                assert (value is None) == (who != seat)
    cj = random_game("california_jack", 2, seed=3, decisions=12)
    assert SeatView(cj, 0).history() == cj.hand_log()  # every draw is public; no discards


# ---------------------------------------------------------------- render: a seat's view


def hidden_from(game: Game, seat: int) -> int:
    """The cards ``seat`` may not see now: the others' hands and discards, a face-down stock top."""
    hidden = 0
    for other in range(game.n):
        if other != seat:
            hidden |= game.hands[other] | game.discards[other]
    if game.rules.plan.stock and not game.rules.stock_face_up and game.pos < len(game.deck):
        hidden |= 1 << game.deck[game.pos]
    return hidden


def shows(text: str, card: int) -> bool:
    return pretty_card(card) in text


@pytest.mark.parametrize("preset, num_players", [("seven_up", 2), ("seven_up", 4), ("all_fours", 3),
                                                 ("shasta_sam", 2), ("california_jack", 2),
                                                 ("pitch_with_joker", 4)])
def test_a_seats_rendered_view_never_shows_a_hidden_card_and_the_spectators_does(preset, num_players):
    rng = random.Random(11)
    spectator_saw = {"hand": False, "discard": False, "stock top": False}
    for game_seed in range(3):
        seat = game_seed % num_players
        env = allfours_env.raw_env(preset, num_players, render_mode="ansi", render_seat=seat)
        spectator = allfours_env.raw_env(preset, num_players, render_mode="ansi")
        env.reset(seed=game_seed)
        spectator.reset(seed=game_seed)
        for _ in range(250):
            game = env.game
            text = env.render()
            assert text == render_table(game, seat=seat)
            for card in cards_of(hidden_from(game, seat)):
                assert not shows(text, card), f"{pretty_card(card)} shown to player_{seat}:\n{text}"
            for card in cards_of(game.hands[seat] | game.discards[seat]):
                assert shows(text, card)  # its own cards it does see
            god = spectator.render()
            for other in range(num_players):
                for card in cards_of(game.hands[other]):
                    assert shows(god, card)
                    spectator_saw["hand"] |= other != seat
                for card in cards_of(game.discards[other]):
                    assert shows(god, card)
                    spectator_saw["discard"] = True
            if game.rules.plan.stock and game.pos < len(game.deck):
                assert shows(god, game.deck[game.pos])
                spectator_saw["stock top"] |= not game.rules.stock_face_up
            if game.is_over:
                break
            action = rng.choice(game.legal_actions())
            env.step(action)
            spectator.step(action)
        # the event lines: another player's discard and a face-down draw by another never name the card
        for event in game.log:
            kind, who, value = event
            line = describe_event(game, event, seat=seat) or ""
            if kind == ACT and who != seat and DISCARDED_CARD[value] >= 0:
                assert line == f"player_{who} discards a card"
                assert shows(describe_event(game, event), DISCARDED_CARD[value])
            elif kind == DRAW and who != seat and not game.rules.stock_face_up:
                assert line == f"player_{who} draws a card"
                assert shows(describe_event(game, event), value)
    assert spectator_saw["hand"]
    if preset in ("seven_up", "all_fours"):
        assert spectator_saw["discard"]
    if preset == "shasta_sam":
        assert spectator_saw["stock top"]


def test_shasta_sam_seat_view_says_face_down_and_the_spectator_names_the_top_card():
    game = random_game("shasta_sam", 2, seed=1, decisions=4)
    top = pretty_card(game.deck[game.pos])
    assert "top card face down" in render_table(game, seat=0)
    assert f"top card {top}" in render_table(game)
    cj = random_game("california_jack", 2, seed=1, decisions=4)
    assert f"top card {pretty_card(cj.deck[cj.pos])}" in render_table(cj, seat=0)  # face up: public


def test_the_table_shows_ones_own_discards_and_only_the_number_of_the_others():
    game = stacked_game(hands=("2C 3C 4C 5C 6C 7C", "2D 3D 4D 5D 6D 7D"), turnup="9H",
                        runs=[(("8C 9C TC", "8D 9D TD"), "4S")])
    play(game, "1:beg", "0:run", "1:discard 8D", "1:discard 9D", "1:discard TD", "0:discard 8C")
    mine = render_table(game, seat=0)
    assert "discarded: 8♣" in mine and "discarded 3 cards" in mine and "8♦" not in mine
    theirs = render_table(game, seat=1)
    assert "discarded 1 cards" in theirs and "8♣" not in theirs
    god = render_table(game)
    assert "discarded: 8♣" in god and "discarded: 10♦ 9♦ 8♦" in god


# ---------------------------------------------------------------- the env's render_seat option


def test_env_render_seat_renders_that_seats_view_by_number_or_agent_name():
    for render_seat in (1, "player_1", np.int64(1)):
        env = allfours_env.env("shasta_sam", 2, render_mode="ansi", render_seat=render_seat)
        env.reset(seed=4)
        assert env.render() == render_table(env.unwrapped.game, seat=1)
    plain = allfours_env.env("shasta_sam", 2, render_mode="ansi")
    plain.reset(seed=4)
    assert plain.render() == render_table(plain.unwrapped.game)  # default: the spectator's view
    for bad in (2, -1, True, "player_9", "north", 1.0):
        with pytest.raises(ValueError, match="render_seat"):
            allfours_env.raw_env("shasta_sam", 2, render_seat=bad)


def test_env_render_seat_keeps_pettingzoos_render_contract_and_pickles():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        render_test(lambda render_mode=None: allfours_env.env(
            preset="seven_up", num_players=3, render_mode=render_mode, render_seat=2))
    env = allfours_env.raw_env("seven_up", 3, render_mode="ansi", render_seat="player_2")
    copy = pickle.loads(pickle.dumps(env))
    assert copy.render_seat == 2
    copy.reset(seed=0)
    assert copy.render() == render_table(copy.game, seat=2)


def test_human_mode_prints_the_seats_view(capsys):
    env = allfours_env.raw_env("seven_up", 2, render_mode="human", render_seat=0)
    env.reset(seed=2)
    assert env.render() is None
    assert capsys.readouterr().out == render_table(env.game, seat=0) + "\n\n"


# ---------------------------------------------------------------- void inference, written once


def test_R3_void_suits_a_card_that_neither_follows_nor_trumps_shows_the_suit_led():
    hearts, spades = 2, 3
    table = void_suits(hearts, spades)
    assert table[parse_card("2C")] == hearts and table[parse_card("AD")] == hearts
    assert table[parse_card("5H")] == -1 and table[parse_card("5S")] == -1  # followed, trumped
    assert table[JOKER] == -1  # the joker is a trump (RD22)
    assert len(table) == NUM_CARD_IDS


def test_void_tracker_leads_follows_and_fixes_trump_by_the_first_lead():
    tracker = VoidTracker(Rules.make("blind_all_fours", 3), observer=0)
    assert tracker.table[parse_card("7D")] == LEADS
    assert tracker.play(0, parse_card("7D")) == -1 and tracker.led == 1  # P8: diamonds lead (and trump)
    assert tracker.play(1, parse_card("2C")) == 1  # neither followed nor trumped
    assert tracker.play(2, parse_card("9D")) == -1
    assert tracker.suits == [0, 1 << 1, 0]
    tracker.trick()
    assert tracker.led == -1 and tracker.play(1, parse_card("KS")) == -1 and tracker.led == 3
    tracker.new_hand()
    assert tracker.suits == [0, 0, 0] and tracker.trump == -1


def test_void_tracker_hidden_draws_end_the_voids_per_observer():
    face_down = Rules.make("shasta_sam", 2)
    for observer, ends in ((0, True), (1, False), (SPECTATOR, False), (PUBLIC, True)):
        tracker = VoidTracker(face_down, observer)
        tracker.trump = 3
        tracker.play(0, parse_card("7H"))
        tracker.play(1, parse_card("2C"))  # player_1 shows it has no heart
        assert tracker.draw(1) is ends
        assert tracker.suits[1] == (0 if ends else 1 << 2)
    tracker = VoidTracker(Rules.make("california_jack", 2), observer=0)
    tracker.suits[1] = 1 << 2
    assert tracker.draw(1) is False and tracker.suits[1] == 1 << 2  # a face-up draw ends nothing


@pytest.mark.parametrize("preset, num_players", ALL_PRESET_PLAYERS)
def test_knowledge_and_the_observation_agree_on_the_voids_play_revealed(preset, num_players):
    """Both consumers of VoidTracker: a void bit of the observation is a whole suit in known_voids;
    a whole suit in known_voids (outside K15) is a void bit, unless the seat holds a card of it the
    observer saw drawn (D17)."""
    rng = random.Random(5)
    for seed in range(3):
        game = Game(Rules.make(preset, num_players), seed=seed)
        encoders = [SeatEncoder(game.rules, s) for s in range(num_players)]
        for encoder in encoders:
            encoder.reset(game)
        for _ in range(400):
            if game.is_over:
                break
            game.apply(rng.choice(game.legal_actions()))
            seat = game.current_player
            if seat < 0 or game.trump < 0:
                continue
            obs = encoders[seat].update()
            voids = known_voids(game, seat)
            seen = SeatView(game, seat).seen_draws()
            for rel in range(num_players):
                other = (seat + rel) % num_players
                for suit in range(4):
                    bit = obs[VOIDS + 4 * rel + suit]
                    whole = voids[other] & SUIT_MASKS[suit] == SUIT_MASKS[suit]
                    if bit:
                        assert whole
                    elif whole and not seen[other] & SUIT_MASKS[suit]:
                        assert game.rules.plan.undertrump_banned  # K15 only, not R3


def test_RD10_the_observers_own_draw_keeps_its_knowledge_in_known_voids():
    hands = ["2C 3C 4C 5C 6C 7C".split(), "2H 3H 4H 5H 6H 7H".split()]
    pack = [c for c in "23456789TJQKA"]
    rest = [r + s for s in "CDHS" for r in pack if r + s not in hands[0] + hands[1] + ["2S"]]
    deck = stack_deck(2, 0, hands, rest=["2S", *rest])
    game = Game(Rules.make("shasta_sam", 2), seed=0, dealer=0, decks=[deck])
    game.apply(str_to_action("play 7H"))
    game.apply(str_to_action("play 2C"))
    hearts = SUIT_MASKS[2]
    assert known_voids(game, observer=0)[0] & hearts == hearts
    assert not known_voids(game, observer=1)[0] & hearts
    assert not known_voids(game)[0] & hearts  # the public: the draw was face down


def test_played_card_ids_line_up_with_the_filter():
    """visible_event reads action ids: a play is public whoever plays it."""
    rules = Rules.make()
    for card in range(52):
        play_event = Event(ACT, 1, str_to_action(f"play {card_str(card)}"))
        assert PLAYED_CARD[play_event.value] == card
        assert visible_event(play_event, 0, rules) is play_event
