"""The PNG plot of a tournament: win rates with their intervals (left) and the rating ladder (right).

Uses matplotlib's Agg backend (no display needed). Returns None, and plots nothing, where matplotlib
is not installed.
"""

from __future__ import annotations

from pathlib import Path

from evaluate.tournament import TournamentResult


def plot_results(result: TournamentResult, path: str | Path) -> Path | None:
    """Draw the win rates (each table's rows, fair share dashed) and the rating ladder into ``path``."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    from evaluate.report import displayed_rows

    summary = result.summary()
    rows = [r for r in displayed_rows(result) if r["win_rate"] is not None]
    agents = list(summary["agents"])
    height = max(2.5, 0.45 * max(len(rows), len(agents)) + 1.4)
    figure, (left, right) = plt.subplots(1, 2, figsize=(12, height), constrained_layout=True)

    names = [f"{r['agent']} vs {', '.join(r['opponents'])}" for r in rows]
    rates = [r["win_rate"] for r in rows]
    low = [r["win_rate"] - r["win_rate_ci"][0] for r in rows]
    high = [r["win_rate_ci"][1] - r["win_rate"] for r in rows]
    positions = list(range(len(rows)))[::-1]
    left.errorbar(rates, positions, xerr=[low, high], fmt="o", capsize=4, color="tab:blue")
    for y, row in zip(positions, rows):
        left.plot([1 / (1 + len(row["opponents"]))] * 2, [y - 0.4, y + 0.4], ls="--", color="grey", lw=1)
    left.set_yticks(positions, names)
    left.set_xlim(0, 1)
    left.set_xlabel(f"win rate ({round(100 * summary['confidence'])}% Wilson interval; dashed: even)")
    left.set_title("Win rates, duplicate deals")

    ladder = list(range(len(agents)))[::-1]
    ratings = [a["rating"] for a in agents]
    errors = [a["rating"] - a["rating_ci"][0] for a in agents]
    right.errorbar(ratings, ladder, xerr=errors, fmt="s", capsize=4, color="tab:red")
    right.set_yticks(ladder, [f"{a['rank']}. {a['agent']}" for a in agents])
    right.set_xlabel("rating (Elo scale, Bradley–Terry fit of all games)")
    right.set_title("Rating ladder")

    config = result.config()
    figure.suptitle(f"{config['preset']}, {config['players']} players — {summary['games_used']:,} games, "
                    f"{result.seeds_label}")
    path = Path(path)
    figure.savefig(path, dpi=110)
    plt.close(figure)
    return path
