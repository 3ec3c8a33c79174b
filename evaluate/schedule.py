"""Who plays whom, in which seats, on which cards: the duplicate schedule of a tournament.

Vocabulary:

* a **table** is a set of distinct agents that play each other (a pairing when it holds two);
* a **seating** gives every *side* of the game one agent of the table. An agent holds every seat of
  its side (both partners at four players). When a table holds fewer agents than the game has sides
  (two agents at three players), an agent holds several sides, each played by its own instance;
* a **deal group** is one sequence of packs and a first dealer. Every seating of a table replays the
  same deal group, so each agent sits in each seat equally often on the same cards and the luck of
  the deal cancels (the *duplicate* format). Deal group ``g`` is the same for every table.

The seatings of a table are every assignment of its agents to the sides that uses each agent at
least once: 2 players or 4 in partnerships, agents A, B → AB, BA; 3 players, three agents → the 6
permutations; 3 players, two agents → AAB, ABA, BAA, ABB, BAB, BBA. By symmetry every agent of the
table holds every side (and so every seat) equally often.

**Copies** (:func:`first_copies`): at a table of more than two agents, agents given by the same spec
string (``ppo:m.npz heuristic heuristic heuristic``) are one agent seated several times. Seatings
that differ only in which copy holds which side are the same game played again (the same cards, the
same players), so only the first of them is played: the candidate against three copies of a bot at
four sides plays 4 seatings of a deal group, not the 24 permutations of four distinct agents, and
every game of a table is a different game.

Games are numbered 0, 1, ... across the tournament: table by table, deal group by deal group,
seating by seating (:meth:`Table.game_index`). A game's seeds derive from the tournament seed and
that number alone, so its result does not depend on the order or the process in which it runs.

The work is the stream :func:`work_items` of ``(table, group)`` pairs, made as it is consumed: a
tournament of a billion games holds a handful of :class:`Table` objects, never a list of its games.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from allfours_env.cards import NUM_CARDS
from allfours_env.seeding import derive_seed

SCHEDULES = ("round-robin", "first-vs-rest")


@dataclass(frozen=True)
class Table:
    """A set of agents (indices into the tournament's agent list) and its duplicate schedule."""

    index: int
    agents: tuple[int, ...]
    seatings: tuple[tuple[int, ...], ...]
    groups: int
    first_game: int

    @property
    def games(self) -> int:
        """The number of games of this table: deal groups × seatings."""
        return self.groups * len(self.seatings)

    def game_index(self, group: int, seating: int) -> int:
        """The tournament-wide number of the game of ``group`` played in ``seating``."""
        return self.first_game + group * len(self.seatings) + seating


def first_copies(specs: Sequence[str], table_size: int) -> tuple[int, ...]:
    """For each agent (its spec string; an agent object is written ``<Type name>``), the index of
    its first copy: at tables of more than two agents, agents given by the same spec string are one
    agent seated several times (module docstring). In pairings (``random random``: is the noise as
    small as it should be?) and for agent objects every agent is its own."""
    first: dict[str, int] = {}
    return tuple(first.setdefault(spec, index) if table_size > 2 and not spec.startswith("<") else index
                 for index, spec in enumerate(specs))


def seatings(agents: tuple[int, ...], num_sides: int,
             first_copy: Sequence[int] | None = None) -> list[tuple[int, ...]]:
    """Every assignment of ``agents`` to ``num_sides`` sides using each agent at least once, in
    lexicographic order (``seating[side]`` is the agent of that side); with ``first_copy`` (see
    :func:`first_copies`), only the first of the seatings that differ only in where copies of one
    agent sit."""
    wanted = set(agents)
    seen: set[tuple[int, ...]] = set()
    kept = []
    for combo in itertools.product(agents, repeat=num_sides):
        if set(combo) != wanted:
            continue
        if first_copy is not None:
            pattern = tuple(first_copy[agent] for agent in combo)
            if pattern in seen:
                continue
            seen.add(pattern)
        kept.append(combo)
    return kept


def table_members(num_agents: int, table_size: int, schedule: str = "round-robin") -> list[tuple[int, ...]]:
    """The agent sets that meet: every ``table_size``-subset (round-robin), or agent 0 with every
    ``table_size - 1``-subset of the others (first-vs-rest: a candidate against a field)."""
    if schedule == "round-robin":
        return list(itertools.combinations(range(num_agents), table_size))
    if schedule == "first-vs-rest":
        return [(0, *rest) for rest in itertools.combinations(range(1, num_agents), table_size - 1)]
    raise ValueError(f"unknown schedule {schedule!r}: choose one of {', '.join(SCHEDULES)}")


def groups_for(games: int, seatings_per_group: int) -> int:
    """Deal groups needed for at least ``games`` games per table (whole groups: rounded up)."""
    return -(-games // seatings_per_group)


def make_tables(
    num_agents: int, num_sides: int, games: int, table_size: int, schedule: str = "round-robin",
    first_copy: Sequence[int] | None = None,
) -> list[Table]:
    """The tables of a tournament, each with enough deal groups for ``games`` games (rounded up to
    whole deal groups) and numbered game ranges one after the other; ``first_copy`` as for
    :func:`seatings`."""
    tables = []
    first = 0
    for index, members in enumerate(table_members(num_agents, table_size, schedule)):
        seats = tuple(seatings(members, num_sides, first_copy))
        table = Table(index, members, seats, groups_for(games, len(seats)), first)
        tables.append(table)
        first += table.games
    return tables


def work_items(tables: Sequence[Table]) -> Iterator[tuple[int, int]]:
    """Every deal group to play, as ``(table index, group)``: table by table, group by group (the
    order of the game numbers), generated on demand."""
    for table in tables:
        for group in range(table.groups):
            yield table.index, group


def deal_group(seed: int, group: int, num_players: int, num_decks: int,
               pack_size: int = NUM_CARDS) -> tuple[int, list[list[int]]]:
    """The first dealer and the first ``num_decks`` packs (card ids, top card first; 53 cards with the
    joker) of deal group ``group``. The packs come one after another from one generator, so asking
    for more packs extends the sequence without changing its start."""
    rng = random.Random(derive_seed(seed, "deal-group", group))
    dealer = rng.randrange(num_players)
    decks = []
    for _ in range(num_decks):
        deck = list(range(pack_size))
        rng.shuffle(deck)
        decks.append(deck)
    return dealer, decks


def game_seed(seed: int, game_index: int) -> int:
    """The seed of game ``game_index`` (its agents' generators and nothing else: the cards come
    from its deal group)."""
    return derive_seed(seed, "game", game_index)
