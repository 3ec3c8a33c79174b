"""The rules of trick play and scoring live once, in ``allfours_env.scoring``; the engine, the solver
and the heuristic call them (docs/rules.md §2–§3)."""

from __future__ import annotations

import inspect
import random

import pytest

import agents.heuristic
import agents.solver
from agents.pimc import solve_position
from allfours_env import Game, Rules, scoring
from allfours_env.cards import SUIT_MASKS, parse_card, parse_cards
from allfours_env.events import Phase
from allfours_env.scoring import Award
from conftest import PRESET_PLAYERS


def cards(text: str) -> int:
    return sum(1 << c for c in parse_cards(text))


# ---------------------------------------------------------------- the functions themselves


def test_R2_trick_winner_is_the_highest_trump_else_the_highest_card_of_the_suit_led():
    hearts, spades = 2, 3
    assert scoring.trick_winner(parse_cards("TH 4C"), hearts) == 0  # E1: 4C is not a trump here
    assert scoring.trick_winner(parse_cards("TH 4C"), 0) == 1  # clubs trump: 4C trumps
    assert scoring.trick_winner(parse_cards("3D AS 5D"), hearts) == 2  # AS neither follows nor trumps
    assert scoring.trick_winner(parse_cards("3D AS 5D"), spades) == 1
    assert scoring.trick_winner(parse_cards("2H QH KH"), hearts) == 2


def test_R1_R2_strength_orders_trumps_over_the_suit_led_over_the_rest():
    strength = scoring.strength_table(2, 1)  # hearts trump, diamonds led
    two_of_hearts, ace_of_diamonds, ace_of_clubs = parse_cards("2H AD AC")
    assert strength[two_of_hearts] > strength[ace_of_diamonds] > strength[ace_of_clubs] == 0
    assert scoring.is_trump_strength(strength[two_of_hearts])
    assert not scoring.is_trump_strength(strength[ace_of_diamonds])


def test_R3_legal_plays_follow_or_trump_else_anything():
    hand = cards("2C 5D KD 9H AS")
    assert scoring.legal_plays(hand, SUIT_MASKS[1], SUIT_MASKS[2]) == cards("5D KD 9H")
    assert scoring.legal_plays(hand, SUIT_MASKS[1], SUIT_MASKS[3]) == cards("5D KD AS")
    assert scoring.legal_plays(cards("2C 9H"), SUIT_MASKS[1], SUIT_MASKS[3]) == cards("2C 9H")
    assert scoring.legal_plays(hand, 0, SUIT_MASKS[2]) == hand  # leading


def test_K15_without_undertrumps_keeps_over_trumps_and_forced_under_trumps():
    spades = 3
    strength = scoring.strength_table(spades, 2)  # hearts led, spades trump
    best = strength[parse_card("QS")]
    assert scoring.without_undertrumps(cards("2S AS"), SUIT_MASKS[spades], strength, best) == cards("AS")
    assert scoring.without_undertrumps(cards("2S 3S"), SUIT_MASKS[spades], strength, best) == cards("2S 3S")
    assert scoring.without_undertrumps(cards("2S 4D"), SUIT_MASKS[spades], strength, best) == cards("4D")


def test_R7_R8_scorer_finds_high_low_and_the_jack_holder():
    rules = Rules.make("seven_up", 2)
    in_play = [cards("KC 4C AD KH 5S 3D"), cards("JC 2C TD TH AS QH")]  # E1, clubs trump
    scorer = scoring.HandScorer(rules, (0, 1), 0, 0, in_play)
    assert (scorer.high, scorer.high_side) == (parse_card("KC"), 0)
    assert (scorer.low, scorer.low_side) == (parse_card("2C"), 1)
    assert scorer.jack_side == 1
    captured = [cards("TH 4C JC KC AD TD QH KH"), cards("3D 2C 5S AS")]
    points = [scoring.card_points(c) for c in captured]
    assert points == [33, 4]
    assert scorer.awards(captured, points) == [
        Award(0, "high", 0, 1), Award(0, "low", 1, 1), Award(0, "jack", 0, 1), Award(0, "game", 0, 1)]
    assert all(type(award) is Award for award in scorer.awards(captured, points))


def test_R10_settle_stops_at_the_first_award_that_reaches_the_target():
    scores = [6, 5]
    awards = [Award(0, "high", 1, 1), Award(0, "low", 0, 1), Award(0, "game", 1, 1)]
    added, winner = scoring.settle(scores, awards, 7)
    assert (added, winner, scores) == (2, 0, [7, 6])
    scores = [6, 6]
    assert scoring.settle(scores, [Award(0, "setback", 0, -3), Award(0, "high", 1, 1)], 7) == (2, 1)


def test_K7_D3_gift_recipients_beggar_first():
    rules = Rules.make("seven_up", 3)
    assert scoring.gift_recipients(rules, (0, 1, 2), 2) == [0, 1]
    assert scoring.gift_recipients(Rules.make("all_fours", 3), (0, 1, 2), 2) == [0]
    four = Rules.make("seven_up", 4, partnerships=False)
    assert scoring.gift_recipients(four, (0, 1, 2, 3), 1) == [2, 3, 0]


# ---------------------------------------------------------------- one home: who calls them


def _positions(preset: str, num_players: int, seeds: range, **knobs):
    """Random positions in trick play (every decision of random games)."""
    for seed in seeds:
        game = Game(Rules.make(preset, num_players, **knobs), seed=seed)
        rng = random.Random(seed)
        for _ in range(400):
            if game.is_over:
                break
            if game.phase == Phase.PLAY and game.trump >= 0:
                yield game
            game.apply(rng.choice(game.legal_actions()))


@pytest.mark.parametrize("preset, num_players", [*PRESET_PLAYERS, ("trinidad", 4)])
def test_solver_legal_cards_equal_the_engines(preset, num_players):
    knobs = {"undertrump": "banned_unless_no_choice"} if preset == "trinidad" and num_players == 4 else {}
    checked = 0
    for game in _positions(preset, num_players, range(6), **knobs):
        solver, position = solve_position(game, 0, max_nodes=1000)
        hands, to_move, trick = position[0], position[1], position[2]
        assert solver.legal(hands[to_move], trick) == game.play_mask()
        checked += 1
    assert checked > 50


def test_solver_scores_its_leaves_with_the_engines_scorer(monkeypatch):
    game = next(g for g in _positions("seven_up", 2, range(20)) if sum(h.bit_count() for h in g.hands) == 2)
    side = game.sides[game.current_player]
    monkeypatch.setattr(scoring.HandScorer, "awards",
                        lambda self, captured, points: [Award(0, "high", side, 3)])
    solver, position = solve_position(game, side, max_nodes=10_000)
    assert set(solver.solve(*position).values()) == {3.0}


@pytest.mark.parametrize("module", [agents.solver, agents.heuristic])
def test_bots_take_the_rules_from_the_core(module):
    """No trick-strength keys, tie rules or gift recipients of their own (they were copies once)."""
    source = inspect.getsource(module)
    for copy in ("32 +", "game_tie_rule", 'gift_recipients ==', "hang_jack_points !="):
        assert copy not in source, copy
    core = {name for name in dir(scoring) if not name.startswith("_")}
    assert core & set(vars(module)), "the module calls nothing from allfours_env.scoring"
