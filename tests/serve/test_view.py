"""A game as JSON for one observer (serve.view) shows what allfours_env.visibility lets it see and
nothing more, in every preset."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from allfours_env.actions import DISCARDED_CARD
from allfours_env.cards import card_str
from allfours_env.events import EventKind
from allfours_env.render import pretty_card
from allfours_env.visibility import sees_stock_top
from conftest import ALL_PRESET_PLAYERS, random_game
from serve.view import cards, hands_played, moves, table


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(ALL_PRESET_PLAYERS), st.integers(0, 10_000), st.integers(0, 150))
def test_a_seat_sees_its_own_cards_only_and_the_spectator_all(preset_players, seed, decisions):
    preset, players = preset_players
    game = random_game(preset, players, seed, decisions)
    for observer in [None, *range(players)]:
        view = table(game, observer)
        for seat in view["seats"]:
            s = seat["seat"]
            own = observer is None or s == observer
            assert seat["cards"] == (cards(game.hands[s]) if own else None)
            assert seat["discards"] == (cards(game.discards[s]) if own else None)
            assert seat["count"] == game.hands[s].bit_count()
        if view["stock"] is not None:
            seen = view["stock"]["top"] is not None
            assert seen == bool(view["stock"]["left"] and sees_stock_top(game.rules, observer))
        assert [p["card"] for p in view["trick"]] == [card_str(c) for c in game.trick_cards]
        log = "\n".join(view["log"])
        for kind, who, value in game.hand_log():  # another seat's discard: the fact, never the card
            if kind == EventKind.ACT and DISCARDED_CARD[value] >= 0 and observer not in (None, who):
                assert f"player_{who}: discard {pretty_card(DISCARDED_CARD[value])}" not in log
    if not game.is_over:
        assert [m["action"] for m in moves(game)] and {m["action"] for m in moves(game)} == set(
            game.legal_actions())


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(ALL_PRESET_PLAYERS), st.integers(0, 10_000))
def test_the_hands_played_hold_every_award_and_the_running_scores(preset_players, seed):
    game = random_game(*preset_players, seed)
    hands = hands_played(game)
    scores = list(game.initial_scores)
    for hand in hands:
        for award in hand["awards"]:
            scores[award["side"]] += award["points"]
        assert hand["scores"] == scores
    if game.is_over:  # (random bidders may not finish an auction game: then a hand is under way)
        assert sum(len(h["awards"]) for h in hands) == len(game.awards)
        assert scores == game.scores
