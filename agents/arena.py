"""Play whole games between agents on the bare engine (fast: observations only for agents that
read them). Tournaments, tests and the training's evaluations build on :func:`play_game`."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from agents.base import Agent
from allfours_env.actions import NUM_ACTIONS, action_to_str
from allfours_env.engine import MAX_HANDS, Game, IllegalActionError
from allfours_env.knowledge import SeatView
from allfours_env.observation import SeatEncoder
from allfours_env.rules import Rules
from allfours_env.seeding import derive_seed


class GameTooLongError(RuntimeError):
    """A game that did not reach its target within the hand cap (:data:`~allfours_env.engine.MAX_HANDS`)."""


def play_game(
    rules: Rules,
    players: Sequence[Agent],
    *,
    seed: int,
    dealer: int | None = None,
    decks: Sequence[Sequence[str]] | None = None,
    max_hands: int = MAX_HANDS,
) -> Game:
    """Play one game to the end: ``players[s]`` decides for seat ``s`` (the same agent object may
    hold several seats, e.g. both seats of a partnership). The game's deals come from ``seed``
    (or ``decks``), and every distinct agent is reset with a seed derived from ``seed`` and its
    first seat, so the result depends on nothing else. An illegal action raises an
    :class:`~allfours_env.engine.IllegalActionError` naming the agent; a game still undecided after
    ``max_hands`` hands raises :class:`GameTooLongError` (random bidders in the auction presets)."""
    if len(players) != rules.num_players:
        raise ValueError(f"{rules.num_players} players needed, got {len(players)}")
    game = Game(rules, seed=seed, dealer=dealer, decks=decks)
    first_seat: dict[int, int] = {}
    for seat, agent in enumerate(players):
        first_seat.setdefault(id(agent), seat)
    for seat, agent in enumerate(players):
        if first_seat[id(agent)] == seat:
            agent.reset(derive_seed(seed, "agent", seat))
    encoders = {}
    for seat, agent in enumerate(players):
        if agent.needs_observation:
            encoders[seat] = SeatEncoder(rules, seat)
            encoders[seat].reset(game)
    views = [SeatView(game, seat) for seat in range(rules.num_players)]
    while not game.is_over:
        if game.hand_number >= max_hands:
            raise GameTooLongError(
                f"the {rules.preset} game between {', '.join(sorted({a.name for a in players}))} is still "
                f"undecided after {max_hands} hands (scores {game.scores}); random bidders in the auction "
                f"presets may never reach the target: they are set back more than they score"
            )
        seat = game.current_player
        agent = players[seat]
        observation = None
        if seat in encoders:
            mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
            mask[list(game.legal_actions())] = 1
            observation = {"observation": encoders[seat].update().copy(), "action_mask": mask}
        action = agent.act(observation, views[seat])
        try:
            game.apply(action)
        except (IllegalActionError, TypeError) as err:
            raise IllegalActionError(
                f"agent {agent.name!r} in seat {seat} chose {action!r} "
                f"({_describe(action)}), which is not legal: {err}"
            ) from None
    return game


def _describe(action: object) -> str:
    try:
        return action_to_str(action)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return "not an action id"
