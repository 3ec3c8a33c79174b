"""The engine's copies and its games with other hidden cards (``Game.copy``,
``Game.with_hidden_cards``), the card tables, and the one rule of the random players."""

from __future__ import annotations

import copy
import dataclasses
import enum
import random

import numpy as np
import pytest

from allfours_env import PRESETS, Game, Rules, str_to_action
from allfours_env.actions import DISCARDED_CARD, PLAY_BASE
from allfours_env.cards import JOKER, NUM_CARDS, RANK_OF, SUIT_OF, mask_of, parse_cards, rank_of, suit_of
from allfours_env.events import EventKind
from allfours_env.knowledge import SeatView, played_cards, resample
from allfours_env.wrappers import RandomPolicy, random_legal_action
from conftest import play, stacked_game


def _cases():
    for preset in sorted(PRESETS):
        for players in (2, 3, 4):
            try:
                yield Rules.make(preset, players)
            except ValueError:
                continue


def _states(rules: Rules, seed: int, every: int = 5, stacked: bool = False):
    """Games of random legal play (the same object, moved on) every ``every`` decisions."""
    decks = [random.Random(seed).sample(range(len(Game(rules, seed=0).deck)), len(Game(rules, seed=0).deck))
             for _ in range(3)] if stacked else None
    game = Game(rules, seed=seed, decks=decks)
    rng = random.Random(seed)
    for step in range(400):
        if game.is_over:
            return
        if step % every == 0:
            yield game
        legal = game.legal_actions()
        game.apply(legal[rng.randrange(len(legal))])


def _immutable(value) -> bool:
    if value is None or isinstance(value, (bool, int, float, str, enum.Enum)):
        return True
    if isinstance(value, tuple):
        return all(_immutable(item) for item in value)
    return dataclasses.is_dataclass(value) and type(value).__dataclass_params__.frozen


def _snapshot(game: Game) -> list:
    return [(name, game.rng.getstate() if name == "rng" else copy.deepcopy(getattr(game, name)))
            for name in Game.__slots__]


# ---------------------------------------------------------------------------------- Game.copy


@pytest.mark.parametrize("rules", list(_cases()), ids=lambda r: f"{r.preset}-{r.num_players}p")
def test_every_slot_holds_a_list_an_rng_or_an_immutable_value(rules):
    """What Game.copy relies on: a slot it shares is immutable, a list it copies holds one kind of
    item (a list of lists is told by its first item). A new slot of another kind fails here."""
    for game in _states(rules, seed=3, stacked=True):
        game.legal_actions()  # the cache filled
        for name in Game.__slots__:
            value = getattr(game, name)
            if isinstance(value, list):
                assert type(value) is list, name
                nested = [type(item) is list for item in value]
                assert all(nested) or not any(nested), f"{name} mixes lists and other items"
                for item in value:
                    assert type(item) is list and all(_immutable(x) for x in item) or _immutable(item), name
            else:
                assert type(value) is random.Random or _immutable(value), f"{name}: {type(value).__name__}"


@pytest.mark.parametrize("rules", list(_cases()), ids=lambda r: f"{r.preset}-{r.num_players}p")
def test_a_copy_shares_nothing_mutable_with_its_original(rules):
    """Mutate every list slot of the copy (and every list in it) and its RNG: the original is as it
    was — whatever slots the engine gains."""
    for game in _states(rules, seed=4, every=7, stacked=True):
        before = _snapshot(game)
        other = game.copy()
        assert _snapshot(other) == before
        for name in Game.__slots__:
            value = getattr(other, name)
            if isinstance(value, list):
                for item in value:
                    if isinstance(item, list):
                        item.append(-7)
                value.append(-7)
        other.rng.random()
        assert _snapshot(game) == before


def test_a_copy_plays_on_exactly_like_its_original_future_deals_included():
    for preset, players in (("seven_up", 2), ("california_jack", 2), ("pitch_with_joker", 4)):
        game = Game(Rules.make(preset, players), seed=11)
        for _ in range(7):
            game.apply(game.legal_actions()[0])
        other = game.copy()
        rng_a, rng_b = random.Random(1), random.Random(1)
        for _ in range(300):
            if game.is_over:
                break
            legal = game.legal_actions()
            assert other.legal_actions() == legal
            game.apply(legal[rng_a.randrange(len(legal))])
            other.apply(legal[rng_b.randrange(len(legal))])
        assert _snapshot(other) == _snapshot(game)


def test_a_copy_keeps_the_deck_and_the_current_deal_one_list():
    game = Game(Rules.make(), seed=2)
    assert game.deck is game.decks[-1]
    other = game.copy()
    assert other.deck is other.decks[-1] and other.deck is not game.deck


def test_packs_stacked_later_are_dealt_in_order_after_the_first_ones():
    rng = random.Random(4)
    packs = [rng.sample(range(NUM_CARDS), NUM_CARDS) for _ in range(8)]
    game = Game(Rules.make("seven_up", 2), seed=1, dealer=0, decks=packs[:1])
    game.stack(packs[1:])
    while not game.is_over and len(game.decks) < len(packs):
        game.apply(random_legal_action(game.legal_actions(), rng))
    assert game.decks == packs[:len(game.decks)] and len(game.decks) > 1
    with pytest.raises(ValueError):
        game.stack([packs[0][:10]])


# ---------------------------------------------------------------------- Game.with_hidden_cards


def _hidden_of(game: Game, seats):
    hands = {s: game.hands[s] for s in seats}
    discards = {s: game.discards[s] for s in seats}
    return hands, discards, list(game.deck[game.pos:])


def test_the_same_hidden_cards_give_the_same_game_with_a_new_rng():
    game = Game(Rules.make("seven_up", 2), seed=5, dealer=0)
    play(game, "1:stand")
    hands, discards, stock = _hidden_of(game, [0])
    world = game.with_hidden_cards(hands, discards, stock, seed=9)
    same = dict(_snapshot(world))
    for name, value in _snapshot(game):
        if name not in ("rng", "_stacked", "_legal", "_play_mask", "start_hands", "drawn"):
            assert same[name] == value, name
    assert world.in_play() == game.in_play()
    assert world.rng.getstate() == random.Random(9).getstate()
    assert game.with_hidden_cards(hands, discards, stock, seed=9).rng.getstate() == world.rng.getstate()


def test_other_hidden_cards_rebuild_the_hands_the_cards_in_play_and_the_legal_moves():
    game = stacked_game(hands=("2C 3C 4C 5C 6C 7C", "2D 3D 4D 5D 6D 7D"), turnup="9H")
    play(game, "1:stand", "1:play 7D")
    assert game.legal_actions() == tuple(PLAY_BASE + c for c in parse_cards("2C 3C 4C 5C 6C 7C"))
    before = _snapshot(game)
    # player_0 holds six hearts now (from the stock); its clubs go to the stock
    hearts = mask_of(parse_cards("2H 3H 4H 5H 6H 7H"))
    stock = game.deck[game.pos:]
    new_stock = [c for c in stock if not hearts >> c & 1] + parse_cards("2C 3C 4C 5C 6C 7C")
    world = game.with_hidden_cards({0: hearts}, {0: 0}, new_stock, seed=1)
    assert _snapshot(game) == before  # the original is untouched
    assert world.hands[0] == hearts and world.hands[1] == game.hands[1]
    assert world.legal_actions() == tuple(PLAY_BASE + c for c in parse_cards("2H 3H 4H 5H 6H 7H"))
    assert world.play_mask() == hearts
    assert world.in_play()[0] == hearts and world.in_play()[1] == game.in_play()[1]
    assert world.deck[world.pos:] == new_stock and world.decks[-1] is world.deck
    assert world.trick_cards == game.trick_cards and world.log == game.log
    world.apply(str_to_action("play 7H"))  # plays on
    assert world.hands[0] == hearts & ~mask_of(parse_cards("7H"))


def test_cards_played_stay_in_play_and_a_given_seats_draws_become_part_of_its_hand():
    game = Game(Rules.make("california_jack", 2), seed=3)
    for _ in range(9):  # a few tricks, with draws
        game.apply(game.legal_actions()[0])
    assert any(game.drawn)
    played = played_cards(game)
    seats = [0, 1]
    hands, discards, stock = _hidden_of(game, seats)
    cards = [c for s in seats for c in range(NUM_CARDS) if hands[s] >> c & 1] + stock
    random.Random(0).shuffle(cards)
    new_hands, start = {}, 0
    for s in seats:
        size = hands[s].bit_count()
        new_hands[s] = mask_of(cards[start:start + size])
        start += size
    world = game.with_hidden_cards(new_hands, discards, cards[start:], seed=0)
    for s in seats:
        assert world.start_hands[s] == new_hands[s] | played[s] and world.drawn[s] == 0
        assert world.in_play()[s] == new_hands[s] | played[s]


def test_the_cards_in_play_are_the_hand_and_the_cards_played_in_every_state():
    """The identity with_hidden_cards rebuilds ``start_hands`` by (R6)."""
    for rules in _cases():
        for game in _states(rules, seed=6, every=3):
            if game.start_hands is not None:
                derived = [(s | d) & ~h for s, d, h in zip(game.start_hands, game.drawn, game.hands)]
                assert derived == played_cards(game)


@pytest.mark.parametrize("change, message", [
    (lambda h, d, s: ({**h, 1: h[1] ^ (h[1] & -h[1]) | (1 << 51)}, d, s), "not the cards they replace"),
    (lambda h, d, s: (h, d, s[:-1] + [s[0]]), r"missing \[\w\w\], not hidden \[\]"),  # a card twice
    (lambda h, d, s: ({**h, 1: h[1] ^ (h[1] & -h[1])}, d, s), "bit set of 5 cards"),
    (lambda h, d, s: (h, d, s[:-1]), "must hold the"),
    (lambda h, d, s: (h, {}, s), "same seats"),
    (lambda h, d, s: ({5: 0}, {5: 0}, s), "same seats"),
    (lambda h, d, s: (h, d, s[:-1] + ["AS"]), "card ids"),
    (lambda h, d, s: ({1: True}, {1: 0}, s), "bit set"),
])
def test_cards_that_are_not_the_hidden_cards_rearranged_are_refused(change, message):
    game = stacked_game(hands=("2C 3C 4C 5C 6C 7C", "2D 3D 4D 5D 6D 7D"), turnup="AS")
    play(game, "1:stand", "1:play 7D")  # 7D and the turn-up AS are not hidden any more
    hands, discards, stock = _hidden_of(game, [1])
    before = _snapshot(game)
    with pytest.raises(ValueError, match=message):
        game.with_hidden_cards(*change(hands, discards, stock), seed=0)
    assert _snapshot(game) == before


def test_a_played_card_cannot_come_back():
    game = stacked_game(hands=("2C 3C 4C 5C 6C 7C", "2D 3D 4D 5D 6D 7D"), turnup="9H")
    play(game, "1:stand", "1:play 7D")
    hands, discards, stock = _hidden_of(game, [1])
    hand = hands[1] ^ (1 << stock[0]) if hands[1] >> stock[0] & 1 else hands[1]
    low = hand & -hand
    with pytest.raises(ValueError, match="not hidden"):
        game.with_hidden_cards({1: hand ^ low | 1 << parse_cards("7D")[0]}, discards, stock, seed=0)


# ---------------------------------------------------------------------------------- card tables


def test_the_card_tables_give_every_plain_cards_suit_and_rank_and_none_to_the_joker():
    assert len(SUIT_OF) == len(RANK_OF) == JOKER + 1
    assert all(SUIT_OF[c] == suit_of(c) and RANK_OF[c] == rank_of(c) for c in range(NUM_CARDS))
    assert SUIT_OF[JOKER] == -1 and RANK_OF[JOKER] == -1


# ------------------------------------------------------------------------- the random players


def test_the_random_players_draw_one_index_uniformly_from_their_generator():
    legal = (3, 17, 40, 58)
    for seed in range(20):
        assert random_legal_action(legal, random.Random(seed)) == legal[random.Random(seed).randrange(4)]
        numpy_index = np.random.default_rng(seed).integers(4)
        assert random_legal_action(np.array(legal), np.random.default_rng(seed)) == legal[numpy_index]
    mask = np.zeros(117, dtype=np.int8)
    mask[list(legal)] = 1
    policy = RandomPolicy(np.random.default_rng(4))
    picks = [policy.act({"action_mask": mask}, None) for _ in range(400)]
    assert set(picks) == set(legal) and all(type(p) is int for p in picks)


@pytest.mark.parametrize("preset, players", [("seven_up", 2), ("seven_up", 3), ("shasta_sam", 2),
                                             ("california_jack", 2), ("all_fours", 2)])
def test_a_sampled_game_tells_no_seat_the_real_hidden_cards(preset, players):
    """A deal drawn for one seat (:func:`~allfours_env.knowledge.resample`) rewrites what the log says
    of the hidden cards: every other seat's view of it names its own discards and its draws from the
    sampled deal, never the real ones — a bot playing that seat in a rollout knows nothing the
    searching seat does not."""
    rng = random.Random(1)
    checked = 0
    for seed in range(6):
        for game in _states(Rules.make(preset, players), seed=seed, every=2):
            for observer in range(players):
                world = resample(game, observer, rng)
                for seat in range(players):
                    view = SeatView(world, seat)
                    told = [DISCARDED_CARD[value] for kind, who, value in view.history()
                            if kind == EventKind.ACT and who == seat and DISCARDED_CARD[value] >= 0]
                    assert mask_of(told) == world.discards[seat] and len(told) == len(set(told))
                    for holder, cards in enumerate(view.seen_draws()):
                        assert cards & ~world.hands[holder] == 0, (seed, observer, seat, holder)
                    checked += seat != observer and bool(game.discards[seat] or game.drawn[seat])
    assert checked > 0
