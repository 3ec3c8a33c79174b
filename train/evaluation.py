"""How a run scores its learner: duplicate games through the evaluation package.

Every opponent gets its own table. With two sides (2 players, or 4 in partnerships) one tournament
plays the learner against each opponent in turn (first-vs-rest). With three players each opponent
gets its own tournament in which two copies of it fill the other seats, so an equal player wins
1/3 (:func:`fair_share`); a single three-way table of the learner and two different bots would
give both of them the same row. A table with a game still undecided at the hand cap (random bidders in
the auction presets may never reach the target) is left out of that evaluation with a line in the log,
instead of ending the run.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from agents.arena import GameTooLongError
from agents.policy import NumpyActor, SnapshotAgent
from allfours_env.rules import Rules
from allfours_env.seeding import derive_seed
from train.config import TrainConfig
from train.curve import append_csv


def num_sides(config: TrainConfig) -> int:
    """Sides of the config's game (players, or partnerships)."""
    return Rules.make(config.preset, config.num_players, **config.knobs).num_sides


def fair_share(config: TrainConfig) -> float:
    """The win rate of an equal player: 1 / the number of sides."""
    return 1 / num_sides(config)


def evaluate(actor: NumpyActor, config: TrainConfig, opponents: list[str], games: int, seed: int,
             workers: int = 1, progress: bool = False, log=print) -> list[tuple[list[str], Any]]:
    """Duplicate tournaments of the greedy policy ``actor`` against ``opponents``: a list of (the
    opponents it holds, its :class:`~evaluate.tournament.TournamentResult`). ``seed`` (derived from
    the run's) is kept in the results; the tables name the run's seed, which repeats them. A table
    with a game still undecided at the hand cap is left out, and ``log`` says so."""
    from evaluate import run_tournament

    learner = SnapshotAgent(actor, deterministic=True, name="learner")
    options = dict(preset=config.preset, players=config.num_players, knobs=config.knobs, games=games,
                   seed=seed, workers=workers, progress=progress, seed_note=f"run seed {config.seed}")
    sides = num_sides(config)
    if sides == 2:
        tables = [(list(opponents), [learner, *opponents], {"schedule": "first-vs-rest"})]
    else:
        tables = [([opponent], [learner, *[opponent] * (sides - 1)], {}) for opponent in opponents]
    results = []
    for held, agents, schedule in tables:
        try:
            result = run_tournament(agents, **schedule, **options)
        except GameTooLongError as err:
            log(f"evaluation: the table against {', '.join(map(str, held))} is left out: {err}")
            continue
        if result.interrupted:  # a tournament keeps what Ctrl-C left it; a training run stops
            raise KeyboardInterrupt
        results.append((held, result))
    return results


def periodic(actor: NumpyActor, config: TrainConfig, timesteps: int, out: Path,
             log=print) -> list[dict[str, Any]]:
    """The periodic evaluation at ``timesteps`` (``eval.games`` against ``eval.opponents``, seeded
    from the run's seed and the step): its learning-curve rows, appended to ``out/eval.csv``."""
    results = evaluate(actor, config, config.eval.opponents, config.eval.games,
                       seed=derive_seed(config.seed, "eval", timesteps), workers=config.eval.workers, log=log)
    rows = curve_rows(results, timesteps)
    append_csv(out / "eval.csv", rows)
    return rows


def scores(results: list[tuple[list[str], Any]]) -> dict[str, dict[str, Any]]:
    """The learner's numbers against each opponent (win rate, its interval, games, ...)."""
    return {opponent: result.result_for("learner", opponent)
            for opponents, result in results for opponent in opponents}


def curve_rows(results: list[tuple[list[str], Any]], timesteps: int) -> list[dict[str, Any]]:
    """The learning curve's rows (``eval.csv``, :mod:`train.curve`) of an evaluation at ``timesteps``."""
    rows = []
    for opponent, numbers in scores(results).items():
        low, high = numbers["win_rate_ci"]
        rows.append({"timesteps": timesteps, "opponent": opponent, "win_rate": numbers["win_rate"],
                     "ci_low": low, "ci_high": high, "games": numbers["games"]})
    return rows


def describe_rows(rows: list[dict[str, Any]]) -> str:
    """One line for a progress line: ``evaluation at 20,480 steps: 61% vs random, 40% vs heuristic``."""
    if not rows:
        return ""
    against = ", ".join(f"{row['win_rate']:.0%} vs {row['opponent']}" for row in rows)
    return f"evaluation at {rows[0]['timesteps']:,} steps: {against}"


def save_report(results: list[tuple[list[str], Any]], folder: Path) -> str:
    """Write the evaluation package's report files into ``folder`` (one subfolder ``vs_<opponent>``
    per tournament when there are several) and ``table.md``; return the Markdown tables."""
    from evaluate import report

    tables = []
    for opponents, result in results:
        name = re.sub(r"[^A-Za-z0-9_.=-]+", "_", opponents[0])
        where = folder if len(results) == 1 else folder / f"vs_{name}"
        report.save(result, where)
        tables.append(report.markdown(result))
    table = "\n\n".join(tables)
    (folder / "table.md").write_text(table + "\n")
    return table
