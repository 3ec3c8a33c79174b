"""The action layout: fixed ids, their text, and the decoders by id."""


import pytest

from allfours_env import NUM_ACTIONS, action_to_str, str_to_action
from allfours_env.cards import (
    card_str,
)


def test_action_layout_ids_are_fixed():
    assert [str_to_action(t) for t in ("stand", "beg", "gift", "run")] == [0, 1, 2, 3]
    assert str_to_action("discard 2C") == 4 and str_to_action("discard JK") == 56
    assert str_to_action("play 2C") == 57 and str_to_action("play AS") == 108
    assert str_to_action("play JK") == 109 and str_to_action("pass") == 110
    assert str_to_action("bid 1") == 111 and str_to_action("bid 5") == 115
    assert str_to_action("hold") == 116 and NUM_ACTIONS == 117


def test_every_action_id_round_trips_through_its_text():
    for action in range(NUM_ACTIONS):
        assert str_to_action(action_to_str(action)) == action


@pytest.mark.parametrize("text", ["play", "play 1H", "play 10h", "bid 6", "bid 0", "fold", "Play AS", ""])
def test_unknown_action_text_raises(text):
    with pytest.raises(ValueError, match="not an action"):
        str_to_action(text)


def test_out_of_range_action_id_raises():
    with pytest.raises(ValueError, match="out of range"):
        action_to_str(NUM_ACTIONS)


def test_the_action_decoders_agree_with_the_text_of_every_id():
    from allfours_env.actions import (
        BID_AMOUNT,
        DISCARDED_CARD,
        IS_AUCTION_ACTION,
        PLAYED_CARD,
        action_card,
        bid_action,
        is_bid,
        is_discard,
        is_play,
    )

    for action in range(NUM_ACTIONS):
        verb, _, arg = action_to_str(action).partition(" ")
        assert is_play(action) == (verb == "play") and is_discard(action) == (verb == "discard")
        assert is_bid(action) == (verb == "bid")
        assert IS_AUCTION_ACTION[action] == (verb in ("pass", "bid", "hold"))
        card = PLAYED_CARD[action] if verb == "play" else DISCARDED_CARD[action]
        assert (card_str(card) if card >= 0 else "") == (arg if verb in ("play", "discard") else "")
        assert action_card(action) == (card if card >= 0 else None)
        assert BID_AMOUNT[action] == (int(arg) if verb == "bid" else 0)
        if verb == "bid":
            assert bid_action(int(arg)) == action
