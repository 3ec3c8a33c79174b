"""The statistics of a tournament: win rates with Wilson intervals, points per hand with bootstrap
intervals over deal groups, points by kind, decision rates.

Definitions (per agent, at one table or over all its games):

* **win rate** — games won by a side the agent held / games; 95% Wilson score interval. The games
  of a deal group are negatively correlated (the same cards in swapped seats; no game is played
  twice, :func:`~evaluate.schedule.first_copies`), so treating them as independent makes this
  interval, if anything, a little too wide.
* **fair share** — the win rate an agent would have if every agent played equally well: the share
  of the sides it holds, averaged over the seatings (1/2 in a pairing; 1/4 alone against three
  others at four sides).
* **points per hand** — points scored by the agent's sides / (hands × sides it held), i.e. what one
  of its sides scores in an average hand. A hand is one deal played to its scoring; a hand thrown
  in for an exhausted pack and its redeal count as one; the final hand, cut short by the winning
  point, counts. The **margin** is the agent's points per hand minus the mean of the other agents'
  at the table (in a pairing: A's minus B's). Both have 95% percentile-bootstrap intervals that
  resample whole deal groups, which keeps the duplicate pairing of games intact.
* **points by kind** — per hand as above: high, low, jack (hang jack included; also shown alone),
  game, turnup, gift, void (negative: points cancelled with a voided hand).
* **beg rate** — begs / (stand or beg decisions); **gift rate** and **run rate** — gifts, runs /
  (gift-or-run decisions); a run forced by a blocked gift counts as a run.
* auction presets: **bid rate** — bids and holds / (pass, bid or hold decisions); **contract rate**
  — auctions won with a bid / side-hands (a contract of 0 after all passed, RD15, is none);
  **made rate** — contracts made (not set back, RD18) / contracts; **mean contract** — the
  contracts' average.

Only complete deal groups enter the statistics (an interrupted run can leave one half played).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from statistics import NormalDist
from typing import Any

import numpy as np

from allfours_env.rules import POINT_KIND_ORDER, SCORED_WHERE_SCORED, PointKind
from allfours_env.seeding import derive_seed
from evaluate.games import CONTRACT_FIELDS, DECISIONS, GameSummary
from evaluate.rating import fit_ratings
from evaluate.schedule import Table

#: The point kinds every agent's numbers list (0 where none was scored): all but the kinds only some
#: presets score (:data:`~allfours_env.rules.SCORED_WHERE_SCORED`: the joker, the nine, the setback),
#: which are listed where scored; both in :data:`~allfours_env.rules.POINT_KIND_ORDER`.
KINDS = tuple(kind for kind in POINT_KIND_ORDER if kind not in SCORED_WHERE_SCORED)
BOOTSTRAP_RESAMPLES = 2000


def z_value(confidence: float) -> float:
    """The two-sided standard-normal quantile of ``confidence`` (1.96 for 0.95)."""
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must lie strictly between 0 and 1, got {confidence!r}")
    return NormalDist().inv_cdf(0.5 + confidence / 2)


def wilson_interval(successes: int, trials: int, confidence: float = 0.95) -> tuple[float, float]:
    """The Wilson score interval for a binomial proportion (``(0, 1)`` when there are no trials)."""
    if trials <= 0:
        return (0.0, 1.0)
    if not 0 <= successes <= trials:
        raise ValueError(f"successes must lie in 0..{trials}, got {successes}")
    z = z_value(confidence)
    p = successes / trials
    denominator = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denominator
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == trials else min(1.0, centre + half)
    return (low, high)


def bootstrap_sums(per_group: np.ndarray, rng: np.random.Generator,
                   resamples: int = BOOTSTRAP_RESAMPLES) -> np.ndarray:
    """Column sums of ``per_group`` (one row per deal group) over ``resamples`` bootstrap resamples
    of the groups, as an array (resamples, columns)."""
    groups = per_group.shape[0]
    out = np.empty((resamples, per_group.shape[1]))
    batch = 250
    for start in range(0, resamples, batch):
        size = min(batch, resamples - start)
        weights = rng.multinomial(groups, np.full(groups, 1 / groups), size=size)
        out[start : start + size] = weights @ per_group
    return out


def percentile_interval(samples: np.ndarray, confidence: float = 0.95) -> list[float]:
    """The central ``confidence`` percentile interval of ``samples`` (NaN samples ignored)."""
    tail = (1 - confidence) / 2 * 100
    low, high = np.nanpercentile(samples, [tail, 100 - tail])
    return [float(low), float(high)]


def complete_games(tables: Sequence[Table], games: Sequence[GameSummary]) -> list[GameSummary]:
    """The games of deal groups that were played in every seating of their table, by game number."""
    count: dict[tuple[int, int], int] = {}
    for game in games:
        count[game.table, game.group] = count.get((game.table, game.group), 0) + 1
    keep = [g for g in games if count[g.table, g.group] == len(tables[g.table].seatings)]
    return sorted(keep, key=lambda g: g.index)


def tally(games: Sequence[GameSummary], agent: int) -> dict[str, Any]:
    """Raw counts for ``agent`` over ``games``: games, wins, side-hands, points, points by kind,
    decisions and contracts (with the side-hands of the games that know them)."""
    tally: dict[str, Any] = {"games": 0, "wins": 0, "hands": 0, "points": 0, "kinds": {},
                             "decisions": [0] * len(DECISIONS), "contract_hands": 0,
                             "contracts": [0, 0, 0]}
    for game in games:
        held = [side for side, who in enumerate(game.sides) if who == agent]
        if not held:
            continue
        tally["games"] += 1
        tally["wins"] += game.winner in held
        tally["hands"] += game.hands * len(held)
        tally["points"] += sum(game.scores[side] for side in held)
        for kind, points in game.awards.items():
            tally["kinds"][kind] = tally["kinds"].get(kind, 0) + sum(points[side] for side in held)
        for side in held:
            for slot, count in enumerate(game.decisions[side]):
                tally["decisions"][slot] += count
            if game.contracts is not None:
                tally["contract_hands"] += game.hands
                for slot, count in enumerate(game.contracts[side]):
                    tally["contracts"][slot] += count
    return tally


def _rate(part: int, whole: int) -> float | None:
    return part / whole if whole else None


def describe(tally: dict[str, Any], confidence: float = 0.95) -> dict[str, Any]:
    """The numbers of one agent from its :func:`_tally`: win rate and interval, points per hand,
    points per hand by kind, decision counts and rates."""
    games, hands = tally["games"], tally["hands"]
    kinds = dict(tally["kinds"])
    kinds[PointKind.JACK] = kinds.get(PointKind.JACK, 0) + kinds.get(PointKind.HANG_JACK, 0)
    order = [kind for kind in POINT_KIND_ORDER if kind in KINDS or kind in kinds]
    order += sorted(set(kinds) - set(POINT_KIND_ORDER))  # none unless a pooled games.csv has others
    stand, beg, gift, run, passes, bids, holds = tally["decisions"]
    won, made, contract_points = tally["contracts"]
    return {
        "games": games,
        "wins": tally["wins"],
        "win_rate": _rate(tally["wins"], games),
        "win_rate_ci": list(wilson_interval(tally["wins"], games, confidence)),
        "hands": hands,
        "points": tally["points"],
        "points_per_hand": _rate(tally["points"], hands),
        "points_by_kind": {kind: kinds.get(kind, 0) for kind in order},
        "points_per_hand_by_kind": {kind: _rate(kinds.get(kind, 0), hands) for kind in order},
        "decisions": dict(zip(DECISIONS, tally["decisions"])),
        "beg_rate": _rate(beg, stand + beg),
        "gift_rate": _rate(gift, gift + run),
        "run_rate": _rate(run, gift + run),
        "bid_rate": _rate(bids + holds, passes + bids + holds),
        "contracts": dict(zip(CONTRACT_FIELDS, tally["contracts"])),
        "contract_rate": _rate(won, tally["contract_hands"]) if passes + bids + holds else None,
        "made_rate": _rate(made, won),
        "mean_contract": _rate(contract_points, won),
    }


def fair_share(seatings: Sequence[Sequence[int]], agent: int) -> float:
    """The win rate of ``agent`` if every agent played equally well: the mean, over ``seatings``,
    of the share of the sides it holds."""
    return sum(seating.count(agent) / len(seating) for seating in seatings) / len(seatings)


def table_stats(table: Table, games: Sequence[GameSummary], labels: Sequence[str], seed: int,
                confidence: float = 0.95) -> dict[str, Any]:
    """The statistics of one table from its complete games: per agent :func:`describe` plus the
    margin and bootstrap intervals over deal groups."""
    groups = sorted({g.group for g in games})
    position = {group: row for row, group in enumerate(groups)}
    agents = table.agents
    per_group = np.zeros((len(groups), 2 * len(agents)))  # points, side-hands per agent
    for game in games:
        row = position[game.group]
        for side, who in enumerate(game.sides):
            column = 2 * agents.index(who)
            per_group[row, column] += game.scores[side]
            per_group[row, column + 1] += game.hands
    results = []
    if groups:
        rng = np.random.default_rng(derive_seed(seed, "bootstrap", table.index))
        sums = bootstrap_sums(per_group, rng)
        with np.errstate(invalid="ignore", divide="ignore"):
            pph = sums[:, 0::2] / sums[:, 1::2]
        totals = per_group.sum(axis=0)
        point_pph = totals[0::2] / totals[1::2]
    for k, agent in enumerate(agents):
        numbers = describe(tally(games, agent), confidence)
        numbers = {"agent": labels[agent], "opponents": [labels[a] for a in agents if a != agent],
                   "fair_share": fair_share(table.seatings, agent)} | numbers
        if groups:
            others = [j for j in range(len(agents)) if j != k]
            margin = pph[:, k] - pph[:, others].mean(axis=1)
            numbers["points_per_hand_ci"] = percentile_interval(pph[:, k], confidence)
            numbers["margin_per_hand"] = float(point_pph[k] - point_pph[others].mean())
            numbers["margin_per_hand_ci"] = percentile_interval(margin, confidence)
        else:
            numbers["points_per_hand_ci"] = None
            numbers["margin_per_hand"] = None
            numbers["margin_per_hand_ci"] = None
        results.append(numbers)
    return {
        "table": table.index,
        "agents": [labels[a] for a in agents],
        "seatings": [[labels[a] for a in seating] for seating in table.seatings],
        "deal_groups": len(groups),
        "games": len(games),
        "results": results,
    }


def comparisons(games: Sequence[GameSummary], num_agents: int) -> list[list[int]]:
    """``wins[i][j]``: games in which agent ``i``'s side won at a table where ``j`` also sat."""
    wins = [[0] * num_agents for _ in range(num_agents)]
    for game in games:
        winner = game.winning_agent
        for other in set(game.sides):
            if other != winner:
                wins[winner][other] += 1
    return wins


def summarize(tables: Sequence[Table], games: Sequence[GameSummary], labels: Sequence[str], seed: int,
              confidence: float = 0.95) -> dict[str, Any]:
    """Every number of a tournament: per table, per agent (with ratings), and the counts used."""
    used = complete_games(tables, games)
    by_table: list[list[GameSummary]] = [[] for _ in tables]
    for game in used:
        by_table[game.table].append(game)
    table_numbers = [table_stats(t, by_table[t.index], labels, seed, confidence) for t in tables]
    wins = comparisons(used, len(labels))
    ratings, errors = fit_ratings(wins)
    z = z_value(confidence)
    agents = []
    for index, label in enumerate(labels):
        sat = [(t.games, fair_share(t.seatings, index)) for t in tables if index in t.agents]
        share = sum(games * part for games, part in sat) / sum(games for games, _ in sat) if sat else None
        numbers = {"agent": label, "rating": ratings[index], "rating_se": errors[index],
                   "rating_ci": [ratings[index] - z * errors[index], ratings[index] + z * errors[index]],
                   "fair_share": share}
        agents.append(numbers | describe(tally(used, index), confidence))
    ranking = sorted(range(len(labels)), key=lambda i: -ratings[i])
    for rank, index in enumerate(ranking, start=1):
        agents[index]["rank"] = rank
    return {
        "confidence": confidence,
        "games_played": len(games),
        "games_used": len(used),
        "deal_groups_used": sum(t["deal_groups"] for t in table_numbers),
        "tables": table_numbers,
        "agents": [agents[i] for i in ranking],
        "head_to_head_wins": {labels[i]: {labels[j]: wins[i][j] for j in range(len(labels)) if j != i}
                              for i in range(len(labels))},
    }
