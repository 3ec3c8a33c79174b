"""The stock, auction, joker and don presets (docs/rules.md §4): the auction (RD13–RD20), the joker
(RD21–RD27), the stock (RD4–RD12), don's nine (RD28–RD29), their knobs (RD30), and the worked examples E7–E9.

Seats: with 3 players A = player_0 is eldest, B = player_1, C = player_2 deals (turn order A → B → C);
with 2 players player_0 deals and player_1 is eldest.
"""

from __future__ import annotations

import random

import pytest

from allfours_env import Game, Rules, RulesError, str_to_action
from allfours_env.actions import BID_BASE, HOLD, PASS
from allfours_env.cards import JOKER, card_str, parse_card, parse_cards
from allfours_env.engine import stack_deck
from allfours_env.events import EventKind, Phase
from conftest import awards_of, play, stacked_game

HEARTS, SPADES, CLUBS = 2, 3, 0


def legal_text(game: Game) -> list[str]:
    from allfours_env import action_to_str

    return [action_to_str(a) for a in game.legal_actions()]


def finish(game: Game, rng_seed: int = 0) -> None:
    """Play the current hand out with random legal moves."""
    deal = len(game.decks)
    rng = random.Random(rng_seed)
    while not game.is_over and len(game.decks) == deal:
        game.apply(rng.choice(game.legal_actions()))


# ---------------------------------------------------------------- RD30: the knobs of the presets

LATER_TABLE = {
    "california_jack": dict(players=(2,), trump_selection="stock_top", high_rule="captured",
                            low_rule="captured", game_tie_rule="seven_up", target_points=10,
                            scoring_order=("high", "low", "jack", "game"), stock_face_up=True, joker=False),
    "shasta_sam": dict(players=(2,), trump_selection="stock_top", high_rule="captured", low_rule="captured",
                       game_tie_rule="seven_up", target_points=10, stock_face_up=False),
    "auction_pitch": dict(players=(2, 3, 4), partnerships=False, trump_selection="auction", high_rule="held",
                          low_rule="held", game_tie_rule="nobody", target_points=7, bid_max=4,
                          dealer_may_hold=True, joker=False, scoring_order=("high", "low", "jack", "game")),
    "pitch_with_joker": dict(players=(3, 4), partnerships=False, trump_selection="auction", target_points=10,
                             bid_max=5, dealer_may_hold=True, joker=True, joker_rank="second_highest",
                             joker_lead_trump="S", scoring_order=("high", "low", "jack", "joker", "game")),
    "don": dict(players=(2, 3, 4), partnerships=True, trump_selection="turnup", turnup_scores=(("J", 1),),
                run_turnup_scoring="every_turnup", gift_recipients="beggar_side",
                discard_after_run="to_hand_size", exhausted_deck_rule="redeal_void", game_tie_rule="nobody",
                target_points=11,
                scoring_order=("high", "low", "jack", "nine", "game")),
}


@pytest.mark.parametrize("preset", sorted(LATER_TABLE))
def test_RD30_RD3_stock_auction_and_don_presets_match_the_knob_table_partnerships_included(preset):
    rules = Rules.make(preset, LATER_TABLE[preset]["players"][-1])
    for knob, value in LATER_TABLE[preset].items():
        assert getattr(rules, knob) == value, knob


@pytest.mark.parametrize("preset, knobs, message", [
    ("auction_pitch", dict(stock_face_up=False), "stock_face_up has no effect with trump_selection='auc"),
    ("california_jack", dict(bid_max=3), "bid_max has no effect with trump_selection='stock_top'"),
    ("seven_up", dict(dealer_may_hold=False), "dealer_may_hold has no effect with trump_selection='turnup'"),
    ("auction_pitch", dict(turnup_scores={"J": 1}), "turnup_scores has no effect"),
    ("auction_pitch", dict(joker_rank="lowest"), "joker_rank has no effect without the joker"),
    ("seven_up", dict(joker=True), "joker=True needs trump_selection 'auction' or 'first_lead'"),
    ("auction_pitch", dict(joker=True), "scoring_order lists 'joker' exactly when"),
    ("auction_pitch", dict(bid_max=6), "bid_max must be a whole number from 1 to 5"),
    ("pitch_with_joker", dict(joker_rank="third"), "joker_rank='third' is not allowed"),
    ("pitch_with_joker", dict(joker_lead_trump="X"), "joker_lead_trump='X' is not allowed"),
    ("california_jack", dict(players=(2, 3)), None),
    ("seven_up", dict(scoring_order=("high", "low", "jack", "nine", "nine")), "scoring_order must list"),
])
def test_RD30_stock_auction_and_joker_knobs_are_validated(preset, knobs, message):
    if message is None:  # K1 widened, but the stock needs two players (RD6)
        with pytest.raises(RulesError, match="'stock_top' is played by 2 players"):
            Rules.make(preset, 3, **knobs)
        return
    with pytest.raises(RulesError, match=message):
        Rules.make(preset, Rules.make(preset, LATER_TABLE.get(preset, {"players": (3,)})["players"][-1]
                                      if preset in LATER_TABLE else 2).num_players, **knobs)


@pytest.mark.parametrize("preset", ["california_jack", "shasta_sam"])
def test_RD6_a_stock_game_for_more_players_is_refused_without_suggesting_the_players_knob(preset):
    with pytest.raises(RulesError, match=f"preset '{preset}' is played by 2 players, not 4 "
                                         r"\(a game with a stock is for 2 players only") as caught:
        Rules.make(preset, 4)
    assert "knob players" not in str(caught.value)


@pytest.mark.parametrize("preset, num_players", [("auction_pitch", 3), ("auction_pitch", 2), ("seven_up", 2),
                                                  ("pitch_with_joker", 3), ("don", 3)])
@pytest.mark.parametrize("partnerships", [True, False])
def test_D12_K2_partnerships_overridden_with_2_or_3_players_is_an_error(preset, num_players, partnerships):
    """K2 only means something with 4 players: a 3-player auction_pitch in 'partnerships' used to be
    accepted, and played everyone alone without a word."""
    with pytest.raises(RulesError, match=f"knob partnerships has no effect with {num_players} players "
                                         r"\(only 4 players"):
        Rules.make(preset, num_players, partnerships=partnerships)
    with pytest.raises(RulesError, match="knob partnerships has no effect"):
        Rules.make(preset, 4).replace(num_players=num_players, partnerships=partnerships)
    four = Rules.make(preset, 4, partnerships=partnerships)  # where it applies, it is accepted (D24)
    assert four.partnerships is partnerships and four.num_sides == (2 if partnerships else 4)
    assert Rules.make(preset, num_players).num_sides == num_players  # the preset's value is no override


def test_RD30_knob_overrides_that_apply_are_accepted():
    assert Rules.make("auction_pitch", 4, bid_max=5, dealer_may_hold=False).bid_max == 5
    rules = Rules.make("auction_pitch", 3, joker=True, scoring_order=("high", "low", "jack", "joker", "game"))
    assert rules.joker
    assert Rules.make("pitch_with_joker", 4, joker_rank="lowest", joker_lead_trump="C").joker_rank == "lowest"
    with_nine = Rules.make("seven_up", 2, scoring_order=("high", "low", "jack", "nine", "game"))
    assert with_nine.scoring_order[3] == "nine"
    assert Rules.make("shasta_sam", 2, stock_face_up=True).stock_face_up


# ---------------------------------------------------------------- the auction (RD13–RD20)


def auction_game(num_players=3, dealer=2, hands=None, scores=None, preset="auction_pitch", **knobs) -> Game:
    rules = Rules.make(preset, num_players, **knobs)
    if hands is None:
        return Game(rules, seed=1, dealer=dealer, scores=scores)
    deck = stack_deck(num_players, dealer, [h.split() for h in hands], joker=rules.joker)
    return Game(rules, seed=0, dealer=dealer, decks=[deck], scores=scores)


def test_RD13_one_round_of_bidding_eldest_first_dealer_last():
    game = auction_game()
    assert game.phase == Phase.BID and game.current_player == 0 and game.turnups == [] and game.trump == -1
    assert legal_text(game) == ["pass", "bid 1", "bid 2", "bid 3", "bid 4"]
    play(game, "0:bid 2")
    assert game.current_player == 1 and legal_text(game) == ["pass", "bid 3", "bid 4"]  # strictly higher
    play(game, "1:pass")
    assert game.current_player == 2 and legal_text(game) == ["pass", "bid 3", "bid 4", "hold"]
    play(game, "2:bid 3")
    assert game.phase == Phase.PLAY and game.current_player == 2  # the dealer won: he pitches (RD16)
    assert (game.pitcher, game.contract) == (2, 3)


def test_RD1_every_bidder_gets_a_decision_even_when_pass_is_all_it_has():
    game = auction_game(num_players=4, dealer=3)
    play(game, "0:bid 4")
    assert legal_text(game) == ["pass"]
    play(game, "1:pass")
    assert legal_text(game) == ["pass"]
    play(game, "2:pass")
    assert legal_text(game) == ["pass", "hold"]  # RD14: the dealer may hold the maximum
    play(game, "3:pass")
    assert (game.pitcher, game.contract) == (0, 4)
    decisions = [value for kind, _, value in game.log if kind == EventKind.ACT]
    assert len(decisions) == 4


def test_RD14_the_dealer_holds_a_standing_bid_and_pitches_at_it():
    game = auction_game()
    play(game, "0:pass", "1:bid 2", "2:hold")
    assert (game.pitcher, game.contract) == (2, 2) and game.current_player == 2


def test_RD14_no_hold_without_a_bid_nor_for_another_seat_nor_when_the_knob_forbids_it():
    game = auction_game()
    play(game, "0:pass", "1:pass")
    assert "hold" not in legal_text(game)
    game = auction_game()
    assert "hold" not in legal_text(game)
    play(game, "0:bid 1")
    assert "hold" not in legal_text(game)  # player_1 is not the dealer
    game = auction_game(dealer_may_hold=False)
    play(game, "0:bid 1", "1:pass")
    assert "hold" not in legal_text(game)
    with pytest.raises(ValueError, match="not legal"):
        game.apply(HOLD)


def test_RD15_when_everyone_passes_eldest_pitches_at_zero_and_is_not_set_back():
    hands = ("2H 3H 4C 5C 6C 7C", "AH KH QH JH TH 9H", "AS KS QS JS TS 9S")
    game = auction_game(hands=hands)
    play(game, "0:pass", "1:pass", "2:pass")
    assert (game.pitcher, game.contract) == (0, 0) and game.current_player == 0
    play(game, "0:play 2H")
    finish(game)
    kinds = [kind for kind, side, _ in awards_of(game)]
    assert "setback" not in kinds
    assert awards_of(game)[0] == ("low", 0, 1)  # the pitcher's points are still counted first


def test_RD16_the_pitchers_first_card_fixes_trump_and_is_a_trump_lead():
    hands = ("2H 3H 4C 5C 6C 7C", "AH 8C 9C TC JC QC", "AS KS QS JS TS 9S")
    game = auction_game(hands=hands)
    play(game, "0:bid 1", "1:pass", "2:pass", "0:play 3H")
    assert game.trump == HEARTS
    assert legal_text(game) == ["play AH"]  # B must follow the trump lead (R3)


def test_RD17_in_play_is_the_dealt_cards_high_low_held_jack_captured_no_hang_jack():
    hands = ("2H 4C 5C 6C 7C 8C", "JH 9C TC 2D 3D 4D", "AH 5D 6D 7D 8D 9D")
    game = auction_game(hands=hands)
    play(game, "0:pass", "1:pass", "2:pass", "0:play 2H", "1:play JH", "2:play AH")
    finish(game)
    awards = awards_of(game)
    assert ("high", 2, 1) in awards and ("low", 0, 1) in awards  # held (R7)
    assert ("jack", 2, 1) in awards  # captured by C from B: a plain jack, no hang jack (RD17)
    unused = [card_str(c) for c in game.decks[0][18:]]
    assert unused == stack_deck(3, 2, [h.split() for h in hands])[18:]  # the rest of the pack is unused


E7_HANDS = ("KH 2H AS TS AC TC", "AH 3S 4S 5S 6S 7S", "3C 4C 5C 6C 7C 8C")
E7_PLAY = ("0:play KH", "1:play AH", "2:play 3C",  # B wins the ace's trick
           "1:play 3S", "2:play 4C", "0:play AS",
           "0:play TS", "1:play 4S", "2:play 5C",
           "0:play AC", "1:play 5S", "2:play 6C",
           "0:play TC", "1:play 6S", "2:play 7C",
           "0:play 2H", "1:play 7S", "2:play 8C")


def test_E7_RD18_the_pitcher_who_made_his_contract_scores_first_and_wins():
    game = auction_game(hands=E7_HANDS, scores=(6, 6, -1))
    play(game, "0:bid 2", "1:pass", "2:pass", *E7_PLAY)
    # A made Low and Game = 2 >= 2: his points first; Low takes him to 7 and B's High is never scored.
    assert awards_of(game) == [("low", 0, 1)]
    assert game.winner == 0 and game.scores == [7, 6, -1]


def test_E7_RD18_RD19_a_pitcher_who_fails_is_set_back_and_his_points_go_to_nobody():
    game = auction_game(hands=E7_HANDS, scores=(6, 6, -1))
    play(game, "0:bid 3", "1:pass", "2:pass", *E7_PLAY)
    assert awards_of(game) == [("setback", 0, -3), ("high", 1, 1)]
    assert game.winner == 1 and game.scores == [3, 7, -1]


def test_RD19_RD2_scores_go_below_zero_and_a_setback_never_ends_the_game():
    game = auction_game(hands=E7_HANDS, scores=(0, 0, 0))
    play(game, "0:bid 4", "1:pass", "2:pass", *E7_PLAY)
    assert ("setback", 0, -4) in awards_of(game) and game.scores[0] == -4 and not game.is_over
    assert game.phase == Phase.BID  # RD20: the next hand is dealt, no turn-up


def test_RD20_the_deal_passes_after_every_hand_and_there_is_no_turnup():
    game = auction_game()
    play(game, "0:pass", "1:pass", "2:pass")
    finish(game)
    assert game.dealer == 0 and game.eldest == 1 and game.turnups == [] and game.phase == Phase.BID


def test_RD19_negative_starting_scores_are_allowed_only_with_an_auction():
    assert Game(Rules.make("auction_pitch", 3), seed=0, scores=(-5, 0, 6)).scores == [-5, 0, 6]
    with pytest.raises(ValueError, match="from 0 to 6"):
        Game(Rules.make("seven_up", 3), seed=0, scores=(-1, 0, 0))


# ---------------------------------------------------------------- the joker (RD21–RD27)


def test_RD21_a_joker_pack_has_53_cards_and_stacked_decks_must_hold_them_all():
    game = auction_game(preset="pitch_with_joker", num_players=4, dealer=3)
    assert sorted(game.deck) == list(range(53))
    with pytest.raises(ValueError, match="exactly 53 cards"):
        Game(Rules.make("pitch_with_joker", 4), seed=0, decks=[[card_str(c) for c in range(52)]])
    with pytest.raises(ValueError, match="holds the joker JK"):
        Game(Rules.make("auction_pitch", 4), seed=0, decks=[[card_str(c) for c in range(53)][1:]])


def joker_game(hands, joker_rank="second_highest", **knobs) -> Game:
    return auction_game(hands=hands, preset="pitch_with_joker", joker_rank=joker_rank, **knobs)


def test_E8_RD22_the_joker_beats_the_king_and_loses_only_to_the_ace():
    hands = ("KH 3H 4C 5C 6C 7C", "JK 2H 8C 9C 2D 3D", "QH 4D 5D 6D 7D 8D")
    game = joker_game(hands)
    play(game, "0:bid 1", "1:pass", "2:pass", "0:play KH")
    assert set(legal_text(game)) == {"play JK", "play 2H"}  # the joker follows a trump lead
    play(game, "1:play JK", "2:play QH")
    assert [who for kind, who, _ in game.log if kind == EventKind.TRICK] == [1]
    finish(game)
    awards = awards_of(game)
    # E8: High is KH (the joker is never High), Low 2H, the joker point to its trick's winner.
    assert ("high", 0, 1) in awards and ("low", 1, 1) in awards and ("joker", 1, 1) in awards


def test_RD22_the_ace_of_trumps_beats_the_joker_and_the_lowest_rank_puts_it_below_the_two():
    hands = ("AH 3H 4C 5C 6C 7C", "JK 8C 9C TC 2D 3D", "2H 4D 5D 6D 7D 8D")
    game = joker_game(hands)
    play(game, "0:bid 1", "1:pass", "2:pass", "0:play 3H", "1:play JK", "2:play 2H")
    assert [who for kind, who, _ in game.log if kind == EventKind.TRICK] == [1]
    game = joker_game(hands, joker_rank="lowest")
    play(game, "0:bid 1", "1:pass", "2:pass", "0:play 3H", "1:play JK", "2:play 2H")
    assert [who for kind, who, _ in game.log if kind == EventKind.TRICK] == [0]  # 3H > 2H > JK


def test_RD22_the_joker_must_follow_a_trump_lead_and_may_trump_a_plain_lead():
    game = joker_game(("3H 4C 5C 6C 7C 8C", "JK 9C TC JC QC KC", "QH 4D 5D 6D 7D 8D"))
    play(game, "0:bid 1", "1:pass", "2:pass", "0:play 3H")
    assert legal_text(game) == ["play JK"]  # the joker is B's only trump: it must follow
    game = joker_game(("3H 4C 5C 6C 7C 8C", "JK 2H 9C TC JC QC", "QH 4D 5D 6D 7D 8D"))
    play(game, "0:bid 1", "1:pass", "2:pass", "0:play 3H", "1:play 2H", "2:play QH")
    play(game, "2:play 4D", "0:play 4C")
    assert "play JK" in legal_text(game)  # B is void in diamonds: any card, the joker included
    play(game, "1:play JK")
    assert [who for kind, who, _ in game.log if kind == EventKind.TRICK] == [2, 1]  # the joker trumped


def test_RD22_a_joker_led_after_trump_is_fixed_calls_for_trumps():
    hands = ("3H JK 4C 5C 6C 7C", "2H 8C 9C TC JC QC", "QH 4D 5D 6D 7D 8D")
    game = joker_game(hands)
    play(game, "0:bid 1", "1:pass", "2:pass", "0:play 3H", "1:play 2H", "2:play QH")
    play(game, "2:play 4D", "0:play 4C", "1:play 8C")  # C won the first trick with QH
    trick_winners = [who for kind, who, _ in game.log if kind == EventKind.TRICK]
    assert trick_winners == [2, 2]
    game = joker_game(("JK 3H 4C 5C 6C 7C", "2H 8C 9C TC JC QC", "QH 4D 5D 6D 7D 8D"))
    play(game, "0:bid 1", "1:pass", "2:pass", "0:play 3H", "1:play 2H", "2:play QH", "2:play 4D", "0:play 4C",
         "1:play 8C")
    play(game, "2:play 5D", "0:play 5C", "1:play 9C")
    assert game.current_player == 2


def test_E8_RD23_the_joker_pitched_first_makes_spades_trump_or_the_knob_suit():
    hands = ("JK 3H 4C 5C 6C 7C", "2S 8C 9C TC JC QC", "QH 4D 5D 6D 7D 8D")
    game = joker_game(hands)
    play(game, "0:bid 1", "1:pass", "2:pass", "0:play JK")
    assert game.trump == SPADES and legal_text(game) == ["play 2S"]  # a trump lead: B follows with his spade
    game = joker_game(hands, joker_lead_trump="C")
    play(game, "0:bid 1", "1:pass", "2:pass", "0:play JK")
    assert game.trump == CLUBS
    assert set(legal_text(game)) == {"play 8C", "play 9C", "play TC", "play JC", "play QC"}


def test_RD24_the_joker_is_never_high_or_low_even_as_the_only_trump_in_play():
    hands = ("JK 4C 5C 6C 7C 8C", "9C TC JC QC KC AC", "2D 3D 4D 5D 6D 7D")
    game = joker_game(hands)
    play(game, "0:bid 1", "1:pass", "2:pass", "0:play JK")  # spades trump: nobody holds a spade
    finish(game)
    kinds = {kind for kind, _, _ in awards_of(game)}
    assert "high" not in kinds and "low" not in kinds and "joker" in kinds


def test_RD25_RD26_the_joker_point_goes_to_its_trick_and_the_joker_counts_no_card_points():
    hands = ("JK 4C 5C 6C 7C 8C", "9C TC JC QC KC AC", "2D 3D 4D 5D 6D 7D")
    game = joker_game(hands)
    play(game, "0:bid 1", "1:pass", "2:pass", "0:play JK", "1:play 9C", "2:play 2D")
    assert game.captured_points[0] == 0  # JK + 9C + 2D: no card points (RD26)
    assert game.captured[0] >> JOKER & 1
    hands = ("2H 4C 5C 6C 7C 8C", "9C TC JC QC KC AC", "3D 4D 5D 6D 7D 8D")
    game = joker_game(hands)  # the joker is not dealt
    play(game, "0:bid 1", "1:pass", "2:pass")
    finish(game)
    assert "joker" not in {kind for kind, _, _ in awards_of(game)}


def test_RD27_pitch_with_joker_bids_run_to_five():
    game = auction_game(preset="pitch_with_joker")
    assert legal_text(game)[-1] == "bid 5" and game.rules.target_points == 10


# ---------------------------------------------------------------- the stock (RD4–RD12, E9)

CJ_HANDS = ("2D 3D 4D 5D 6D 7D", "8D 9D TD JD QD KD")  # player_0 deals, player_1 is eldest


def stock_game(stock_top="JC", preset="california_jack", scores=None) -> Game:
    used = set(" ".join(CJ_HANDS).split()) | {stock_top}
    rest = [card_str(c) for c in range(52) if card_str(c) not in used]
    return stacked_game(preset, 2, hands=CJ_HANDS, stock=" ".join([stock_top, *rest]), scores=scores)


def test_RD4_RD5_E9_the_stock_top_fixes_trump_scores_nothing_and_is_drawn_first():
    game = stock_game("JC")
    assert game.trump == CLUBS and game.turnups == [] and game.awards == [] and game.phase == Phase.PLAY
    assert game.current_player == 1  # RD7: eldest leads
    assert game.deck[12] == parse_card("JC")
    play(game, "1:play KD", "0:play 2D")  # B wins trick 1
    draws = [(who, card_str(value)) for kind, who, value in game.log if kind == EventKind.DRAW]
    assert draws == [(1, "JC"), (0, card_str(game.deck[13]))]  # winner first, the top card (RD5, RD6)
    assert game.hands[1] >> parse_card("JC") & 1


def test_RD6_RD7_draws_after_tricks_1_to_20_then_six_tricks_without_and_the_winner_leads():
    game = stock_game()
    rng = random.Random(3)
    tricks = draws = 0
    while not game.is_over and len(game.decks) == 1:
        before = len(game.log)
        game.apply(rng.choice(game.legal_actions()))
        new = game.log[before:]
        for i, (kind, who, _) in enumerate(new):
            if kind == EventKind.TRICK:
                tricks += 1
                drawn = [w for k, w, _ in new[i + 1:i + 3] if k == EventKind.DRAW]
                assert drawn == ([who, 1 - who] if tricks <= 20 else []), tricks
                if game.trick_cards == [] and game.hands[who] and not game.is_over:
                    assert game.current_player == who
            draws += kind == EventKind.DRAW
    assert tricks == 26 and draws == 40


def test_RD8_RD9_every_card_is_in_play_high_ace_low_two_to_their_captors():
    game = stock_game("5C")
    rng = random.Random(4)
    while sum(h.bit_count() for h in game.hands) > 1:
        game.apply(rng.choice(game.legal_actions()))
    in_play = game.in_play()
    assert in_play[0] | in_play[1] == (1 << 52) - 1  # every card is in play (RD9)
    winners = {}
    for kind, who, value in game.log:
        if kind == EventKind.TRICK:
            for card in ("AC", "2C"):
                if value >> parse_card(card) & 1:
                    winners[card] = who
    game.apply(game.legal_actions()[0])  # the last card: the hand is scored
    last = [e for e in game.log if e.kind == EventKind.TRICK][-1]
    for card in ("AC", "2C"):
        if last.value >> parse_card(card) & 1:
            winners[card] = last.who
    awards = {a.kind: a.side for a in game.awards if a.deal == 0}
    assert awards.get("high") == winners["AC"]  # the ace of trumps, to its captor (K11 captured)
    assert awards.get("low") == winners["2C"]


def test_RD11_a_40_40_game_tie_goes_to_the_non_dealer():
    from allfours_env.scoring import game_sides

    rules = Rules.make("california_jack", 2)
    assert game_sides(rules, [40, 40], (0, 1), dealer=0) == [1]
    assert game_sides(rules, [40, 40], (0, 1), dealer=1) == [0]


def test_RD12_no_beg_gift_run_or_discard_and_the_deal_alternates():
    game = stock_game()
    finish(game, rng_seed=1)
    acts = [value for kind, _, value in game.log if kind == EventKind.ACT]
    assert all(57 <= a < 110 for a in acts) and len(acts) == 52
    assert game.dealer == 1 and game.trump == game.deck[12] // 13


def test_shasta_sam_plays_by_the_same_rules_as_california_jack():
    a, b = stock_game(preset="california_jack"), stock_game(preset="shasta_sam")
    finish(a, 6)
    finish(b, 6)
    assert a.awards == b.awards and a.scores == b.scores


# ---------------------------------------------------------------- don (RD28–RD29)


def test_RD28_the_nine_of_trumps_scores_for_its_tricks_winner_after_jack_before_game():
    game = stacked_game("don", 2, hands=("9C 2D 3D 4D 5D 6D", "TC 8D 9D TD JD QD"), turnup="8C")
    play(game, "1:stand", "1:play TC", "0:play 9C")
    finish(game)
    kinds = [kind for kind, _, _ in awards_of(game)]
    assert ("nine", 1, 1) in awards_of(game)
    assert kinds.index("nine") > kinds.index("low")
    assert "game" not in kinds or kinds.index("nine") < kinds.index("game")


def test_RD28_a_turned_up_nine_scores_for_nobody():
    game = stacked_game("don", 2, hands=("2C 2D 3D 4D 5D 6D", "TC 8D 9D TD JD QD"), turnup="9C")
    play(game, "1:stand")
    finish(game)
    assert "nine" not in [kind for kind, _, _ in awards_of(game)] and game.awards[0].kind != "turnup"


def test_RD29_don_is_all_fours_otherwise_and_the_nine_is_worth_no_card_points():
    rules = Rules.make("don", 4)
    base = Rules.make("all_fours", 4).to_dict()
    diff = {k for k, v in rules.to_dict().items() if base[k] != v}
    assert diff == {"preset", "scoring_order"}
    from allfours_env.scoring import card_points

    assert card_points(1 << parse_card("9C")) == 0


def test_a_bid_is_an_action_with_the_reserved_id_and_text():
    assert str_to_action("pass") == PASS and str_to_action("bid 1") == BID_BASE
    assert str_to_action("bid 5") == BID_BASE + 4 and str_to_action("hold") == HOLD
    assert str_to_action("play JK") == 109 and str_to_action("discard JK") == 56
    assert parse_cards("JK") == [JOKER]


# ---------------------------------------------------------------- our decisions D14, D20, D23, D24


def test_D14_the_first_dealer_is_drawn_uniformly():
    counts = [0, 0, 0]
    for seed in range(600):
        counts[Game(Rules.make("seven_up", 3), seed=seed).first_dealer] += 1
    assert all(150 <= c <= 250 for c in counts), counts  # 200 each expected; 5 standard deviations


def test_D20_a_blind_joker_lead_makes_spades_trump():
    order = ("high", "low", "jack", "joker", "game")
    rules = Rules.make("blind_all_fours", 2, joker=True, scoring_order=order)
    deck = stack_deck(2, 0, ["2C 3C 4C 5C 6C 7C".split(), "JK 2S 3H 4H 5H 6H".split()], joker=True)
    game = Game(rules, seed=0, dealer=0, decks=[deck])
    play(game, "1:play JK")
    assert game.trump == SPADES and legal_text(game) == [f"play {c}" for c in "2C 3C 4C 5C 6C 7C".split()]


def test_D23_a_game_still_undecided_at_the_cap_stops_with_a_clear_error():
    from agents import make_agent
    from agents.arena import GameTooLongError, play_game

    rules = Rules.make("pitch_with_joker", 3)
    players = [make_agent("random") for _ in range(3)]
    with pytest.raises(GameTooLongError, match="still undecided after 20 hands"):
        play_game(rules, players, seed=0, max_hands=20)


def test_D24_a_partnership_makes_its_contract_together():
    hands = ("2H 4C 5C 6C 7C 8C", "3D 4D 5D 6D 7D 8D", "AH 9C TC JC QC KC", "2S 3S 4S 5S 6S 7S")
    game = auction_game(num_players=4, dealer=3, hands=hands, partnerships=True)
    assert game.num_sides == 2
    play(game, "0:bid 2", "1:pass", "2:pass", "3:pass", "0:play 2H")  # A pitches hearts; C holds AH
    finish(game)
    awards = awards_of(game)
    assert "setback" not in [kind for kind, _, _ in awards]  # High (partner's ace) + Low: 2 made
    assert awards[:2] == [("high", 0, 1), ("low", 0, 1)]
