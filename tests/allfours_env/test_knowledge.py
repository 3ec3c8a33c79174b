"""A seat's view hides what it cannot know; resampling is uniform over consistent deals."""

import itertools
import random
from collections import Counter

import pytest

from allfours_env import Game, Rules, str_to_action
from allfours_env.cards import mask_of, parse_card
from allfours_env.engine import stack_deck
from allfours_env.knowledge import (
    SeatView,
    _count_splits,
    _draw_hands,
    _split_options,
    known_voids,
    played_cards,
    seen_draws,
)
from conftest import play, stacked_game


def test_history_hides_other_players_discards_but_shows_ones_own():
    game = stacked_game(hands=("2C 3C 4C 5C 6C 7C", "2D 3D 4D 5D 6D 7D"), turnup="9H",
                        runs=[(("8C 9C TC", "8D 9D TD"), "4S")])
    play(game, "1:beg", "0:run", "1:discard 8D", "1:discard 9D", "1:discard TD", "0:discard 8C")
    mine = [e for e in SeatView(game, 0).history() if e[0] == "act" and e[1] == 1]
    assert ("act", 1, None) in mine and ("act", 1, str_to_action("discard 8D")) not in mine
    own = SeatView(game, 0).history()
    assert ("act", 0, str_to_action("discard 8C")) in own


def test_voids_follow_from_R3_and_from_forced_undertrumps():
    game = stacked_game("seven_up", 3, hands=("2S 3S 4S 7S 8S 9S", "5H 2C 3C 4C 5C 6C",
                                             "QS 7C 8C 9C TC JC"), turnup="6S",
                        undertrump="banned_unless_no_choice")
    play(game, "1:stand", "1:play 5H", "2:play QS", "0:play 2S")
    voids = known_voids(game)
    assert voids[2] == 0  # trumping is always allowed: no inference
    lower_spades = sum(1 << parse_card(c) for c in "2S 3S 4S 5S 6S 7S 8S 9S TS JS".split())
    assert voids[0] == ((1 << 52) - 1) & ~lower_spades  # forced under-trump: only lower trumps held
    game2 = stacked_game(hands=("4C 5C 2D 3S 4S 5S", "AH 6D 3D 4D 5D 8C"), turnup="9C")
    play(game2, "1:stand", "1:play AH", "0:play 2D")  # 0 neither followed nor trumped
    hearts = sum(1 << parse_card(r + "H") for r in "23456789TJQKA")
    assert known_voids(game2)[0] == hearts


def test_observations_of_a_seat_do_not_depend_on_cards_hidden_from_it():
    mine = "KC 4C AD KH 5S 3D"
    deck_a = stack_deck(2, 0, [mine.split(), "JC 2C TD TH AS QH".split()], "8C")
    deck_b = stack_deck(2, 0, [mine.split(), "9S 2H 6D 7H QS QD".split()], "8C")
    views = []
    for deck in (deck_a, deck_b):
        game = Game(Rules.make(), seed=0, dealer=0, decks=[deck])
        game.apply(str_to_action("beg"))
        view = SeatView(game, 0)
        views.append((view.hand, view.history(), view.turnups, view.hand_sizes(), view.legal_actions(),
                      view.scores))
    assert views[0] == views[1]


def _brute_force(hidden, sizes, forbidden):
    """Every split of ``hidden`` into hands of ``sizes`` avoiding ``forbidden`` (pool = rest)."""
    out = []
    for first in itertools.combinations(hidden, sizes[0]):
        if any(forbidden[0] >> c & 1 for c in first):
            continue
        rest = [c for c in hidden if c not in first]
        for second in itertools.combinations(rest, sizes[1]):
            if any(forbidden[1] >> c & 1 for c in second):
                continue
            out.append((frozenset(first), frozenset(second)))
    return out


def test_draw_hands_is_uniform_over_consistent_splits():
    hidden = [0, 1, 2, 13, 14, 26, 27]  # clubs 2-4, diamonds 2-3, hearts 2-3
    clubs = 0b111
    forbidden = [clubs, 1 << 26]  # seat A is void in clubs, seat B cannot hold 2H
    sizes = [2, 3]
    support = _brute_force(hidden, sizes, forbidden)
    rng = random.Random(0)
    draws = 200 * len(support)
    counts = Counter()
    for _ in range(draws):
        hands, pool = _draw_hands(hidden, sizes, forbidden, rng)
        key = (frozenset(hands[0]), frozenset(hands[1]))
        assert key in set(support)
        assert sorted(hands[0] + hands[1] + pool) == sorted(hidden)
        counts[key] += 1
    assert set(counts) == set(support)
    expected = draws / len(support)
    chi2 = sum((counts[k] - expected) ** 2 / expected for k in support)
    dof = len(support) - 1
    assert chi2 < dof + 5 * (2 * dof) ** 0.5  # far beyond the 99.9th percentile would fail


def test_draw_hands_draws_the_same_deals_whether_its_split_counts_are_kept_or_not():
    hidden = list(range(0, 40, 2))
    sizes = [5, 4, 6]
    forbidden = [mask_of(hidden[:6]), mask_of(hidden[4:9]), mask_of(hidden[12:15])]
    runs = []
    for keep in (False, True):
        rng = random.Random(3)
        draws = []
        for _ in range(10):
            if not keep:  # every draw counts its splits afresh
                _count_splits.cache_clear()
                _split_options.cache_clear()
            draws.append(_draw_hands(hidden, sizes, forbidden, rng))
        runs.append(draws)
    assert runs[0] == runs[1]
    assert len({str(d) for d in runs[0]}) > 1
    for hands, pool in runs[0]:
        assert [len(h) for h in hands] == sizes
        assert not any(mask_of(h) & f for h, f in zip(hands, forbidden))
        assert sorted(sum(hands, []) + pool) == hidden


def test_draw_hands_reports_impossible_constraints():
    with pytest.raises(ValueError, match="no deal is consistent"):
        _draw_hands([0, 1], [2], [0b11], random.Random(0))


def test_resample_does_not_leak_future_deals_from_the_real_rng():
    game = Game(Rules.make(), seed=9)
    world_a = SeatView(game, game.current_player).resample(random.Random(1))
    world_b = SeatView(game, game.current_player).resample(random.Random(2))
    assert world_a.rng.getstate() != game.rng.getstate()
    assert world_a.rng.getstate() != world_b.rng.getstate()


def _slots(game):
    """The game's state, but its scans of the log (``Game.scans``: what was read of it, not state)."""
    return [(name, game.rng.getstate() if name == "rng" else getattr(game, name))
            for name in Game.__slots__ if name != "scans"]


@pytest.mark.parametrize("preset, players", [("seven_up", 2), ("all_fours", 4), ("california_jack", 2),
                                             ("shasta_sam", 2), ("pitch_with_joker", 3)])
def test_resample_is_the_same_world_for_the_same_rng_and_leaves_the_game_alone(preset, players):
    game = Game(Rules.make(preset, players), seed=4)
    rng = random.Random(0)
    for _ in range(25):
        if game.is_over:
            break
        game.legal_actions()
        before = _slots(game)
        seat = game.current_player
        worlds = [SeatView(game, seat).resample(random.Random(7)) for _ in range(2)]
        assert _slots(worlds[0]) == _slots(worlds[1])
        assert _slots(game) == before
        legal = game.legal_actions()
        game.apply(legal[rng.randrange(len(legal))])


def test_a_world_sampled_for_a_seat_not_to_move_has_the_legal_moves_of_its_own_hands():
    game = Game(Rules.make("seven_up", 3), seed=2)
    rng = random.Random(3)
    checked = 0
    while not game.is_over and checked < 40:
        if game.phase_name == "play":
            game.legal_actions()  # the real game's cache filled
            seat = (game.current_player + 1) % game.n
            world = SeatView(game, seat).resample(rng)
            mover = world.current_player
            played = played_cards(game)
            assert world.play_mask() & ~world.hands[mover] == 0
            assert world.legal_actions() == tuple(a for a in range(117) if world.legal_action_bits() >> a & 1)
            for q in range(game.n):
                if q != seat:
                    assert world.in_play()[q] == world.hands[q] | played[q]
            checked += 1
        legal = game.legal_actions()
        game.apply(legal[rng.randrange(len(legal))])
    assert checked >= 20


def _scans_afresh(game, observer):
    """What the scans read from the hand's log alone, nothing kept from earlier calls."""
    fresh = game.copy()
    fresh.scans = []
    return (played_cards(fresh), known_voids(fresh, observer),
            seen_draws(fresh, observer) if observer is not None else None)


@pytest.mark.parametrize("rules", [Rules.make("california_jack", 2), Rules.make("shasta_sam", 2),
                                   Rules.make("pitch_with_joker", 4, undertrump="banned_unless_no_choice"),
                                   Rules.make("seven_up", 3)],
                         ids=lambda r: f"{r.preset}-{r.num_players}p-{r.undertrump.value}")
def test_scans_kept_by_a_game_agree_with_reading_the_hand_afresh(rules):
    """The scans of the log carry on from where a game's last call left them (Game.scans): at every
    step of whole games, in copies that went their own ways and across hands, they are what a fresh
    read of the hand gives."""
    rng = random.Random(5)
    game = Game(rules, seed=8)
    branches = []
    for step in range(400):
        if game.is_over:
            break
        observer = None if step % 5 == 0 else game.current_player
        kept = (played_cards(game), known_voids(game, observer),
                seen_draws(game, observer) if observer is not None else None)
        assert kept == _scans_afresh(game, observer)
        if step % 37 == 0:
            branches.append(game.copy())
        legal = game.legal_actions()
        game.apply(legal[rng.randrange(len(legal))])
    for branch in branches:  # a copy taken earlier, played on otherwise
        for _ in range(6):
            if branch.is_over:
                break
            legal = branch.legal_actions()
            branch.apply(legal[-1])
            for observer in (None, 0):
                assert known_voids(branch, observer) == _scans_afresh(branch, observer)[1]
