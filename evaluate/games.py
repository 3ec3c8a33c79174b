"""Playing the games of one deal group and boiling each down to a small, picklable summary.

A :class:`GroupPlayer` lives in every process that plays games (the main one, or each worker). It
builds its agents on first use and keeps them: agents are reset with a game-specific seed at the
start of every game, so reusing them changes nothing (see :mod:`agents.base`).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from agents.arena import play_game
from agents.base import Agent, make_agent
from allfours_env.actions import BEG, GIFT, HOLD, MAX_BID, PASS, RUN, STAND, bid_action
from allfours_env.cards import pack_size
from allfours_env.engine import Game
from allfours_env.events import EventKind
from allfours_env.rules import PointKind, Rules, TrumpSelection
from allfours_env.seeding import derive_seed
from evaluate.schedule import Table, deal_group, game_seed

#: Decision counts kept per side, in this order (every bid of 1 .. MAX_BID counts as a ``bid``).
DECISIONS = ("stand", "beg", "gift", "run", "pass", "bid", "hold")
_DECISION_SLOT = {STAND: 0, BEG: 1, GIFT: 2, RUN: 3, PASS: 4, HOLD: 6} | {
    bid_action(amount): 5 for amount in range(1, MAX_BID + 1)}
#: The numbers of :attr:`GameSummary.contracts`, in order.
CONTRACT_FIELDS = ("won", "made", "points")
#: The decisions a game can hold, by how trump is chosen (none where the cards alone decide).
DECISIONS_BY_SELECTION = {TrumpSelection.TURNUP: DECISIONS[:4], TrumpSelection.AUCTION: DECISIONS[4:]}


@dataclass(slots=True)
class GameSummary:
    """What the statistics need from one game (its record only if asked for).

    ``sides[side]`` is the agent index holding that side; ``hands`` counts hands played (a hand
    thrown in for an exhausted pack and its redeal count as one; the last, interrupted hand counts);
    ``awards[kind][side]`` sums the points of each kind; ``decisions[side]`` counts the decisions of
    that side's seats by :data:`DECISIONS`; ``contracts[side]`` is ``(won, made, points)`` of the
    auctions that side won with a bid (RD13–RD15: the contract of 0 after everyone passed is none;
    made: no setback, RD18; points: the contracts summed), or None where unknown (pooled games).
    """

    index: int
    table: int
    group: int
    seating: int
    sides: tuple[int, ...]
    scores: tuple[int, ...]
    winner: int
    hands: int
    deals: int
    awards: dict[str, tuple[int, ...]]
    decisions: tuple[tuple[int, ...], ...]
    contracts: tuple[tuple[int, int, int], ...] | None
    record: dict[str, Any] | None = field(default=None, repr=False)

    def to_tuple(self) -> tuple:
        """The fields as a plain tuple: pickles several times faster (worker → main process)."""
        return (self.index, self.table, self.group, self.seating, self.sides, self.scores, self.winner,
                self.hands, self.deals, self.awards, self.decisions, self.contracts, self.record)

    @property
    def winning_agent(self) -> int:
        """The agent index holding the winning side."""
        return self.sides[self.winner]


def summarize_game(game: Game, table: Table, group: int, seating: int, index: int,
                   keep_record: bool) -> GameSummary:
    """Boil a finished game down to a :class:`GameSummary`."""
    rules = game.rules
    num_sides = rules.num_sides
    awards: dict[str, list[int]] = {}
    for award in game.awards:
        awards.setdefault(award.kind, [0] * num_sides)[award.side] += award.points
    decisions = [[0] * len(DECISIONS) for _ in range(num_sides)]
    for kind, seat, value in game.log:
        if kind == EventKind.ACT and value in _DECISION_SLOT:
            decisions[rules.side_of(seat)][_DECISION_SLOT[value]] += 1
    return GameSummary(
        index=index,
        table=table.index,
        group=group,
        seating=seating,
        sides=table.seatings[seating],
        scores=tuple(game.scores),
        winner=game.winner,
        hands=game.hand_number + 1,
        deals=len(game.decks),
        awards={kind: tuple(points) for kind, points in awards.items()},
        decisions=tuple(tuple(d) for d in decisions),
        contracts=contracts_of(game),
        record=game.record() if keep_record else None,
    )


def contracts_of(game: Game) -> tuple[tuple[int, int, int], ...]:
    """Per side ``(won, made, points)`` of the auctions it won with a bid in ``game`` (see
    :class:`GameSummary`); zeros without an auction. Every auction's outcome is read from the log: the
    ``contract`` event the engine logs when an auction ends (the pitcher and the contract), and the
    ``setback`` award of a contract not made (RD18)."""
    rules = game.rules
    contracts = [[0, 0, 0] for _ in range(rules.num_sides)]
    if rules.plan.auction:
        for kind, who, value in game.log:
            if kind == EventKind.CONTRACT:
                if value:  # contract 0 (everyone passed) is none (RD15)
                    tally = contracts[rules.side_of(who)]
                    tally[0] += 1
                    tally[1] += 1
                    tally[2] += value
            elif kind == EventKind.AWARD and value.kind == PointKind.SETBACK:
                contracts[value.side][1] -= 1  # not made
    return tuple(tuple(c) for c in contracts)  # type: ignore[misc]


def describe_failure(err: BaseException) -> str:
    """One line for an error that stopped a tournament, with the game :class:`GroupPlayer` noted."""
    notes = "; ".join(getattr(err, "__notes__", ()))
    return f"{type(err).__name__}: {err}" + (f" ({notes})" if notes else "")


class GroupPlayer:
    """Plays whole deal groups: every seating of a table on the group's packs."""

    def __init__(self, rules: Rules, sources: list[str | Agent], seed: int, tables: list[Table],
                 keep_records: bool = False, prebuilt: list[Agent] | None = None) -> None:
        self.rules = rules
        self.sources = sources
        self.seed = seed
        self.tables = tables
        self.keep_records = keep_records
        # (agent index, copy number) -> instance; ``prebuilt`` agents are the first copies
        self._agents: dict[tuple[int, int], Agent] = {(i, 0): a for i, a in enumerate(prebuilt or ())}
        # Packs generated per deal group; a game that needs more than it is handed is replayed
        # with more (same result: the packs of a group are one stream). Only speed depends on this.
        self._decks_hint = 6
        self._pack_size = pack_size(rules.joker)

    def agent(self, index: int, copy_number: int) -> Agent:
        """The ``copy_number``-th instance of agent ``index`` (one per side it holds at once)."""
        key = (index, copy_number)
        if key not in self._agents:
            source = self.sources[index]
            if isinstance(source, str):
                built = make_agent(source, seed=derive_seed(self.seed, "build", index, copy_number))
            elif copy_number == 0:
                built = source
            else:
                built = copy.deepcopy(source)
            self._agents[key] = built
        return self._agents[key]

    def players(self, seating: tuple[int, ...]) -> list[Agent]:
        """The agent of every seat: each side's agent holds all the seats of that side."""
        side_agents = []
        held: dict[int, int] = {}
        for agent_index in seating:
            side_agents.append(self.agent(agent_index, held.get(agent_index, 0)))
            held[agent_index] = held.get(agent_index, 0) + 1
        rules = self.rules
        return [side_agents[rules.side_of(seat)] for seat in range(rules.num_players)]

    def play_group(self, table_index: int, group: int,
                   on_game: Callable[[], None] | None = None) -> list[GameSummary]:
        """Play deal group ``group`` once in every seating of table ``table_index``; ``on_game`` is
        called after each game (progress counts games, not deal groups)."""
        table = self.tables[table_index]
        n = self.rules.num_players
        dealer, decks = deal_group(self.seed, group, n, self._decks_hint, self._pack_size)
        offer = len(decks)  # packs handed to the next game (parsing a pack costs time)
        out = []
        for seating_number, seating in enumerate(table.seatings):
            index = table.game_index(group, seating_number)
            players = self.players(seating)
            while True:
                try:
                    game = play_game(self.rules, players, seed=game_seed(self.seed, index), dealer=dealer,
                                     decks=decks[:offer])
                except Exception as err:
                    err.add_note(f"in game {index}: table {table_index}, deal group {group}, "
                                 f"seating {seating_number}, tournament seed {self.seed}")
                    raise
                used = len(game.decks)
                if used <= offer:
                    break
                # It ran out of packs and shuffled its own: replay it with more of the group's packs.
                self._decks_hint = max(self._decks_hint, used + 2)
                offer = used + 2
                if offer > len(decks):
                    dealer, decks = deal_group(self.seed, group, n, 2 * offer, self._pack_size)
            out.append(summarize_game(game, table, group, seating_number, index, self.keep_records))
            if on_game is not None:
                on_game()
            offer = min(len(decks), used + 2)  # the same cards tend to need as many deals
        return out
