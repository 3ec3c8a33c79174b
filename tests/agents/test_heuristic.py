"""The rule-based ``heuristic`` bot: legal play everywhere, no hidden information, and the
tactics of the sources' strategy notes in known positions."""

import random

import pytest

from agents.arena import play_game
from agents.base import AgentError, make_agent
from agents.heuristic import HeuristicAgent
from allfours_env import Game, Rules, action_to_str
from allfours_env.cards import parse_card
from allfours_env.engine import stack_deck
from allfours_env.knowledge import SeatView
from allfours_env.rules import TURNUP_ONLY_KNOBS
from conftest import PRESET_PLAYERS, STOCK_AUCTION_PRESET_PLAYERS, play, stacked_game


def decide(game, seat=None):
    """The heuristic's decision for ``seat`` (default: the seat to move), as text."""
    seat = game.current_player if seat is None else seat
    return action_to_str(HeuristicAgent(seed=0).act(None, SeatView(game, seat)))


# ---------------------------------------------------------------------- legal play, every preset


@pytest.mark.parametrize(("preset", "num_players"), PRESET_PLAYERS)
def test_plays_only_legal_actions_in_whole_games(preset, num_players):
    """play_game raises on any illegal action: 300 games against random (every seating) and itself."""
    rules = Rules.make(preset, num_players)
    heuristic, rnd = make_agent("heuristic"), make_agent("random")
    for seed in range(200):
        players = [heuristic if (seat + seed) % 2 == 0 else rnd for seat in range(num_players)]
        game = play_game(rules, players, seed=seed)
        assert game.is_over and game.winner is not None
    for seed in range(100):
        game = play_game(rules, [heuristic] * num_players, seed=10_000 + seed)
        assert game.is_over


@pytest.mark.parametrize(("preset", "num_players"), STOCK_AUCTION_PRESET_PLAYERS)
def test_plays_only_legal_actions_in_whole_stock_and_auction_games(preset, num_players):
    """The auction (bids, holds, the pitch, the joker), the stock's draws and don's nine: whole games
    against random (every seating) and itself end with a winner, every action legal."""
    rules = Rules.make(preset, num_players)
    heuristic, rnd = make_agent("heuristic"), make_agent("random")
    for seed in range(30):
        players = [heuristic if (seat + seed) % 2 == 0 else rnd for seat in range(num_players)]
        assert play_game(rules, players, seed=seed).winner is not None
    for seed in range(10):
        assert play_game(rules, [heuristic] * num_players, seed=10_000 + seed).is_over


@pytest.mark.parametrize("knobs", [
    {"undertrump": "banned_unless_no_choice"}, {"high_rule": "captured", "low_rule": "captured"},
    {"discards_in_play": True}, {"gift_block": "any_recipient_would_win"}, {"target_points": 3},
])
def test_plays_only_legal_actions_with_other_knobs(knobs):
    heuristic, rnd = make_agent("heuristic"), make_agent("random")
    for i, (preset, num_players) in enumerate(PRESET_PLAYERS):
        if preset == "blind_all_fours" and TURNUP_ONLY_KNOBS & set(knobs):
            continue  # no turn-up, beg, gift or run in that preset (P8)
        rules = Rules.make(preset, num_players, **knobs)
        for seed in range(15):
            players = [heuristic if (seat + seed) % 2 else rnd for seat in range(num_players)]
            assert play_game(rules, players, seed=100 * i + seed).is_over


def test_takes_no_unknown_options_and_is_registered():
    assert isinstance(make_agent("heuristic", seed=3), HeuristicAgent)
    with pytest.raises(AgentError):
        make_agent("heuristic:depth=2")


def test_beats_random_clearly_on_a_small_sample():
    """A smoke check of strength (the measured rates are in benchmarks/heuristic_vs_random.py)."""
    rules = Rules.make("seven_up", 2)
    heuristic, rnd = make_agent("heuristic"), make_agent("random")
    wins = 0
    for seed in range(150):
        wins += play_game(rules, [heuristic, rnd], seed=seed).winner == 0
        wins += play_game(rules, [rnd, heuristic], seed=seed).winner == 1
    assert wins / 300 > 0.7


# ---------------------------------------------------------------------- no hidden information


@pytest.mark.parametrize(("preset", "num_players"), [
    ("seven_up", 2), ("seven_up", 3), ("all_fours", 4), ("trinidad", 4), ("blind_all_fours", 3),
    ("california_jack", 2), ("shasta_sam", 2), ("auction_pitch", 4), ("pitch_with_joker", 3), ("don", 4),
])
def test_decides_the_same_whatever_the_hidden_cards(preset, num_players):
    """At every decision of whole games, redraw every card hidden from the deciding seat (the others'
    hands and discards, the stock) consistently with what it knows: the decision must not change."""
    rules = Rules.make(preset, num_players)
    bot, rng = HeuristicAgent(seed=0), random.Random(7)
    checked = 0
    for seed in range(8 if rules.trump_selection != "stock_top" else 2):
        game = Game(rules, seed=seed)
        while not game.is_over and game.hand_number < 20:
            seat = game.current_player
            action = bot.act(None, SeatView(game, seat))
            other = SeatView(game, seat).resample(rng)
            assert other.hands[seat] == game.hands[seat]
            assert bot.act(None, SeatView(other, seat)) == action, (seed, repr(game))
            checked += 1
            game.apply(action if rng.random() < 0.5 else rng.choice(game.legal_actions()))
    assert checked > 300


def test_decides_the_same_on_two_deals_that_differ_only_in_hidden_cards():
    """Stacked packs: seat 1's hand and the turn-up agree; seat 0's hand and the stock differ. Seat 1
    decides the same at its first decision and after the same public moves (seat 0 plays cards that
    both of its possible hands hold)."""
    mine = "KC 9C AD 6H 5S 3D".split()
    first = stack_deck(2, 0, [["JC", "2C", "TD", "TH", "AS", "QH"], mine], "8C")
    second = stack_deck(2, 0, [["JC", "2C", "QS", "QD", "7H", "TH"], mine], "8C")
    second = second[:13] + second[13:][::-1]  # and another stock order
    assert first[:13] != second[:13] and first[12] == second[12] == "8C"
    games = [Game(Rules.make(), seed=0, dealer=0, decks=[deck]) for deck in (first, second)]
    decisions = 0
    while games[0].phase_name in ("beg", "gift_or_run", "play") and decisions < 6:
        seat = games[0].current_player
        assert all(game.current_player == seat for game in games)
        if seat == 1:
            moves = {HeuristicAgent(seed=0).act(None, SeatView(game, 1)) for game in games}
            assert len(moves) == 1, [action_to_str(m) for m in moves]
            move = moves.pop()
            decisions += 1
        else:
            shared = set(games[0].legal_actions()) & set(games[1].legal_actions())
            if not shared:
                break
            move = min(shared)  # gift rather than run: no new cards; then JC or 2C, held in both
        for game in games:
            game.apply(move)
    assert decisions >= 3


# ---------------------------------------------------------------------- tactics (seed strategy notes)


def test_captures_the_jack_when_it_can():
    """Clubs trump; the opponent leads JC; holding KC and 4C the bot takes the jack with KC (R8)."""
    game = stacked_game(hands=("KC 4C AD KH 5S 3D", "JC 2C TD TH AS QH"), turnup="8C")
    play(game, "1:stand", "1:play JC")
    assert decide(game, 0) == "play KC"


def test_captures_the_hang_jack_in_trinidad_partnerships():
    """Trinidad 4p (E4): an opponent's jack falls to our higher trump: +3 hang jack (R8, K12)."""
    game = stacked_game("trinidad", 4, dealer=0, hands=("QH 2H 8C 9C 3D 4D", "JH 5C 6C 2D 5D 6D",
                                                       "7C TC 7D 8D 9D 2S", "3S 4S 5S 6S 7S 8S"),
                        turnup="9H")
    play(game, "1:stand", "1:play JH", "2:play 2S", "3:play 3S")
    assert decide(game, 0) == "play QH"


def test_does_not_throw_its_own_jack_under_a_higher_trump_in_trinidad():
    """Hearts trump, the opponent leads QH: play 3H, not the JH it would hang (R8, K12)."""
    game = stacked_game("trinidad", 2, hands=("JH 3H 9D 8D 4S 6S", "QH 2C 3C 4C 5C 6C"), turnup="8H")
    play(game, "1:stand", "1:play QH")
    assert decide(game, 0) == "play 3H"


def test_does_not_trump_its_partners_winning_ace():
    """4p: partner's AH wins a heart trick; void in hearts with trumps and junk: throw junk (R3)."""
    hands = ("2S 5S 9S 3C 4D 6D", "5H 8C 9C 2D 3D 7C", "AH 4C 5C 6C 8D 9D", "7H KC QC JD QD KD")
    game = stacked_game("seven_up", 4, dealer=0, hands=hands, turnup="8S")
    play(game, "1:stand", "1:play 5H", "2:play AH", "3:play 7H")  # seat 0 plays last
    assert decide(game, 0) == "play 3C"
    game = stacked_game("seven_up", 4, dealer=1, hands=hands, turnup="8S")
    play(game, "2:stand", "2:play AH", "3:play 7H")  # seat 0 plays third
    assert not decide(game, 0).endswith("S")


def test_feeds_a_ten_to_its_partners_sure_trick():
    """Playing last under partner's winning ace, the ten goes to our side (R4: protect tens)."""
    hands = ("2S 5S 9S TC 4D 6D", "5H 8C 9C 2D 3D 7C", "AH 4C 5C 6C 8D 9D", "7H KC QC JD QD KD")
    game = stacked_game("seven_up", 4, dealer=0, hands=hands, turnup="8S")
    play(game, "1:stand", "1:play 5H", "2:play AH", "3:play 7H")
    assert decide(game, 0) == "play TC"


def test_does_not_give_a_ten_away():
    """The opponent leads KD; holding TD, 3D and no trump, follow with 3D (R4)."""
    game = stacked_game(hands=("TD 3D 5H 6H 7H 9H", "KD 2C 4C 5C 6S 7S"), turnup="8C")
    play(game, "1:stand", "1:play KD")
    assert decide(game, 0) == "play 3D"


def test_trumps_a_counting_card_cheaply():
    """The opponent leads KD; holding TD, 3D and the 4 of trumps, take the king with the low trump."""
    game = stacked_game(hands=("TD 3D 4C 6H 7H 9H", "KD 2S 5C 6C 6S 7S"), turnup="8C")
    play(game, "1:stand", "1:play KD")
    assert decide(game, 0) == "play 4C"


def test_throws_the_lowest_card_when_it_cannot_win():
    """The opponent leads the top trump AC; holding no club, throw a card worth nothing (R4)."""
    game = stacked_game(hands=("TD 3D QH 6H 7S 9S", "AC 2C 5C 6C 6D 7D"), turnup="8C")
    play(game, "1:stand", "1:play AC")
    assert decide(game, 0) == "play 3D"


@pytest.mark.parametrize("hand", ["AC KC 5C 3D 9D 6S", "AC 5C 3D 9D 4S 6S", "KC 7C 3D 9D 4S 6S"])
def test_leads_a_high_trump_to_catch_the_jack(hand):
    """Source 000: holding the ace or king of trumps, lead a high trump while the jack is out."""
    game = stacked_game(hands=("2H 3H 4H 5H 6H 7H", hand), turnup="8C")
    play(game, "1:stand")
    played = decide(game, 1)
    assert played in ("play AC", "play KC")


def test_leads_a_trump_before_cashing_plain_winners_that_could_be_trumped():
    """R3: the ace and king of hearts (7 card points) are safe only once the opponent has no trump to
    ruff them with; a low trump led takes one of its trumps first."""
    game = stacked_game(hands=("QS 3H 4D 9C 8C 2C", "AH KH 4S 5D 6D 7C"), turnup="2S")
    play(game, "1:stand")
    assert decide(game, 1) == "play 4S"


def test_begs_with_a_hand_without_trumps():
    game = stacked_game(hands=("2H 3H 4H 5H 6H 7H", "KD 5D 3D 9D 4S 6S"), turnup="8C")
    assert decide(game, 1) == "beg"


def test_stands_with_the_ace_of_trumps():
    game = stacked_game(hands=("2H 3H 4H 5H 6H 7H", "AC 5D 3D 9D 4S 6S"), turnup="8C")
    assert decide(game, 1) == "stand"


def test_begs_when_the_gift_wins_the_game_but_stands_when_high_wins_it():
    weak = stacked_game(hands=("2H 3H 4H 5H 6H 7H", "KC 5D 3D 9D 4S 6S"), turnup="8C", scores=[3, 6])
    assert decide(weak, 1) == "beg"
    ace = stacked_game(hands=("2H 3H 4H 5H 6H 7H", "AC 5D 3D 9D 4S 6S"), turnup="8C", scores=[3, 6])
    assert decide(ace, 1) == "stand"  # High is scored first (R10) and wins


def test_gifts_when_strong_in_the_proposed_suit_and_runs_when_weak():
    strong = stacked_game(hands=("AC KC JC 2C 6H 7H", "KD 5D 3D 9D 4S 6S"), turnup="8C")
    play(strong, "1:beg")
    assert decide(strong, 0) == "gift"
    weak = stacked_game(hands=("3C 6D 7D 2H 6H 7H", "KD 5D 3D 9D 4S 6S"), turnup="8C")
    play(weak, "1:beg")
    assert decide(weak, 0) == "run"


def test_never_gifts_the_winning_point():
    game = stacked_game(hands=("AC KC JC 2C 6H 7H", "KD 5D 3D 9D 4S 6S"), turnup="8C", scores=[0, 6])
    play(game, "1:beg")
    assert decide(game, 0) == "run"


def test_stands_with_three_middling_trumps_and_begs_with_one_low_trump():
    """P2 weighs the proposed suit against a run: three trumps promise more than a new suit would,
    a lone seven of trumps less."""
    three = stacked_game(hands=("2H 3H 4H 5H 6H 7H", "QC 9C 5C 3D 4S 6S"), turnup="8C")
    assert decide(three, 1) == "stand"
    one = stacked_game(hands=("2H 3H 4H 5H 6H 7H", "7C 9S 8S 7S 6S 5S"), turnup="8C")
    assert decide(one, 1) == "beg"


def test_the_dealer_runs_rather_than_gift_with_no_trump_and_gifts_with_the_top_trumps():
    """P3: the beg says eldest is weak in the suit; the dealer gives when his own trumps will take
    the points, and runs when he has none to take them with."""
    none = stacked_game(hands=("2D 3D 4S 5S 7S 7H", "QD 5D 3H 9H 4H 6H"), turnup="8C")
    play(none, "1:beg")
    assert decide(none, 0) == "run"
    top = stacked_game(hands=("AC KC 3C 3D 4S 6S", "QD 5D 3H 9H 4H 6H"), turnup="8C")
    play(top, "1:beg")
    assert decide(top, 0) == "gift"


AUCTION_OTHERS = ("2H 3H 4H 5H 6H 7H", "8H 8D 9C 9D 9H 9S", "TC TD TH TS QC QD")


def test_bids_the_points_its_best_suit_is_sure_of_and_not_the_game_on_top():
    """auction_pitch 4p (RD13): ace, two and a guarded jack of spades are High, Low and Jack — bid 3;
    Game against three hands is too uncertain to bid 4 (a failed 4 costs 4, RD18)."""
    game = stacked_game("auction_pitch", 4, dealer=3, hands=("AS KS JS 2S 4C 2D", *AUCTION_OTHERS))
    assert decide(game, 0) == "bid 3"


def test_a_weak_hand_bids_at_most_one():
    game = stacked_game("auction_pitch", 4, dealer=3, hands=("QS 7S 3S 4C 2D 6C", *AUCTION_OTHERS))
    assert decide(game, 0) in ("pass", "bid 1")


def test_the_dealer_holds_a_bid_its_hand_can_make_and_passes_one_it_cannot():
    """RD14: holding the ace and king of spades the dealer takes a standing 2, not a standing 3."""
    for standing, expected in (("bid 2", "hold"), ("bid 3", "pass")):
        game = stacked_game("auction_pitch", 4, dealer=3, hands=(*AUCTION_OTHERS, "AS KS 3S 4C 2D 6C"))
        play(game, f"0:{standing}", "1:pass", "2:pass")
        assert decide(game, 3) == expected, standing


def test_the_pitcher_names_the_suit_its_contract_was_bid_on():
    """RD16, RD18: the three low clubs are Low and the hand's strongest trump; the lone ace of hearts
    would win the first trick but makes a trump suit that cannot make 2."""
    game = stacked_game("auction_pitch", 4, dealer=3, hands=("AS AH JD 4C 3C 2C", *AUCTION_OTHERS))
    play(game, "0:bid 2", "1:pass", "2:pass", "3:pass")
    assert decide(game, 0).endswith("C")


def test_with_three_opponents_each_alone_it_keeps_its_ace_rather_than_take_a_queen_from_one():
    """auction_pitch: the dealer holds 2 and pitches QC. Against one opponent, taking the queen's 3
    card points with AC is worth twice 3 (what we gain, the pitcher loses); against three opponents
    each alone a point lost to one of them costs a third of a point won, so in 4p the ace stays in
    hand (High is held anyway, RD17; it can take the pitcher's jack later) and 4C follows."""
    game = stacked_game("auction_pitch", 4, dealer=3, hands=("7C 9C TC QH AH 9S", "5C 5D QD 7H 8H KS",
                                                            "4C AC 8D AD JH QS", "JC QC 7D TH 3S 7S"))
    play(game, "0:bid 2", "1:pass", "2:pass", "3:hold", "3:play QC", "0:play 7C", "1:play 5C")
    assert decide(game, 2) == "play 4C"
    game = stacked_game("auction_pitch", 2, dealer=1, hands=("4C AC 8D AD JH QS", "JC QC 7D TH 3S 7S"))
    play(game, "0:pass", "1:bid 2", "1:play QC")
    assert decide(game, 0) == "play AC"


def test_discards_keep_high_trumps_the_jack_tens_and_aces():
    """After a run to spades the dealer holds 9 cards and discards the three worth least (P5)."""
    game = stacked_game(hands=("AS 4H 5H TD 2C 3C", "KD 5D 3D 9D 4C 6C"), turnup="8H",
                        runs=[(("JS 7D 8C", "2S 3S 4S"), "9S")])
    play(game, "1:beg", "0:run", "1:discard 9D", "1:discard 5D", "1:discard 3D")
    discarded = []
    while game.current_player == 0 and game.phase_name == "discard":
        move = decide(game, 0)
        discarded.append(move.split()[1])
        play(game, f"0:{move}")
    assert len(discarded) == 3
    assert not {"AS", "JS", "TD"} & set(discarded)


def test_blind_first_lead_picks_the_strongest_suit():
    """P8: the first lead fixes trump, so it comes from the suit that makes the best trump."""
    game = stacked_game("blind_all_fours", 2, hands=("2H 3H 4H 5H 6H 7H", "AS KS JS 3S 4D 8H"))
    assert decide(game, 1).endswith("S")


def test_parse_card_sanity_for_positions():
    """The positions above use the canonical card text (guards typos in the fixtures)."""
    assert parse_card("JC") == 9 and parse_card("AS") == 51
