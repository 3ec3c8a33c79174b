"""One rating per agent for leaderboards: a Bradley–Terry maximum-likelihood fit on the Elo scale.

Every game is a comparison between agents: at a pairing the winner beats the loser; at a larger
table the winner's agent beats each other agent at the table. The model says agent ``i`` beats
agent ``j`` with probability ``1 / (1 + 10 ** ((R_j - R_i) / 400))`` — Elo's formula — and the
ratings ``R`` are fitted to all games at once by maximum likelihood (Newton's method), so unlike
incremental Elo they do not depend on the order of the games. A weak Gaussian prior (standard
deviation :data:`PRIOR_SD` Elo points) keeps an unbeaten agent's rating finite without moving the
others noticeably. Ratings are centred on 1500; standard errors come from the inverse Hessian of
the centred ratings.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

ELO_SCALE = 400 / math.log(10)  # Elo points per unit of natural log-strength
CENTRE = 1500.0
PRIOR_SD = 1000.0


def fit_ratings(wins: Sequence[Sequence[int]], prior_sd: float = PRIOR_SD,
                iterations: int = 100) -> tuple[list[float], list[float]]:
    """Ratings and their standard errors (Elo points) from ``wins[i][j]``, the number of times
    agent ``i`` beat agent ``j``."""
    w = np.asarray(wins, dtype=float)
    n = w.shape[0]
    if n == 0:
        return [], []
    games = w + w.T
    ridge = (ELO_SCALE / prior_sd) ** 2  # prior precision in log-strength units
    theta = np.zeros(n)

    def objective(t: np.ndarray) -> float:
        diff = t[:, None] - t[None, :]  # log P(i beats j) = -log(1 + exp(-(t_i - t_j)))
        return float(-(w * np.logaddexp(0, -diff)).sum() - ridge / 2 * (t @ t))

    value = objective(theta)
    for _ in range(iterations):
        p = 1 / (1 + np.exp(theta[None, :] - theta[:, None]))  # p[i, j] = P(i beats j)
        gradient = (w - games * p).sum(axis=1) - ridge * theta
        weight = games * p * (1 - p)
        hessian = weight - np.diag(weight.sum(axis=1)) - ridge * np.eye(n)
        step = -np.linalg.solve(hessian, gradient)  # Newton's ascent direction
        scale = 1.0
        while scale > 1e-6:  # backtrack: the objective is concave, so a short enough step helps
            candidate = theta + scale * step
            new_value = objective(candidate)
            if new_value >= value - 1e-12:
                break
            scale /= 2
        theta, value = candidate, new_value
        if np.max(np.abs(scale * step)) < 1e-10:
            break
    p = 1 / (1 + np.exp(theta[None, :] - theta[:, None]))
    weight = games * p * (1 - p)
    information = np.diag(weight.sum(axis=1)) - weight + ridge * np.eye(n)
    centring = np.eye(n) - np.full((n, n), 1 / n)
    covariance = centring @ np.linalg.inv(information) @ centring
    ratings = CENTRE + ELO_SCALE * (theta - theta.mean())
    errors = ELO_SCALE * np.sqrt(np.clip(np.diag(covariance), 0, None))
    return [float(r) for r in ratings], [float(e) for e in errors]


def expected_score(rating: float, opponent: float) -> float:
    """The probability that an agent rated ``rating`` beats one rated ``opponent``."""
    return 1 / (1 + 10 ** ((opponent - rating) / 400))
