"""One award shape (:class:`~allfours_env.scoring.Award`), the contract logged when an auction ends,
and one list of point kinds (:data:`~allfours_env.rules.POINT_KIND_ORDER`)."""

from __future__ import annotations

import json
import random

import pytest

from allfours_env import Game, Rules
from allfours_env.events import EventKind, Phase
from allfours_env.render import describe_event
from allfours_env.rules import (
    EXTRA_POINT_KINDS,
    POINT_KIND_ORDER,
    POINT_KIND_TITLES,
    SCORED_WHERE_SCORED,
    PointKind,
    TrumpSelection,
)
from allfours_env.scoring import Award
from conftest import PRESET_PLAYERS, STOCK_AUCTION_PRESET_PLAYERS, random_game

ALL_PRESET_PLAYERS = PRESET_PLAYERS + STOCK_AUCTION_PRESET_PLAYERS


def test_every_point_kind_is_listed_once_and_has_a_title():
    assert sorted(POINT_KIND_ORDER) == sorted(PointKind) and len(set(POINT_KIND_ORDER)) == len(PointKind)
    assert set(POINT_KIND_TITLES) == set(PointKind)
    assert SCORED_WHERE_SCORED <= set(PointKind)
    for kinds in EXTRA_POINT_KINDS.values():
        assert set(kinds) <= set(PointKind)
    assert set(EXTRA_POINT_KINDS) <= set(TrumpSelection)


@pytest.mark.parametrize("preset, players", ALL_PRESET_PLAYERS)
def test_awards_are_one_shape_in_the_game_the_log_and_the_record(preset, players):
    game = random_game(preset, players, seed=3, decisions=3000)
    logged = [value for kind, _, value in game.log if kind == EventKind.AWARD]
    assert logged == game.awards and all(type(award) is Award for award in logged)
    deal = -1
    for kind, who, value in game.log:
        if kind == EventKind.DEAL:
            deal = value
        elif kind == EventKind.AWARD:
            assert who == value.side and value.deal == deal and isinstance(value.kind, PointKind)
    record = game.record()
    assert record["awards"] == [award._asdict() for award in game.awards]
    text = json.dumps(record["awards"])
    assert json.loads(text) == [{"deal": a.deal, "kind": str(a.kind), "side": a.side, "points": a.points}
                                for a in game.awards]
    assert all(list(a) == ["deal", "kind", "side", "points"] for a in json.loads(text))


@pytest.mark.parametrize("preset, players",
                         [("auction_pitch", 2), ("auction_pitch", 4), ("pitch_with_joker", 3)])
def test_the_contract_is_logged_when_the_auction_ends(preset, players):
    for seed in range(4):
        game = Game(Rules.make(preset, players), seed=seed)
        rng = random.Random(seed)
        live = {}  # deal -> (pitcher, contract) as the engine held them in play
        while not game.is_over and game.hand_number < 10:
            if game.phase == Phase.PLAY:
                live[len(game.decks) - 1] = (game.pitcher, game.contract)
            game.apply(rng.choice(game.legal_actions()))
        logged, deal, previous = {}, -1, None
        for event in game.log:
            kind, who, value = event
            if kind == EventKind.DEAL:
                deal = value
            elif kind == EventKind.CONTRACT:
                assert deal not in logged  # one per auction
                assert previous is not None and previous.kind == EventKind.ACT  # right after the last bid
                logged[deal] = (who, value)
                assert describe_event(game, event) == f"player_{who} pitches, contract {value}"
            previous = event
        assert logged == live


@pytest.mark.parametrize("preset, players", [p for p in ALL_PRESET_PLAYERS
                                             if Rules.make(*p).trump_selection != TrumpSelection.AUCTION])
def test_no_contract_without_an_auction(preset, players):
    game = random_game(preset, players, seed=5, decisions=3000)
    assert not [e for e in game.log if e.kind == EventKind.CONTRACT]
