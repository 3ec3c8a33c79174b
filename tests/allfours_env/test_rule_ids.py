"""One or more tests per rule id of docs/rules.md §2–§3 (R1–R11, P1–P8) and the knobs that change them.

Unless stated: 2 players, player_0 deals, player_1 is eldest.
"""

import pytest

from allfours_env import Game, Rules, str_to_action
from allfours_env.actions import RUN
from allfours_env.cards import CARD_GAME_POINTS, CLUBS, HEARTS, SPADES, parse_card, parse_cards
from allfours_env.engine import stack_deck
from allfours_env.events import Phase
from allfours_env.scoring import game_sides
from conftest import awards_of, hand_scores, play, stacked_game


def legal_texts(game):
    from allfours_env import action_to_str

    return sorted(action_to_str(a) for a in game.legal_actions())


def trick_winners(game):
    return [who for kind, who, _ in game.log if kind == "trick"]


def finish_hand(game, deal=0):
    """Play the current hand to its end with the first legal action each time."""
    while not game.is_over and len(game.decks) - 1 == deal and game.hand_number == deal:
        game.apply(game.legal_actions()[0])


# ---------------------------------------------------------------- R1, R2: rank and trick winner

@pytest.mark.parametrize(
    "lead, follow, follower_wins",
    [
        ("TH", "JH", True),   # R1: J above T
        ("JH", "QH", True),
        ("QH", "KH", True),
        ("KH", "AH", True),
        ("9H", "TH", True),
        ("2H", "3H", True),
        ("AH", "2H", False),
        ("AH", "2C", True),   # R1: any trump beats any non-trump (clubs trump)
        ("2H", "AS", False),  # R2: an off-suit card never wins
    ],
)
def test_R1_R2_rank_order_and_trick_winner(lead, follow, follower_wins):
    follower_hand = f"{follow} 7D 8D 9D 3S 4S" if follow != "AS" else "AS 7D 8D 9D 3S 4S"
    game = stacked_game(hands=(follower_hand, f"{lead} 2D 3D 4D 5D 6D"), turnup="5C")
    play(game, "1:stand", f"1:play {lead}", f"0:play {follow}")
    winner = 0 if follower_wins else 1
    assert trick_winners(game) == [winner]
    assert game.current_player == winner  # R2: the winner leads the next trick


def test_R2_highest_trump_wins_when_several_trumps_fall():
    game = stacked_game("seven_up", 3, hands=("KC 2D 3D 4D 5D 6D", "2H 7D 8D 9D TD JD",
                                             "3C QD KD AD 2S 3S"), turnup="5C")
    play(game, "1:stand", "1:play 2H", "2:play 3C", "0:play KC")
    assert trick_winners(game) == [0]


# ---------------------------------------------------------------- R3: follow or trump

def test_R3_leader_may_lead_any_card():
    game = stacked_game(hands=("2C 3C 4C 5C 6C 7C", "AH 2D 3D 4S 5S 8C"), turnup="9C")
    play(game, "1:stand")
    assert legal_texts(game) == sorted(f"play {c}" for c in "AH 2D 3D 4S 5S 8C".split())


def test_R3_follower_holding_the_suit_led_may_follow_or_trump_only():
    game = stacked_game(hands=("KH 4C 5C 2D 3S 4S", "AH 2D 3D 4D 5D 8C".replace("2D", "6D")),
                        turnup="9C")
    play(game, "1:stand", "1:play AH")
    assert legal_texts(game) == ["play 4C", "play 5C", "play KH"]


def test_R3_follower_void_in_the_suit_led_may_play_any_card():
    game = stacked_game(hands=("4C 5C 2D 3S 4S 5S", "AH 6D 3D 4D 5D 8C"), turnup="9C")
    play(game, "1:stand", "1:play AH")
    assert legal_texts(game) == sorted(f"play {c}" for c in "4C 5C 2D 3S 4S 5S".split())


def test_R3_trump_led_must_be_followed_with_trump():
    game = stacked_game(hands=("4C AH KH 2D 3S 4S", "5C 6D 3D 4D 5D 8H"), turnup="9C")
    play(game, "1:stand", "1:play 5C")
    assert legal_texts(game) == ["play 4C"]


UNDERTRUMP_CASES = [
    # seat 0's hand, legal with undertrump "allowed", legal with "banned_unless_no_choice"
    ("2S AS 2D 3D 4D 5D", "2D 3D 4D 5D 2S AS", "2D 3D 4D 5D AS"),  # void in hearts: no 2S
    ("2S 3S 6H 2D 3D 4D", "6H 2S 3S", "6H"),                      # may not under-trump QS
    ("2S 3S 4S 7S 8S 9S", "2S 3S 4S 7S 8S 9S", "2S 3S 4S 7S 8S 9S"),  # nothing but lower trumps
    ("2S 3S 4S 5S 7S AS", "2S 3S 4S 5S 7S AS", "AS"),             # "2S AS over QS: only AS"
]


@pytest.mark.parametrize("hand, allowed, banned", UNDERTRUMP_CASES)
def test_R3_K15_undertrump_banned_unless_no_choice(hand, allowed, banned):
    hands = (hand, "5H 2C 3C 4C 5C 6C", "QS 7C 8C 9C TC JC")  # spades trump; seat 1 leads 5H
    for knob, expected in (("allowed", allowed), ("banned_unless_no_choice", banned)):
        game = stacked_game("seven_up", 3, hands=hands, turnup="6S", undertrump=knob)
        play(game, "1:stand", "1:play 5H", "2:play QS")
        assert legal_texts(game) == sorted(f"play {c}" for c in expected.split()), knob


def test_R3_K15_undertrump_rule_does_not_apply_when_trump_is_led():
    hands = ("2S 3S 2D 3D 4D 5D", "QS 2C 3C 4C 5C 6C", "AS 7C 8C 9C TC JC")
    game = stacked_game("seven_up", 3, hands=hands, turnup="6S", undertrump="banned_unless_no_choice")
    play(game, "1:stand", "1:play QS", "2:play AS")
    assert legal_texts(game) == ["play 2S", "play 3S"]


# ---------------------------------------------------------------- R4: card points

def test_R4_card_points_for_game():
    values = {"A": 4, "K": 3, "Q": 2, "J": 1, "T": 10}
    for suit in "CDHS":
        for rank in "23456789TJQKA":
            assert CARD_GAME_POINTS[parse_card(rank + suit)] == values.get(rank, 0)
    assert sum(CARD_GAME_POINTS[:52]) == 80


# ---------------------------------------------------------------- R5, R6: in play

def test_R5_turned_up_jack_is_never_in_play_so_nobody_scores_jack():
    game = stacked_game(hands=("AH 2H 3D 4D 5D 6D", "KH 3H 7D 8D 9D TD"), turnup="JH")
    play(game, "1:stand")
    finish_hand(game)
    kinds = [kind for kind, _, _ in awards_of(game)]
    assert kinds[0] == "turnup" and "jack" not in kinds and "hang_jack" not in kinds


R6_HANDS = ("AS 2C 3C 4C 5C 6C", "KS 2D 3D 4D 5D 6D")
R6_RUN = [(("7C 8C 9C", "7D 8D 9D"), "3S")]  # hearts rejected; spades fixed by the run's 3S


def _r6_game(**knobs):
    game = stacked_game(hands=R6_HANDS, turnup="7H", runs=R6_RUN, **knobs)
    play(game, "1:beg", "0:run",
         "1:discard 7D", "1:discard 8D", "1:discard 9D",
         "0:discard AS", "0:discard 7C", "0:discard 8C")
    finish_hand(game)
    return game


def test_R6_discarded_trump_is_out_of_play_for_high():
    game = _r6_game()
    assert ("high", 1, 1) in awards_of(game)  # KS is the highest trump in play, not AS
    assert ("low", 1, 1) in awards_of(game)


def test_K16_discards_in_play_counts_the_discarded_ace_for_high():
    game = _r6_game(discards_in_play=True)
    assert ("high", 0, 1) in awards_of(game)
    assert ("low", 1, 1) in awards_of(game)


# ---------------------------------------------------------------- R7: High and Low

def test_R7_K11_low_captured_goes_to_the_side_that_won_it():
    hands = ("TH 2S 5C 6C 7C 8C", "TD 3S 9H 4D 5D 6D")  # E2: B captures A's 2S
    tricks = ("1:play TD", "0:play 5C", "1:play 9H", "0:play TH", "0:play 2S", "1:play 3S")
    held = stacked_game(hands=hands, turnup="9S")
    captured = stacked_game(hands=hands, turnup="9S", low_rule="captured")
    for game in (held, captured):
        play(game, "1:stand", *tricks)
        finish_hand(game)
    assert ("low", 0, 1) in awards_of(held)
    assert ("low", 1, 1) in awards_of(captured)


def test_R7_K11_high_captured_discarded_high_scores_for_nobody():
    game = _r6_game(discards_in_play=True, high_rule="captured")
    assert [a for a in awards_of(game) if a[0] == "high"] == []


# ---------------------------------------------------------------- R8: Jack

def test_R8_jack_not_in_play_scores_for_nobody():
    game = stacked_game(hands=("AC 2C 3D 4D 5D 6D", "KC 3C 7D 8D 9D TD"), turnup="8C")
    play(game, "1:stand")
    finish_hand(game)
    assert not [a for a in awards_of(game) if a[0] in ("jack", "hang_jack")]


def test_R8_K12_jack_points_override():
    game = stacked_game(hands=("2D 3D 4H 5H 6S 7S", "JC 8D 9H 2S 3S 4S"), turnup="9C", jack_points=2)
    play(game, "1:stand", "1:play JC", "0:play 2D")  # B wins his own jack
    finish_hand(game)
    assert ("jack", 1, 2) in awards_of(game)


def test_R8_K12_jack_won_from_the_other_side_scores_hang_jack_points():
    hands = ("KC 4C AD KH 5S 3D", "JC 2C TD TH AS QH")
    game = stacked_game(hands=hands, turnup="8C", jack_points=2, hang_jack_points=2)
    play(game, "1:stand", "1:play JC", "0:play KC")
    finish_hand(game)
    assert ("jack", 0, 2) in awards_of(game)
    game = stacked_game(hands=hands, turnup="8C", jack_points=2)  # hang_jack_points stays 1
    play(game, "1:stand", "1:play JC", "0:play KC")
    finish_hand(game)
    assert ("hang_jack", 0, 1) in awards_of(game)


def test_R8_K12_hang_jack_points_in_two_player_trinidad():
    game = stacked_game("trinidad", hands=("KC 4C AD KH 5S 3D", "JC 2C TD TH AS QH"), turnup="8C")
    play(game, "1:stand", "1:play JC", "0:play KC")
    finish_hand(game)
    assert ("hang_jack", 0, 3) in awards_of(game)


# ---------------------------------------------------------------- R9: Game and its ties

def _tie_game(num_players, dealer, points, **knobs):
    rules = Rules.make("seven_up", num_players, **knobs)
    sides = [rules.side_of(seat) for seat in range(num_players)]
    return [(side, "game") for side in game_sides(rules, points, sides, dealer)]


@pytest.mark.parametrize(
    "num_players, dealer, points, rule, winners",
    [
        (2, 0, [10, 10], "seven_up", [1]),     # tie: the non-dealer
        (2, 1, [0, 0], "seven_up", [0]),       # 0:0 is a tie too
        (2, 0, [10, 10], "nobody", []),
        (2, 0, [10, 10], "non_dealer", [1]),
        (2, 0, [11, 10], "seven_up", [0]),     # no tie: most points
        (3, 0, [5, 10, 10], "seven_up", []),   # the two non-dealers tie: nobody
        (3, 0, [10, 10, 10], "seven_up", []),  # three-way: the non-dealers tie: nobody
        (3, 0, [10, 10, 4], "seven_up", [1]),  # dealer ties with exactly one: that one
        (3, 2, [10, 4, 10], "seven_up", [0]),
        (3, 0, [10, 10, 4], "non_dealer", [1]),  # with 3 players like seven_up
        (3, 0, [5, 10, 10], "non_dealer", []),
        (4, 0, [10, 10], "seven_up", [1]),     # partnerships: the side without the dealer
        (4, 1, [10, 10], "seven_up", [0]),
    ],
)
def test_R9_K13_game_tie_rules(num_players, dealer, points, rule, winners):
    assert _tie_game(num_players, dealer, points, game_tie_rule=rule) == [(s, "game") for s in winners]


def test_R9_K13_non_dealer_without_partnerships_scores_every_tied_non_dealer():
    rules = dict(game_tie_rule="non_dealer", partnerships=False)
    assert _tie_game(4, 0, [9, 9, 9, 2], **rules) == [(1, "game"), (2, "game")]
    rules["game_tie_rule"] = "seven_up"
    assert _tie_game(4, 0, [9, 9, 9, 2], **rules) == []


# ---------------------------------------------------------------- R10: scoring order, winning at once

def test_R10_win_in_the_middle_of_scoring_stops_the_hand():
    game = stacked_game(hands=("KC 4C AD KH 5S 3D", "JC 2C TD TH AS QH"), turnup="8C", scores=(6, 6))
    play(game, "1:stand")
    finish_hand(game)
    assert game.winner == 0 and game.scores == [7, 6]
    assert awards_of(game) == [("high", 0, 1)]


def test_R10_scoring_order_knob_changes_who_wins():
    game = stacked_game(hands=("KC 4C AD KH 5S 3D", "JC 2C TD TH AS QH"), turnup="8C", scores=(6, 6),
                        scoring_order=("low", "high", "jack", "game"))
    play(game, "1:stand")
    finish_hand(game)
    assert game.winner == 1 and awards_of(game) == [("low", 1, 1)]


def test_R10_K14_target_points_override():
    game = stacked_game(hands=("KC 4C AD KH 5S 3D", "JC 2C TD TH AS QH"), turnup="8C", scores=(6, 0),
                        target_points=11)
    play(game, "1:stand")
    finish_hand(game)
    assert not game.is_over


# ---------------------------------------------------------------- R11: the deal

def test_R11_deal_in_packets_of_three_from_eldest_then_turn_up():
    deck = [f"{r}{s}" for s in "CDHS" for r in "23456789TJQKA"]
    game = Game(Rules.make("seven_up", 3), dealer=1, decks=[deck])
    eldest, second, dealer = 2, 0, 1
    expected = {eldest: deck[0:3] + deck[9:12], second: deck[3:6] + deck[12:15],
                dealer: deck[6:9] + deck[15:18]}
    for seat, cards in expected.items():
        assert game.hands[seat] == sum(1 << parse_card(c) for c in cards)
    assert game.turnups == [parse_card(deck[18])]
    assert game.eldest == 2 and game.current_player == 2


def test_R11_hand_size_knob():
    game = Game(Rules.make("seven_up", 2, hand_size=9), seed=3)
    assert [h.bit_count() for h in game.hands] == [9, 9]


# ---------------------------------------------------------------- P1: turn-up points

@pytest.mark.parametrize("preset, turnup, points", [
    ("seven_up", "JD", 1), ("seven_up", "AD", 0), ("all_fours", "JD", 1),
    ("trinidad", "AD", 1), ("trinidad", "6D", 2), ("trinidad", "JD", 3), ("trinidad", "KD", 0),
])
def test_P1_K5_turnup_scores_for_the_dealer(preset, turnup, points):
    game = stacked_game(preset, hands=("2C 3C 4C 5C 6C 7C", "2H 3H 4H 5H 6H 7H"), turnup=turnup)
    assert game.scores == [points, 0]
    assert awards_of(game) == ([("turnup", 0, points)] if points else [])


def test_P1_turnup_points_go_to_the_dealers_side_with_partners():
    hands = ("2C 3C 4C 5C 6C 7C", "2H 3H 4H 5H 6H 7H", "8C 9C TC QC KC AC", "8H 9H TH QH KH AH")
    game = stacked_game("trinidad", 4, dealer=3, hands=hands, turnup="JD")
    assert game.scores == [0, 3]


# ---------------------------------------------------------------- P2: beg

def test_P2_only_eldest_decides_stand_or_beg():
    game = stacked_game("seven_up", 3, hands=("2C 3C 4C 5C 6C 7C", "2H 3H 4H 5H 6H 7H", "2S 3S 4S 5S 6S 7S"),
                        turnup="9D")
    assert game.phase == Phase.BEG and game.current_player == 1
    assert legal_texts(game) == ["beg", "stand"]
    with pytest.raises(ValueError):
        game.apply(str_to_action("gift"))


def test_P2_stand_fixes_the_proposed_trump_and_eldest_leads():
    game = stacked_game(hands=("2C 3C 4C 5C 6C 7C", "2H 3H 4H 5H 6H 7H"), turnup="9D")
    play(game, "1:stand")
    assert game.trump == parse_card("9D") // 13 and game.phase == Phase.PLAY
    assert game.current_player == 1


def test_P2_beg_passes_the_decision_to_the_dealer():
    game = stacked_game(hands=("2C 3C 4C 5C 6C 7C", "2H 3H 4H 5H 6H 7H"), turnup="9D")
    play(game, "1:beg")
    assert game.phase == Phase.GIFT_OR_RUN and game.current_player == 0
    assert legal_texts(game) == ["gift", "run"]


# ---------------------------------------------------------------- P3: gift

THREE_HANDS = ("2C 3C 4C 5C 6C 7C", "2H 3H 4H 5H 6H 7H", "2S 3S 4S 5S 6S 7S")


def test_P3_gift_two_players_beggar_scores_and_trump_stays():
    game = stacked_game(hands=THREE_HANDS[:2], turnup="9D")
    play(game, "1:beg", "0:gift")
    assert awards_of(game) == [("gift", 1, 1)]
    assert game.trump == parse_card("9D") // 13 and game.current_player == 1


def test_P3_K7_gift_three_players_both_non_dealers_score_beggar_first():
    game = stacked_game("seven_up", 3, hands=THREE_HANDS, turnup="9D")
    play(game, "1:beg", "0:gift")
    assert awards_of(game) == [("gift", 1, 1), ("gift", 2, 1)]


def test_P3_K7_gift_four_players_beggars_side_scores_once():
    hands = THREE_HANDS + ("8C 9C TC QC KC AC",)
    game = stacked_game("seven_up", 4, hands=hands, turnup="9D")
    play(game, "1:beg", "0:gift")
    assert awards_of(game) == [("gift", 1, 1)]


def test_P3_K7_beggar_side_three_players_only_the_beggar_scores():
    game = stacked_game("all_fours", 3, hands=THREE_HANDS, turnup="9D")
    play(game, "1:beg", "0:gift")
    assert awards_of(game) == [("gift", 1, 1)]


def test_P3_K7_gift_points_override():
    game = stacked_game(hands=THREE_HANDS[:2], turnup="9D", gift_points=2)
    play(game, "1:beg", "0:gift")
    assert awards_of(game) == [("gift", 1, 2)]


def test_P3_gift_can_win_the_game_for_the_beggar():
    game = stacked_game(hands=THREE_HANDS[:2], turnup="9D", scores=(0, 6))
    play(game, "1:beg", "0:gift")
    assert game.winner == 1 and game.phase == Phase.GAME_OVER


def test_P3_K8_non_beggar_3p_blocks_the_gift_when_the_other_opponent_needs_one():
    game = stacked_game("seven_up", 3, hands=THREE_HANDS, turnup="9D", scores=(0, 0, 6))
    play(game, "1:beg")
    assert game.legal_actions() == (RUN,)
    with pytest.raises(ValueError, match="not legal"):
        game.apply(str_to_action("gift"))


def test_P3_K8_non_beggar_3p_allows_the_gift_when_only_the_beggar_needs_one():
    game = stacked_game("seven_up", 3, hands=THREE_HANDS, turnup="9D", scores=(0, 6, 0))
    play(game, "1:beg")
    assert legal_texts(game) == ["gift", "run"]
    play(game, "0:gift")
    assert game.winner == 1 and awards_of(game) == [("gift", 1, 1)]  # beggar first, wins at once


def test_P3_K8_any_recipient_would_win_blocks_in_two_player_games_too():
    for block, legal in (("any_recipient_would_win", ["run"]), ("none", ["gift", "run"]),
                         ("non_beggar_3p", ["gift", "run"])):
        game = stacked_game(hands=THREE_HANDS[:2], turnup="9D", scores=(0, 6), gift_block=block)
        play(game, "1:beg")
        assert legal_texts(game) == legal, block


# ---------------------------------------------------------------- P4: running the cards

def _run_packets(num_players, runs, avoid):
    """Cards for ``runs`` runs, 3 per seat per run, from a pool that avoids ``avoid``."""
    pool = [c for c in (f"{r}{s}" for s in "CDS" for r in "23456789TJQKA") if c not in avoid]
    out = []
    for _ in range(runs):
        packets = []
        for _ in range(num_players):
            packets.append(" ".join(pool[:3]))
            pool = pool[3:]
        out.append(packets)
    return out


def test_P4_run_deals_three_more_each_from_eldest_and_turns_up_a_new_suit():
    game = stacked_game(hands=("2C 3C 4C 5C 6C 7C", "2D 3D 4D 5D 6D 7D"), turnup="9H",
                        runs=[(("8C 9C TC", "8D 9D TD"), "4S")])
    play(game, "1:beg", "0:run")
    assert game.trump == SPADES
    assert [h.bit_count() for h in game.hands] == [9, 9]
    assert game.hands[1] & (1 << parse_card("8D"))
    assert game.turnups == parse_cards("9H 4S")


def test_P4_run_repeats_while_the_rejected_suit_turns_up():
    game = stacked_game(hands=("2C 3C 4C 5C 6C 7C", "2D 3D 4D 5D 6D 7D"), turnup="9H",
                        runs=[(("8C 9C TC", "8D 9D TD"), "KH"), (("JC QC KC", "JD QD KD"), "AC")])
    play(game, "1:beg", "0:run")
    assert game.trump == CLUBS and game.turnups == parse_cards("9H KH AC")
    assert [h.bit_count() for h in game.hands] == [12, 12]


HEART_RUNS = ("9H", ["JH", "2H", "3H", "4H", "5H"])  # initial turn-up, then five hearts


def _exhausting_game(preset, first_turnup="9H", **knobs):
    turnups = ["JH", "2H", "3H", "4H", "5H"]
    packets = _run_packets(2, 5, avoid=("2C 3C 4C 5C 6C 7C 2D 3D 4D 5D 6D 7D").split())
    hands = ("2C 3C 4C 5C 6C 7C", "2D 3D 4D 5D 6D 7D")
    return stacked_game(preset, hands=hands, turnup=first_turnup,
                        runs=list(zip(packets, turnups)), **knobs)


def test_P4_K6_only_if_sets_trump_a_rejected_suit_jack_scores_nothing():
    game = stacked_game(hands=("2C 3C 4C 5C 6C 7C", "2D 3D 4D 5D 6D 7D"), turnup="9H",
                        runs=[(("8C 9C TC", "8D 9D TD"), "JH"), (("JC QC KC", "JD QD KD"), "AC")])
    play(game, "1:beg", "0:run")
    assert awards_of(game) == []


def test_P4_K6_only_if_sets_trump_the_jack_that_fixes_trump_scores():
    game = stacked_game(hands=("2C 3C 4C 5C 6C 7C", "2D 3D 4D 5D 6D 7D"), turnup="9H",
                        runs=[(("8C 9C TC", "8D 9D TD"), "JS")])
    play(game, "1:beg", "0:run")
    assert awards_of(game) == [("turnup", 0, 1)]


def test_P4_K6_every_turnup_scores_a_rejected_suit_jack_too():
    game = stacked_game("all_fours", hands=("2C 3C 4C 5C 6C 7C", "2D 3D 4D 5D 6D 7D"), turnup="9H",
                        runs=[(("8C 9C TC", "8D 9D TD"), "JH"), (("JC QC KC", "JD QD KD"), "AC")])
    play(game, "1:beg", "0:run")
    assert awards_of(game) == [("turnup", 0, 1)]
    assert game.trump == CLUBS


def test_P4_at_most_five_runs_with_two_players_then_the_pack_is_exhausted():
    game = _exhausting_game("seven_up")
    play(game, "1:beg", "0:run")
    assert len(game.decks) == 2  # thrown in (P4, K9 redeal_keep): a new deal
    assert [kind for kind, _, _ in game.log].count("turnup") >= 7
    assert ("thrown_in", 0, None) in game.log


def test_P4_K9_redeal_keep_points_stand_and_the_same_dealer_deals_again():
    game = _exhausting_game("trinidad", first_turnup="6H")  # 6 kicks 2 in trinidad, J 3
    play(game, "1:beg", "0:run")
    assert awards_of(game, 0) == [("turnup", 0, 2), ("turnup", 0, 3)]
    assert game.dealer == 0 and len(game.decks) == 2
    assert hand_scores(game, 0) == [5, 0]


def test_P4_K9_redeal_void_cancels_the_thrown_in_hands_points():
    game = _exhausting_game("all_fours")
    play(game, "1:beg", "0:run")
    assert awards_of(game, 0) == [("turnup", 0, 1), ("void", 0, -1)]
    assert hand_scores(game, 0) == [0, 0]
    assert game.dealer == 0 and len(game.decks) == 2


def test_P4_no_second_beg_after_a_run():
    game = stacked_game(hands=("2C 3C 4C 5C 6C 7C", "2D 3D 4D 5D 6D 7D"), turnup="9H",
                        runs=[(("8C 9C TC", "8D 9D TD"), "4S")])
    play(game, "1:beg", "0:run")
    assert game.phase == Phase.DISCARD


# ---------------------------------------------------------------- P5: discards

def test_P5_eldest_discards_first_one_card_per_decision_then_the_dealer():
    game = stacked_game("seven_up", 3, hands=THREE_HANDS, turnup="9D",
                        runs=[(("8C 9C TC", "8H 9H TH", "8S 9S TS"), "QC")])
    play(game, "1:beg", "0:run")
    order = []
    while game.phase == Phase.DISCARD:
        order.append(game.current_player)
        assert legal_texts(game) == sorted(
            "discard " + c for c in __import__("allfours_env").cards.mask_str(
                game.hands[game.current_player]).split())
        game.apply(game.legal_actions()[0])
    assert order == [1, 1, 1, 2, 2, 2, 0, 0, 0]
    assert [h.bit_count() for h in game.hands] == [6, 6, 6]
    assert game.phase == Phase.PLAY and game.current_player == 1


def test_P5_K10_trinidad_keeps_every_card_and_plays_nine_tricks():
    game = stacked_game("trinidad", hands=("2C 3C 4C 5C 6C 7C", "2D 3D 4D 5D 6D 7D"), turnup="9H",
                        runs=[(("8C 9C TC", "8D 9D TD"), "4S")])
    play(game, "1:beg", "0:run")
    assert game.phase == Phase.PLAY and [h.bit_count() for h in game.hands] == [9, 9]
    finish_hand(game)
    assert sum(1 for kind, _, _ in game.log if kind == "trick") == 9


# ---------------------------------------------------------------- P6, P7: play and rotation

def test_P6_eldest_leads_and_play_continues_until_hands_are_empty():
    game = stacked_game("seven_up", 4, dealer=2, hands=THREE_HANDS + ("8C 9C TC QC KC AC",), turnup="9D")
    play(game, "3:stand")
    assert game.current_player == 3
    finish_hand(game)
    assert sum(1 for kind, _, _ in game.log if kind == "trick") == 6


def test_P7_the_next_seat_deals_after_a_completed_hand():
    game = Game(Rules.make("seven_up", 3), seed=1, dealer=2)
    start = len(game.decks)
    while game.hand_number == 0 and not game.is_over:
        game.apply(game.legal_actions()[0])
    if not game.is_over:
        assert game.dealer == 0 and len(game.decks) > start


# ---------------------------------------------------------------- P8: blind all fours

def test_P8_first_lead_fixes_trump_with_no_turnup_beg_gift_or_run():
    game = stacked_game("blind_all_fours", hands=("2C 3C 4C 5C 6C 7C", "2D 3D 4D 5D 6D AH"))
    assert game.phase == Phase.PLAY and game.turnups == [] and game.trump == -1
    assert len(game.legal_actions()) == 6
    play(game, "1:play AH", "0:play 2C")
    assert game.trump == HEARTS and trick_winners(game) == [1]


def test_P8_first_lead_trump_counts_for_high_low_jack():
    game = stacked_game("blind_all_fours", hands=("2C 3C 4C 5C 6C JH", "2D 3D 4D 5D 6D AH"))
    play(game, "1:play AH", "0:play JH")
    finish_hand(game)
    assert awards_of(game)[:3] == [("high", 1, 1), ("low", 0, 1), ("jack", 1, 1)]


# ---------------------------------------------------------------- stacked decks

def test_stacked_decks_are_consumed_one_per_deal_then_the_rng_takes_over():
    rules = Rules.make()
    deck_a = stack_deck(2, 0, ["2C 3C 4C 5C 6C 7C".split(), "2D 3D 4D 5D 6D 7D".split()], "9H")
    deck_b = list(reversed(deck_a))
    game = Game(rules, seed=5, dealer=0, decks=[deck_a, deck_b])
    assert game.decks[0] == [parse_card(c) for c in deck_a]
    while len(game.decks) < 3 and not game.is_over:
        game.apply(game.legal_actions()[0])
    if len(game.decks) >= 2:
        assert game.decks[1] == [parse_card(c) for c in deck_b]


def test_P3_K7_D3_gift_four_players_without_partnerships_every_non_dealer_scores():
    hands = THREE_HANDS + ("8C 9C TC QC KC AC",)
    game = stacked_game("seven_up", 4, hands=hands, turnup="9D", partnerships=False)
    play(game, "1:beg", "0:gift")
    assert awards_of(game) == [("gift", 1, 1), ("gift", 2, 1), ("gift", 3, 1)]


def test_D10_zero_point_awards_are_not_recorded():
    game = stacked_game(hands=THREE_HANDS[:2], turnup="9D", gift_points=0)
    play(game, "1:beg", "0:gift")
    assert awards_of(game) == [] and game.phase == Phase.PLAY
