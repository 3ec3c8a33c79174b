"""The learning curve of a run: ``eval.csv`` (one row per periodic evaluation and opponent) and
``learning_curve.png`` (win rate with its 95% interval against timesteps, one line per opponent,
and the fair share — what an equal player wins — as a dashed line)."""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

FIELDS = ("timesteps", "opponent", "win_rate", "ci_low", "ci_high", "games")


def append_csv(path: Path, rows: list[dict[str, Any]]) -> None:
    """Append rows to a CSV file, writing the header when the file is new."""
    new = not path.exists()
    with path.open("a", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        if new:
            writer.writeheader()
        writer.writerows(rows)


def read_curve(out: Path) -> list[dict[str, Any]]:
    """The rows of ``out/eval.csv`` (numbers parsed); a row that is not one of ours (a damaged or
    hand-edited file) is left out of the curve rather than ending the run."""
    path = out / "eval.csv"
    if not path.exists():
        return []
    rows = []
    with path.open(newline="", errors="replace") as handle:
        for row in csv.DictReader(handle):
            if not isinstance(row.get("opponent"), str):
                continue
            try:
                rows.append({**row, "timesteps": int(row["timesteps"]), "win_rate": float(row["win_rate"]),
                             "ci_low": float(row["ci_low"]), "ci_high": float(row["ci_high"])})
            except (KeyError, TypeError, ValueError):
                continue
    return rows


def plot_curve(curve: list[dict[str, Any]], path: Path, fair_share: float = 0.5) -> Path | None:
    """Win rate (with its 95% interval) against timesteps, one line per evaluation opponent, and
    the ``fair_share`` line (1/2 with two sides, 1/3 with three players)."""
    if not curve:
        return None
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 4))
    for opponent in dict.fromkeys(row["opponent"] for row in curve):
        rows = [r for r in curve if r["opponent"] == opponent]
        steps = [r["timesteps"] for r in rows]
        ax.plot(steps, [r["win_rate"] for r in rows], marker="o", label=f"vs {opponent}")
        ax.fill_between(steps, [r["ci_low"] for r in rows], [r["ci_high"] for r in rows], alpha=0.2)
    ax.axhline(fair_share, color="grey", lw=0.8, ls="--", label=f"even ({fair_share:.0%})")
    ax.set_xlabel("learner timesteps")
    ax.set_ylabel("win rate (95% interval)")
    ax.set_ylim(0, 1)
    ax.legend()
    ax.set_title("learning curve")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path
