"""The worked examples of docs/rules.md §5, one test each (2 players: A = player_0 deals, B = player_1
is eldest, unless stated)."""

from allfours_env.cards import DIAMONDS, HEARTS, SPADES
from allfours_env.events import Phase
from conftest import awards_of, hand_scores, play, stacked_game

E1_HANDS = ("KC 4C AD KH 5S 3D", "JC 2C TD TH AS QH")
E1_TRICKS = (
    "1:play TH", "0:play 4C",  # A trumps while holding a heart: legal (R3)
    "0:play 3D", "1:play 2C",
    "1:play JC", "0:play KC",  # A must play his club
    "0:play AD", "1:play TD",  # B must follow diamonds
    "0:play 5S", "1:play AS",
    "1:play QH", "0:play KH",
)


def test_E1_full_hand_scores_high_low_jack_game():
    game = stacked_game(hands=E1_HANDS, turnup="8C")
    play(game, "1:stand", *E1_TRICKS)
    assert awards_of(game) == [("high", 0, 1), ("low", 1, 1), ("jack", 0, 1), ("game", 0, 1)]
    assert hand_scores(game) == [3, 1]
    assert game.captured_points == [0, 0]  # the next hand has been dealt
    assert [kind for kind, *_ in game.log].count("hand_end") == 1


def test_E1_A_needs_one_point_wins_on_jack_and_game_is_never_scored():
    game = stacked_game(hands=E1_HANDS, turnup="8C", scores=(5, 0))
    play(game, "1:stand", *E1_TRICKS)
    assert awards_of(game) == [("high", 0, 1), ("low", 1, 1), ("jack", 0, 1)]
    assert game.scores == [7, 1]
    assert game.phase == Phase.GAME_OVER and game.winner == 0
    assert game.legal_actions() == ()


def test_E1_A_trumping_while_holding_the_suit_led_is_legal():
    game = stacked_game(hands=E1_HANDS, turnup="8C")
    play(game, "1:stand", "1:play TH")
    legal = {a for a in game.legal_actions()}
    from allfours_env import str_to_action
    assert legal == {str_to_action("play KC"), str_to_action("play 4C"), str_to_action("play KH")}


E2_HANDS = ("TH 2S 5C 6C 7C 8C", "TD 3S 9H 4D 5D 6D")
E2_TRICKS = (
    "1:play TD", "0:play 5C",
    "1:play 9H", "0:play TH",
    "0:play 2S", "1:play 3S",
    "1:play 4D", "0:play 6C",
    "1:play 5D", "0:play 7C",
    "1:play 6D", "0:play 8C",
)


def test_E2_game_tie_goes_to_the_non_dealer_in_seven_up():
    game = stacked_game(hands=E2_HANDS, turnup="9S")
    play(game, "1:stand", *E2_TRICKS)
    # High 3S -> B (9S is the turn-up, R5), Low 2S -> A, no Jack, Game 10:10 -> B (R9 seven_up).
    assert awards_of(game) == [("high", 1, 1), ("low", 0, 1), ("game", 1, 1)]
    assert hand_scores(game) == [1, 2]


def test_E2_game_tie_scores_for_nobody_in_all_fours_and_trinidad():
    for preset in ("all_fours", "trinidad"):
        game = stacked_game(preset, hands=E2_HANDS, turnup="9S")
        play(game, "1:stand", *E2_TRICKS)
        assert awards_of(game) == [("high", 1, 1), ("low", 0, 1)], preset
        assert hand_scores(game) == [1, 1], preset


def test_E2_blind_all_fours_first_lead_makes_diamonds_trump():
    game = stacked_game("blind_all_fours", hands=E2_HANDS)
    assert game.phase == Phase.PLAY and game.current_player == 1 and game.trump == -1
    play(game, "1:play TD")
    assert game.trump == DIAMONDS


def test_E3_turned_jack_scores_for_the_dealer_at_once_and_stands_after_a_run():
    game = stacked_game(hands=("2C 3C 4C 5C 6C 7C", "2D 3D 4D 5D 6D 7D"), turnup="JH",
                        runs=[(("8C 9C TC", "8D 9D TD"), "5S")], scores=(3, 2))
    assert game.scores == [4, 2] and game.phase == Phase.BEG
    play(game, "1:beg", "0:run")
    assert game.trump == SPADES
    assert game.scores == [4, 2]
    assert awards_of(game) == [("turnup", 0, 1)]


def test_E3_dealer_on_six_wins_at_the_turnup_before_anyone_acts():
    game = stacked_game(hands=("2C 3C 4C 5C 6C 7C", "2D 3D 4D 5D 6D 7D"), turnup="JH", scores=(6, 2))
    assert game.phase == Phase.GAME_OVER and game.winner == 0 and game.scores == [7, 2]
    assert [kind for kind, _, _ in game.log if kind == "act"] == []


def test_E3_trinidad_kicked_jack_scores_three():
    game = stacked_game("trinidad", hands=("2C 3C 4C 5C 6C 7C", "2D 3D 4D 5D 6D 7D"), turnup="JH")
    assert game.scores == [3, 0]
    assert game.trump == -1 and game.proposed == HEARTS


# E4: trinidad, 4 players. N = player_0 deals; turn order N -> W -> S -> E, so W = player_1,
# S = player_2 (N's partner), E = player_3. Hearts are trump (turn-up 4H, W stands).
E4_HANDS = (
    "5H 2C 3C 4C 2D 3D",  # N
    "3H 5C 6C 7C 4D 5D",  # W
    "JH 8C 9C 6D 7D 8D",  # S
    "QH TC 9D 2S 3S 4S",  # E
)


def _e4_after_first_trick(preset, n_card):
    hands = list(E4_HANDS)
    hands[0] = hands[0].replace("5H", n_card)
    game = stacked_game(preset, 4, hands=hands, turnup="4H")
    play(game, "1:stand", "1:play 3H", "2:play JH", "3:play QH", f"0:play {n_card}")
    return game


def test_E4_hang_jack_scores_three_in_trinidad():
    game = _e4_after_first_trick("trinidad", "5H")
    assert game.captured[1] & game.jack_bit  # E won the trick: EW captured NS's jack
    while game.phase == Phase.PLAY and game.hand_number == 0:
        game.apply(game.legal_actions()[0])
    assert ("hang_jack", 1, 3) in awards_of(game)
    assert not [a for a in awards_of(game) if a[0] == "jack"]


def test_E4_same_trick_gives_one_point_in_seven_up():
    game = _e4_after_first_trick("seven_up", "5H")
    while game.hand_number == 0 and not game.is_over:
        game.apply(game.legal_actions()[0])
    jack_awards = [a for a in awards_of(game) if a[0] in ("jack", "hang_jack")]
    assert jack_awards == [("jack", 1, 1)]


def test_E4_partner_winning_his_own_sides_jack_scores_plain_jack():
    game = _e4_after_first_trick("trinidad", "KH")
    assert game.captured[0] & game.jack_bit
    while game.hand_number == 0 and not game.is_over:
        game.apply(game.legal_actions()[0])
    jack_awards = [a for a in awards_of(game) if a[0] in ("jack", "hang_jack")]
    assert jack_awards == [("jack", 0, 1)]


def test_E5_one_card_four_points():
    game = stacked_game(hands=("2D 3D 4H 5H 6S 7S", "JC 8D 9H 2S 3S 4S"), turnup="9C")
    play(game, "1:stand",
         "1:play JC", "0:play 2D",
         "1:play 8D", "0:play 3D",
         "1:play 9H", "0:play 4H",
         "1:play 2S", "0:play 6S",
         "0:play 7S", "1:play 3S",
         "0:play 5H", "1:play 4S")
    assert awards_of(game) == [("high", 1, 1), ("low", 1, 1), ("jack", 1, 1), ("game", 1, 1)]
    assert hand_scores(game) == [0, 4]


def test_E6_no_trump_in_play_only_game_is_scored():
    game = stacked_game(hands=("AC KC QC 2H 3H 4H", "TS 2S 3S 5H 6H 7H"), turnup="5D")
    play(game, "1:stand")
    while game.hand_number == 0:
        game.apply(game.legal_actions()[0])
    kinds = [kind for kind, _, _ in awards_of(game)]
    assert kinds == ["game"]


def test_seed000_example_held_high_and_low_and_captured_jack():
    # Source 000 "Wertung": clubs trump; Anna (A) held KC 4C, Ben (B) 9C JC; A wins the JC trick;
    # B's tricks hold two tens, an ace and a queen (26) against A's 11. A 3, B 1.
    game = stacked_game(hands=("KC 4C 2D 3D 2H QD", "9C JC TD TH AS QS"), turnup="8C")
    play(game, "1:stand",
         "1:play JC", "0:play KC",   # A 4 (J+K)
         "0:play 2D", "1:play TD",   # B wins with TD: 10
         "1:play TH", "0:play 2H",   # B 20
         "1:play AS", "0:play 3D",   # B 24
         "1:play QS", "0:play QD",   # B 26
         "1:play 9C", "0:play 4C")   # B wins 9C over 4C: 0 points
    assert hand_scores(game) == [3, 1]
    assert awards_of(game) == [("high", 0, 1), ("low", 0, 1), ("jack", 0, 1), ("game", 1, 1)]
