"""Reports of a tournament: Markdown tables for the terminal, JSON and CSV files with every number,
game records as JSON lines, and the PNG plot (:mod:`evaluate.plot`).

Files written by :func:`save` into the output folder:

* ``results.json`` — ``config`` (agents, rules, seed, games...), ``statistics`` (every number of
  :func:`evaluate.stats.summarize`) and ``run`` (workers, time, games/s, interrupted, error);
* ``agents.csv`` — the leaderboard, one row per agent; ``tables.csv`` — one row per agent per
  table (pairing); ``games.csv`` — one row per game;
* ``records.jsonl`` — with ``records=True``: one line per game, its seats and its full game record
  (``allfours_env.replay(line)`` replays a line, as text or parsed);
* ``results.png`` — win rates with 95% intervals, and the rating ladder.

:func:`save` writes into the folder it is given and replaces files of these names there (the
command line decides the folder first and refuses one that holds results: :mod:`evaluate.output`).
"""

from __future__ import annotations

import csv
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from allfours_env.rules import EXTRA_POINT_KINDS, POINT_KIND_TITLES, Rules, TrumpSelection
from evaluate.games import CONTRACT_FIELDS, DECISIONS, DECISIONS_BY_SELECTION
from evaluate.schedule import first_copies
from evaluate.tournament import TournamentResult

#: Every file :func:`save` may write, in this order.
REPORT_FILES = ("results.json", "agents.csv", "tables.csv", "games.csv", "records.jsonl", "results.png")


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.1f}%"


def _num(value: float | None, signed: bool = False) -> str:
    if value is None:
        return "–"
    return f"{value:+.3f}" if signed else f"{value:.3f}"


#: The decision columns of the leaderboard by how trump is chosen: (title, statistic, format).
DECISION_COLUMNS = {
    TrumpSelection.TURNUP: (("beg", "beg_rate", _pct), ("gift", "gift_rate", _pct),
                            ("run", "run_rate", _pct)),
    TrumpSelection.AUCTION: (("bid", "bid_rate", _pct), ("contracts", "contract_rate", _pct),
                             ("made", "made_rate", _pct),
                             ("mean contract", "mean_contract", lambda v: "–" if v is None else f"{v:.2f}")),
}


def kinds_of(rules: Rules) -> tuple[str, ...]:
    """The kinds of point a game under ``rules`` can award, in the order the report shows them:
    the hand's points in scoring order (the jack's column holds the hang jack too), then the turn-up,
    the gift and a voided hand's where cards are turned up, and the setback where there is an
    auction (docs/rules.md §8; :data:`~allfours_env.rules.EXTRA_POINT_KINDS`)."""
    return (*rules.scoring_order, *EXTRA_POINT_KINDS.get(rules.trump_selection, ()))


def _interval_pct(value: float | None, ci: Sequence[float] | None) -> str:
    if value is None or ci is None:
        return "–"
    return f"{100 * value:.1f}% ({100 * ci[0]:.1f}–{100 * ci[1]:.1f})"


def _interval(value: float | None, ci: Sequence[float] | None, signed: bool = False) -> str:
    if value is None or ci is None:
        return "–"
    return f"{_num(value, signed)} ({_num(ci[0], signed)} to {_num(ci[1], signed)})"


def _markdown_table(header: Sequence[str], rows: Sequence[Sequence[str]], right: Sequence[bool]) -> str:
    lines = ["| " + " | ".join(header) + " |",
             "| " + " | ".join("---:" if r else "---" for r in right) + " |"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def _first_copies(result: TournamentResult) -> dict[str, str]:
    """Each label's first copy (:func:`~evaluate.schedule.first_copies`: ``heuristic``,
    ``heuristic#2``, ``heuristic#3`` at a table of more than two agents are one agent seated several
    times), whose row the copies share."""
    first = first_copies(result.specs, result.table_size)
    return {label: result.labels[first[index]] for index, label in enumerate(result.labels)}


def copies(result: TournamentResult) -> dict[str, int]:
    """How many copies of each agent the report shows as one row, under the first copy's label."""
    count: dict[str, int] = {}
    for first in _first_copies(result).values():
        count[first] = count.get(first, 0) + 1
    return count


def _shown_labels(result: TournamentResult) -> dict[str, str]:
    """The label each first copy is shown as (``heuristic ×3``); later copies are not shown."""
    return {label: label if n == 1 else f"{label} ×{n}" for label, n in copies(result).items()}


def _opponents(names: Sequence[str], result: TournamentResult) -> str:
    """The opponents of a row, copies of one agent named once: ``learner, heuristic ×3``."""
    first = _first_copies(result)
    groups: dict[str, int] = {}
    for name in names:
        groups[first[name]] = groups.get(first[name], 0) + 1
    return ", ".join(label if n == 1 else f"{label} ×{n}" for label, n in groups.items())


def displayed_rows(result: TournamentResult) -> list[dict[str, Any]]:
    """The rows of the pairings table. At a pairing, the row of the agent listed first (the other's
    is its mirror image), so a candidate given first — a training run's learner — always has its own
    row; at a larger table, every distinct agent's (one row for the copies of an agent)."""
    summary = result.summary()
    shown = copies(result)
    rows = []
    for table in summary["tables"]:
        results = table["results"]
        if len(results) == 2:
            results = results[:1]
        rows.extend(r for r in results if r["agent"] in shown)
    return rows


def _includes_fair_share(row: dict[str, Any]) -> bool:
    """Whether the win rate's interval holds the fair share: the games do not tell the agents apart."""
    ci = row.get("win_rate_ci")
    return row["win_rate"] is not None and ci is not None and ci[0] <= row["fair_share"] <= ci[1]


def _is_half(share: float | None) -> bool:
    return share is None or abs(share - 0.5) < 1e-9


def markdown(result: TournamentResult, kinds: bool = True) -> str:
    """The terminal report: a heading line, the leaderboard, the pairings and (with ``kinds``) the
    points by kind. The heading names the seed, or the seeds of a pooled result. Copies of an agent
    share one row; a fair share other than one half is shown beside the win rates; a pairing whose
    interval includes the fair share is said to settle nothing."""
    summary = result.summary()
    config = result.config()
    level = round(100 * summary["confidence"])
    head = (
        f"**{config['preset']}, {config['players']} players** — {summary['games_used']:,} games "
        f"({summary['deal_groups_used']:,} duplicate deal groups), {result.seeds_label}, "
        f"intervals {level}%"
    )
    if result.interrupted or result.error:
        head += (f" — {'STOPPED BY AN ERROR' if result.error else 'INTERRUPTED'}: {len(result.games):,} of "
                 f"{result.planned_games:,} games finished, {summary['games_used']:,} in complete deal "
                 f"groups are used")
    names = _shown_labels(result)
    agents = [a for a in summary["agents"] if a["agent"] in names]
    decisions = DECISION_COLUMNS.get(result.rules.trump_selection, ())
    share_board = not all(_is_half(a["fair_share"]) for a in agents)
    leaderboard = _markdown_table(
        ["rank", "agent", f"rating ({level}% CI)", "games", "win rate", *(["fair share"] * share_board),
         "points/hand", *(title for title, _, _ in decisions)],
        [[str(a["rank"]), names[a["agent"]],
          f"{a['rating']:.0f} ({a['rating_ci'][0]:.0f}–{a['rating_ci'][1]:.0f})",
          f"{a['games']:,}", _pct(a["win_rate"]), *([_pct(a["fair_share"])] * share_board),
          _num(a["points_per_hand"]), *(show(a[key]) for _, key, show in decisions)] for a in agents],
        [True, False, *([True] * (4 + share_board + len(decisions)))],
    )
    rows = displayed_rows(result)
    share_pairs = not all(_is_half(r["fair_share"]) for r in rows)
    pairings = _markdown_table(
        ["agent", "vs", "games", f"win rate ({level}% CI)", *(["fair share"] * share_pairs), "points/hand",
         f"margin/hand ({level}% CI)"],
        [[names[r["agent"]], _opponents(r["opponents"], result), f"{r['games']:,}",
          _interval_pct(r["win_rate"], r["win_rate_ci"]), *([_pct(r["fair_share"])] * share_pairs),
          _num(r["points_per_hand"]), _interval(r["margin_per_hand"], r["margin_per_hand_ci"], signed=True)]
         for r in rows],
        [False, False, True, True, *([True] * share_pairs), True, True],
    )
    shown = kinds_of(result.rules)
    by_kind = _markdown_table(
        ["agent", *(POINT_KIND_TITLES[k] for k in shown), "total"],
        [[names[a["agent"]], *(_num(a["points_per_hand_by_kind"].get(k, 0.0)) for k in shown),
          _num(a["points_per_hand"])] for a in agents],
        [False, *([True] * (len(shown) + 1))],
    )
    pairs = all(len(t["agents"]) == 2 for t in summary["tables"])
    against = "the opponent's" if pairs else "the mean of the opponents'"
    parts = [
        head,
        "Leaderboard (rating: Bradley–Terry fit of all games, Elo scale)",
        leaderboard,
        f"{'Pairings' if pairs else 'Tables'} (duplicate deals; margin = points per hand minus {against})",
        pairings,
    ]
    notes = [f"{names[r['agent']]} vs {_opponents(r['opponents'], result)} settles nothing: the interval "
             f"includes the fair share ({_pct(r['fair_share'])}); more games are needed to tell them apart."
             for r in rows if _includes_fair_share(r)]
    several = [f"{shown_as}: {copies(result)[label]} copies of one agent; the row shows the first copy's "
               f"numbers"
               for label, shown_as in names.items() if shown_as != label]
    if notes or several:
        parts.append("\n".join(f"* {line}" for line in [*notes, *several]))
    if kinds:
        parts += ["Points per hand by kind", by_kind]
    return "\n\n".join(parts) + "\n"


def _flatten(prefix: str, value: Any, out: dict[str, Any]) -> None:
    """Flatten nested dicts and pairs into CSV columns: ``win_rate_ci`` -> ``_low``/``_high``."""
    if isinstance(value, dict):
        for key, inner in value.items():
            _flatten(f"{prefix}_{key}" if prefix else str(key), inner, out)
    elif isinstance(value, list) and len(value) == 2 and prefix.endswith("_ci"):
        out[f"{prefix}_low"], out[f"{prefix}_high"] = value
    elif isinstance(value, list):
        out[prefix] = " ".join(map(str, value))
    else:
        out[prefix] = value


def _write_csv(path: Path, rows: Sequence[dict[str, Any]]) -> None:
    flat = []
    for row in rows:
        out: dict[str, Any] = {}
        _flatten("", row, out)
        flat.append(out)
    columns: list[str] = []
    for row in flat:
        columns += [c for c in row if c not in columns]
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=columns)
        writer.writeheader()
        writer.writerows(flat)


def game_rows(result: TournamentResult) -> list[dict[str, Any]]:
    """One row per game: its place in the schedule, who held each side, scores, winner, hands, and
    per side its points by kind (``side0_points_high``; a kind nobody scored in a game is empty),
    the preset's decisions (``side0_decisions_beg``) and in an auction its contracts
    (``side0_contracts_won``/``_made``/``_points``) — everything :mod:`evaluate.pool` needs."""
    labels = result.labels
    decisions = [(DECISIONS.index(name), name)
                 for name in DECISIONS_BY_SELECTION.get(result.rules.trump_selection, ())]
    rows = []
    for game in result.games:
        row: dict[str, Any] = {"game": game.index, "table": game.table, "group": game.group,
                               "seating": game.seating}
        for side, agent in enumerate(game.sides):
            row[f"side{side}_agent"] = labels[agent]
        for side, score in enumerate(game.scores):
            row[f"side{side}_score"] = score
        row |= {"winner_side": game.winner, "winner_agent": labels[game.winning_agent],
                "hands": game.hands, "deals": game.deals}
        for side in range(len(game.sides)):
            for kind, points in game.awards.items():
                row[f"side{side}_points_{kind}"] = points[side]
            for slot, name in decisions:
                row[f"side{side}_decisions_{name}"] = game.decisions[side][slot]
            if game.contracts is not None and result.rules.plan.auction:
                for name, count in zip(CONTRACT_FIELDS, game.contracts[side]):
                    row[f"side{side}_contracts_{name}"] = count
        rows.append(row)
    return rows


def write_records(result: TournamentResult, path: Path) -> int:
    """Write the kept game records as JSON lines; returns how many were written."""
    rules = result.rules
    count = 0
    with path.open("w", encoding="utf-8") as handle:
        for game in result.games:
            if game.record is None:
                continue
            seats = [result.labels[game.sides[rules.side_of(s)]] for s in range(rules.num_players)]
            line = {"game": game.index, "table": game.table, "group": game.group, "seating": game.seating,
                    "seats": seats, "record": game.record}
            handle.write(json.dumps(line, separators=(",", ":")) + "\n")
            count += 1
    return count


def save(result: TournamentResult, out: str | Path, *, plot: bool = True) -> list[Path]:
    """Write every report file into folder ``out`` (created if needed), replacing files of those
    names, and remove the :data:`REPORT_FILES` this result does not have (an earlier run's
    ``records.jsonl`` or plot), so that the folder describes one tournament; returns the paths
    written."""
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    summary = result.summary()
    paths = [folder / "results.json", folder / "agents.csv", folder / "tables.csv", folder / "games.csv"]
    paths[0].write_text(json.dumps(result.to_dict(), indent=1) + "\n", encoding="utf-8")
    _write_csv(paths[1], [{"rank": a["rank"]} | a for a in summary["agents"]])
    _write_csv(paths[2], [{"table": t["table"]} | r for t in summary["tables"] for r in t["results"]])
    _write_csv(paths[3], game_rows(result))
    if any(game.record is not None for game in result.games):
        paths.append(folder / "records.jsonl")
        write_records(result, paths[-1])
    if plot:
        from evaluate.plot import plot_results

        image = plot_results(result, folder / "results.png")
        if image is not None:
            paths.append(image)
    written = {path.name for path in paths}
    for name in REPORT_FILES:
        if name not in written:
            (folder / name).unlink(missing_ok=True)
    return paths
