"""Who is better, and how sure are we: duplicate tournaments between agents.

``python -m evaluate random heuristic --games 2000 --workers 2`` (or ``allfours-evaluate``) plays
every pairing on the same deals with the seats swapped, and prints a leaderboard with ratings, win
rates with 95% intervals, points per hand and decision rates; it saves JSON, CSV, a PNG plot and,
on request, every game record. From Python::

    from evaluate import run_tournament
    result = run_tournament(["random", "heuristic"], games=200, seed=0)
    print(result.win_rate("heuristic", "random"))

Modules: :mod:`~evaluate.schedule` (tables, seatings, deal groups), :mod:`~evaluate.games` (playing a
deal group), :mod:`~evaluate.parallel` (worker processes), :mod:`~evaluate.tournament` (the API),
:mod:`~evaluate.stats` and :mod:`~evaluate.rating` (the numbers), :mod:`~evaluate.report` and
:mod:`~evaluate.plot` (tables, files, plot), :mod:`~evaluate.output` (which folder the files go to,
checked before the first game), :mod:`~evaluate.__main__` (the command line).
"""

from evaluate.rating import fit_ratings
from evaluate.stats import wilson_interval
from evaluate.tournament import Tournament, TournamentError, TournamentResult, run_tournament

__all__ = [
    "Tournament",
    "TournamentError",
    "TournamentResult",
    "fit_ratings",
    "run_tournament",
    "wilson_interval",
]
