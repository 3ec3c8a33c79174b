"""Cards and their text form, bit sets of cards, packs and their shuffling (docs/rules.md §1)."""

import random

import pytest

from allfours_env.actions import str_to_action
from allfours_env.cards import (
    JOKER,
    card_str,
    cards_of,
    mask_of,
    mask_str,
    parse_card,
    parse_cards,
    parse_deck,
    rank_of,
    shuffled_pack,
    suit_of,
)

# ---------------------------------------------------------------- cards

def test_card_ids_and_text_round_trip():
    assert parse_card("2C") == 0 and parse_card("AC") == 12 and parse_card("2D") == 13
    assert parse_card("AS") == 51 and parse_card("JK") == JOKER
    for card in range(53):
        assert parse_card(card_str(card)) == card
    assert suit_of(parse_card("TD")) == 1 and rank_of(parse_card("TD")) == 8


@pytest.mark.parametrize("suit", "CDHS")
def test_the_ten_is_read_as_T_or_as_10_and_written_T(suit):
    assert parse_card(f"10{suit}") == parse_card(f"T{suit}")
    assert card_str(parse_card(f"10{suit}")) == f"T{suit}"
    assert str_to_action(f"play 10{suit}") == str_to_action(f"play T{suit}")
    assert str_to_action(f"discard 10{suit}") == str_to_action(f"discard T{suit}")


@pytest.mark.parametrize("text, hint", [
    ("10h", "'10H'"), ("th", "'TH'"), ("as", "'AS'"), ("SA", "rank comes first"), ("XX", "ranks"),
    ("", "not a card"), ("A S", "not a card"),
])
def test_parse_card_errors_name_the_problem_and_the_fix(text, hint):
    with pytest.raises(ValueError, match=hint):
        parse_card(text)


def test_parse_card_rejects_non_strings():
    with pytest.raises(ValueError, match="string"):
        parse_card(12)


def test_bit_set_helpers():
    cards = parse_cards("KC 4C AD")
    mask = mask_of(cards)
    assert sorted(cards_of(mask)) == sorted(cards)
    assert mask_str(mask) == "AD KC 4C"


@pytest.mark.parametrize("seed", range(50))
def test_shuffled_pack_is_a_permutation_drawn_like_random_shuffle(seed):
    """The spelled-out Fisher-Yates deals a whole pack and makes the same draws, in the same order,
    as CPython's random.shuffle — so it left every seeded deal (and published result) unchanged."""
    ours, reference = random.Random(seed), random.Random(seed)
    pack = list(range(52))
    reference.shuffle(pack)
    assert shuffled_pack(ours) == pack
    assert ours.getstate() == reference.getstate()


FULL_DECK = [card_str(c) for c in range(52)]


def test_parse_deck_accepts_a_full_pack_top_card_first():
    assert parse_deck(FULL_DECK) == list(range(52))


@pytest.mark.parametrize("deck, message", [
    (FULL_DECK[:51], "exactly 52 cards, this one holds 51"),
    (FULL_DECK + ["AS"], "AS twice"),
    (FULL_DECK[:51] + ["2C"], "2C twice"),
    (FULL_DECK[:51] + ["ZZ"], "position 51"),
    (FULL_DECK[:51] + ["JK"], "joker"),
    ("AS KS", "not one string"),
    (FULL_DECK[:51] + [None], "position 51"),
])
def test_malformed_decks_are_rejected_with_a_clear_message(deck, message):
    with pytest.raises(ValueError, match=message):
        parse_deck(deck)


# ---------------------------------------------------------------- rules
