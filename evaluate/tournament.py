"""Tournaments: set one up (every input checked, with one clear message per problem), run it in this
process or in worker processes, and get a :class:`TournamentResult` back.

    from evaluate import run_tournament
    result = run_tournament(["random", my_agent], games=200)          # in this process
    result.win_rate(my_agent.name, "random")                          # -> 0.83
    result.summary()["agents"]                                        # ratings, points, rates ...

The schedule (tables, seatings, deal groups, game numbers) is described in
:mod:`evaluate.schedule`; the statistics in :mod:`evaluate.stats`.
"""

from __future__ import annotations

import copy
import pickle
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agents.base import Agent, AgentError, make_agent, parse_spec
from agents.policy import warn_unfit
from allfours_env.rules import Rules, RulesError
from allfours_env.values import is_whole
from evaluate.games import GameSummary, GroupPlayer, describe_failure
from evaluate.parallel import run_in_pool, run_in_process
from evaluate.progress import Progress
from evaluate.schedule import SCHEDULES, Table, first_copies, make_tables, work_items
from evaluate.stats import summarize

AgentSource = str | Agent
#: Where the games run: this machine's processes, or Ray tasks (:mod:`evaluate.ray_backend`).
BACKENDS = ("local", "ray")
#: What :meth:`Tournament.run` does when a game raises: re-raise, or stop and keep the finished games.
ON_ERROR = ("raise", "stop")


class TournamentError(ValueError):
    """A tournament that cannot run as asked: bad agents, rules, game or worker counts."""


@dataclass
class TournamentResult:
    """The games of a tournament and everything needed to interpret them.

    ``games`` holds one :class:`~evaluate.games.GameSummary` per finished game, by game number.
    ``interrupted`` is True when Ctrl-C stopped the run; ``error`` names the failure that stopped it
    (``run(on_error="stop")``: "RuntimeError: ... (in game 17: ...)"), else None. The statistics of a
    stopped run use the complete deal groups that had finished. ``pooled_seeds`` lists the seeds of
    the runs :mod:`evaluate.pool` joined (``seed`` is then the first; empty for one run).
    :meth:`summary` computes (once) every number the reports show.
    """

    labels: list[str]
    specs: list[str]
    rules: Rules
    seed: int
    games_per_table: int
    table_size: int
    schedule: str
    tables: list[Table]
    games: list[GameSummary]
    interrupted: bool = False
    error: str | None = None
    workers: int = 1
    elapsed_s: float = 0.0
    confidence: float = 0.95
    pooled_seeds: tuple[int, ...] = ()
    seed_note: str = ""
    _summary: dict[str, Any] | None = field(default=None, repr=False)

    @property
    def planned_games(self) -> int:
        """Games the full schedule holds."""
        return sum(t.games for t in self.tables)

    @property
    def seeds_label(self) -> str:
        """The seed as reports name it: ``seed 3``, ``seeds 2, 3, 4 pooled``, or the ``seed_note``
        the tournament was given (``seed 0 (default)``; a training run's evaluation names the run's
        seed rather than the long one derived from it, which ``config()`` keeps)."""
        if self.pooled_seeds:
            return f"seeds {', '.join(map(str, self.pooled_seeds))} pooled"
        return self.seed_note or f"seed {self.seed}"

    @property
    def games_per_second(self) -> float:
        """Finished games per second of wall-clock time (set-up included)."""
        return len(self.games) / self.elapsed_s if self.elapsed_s > 0 else 0.0

    def summary(self) -> dict[str, Any]:
        """Every statistic of :func:`evaluate.stats.summarize`, computed on first use."""
        if self._summary is None:
            self._summary = summarize(self.tables, self.games, self.labels, self.seed, self.confidence)
        return self._summary

    def config(self) -> dict[str, Any]:
        """What was asked for: enough to run the same tournament again."""
        return {
            "agents": self.labels,
            "specs": self.specs,
            "preset": self.rules.preset,
            "players": self.rules.num_players,
            "rules": self.rules.to_dict(),
            "seed": self.seed,
            "games_per_table": self.games_per_table,
            "table_size": self.table_size,
            "schedule": self.schedule,
            "planned_games": self.planned_games,
        } | ({"pooled_seeds": list(self.pooled_seeds)} if self.pooled_seeds else {})

    def run_info(self) -> dict[str, Any]:
        """How this run went (differs between runs of the same tournament)."""
        return {
            "workers": self.workers,
            "elapsed_s": self.elapsed_s,
            "games_per_s": self.games_per_second,
            "interrupted": self.interrupted,
            "error": self.error,
            "games_finished": len(self.games),
        }

    def to_dict(self) -> dict[str, Any]:
        """Config, statistics and run information as one JSON-serialisable dict."""
        return {"config": self.config(), "statistics": self.summary(), "run": self.run_info()}

    def result_for(self, agent: str, opponent: str | None = None) -> dict[str, Any]:
        """The numbers of ``agent`` (a label) at the first table where it meets ``opponent``, or
        over all its games if ``opponent`` is None."""
        summary = self.summary()
        if opponent is None:
            for numbers in summary["agents"]:
                if numbers["agent"] == agent:
                    return numbers
            raise KeyError(f"no agent {agent!r}: the agents are {', '.join(self.labels)}")
        for table in summary["tables"]:
            for numbers in table["results"]:
                if numbers["agent"] == agent and opponent in numbers["opponents"]:
                    return numbers
        raise KeyError(f"{agent!r} did not meet {opponent!r} in this tournament")

    def win_rate(self, agent: str, opponent: str | None = None) -> float | None:
        """The win rate of ``agent`` against ``opponent`` (or over all its games)."""
        return self.result_for(agent, opponent)["win_rate"]


class Tournament:
    """A checked, ready-to-run tournament. Construction raises :class:`TournamentError` with one
    clear line for every bad input, before any game is played."""

    def __init__(
        self,
        agents: Sequence[AgentSource] | Mapping[str, AgentSource],
        *,
        preset: str | Rules = "seven_up",
        players: int = 2,
        knobs: Mapping[str, Any] | None = None,
        games: int = 100,
        seed: int = 0,
        table_size: int | None = None,
        schedule: str = "round-robin",
        records: bool = False,
        confidence: float = 0.95,
        seed_note: str = "",
    ) -> None:
        self.rules = _rules(preset, players, knobs)
        self.labels, self.sources = _agent_sources(agents)
        if not is_whole(games) or games < 1:
            raise TournamentError(f"games must be a whole number >= 1 (games per pairing), got {games!r}")
        if not is_whole(seed):
            raise TournamentError(f"seed must be a whole number, got {seed!r}")
        if schedule not in SCHEDULES:
            raise TournamentError(f"unknown schedule {schedule!r}: choose one of {', '.join(SCHEDULES)}")
        if not 0 < confidence < 1:
            raise TournamentError(f"confidence must lie strictly between 0 and 1, got {confidence!r}")
        num_sides = self.rules.num_sides
        if table_size is None:
            table_size = min(len(self.labels), num_sides)
        if not is_whole(table_size) or not 2 <= table_size <= min(len(self.labels), num_sides):
            raise TournamentError(
                f"table size must be 2..{min(len(self.labels), num_sides)} (agents per game, at most "
                f"one per side: {num_sides} sides here), got {table_size!r}"
            )
        self.games, self.seed, self.table_size = games, seed, table_size
        self.schedule, self.records, self.confidence = schedule, records, confidence
        self.seed_note = seed_note
        self.tables = make_tables(len(self.labels), num_sides, games, table_size, schedule,
                                  first_copies(spec_strings(self.sources), table_size))
        self.built = [_build(label, source) for label, source in zip(self.labels, self.sources)]
        warn_unfit(self.built, self.rules)  # a policy trained for another game: one line on stderr

    @property
    def games_per_table(self) -> int:
        """Games each table actually plays: ``games`` rounded up to whole deal groups."""
        return self.tables[0].games

    @property
    def planned_games(self) -> int:
        """Games of the whole schedule."""
        return sum(t.games for t in self.tables)

    def run(self, workers: int | None = 1, progress: bool | Callable[[int], None] = False,
            backend: str = "local", address: str = "", on_error: str = "raise") -> TournamentResult:
        """Play every game, in this process (``workers=1``) or in ``workers`` processes; the result
        is the same either way. ``progress``: True for progress on stderr (a bar on a terminal, a
        line every 30 s in a log: :mod:`evaluate.progress`), or a callable given the number of games
        just finished, game by game as the workers (or Ray tasks) finish them.
        Ctrl-C stops early and returns what finished.
        ``backend="ray"``: the deal groups run as Ray tasks (:mod:`evaluate.ray_backend`; ``address``
        as for :func:`~evaluate.ray_backend.init_ray`, ``workers`` tasks at once, None: the
        cluster's CPUs) — the same result again. A game that raises (an agent's bug, an illegal
        action) raises here with a note naming the game (``on_error="raise"``), or stops the run and
        returns the games that finished with :attr:`TournamentResult.error` set (``"stop"``)."""
        if backend not in BACKENDS:
            raise TournamentError(f"unknown backend {backend!r}: choose one of {', '.join(BACKENDS)}")
        if on_error not in ON_ERROR:
            raise TournamentError(f"unknown on_error {on_error!r}: choose one of {', '.join(ON_ERROR)}")
        if not (is_whole(workers) and workers >= 1 or workers is None and backend == "ray"):
            raise TournamentError(f"workers must be a whole number >= 1, got {workers!r}")
        groups = sum(t.groups for t in self.tables)
        if workers is not None:
            workers = min(workers, groups)
        if backend == "ray" or workers > 1:
            try:
                pickle.dumps(self.sources)
            except Exception as err:
                raise TournamentError(
                    f"an agent object cannot be sent to worker processes ({type(err).__name__}: {err}); "
                    f"use workers=1 or give the agent as a spec"
                ) from None
        games: list[GameSummary] = []
        bar = Progress(self.planned_games, "games") if progress is True else None
        on_played = bar.update if bar is not None else progress if callable(progress) else None

        def on_games(batch: list[GameSummary]) -> None:
            games.extend(batch)

        start = time.perf_counter()
        interrupted, error = False, None
        try:
            if backend == "ray":
                from evaluate.ray_backend import run_on_ray

                args = (self.rules, self.sources, self.seed, self.tables, self.records)
                interrupted, workers = run_on_ray(args, work_items(self.tables), groups, workers, on_games,
                                                  address, on_played)
            elif workers == 1:
                # reuse the agents built to check the input
                player = GroupPlayer(self.rules, self.sources, self.seed, self.tables, self.records,
                                     prebuilt=self.built)
                interrupted = run_in_process(player, work_items(self.tables), on_games, on_played)
            else:
                args = (self.rules, self.sources, self.seed, self.tables, self.records)
                interrupted = run_in_pool(args, work_items(self.tables), groups, workers, on_games,
                                          on_played)
        except Exception as err:
            if on_error == "raise":
                raise
            error = describe_failure(err)
        finally:
            if bar is not None:
                bar.close()
        elapsed = time.perf_counter() - start
        games.sort(key=lambda g: g.index)
        return TournamentResult(
            labels=self.labels,
            specs=spec_strings(self.sources),
            rules=self.rules, seed=self.seed, games_per_table=self.games_per_table,
            table_size=self.table_size, schedule=self.schedule, tables=self.tables, games=games,
            interrupted=interrupted, error=error, workers=workers, elapsed_s=elapsed,
            confidence=self.confidence, seed_note=self.seed_note,
        )


def run_tournament(
    agents: Sequence[AgentSource] | Mapping[str, AgentSource],
    *,
    preset: str | Rules = "seven_up",
    players: int = 2,
    games: int = 100,
    seed: int = 0,
    workers: int | None = 1,
    progress: bool = False,
    backend: str = "local",
    address: str = "",
    **options: Any,
) -> TournamentResult:
    """Set up and run a duplicate tournament between ``agents`` and return its result.

    ``agents``: specs (``"random"``, ``"ppo:model.npz"``), :class:`~agents.base.Agent` objects,
    or a mapping ``{label: spec or Agent}``. ``preset``: a preset name or a :class:`Rules`.
    ``games``: games per table (per pairing), rounded up to whole deal groups. Further options of
    :class:`Tournament`: ``knobs``, ``table_size``, ``schedule`` ("round-robin" or
    "first-vs-rest": agent 0 against each other agent), ``records``, ``confidence``, ``seed_note``
    (how the report names the seed, e.g. ``"seed 0 (default)"``).
    ``backend``/``address``: see :meth:`Tournament.run` (``"ray"``: deal groups as Ray tasks).
    """
    tournament = Tournament(agents, preset=preset, players=players, games=games, seed=seed, **options)
    return tournament.run(workers=workers, progress=progress, backend=backend, address=address)


def _rules(preset: str | Rules, players: int, knobs: Mapping[str, Any] | None) -> Rules:
    """The rules of the games, or a TournamentError naming what does not fit."""
    if isinstance(preset, Rules):
        if knobs:
            try:
                return preset.replace(**knobs)
            except RulesError as err:
                raise TournamentError(str(err)) from None
        return preset
    if not is_whole(players):
        raise TournamentError(f"players must be a whole number 2..4, got {players!r}")
    try:
        return Rules.make(preset, players, **dict(knobs or {}))
    except RulesError as err:
        raise TournamentError(str(err)) from None


def spec_strings(sources: Sequence[AgentSource]) -> list[str]:
    """The agents as the results name them: spec strings, an agent object as ``<Type name>``."""
    return [s if isinstance(s, str) else f"<{type(s).__name__} {s.name}>" for s in sources]


def _agent_sources(agents: Sequence[AgentSource] | Mapping[str, AgentSource]) -> tuple[list[str], list]:
    """Labels (unique) and sources (spec strings or Agent objects) of the agents."""
    if isinstance(agents, Mapping):
        labels, sources = [str(k) for k in agents], list(agents.values())
    elif isinstance(agents, str | Agent):
        raise TournamentError("give a list of at least two agents, e.g. ['random', 'heuristic']")
    else:
        sources = list(agents)
        labels = [s if isinstance(s, str) else getattr(s, "name", "agent") for s in sources]
    if len(sources) < 2:
        raise TournamentError(f"a tournament needs at least two agents, got {len(sources)}")
    for source in sources:
        if not isinstance(source, str | Agent):
            raise TournamentError(
                f"an agent is a spec such as 'random' or an agents.Agent object, got {source!r}"
            )
    for i, source in enumerate(sources):
        if isinstance(source, Agent) and any(source is other for other in sources[:i]):
            sources[i] = copy.deepcopy(source)  # one object per agent: they are reset separately
    seen: dict[str, int] = {}
    unique = []
    for label in labels:
        seen[label] = seen.get(label, 0) + 1
        unique.append(label if seen[label] == 1 else f"{label}#{seen[label]}")
    return unique, sources


def _build(label: str, source: AgentSource) -> Agent:
    """Build one agent to check its spec (model files included), with one clear message if not."""
    if isinstance(source, Agent):
        return source
    try:
        name, options = parse_spec(source)
    except AgentError as err:
        raise TournamentError(str(err)) from None
    if "path" in options and not Path(options["path"]).is_file():
        raise TournamentError(f"agent {source!r}: model file {options['path']!r} not found")
    try:
        return make_agent(source, seed=0)
    except AgentError as err:
        raise TournamentError(f"agent {source!r}: {err}") from None
    except ImportError as err:
        raise TournamentError(f"agent {source!r} is not available in this installation: {err}") from None
    except Exception as err:  # a corrupt model file can fail in many ways inside its loader
        raise TournamentError(f"agent {source!r} cannot be loaded: {type(err).__name__}: {err}") from None
