"""The perfect-information solver agrees with brute-force minimax over the engine itself."""

import random

import pytest

from agents.pimc import side_value, solve_position
from agents.solver import max_n_preferred
from allfours_env import Game, Rules
from allfours_env.actions import play_action
from allfours_env.cards import card_str
from allfours_env.events import Phase
from conftest import play, stacked_game


def brute_force(game: Game, side: int, before: list[int]) -> float:
    """Minimax by trying every legal card with engine copies (no pruning, no shortcuts)."""
    if game.phase in (Phase.GAME_OVER, Phase.HAND_OVER):
        return side_value(before, game, side)
    values = []
    for action in game.legal_actions():
        child = game.copy()
        child.apply(action)
        values.append(brute_force(child, side, before))
    return max(values) if game.sides[game.current_player] == side else min(values)


def late_position(preset, num_players, seed, cards_left, **knobs):
    """A random game stopped in trick play when every hand holds at most ``cards_left`` cards."""
    game = Game(Rules.make(preset, num_players, **knobs), seed=seed, stop_after_hand=True)
    rng = random.Random(seed)
    while not game.is_over and game.phase != Phase.HAND_OVER:
        if game.phase == Phase.PLAY and max(h.bit_count() for h in game.hands) <= cards_left:
            return game
        game.apply(rng.choice(game.legal_actions()))
    return None


CASES = [("seven_up", 2, {}), ("seven_up", 3, {}), ("seven_up", 4, {}), ("trinidad", 4, {}),
         ("all_fours", 2, {"low_rule": "captured", "high_rule": "captured"}),
         ("seven_up", 3, {"undertrump": "banned_unless_no_choice"}),
         ("blind_all_fours", 2, {"game_tie_rule": "nobody"}),
         ("seven_up", 2, {"target_points": 3})]


@pytest.mark.parametrize("preset, num_players, knobs", CASES)
def test_solver_values_equal_brute_force_minimax(preset, num_players, knobs):
    checked = 0
    for seed in range(40):
        game = late_position(preset, num_players, seed, cards_left=3 if num_players < 4 else 2, **knobs)
        if game is None:
            continue
        side = game.sides[game.current_player]
        solver, position = solve_position(game, side, max_nodes=10**7, max_n=False)
        values = solver.solve(*position)
        before = list(game.scores)
        for action in game.legal_actions():
            child = game.copy()
            child.apply(action)
            expected = brute_force(child, side, before)
            assert values[action - 57] == pytest.approx(expected), (seed, action)
            checked += 1
        assert solver.exact
    assert checked >= 20


def side_values(before: list[int], game: Game) -> tuple[float, ...]:
    """Every side's value of a finished hand: its points gained minus the others' mean, or ±WIN."""
    return tuple(side_value(before, game, side) for side in range(game.num_sides))


def brute_force_max_n(game: Game, side: int, before: list[int]) -> tuple[tuple[float, ...], list[int]]:
    """Max-n by trying every legal card with engine copies: the side to move takes the card best for
    itself, ties broken as the solver does (:func:`max_n_preferred`). Returns the value vector and the
    line of cards played."""
    if game.phase in (Phase.GAME_OVER, Phase.HAND_OVER):
        return side_values(before, game), []
    mover = game.sides[game.current_player]
    best = None
    for action in game.legal_actions():
        child = game.copy()
        child.apply(action)
        value, line = brute_force_max_n(child, side, before)
        if best is None or value[mover] > best[0][mover] or (
                value[mover] == best[0][mover] and max_n_preferred(value, best[0], side)):
            best = value, [action, *line]
    return best


MAX_N_CASES = [("seven_up", 3, {}), ("auction_pitch", 3, {}), ("auction_pitch", 4, {}),
               ("pitch_with_joker", 4, {}), ("seven_up", 3, {"undertrump": "banned_unless_no_choice"})]


@pytest.mark.parametrize("preset, num_players, knobs", MAX_N_CASES)
def test_max_n_values_are_the_scores_of_every_side_playing_its_best_reply(preset, num_players, knobs):
    """On tiny positions the max-n solver's value of every side equals what the engine scores when
    each seat plays the best reply for its own side (brute force over engine copies), and each
    root card's value for the mover is that of the line after it."""
    checked = 0
    for seed in range(40):
        game = late_position(preset, num_players, seed, cards_left=3 if num_players < 4 else 2, **knobs)
        if game is None or game.num_sides < 3:
            continue
        side = game.sides[game.current_player]
        before = list(game.scores)
        solver, position = solve_position(game, side, max_nodes=10**7, max_n=True)
        expected, line = brute_force_max_n(game, side, before)
        assert solver.values(*position) == pytest.approx(expected), seed
        played = game.copy()
        for action in line:
            played.apply(action)
        assert side_values(before, played) == pytest.approx(expected), seed
        card_values = solver.solve(*position)
        for action in game.legal_actions():
            child = game.copy()
            child.apply(action)
            assert card_values[action - 57] == pytest.approx(brute_force_max_n(child, side, before)[0][side])
            checked += 1
        assert solver.exact
    assert checked >= 20


def test_max_n_plays_for_the_mover_where_the_coalition_would_fear_a_sacrifice():
    """Four players alone (auction_pitch, hearts trump): player_3 leads with 3H 5D 6C. The paranoid
    coalition values its cards as if the other three played together against it; max-n lets each
    play for itself — and, when every other seat does play its own best reply (brute force over the
    engine), the max-n card scores more for player_3 than the coalition's."""
    game = stacked_game("auction_pitch", 4, dealer=0, stop_after_hand=True, hands=(
        "KS KH 6H AD QD TC", "9S 5S 4S 2H KC 4C", "7S AH 9H 7D 8C 7C", "JH 8H 7H 3H 5D 6C"))
    play(game, "1:pass", "2:bid 1", "3:pass", "0:bid 2",
         "0:play KH", "1:play 2H", "2:play 9H", "3:play JH", "0:play QD", "1:play 4C", "2:play AH",
         "3:play 7H", "2:play 7S", "3:play 8H", "0:play 6H", "1:play 4S")
    assert game.current_player == 3 and game.num_sides == 4
    best = {}
    for max_n in (True, False):
        solver, position = solve_position(game, 3, max_nodes=10**7, max_n=max_n)
        values = solver.solve(*position)
        best[max_n] = max(values, key=values.get)
    assert (card_str(best[True]), card_str(best[False])) == ("5D", "6C")
    before = list(game.scores)
    scored = {}
    for max_n, card in best.items():
        child = game.copy()
        child.apply(play_action(card))
        scored[max_n] = brute_force_max_n(child, 3, before)[0][3]
    assert scored[True] > scored[False]
