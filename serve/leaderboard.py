"""The leaderboard: every tournament folder under ``--runs`` indexed into an SQLite file.

A tournament folder is one holding ``results.json`` (written by ``allfours-evaluate``,
:mod:`evaluate.report`); its ``games.csv`` lists the games and its ``records.jsonl``, when saved,
their records. :class:`Leaderboard` walks ``--runs`` (not following links, at most
:data:`MAX_DEPTH` folders down), and rebuilds the index whenever the set of those files or their
sizes and times change (checked at most every :data:`RECHECK_SECONDS`). Per preset and player
count it gives every agent's rating with its interval — one Bradley–Terry fit
(:func:`evaluate.rating.fit_ratings`) of the games of all the tournaments of that game — and each
tournament's own ratings, pairings (win rates and margins with intervals) and games (the first
:data:`MAX_GAMES_LISTED`).
"""

from __future__ import annotations

import csv
import hashlib
import json
import os
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

from evaluate.rating import fit_ratings
from evaluate.stats import z_value
from serve.errors import RequestError
from serve.paths import PathError, inside

MAX_DEPTH = 6
RECHECK_SECONDS = 2.0
#: A results.json larger than this is skipped (a tournament's is some kilobytes).
MAX_RESULTS_BYTES = 32 << 20
#: The games of one tournament listed (and linked to replays) at most: the first ones of games.csv.
MAX_GAMES_LISTED = 20_000
#: Records lines kept after reading (a replay's steps read the same line again and again).
KEPT_LINES = 16
CONFIDENCE = 0.95
TOURNAMENT_FILES = ("results.json", "games.csv", "records.jsonl")

#: The mark of an index file this module made (its ``meta`` table's ``format``); any other file is
#: never written to.
INDEX_FORMAT = "allfours-leaderboard/1"
DATA_TABLES = ("tournaments", "ratings", "pairings", "wins", "games")
SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE tournaments (id INTEGER PRIMARY KEY, path TEXT UNIQUE, preset TEXT, players INTEGER,
    agents TEXT, games INTEGER, seed INTEGER, records INTEGER);
CREATE TABLE ratings (tournament INTEGER, agent TEXT, rank INTEGER, rating REAL, rating_low REAL,
    rating_high REAL, games INTEGER, wins INTEGER, win_rate REAL, win_low REAL, win_high REAL,
    points_per_hand REAL);
CREATE TABLE pairings (tournament INTEGER, tbl INTEGER, agent TEXT, opponents TEXT, games INTEGER,
    wins INTEGER, win_rate REAL, win_low REAL, win_high REAL, margin REAL, margin_low REAL,
    margin_high REAL);
CREATE TABLE wins (tournament INTEGER, winner TEXT, loser TEXT, count INTEGER);
CREATE TABLE games (tournament INTEGER, game INTEGER, tbl INTEGER, seating INTEGER, sides TEXT,
    scores TEXT, winner TEXT, hands INTEGER);
"""


def default_index(runs: Path) -> Path:
    """Where the index of ``runs`` is kept unless ``--index`` says: the user's cache folder, one
    file per runs folder."""
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    digest = hashlib.sha256(str(runs.resolve()).encode()).hexdigest()[:16]
    return cache / "allfours" / f"leaderboard-{digest}.sqlite"


def index_problem(index: Path) -> str | None:
    """Why ``index`` cannot be the leaderboard's index, or None: it must be new (or empty) or an
    index this module made — a file of the user's is never changed."""
    if index.is_dir():
        return f"{index} is a folder: give a file name for the index"
    if not index.exists() or index.stat().st_size == 0:
        return None
    try:
        db = sqlite3.connect(f"{index.resolve().as_uri()}?mode=ro", uri=True)
        try:
            row = db.execute("SELECT value FROM meta WHERE key = 'format'").fetchone()
        finally:
            db.close()
    except sqlite3.Error:
        row = None
    if row is None or row[0] != INDEX_FORMAT:
        return f"{index} exists and is not a leaderboard index of allfours-serve: give a new file name"
    return None


def tournament_folders(runs: Path) -> list[Path]:
    """The folders under ``runs`` holding a ``results.json`` (links not followed, hidden folders
    skipped), relative to ``runs``."""
    found = []
    for folder, dirs, files in os.walk(runs):
        depth = len(Path(folder).relative_to(runs).parts)
        dirs[:] = sorted(d for d in dirs if not d.startswith(".")) if depth < MAX_DEPTH else []
        if "results.json" in files:
            found.append(Path(folder).relative_to(runs))
    return sorted(found)


def signature(runs: Path, folders: list[Path]) -> str:
    """A digest of the tournament files' names, sizes and times: it changes when a folder does."""
    items = []
    for folder in folders:
        for name in TOURNAMENT_FILES:
            try:
                stat = (runs / folder / name).stat()
            except OSError:
                continue
            items.append(f"{folder / name}:{stat.st_size}:{stat.st_mtime_ns}")
    return hashlib.sha256("\n".join(items).encode()).hexdigest()


class Leaderboard:
    """The SQLite index of the tournaments under ``runs``, kept in the file ``index``."""

    def __init__(self, runs: Path, index: Path) -> None:
        problem = index_problem(index)
        if problem:
            raise ValueError(problem)
        self.runs = runs.resolve()
        self.index = index
        self._lock = threading.Lock()
        self._checked = -RECHECK_SECONDS
        self._lines: dict[tuple[str, int, int], dict[str, Any]] = {}
        index.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(index, check_same_thread=False)
        self._db.row_factory = sqlite3.Row
        if self._db.execute("SELECT name FROM sqlite_master WHERE name = 'meta'").fetchone() is None:
            self._db.executescript(SCHEMA)
            with self._db:
                self._db.execute("INSERT INTO meta VALUES ('format', ?)", (INDEX_FORMAT,))

    def close(self) -> None:
        self._db.close()

    def refresh(self, force: bool = False) -> bool:
        """Rebuild the index if the tournament folders changed; True if it was rebuilt."""
        with self._lock:
            now = time.monotonic()
            if not force and now - self._checked < RECHECK_SECONDS:
                return False
            self._checked = now
            folders = tournament_folders(self.runs)
            digest = signature(self.runs, folders)
            row = self._db.execute("SELECT value FROM meta WHERE key = 'signature'").fetchone()
            if row is not None and row[0] == digest and not force:
                return False
            self._rebuild(folders, digest)
            return True

    def _rebuild(self, folders: list[Path], digest: str) -> None:
        db = self._db
        with db:
            for name in DATA_TABLES:
                db.execute(f"DELETE FROM {name}")
            for folder in folders:
                _index_tournament(db, self.runs, folder)
            db.execute("INSERT OR REPLACE INTO meta VALUES ('signature', ?)", (digest,))

    def boards(self) -> list[dict[str, Any]]:
        """Per preset and player count: the pooled ratings and each tournament's numbers."""
        self.refresh()
        db = self._db
        with self._lock:
            tournaments = [dict(r) for r in db.execute(
                "SELECT * FROM tournaments ORDER BY preset, players, path")]
            out: dict[tuple[str, int], dict[str, Any]] = {}
            for t in tournaments:
                board = out.setdefault((t["preset"], t["players"]), {
                    "preset": t["preset"], "players": t["players"], "tournaments": []})
                board["tournaments"].append(self._tournament(t))
            for board in out.values():
                ids = [t["id"] for t in board["tournaments"]]
                board["ratings"] = self._pooled(ids)
            return list(out.values())

    def _tournament(self, t: dict[str, Any]) -> dict[str, Any]:
        db = self._db
        return {
            "id": t["id"], "path": t["path"], "agents": json.loads(t["agents"]), "games": t["games"],
            "seed": t["seed"], "records": bool(t["records"]),
            "ratings": [dict(r) for r in db.execute(
                "SELECT agent, rank, rating, rating_low, rating_high, games, wins, win_rate, win_low, "
                "win_high, points_per_hand FROM ratings WHERE tournament = ? ORDER BY rank", (t["id"],))],
            "pairings": [dict(r) | {"opponents": json.loads(r["opponents"])} for r in db.execute(
                "SELECT tbl, agent, opponents, games, wins, win_rate, win_low, win_high, margin, margin_low, "
                "margin_high FROM pairings WHERE tournament = ? ORDER BY tbl, agent", (t["id"],))],
        }

    def _pooled(self, ids: list[int]) -> list[dict[str, Any]]:
        """One rating fit of every game of the tournaments ``ids`` (the same game)."""
        marks = ",".join("?" * len(ids))
        wins = self._db.execute(f"SELECT winner, loser, SUM(count) FROM wins "
                                f"WHERE tournament IN ({marks}) GROUP BY winner, loser", ids).fetchall()
        games = dict(self._db.execute(f"SELECT agent, SUM(games) FROM ratings "
                                      f"WHERE tournament IN ({marks}) GROUP BY agent", ids).fetchall())
        agents = sorted(games)
        index = {a: i for i, a in enumerate(agents)}
        matrix = [[0] * len(agents) for _ in agents]
        for winner, loser, count in wins:
            if winner in index and loser in index:
                matrix[index[winner]][index[loser]] += count
        ratings, errors = fit_ratings(matrix)
        z = z_value(CONFIDENCE)
        rows = [{"agent": a, "rating": r, "rating_low": r - z * e, "rating_high": r + z * e,
                 "games": games[a]} for a, r, e in zip(agents, ratings, errors)]
        return sorted(rows, key=lambda row: -row["rating"])

    def games(self, path: str) -> dict[str, Any]:
        """The games of the tournament in folder ``path`` (relative to ``runs``), 404 if none."""
        self.refresh()
        with self._lock:
            t = self._db.execute("SELECT * FROM tournaments WHERE path = ?", (path,)).fetchone()
            if t is None:
                raise RequestError(f"no tournament {path!r} under --runs", 404)
            rows = [dict(r) | {"sides": json.loads(r["sides"]), "scores": json.loads(r["scores"])}
                    for r in self._db.execute("SELECT game, tbl, seating, sides, scores, winner, hands "
                                              "FROM games WHERE tournament = ? ORDER BY game", (t["id"],))]
            return {"path": path, "preset": t["preset"], "players": t["players"],
                    "records": bool(t["records"]), "games": rows}

    def record_line(self, path: str, game: int) -> dict[str, Any]:
        """The parsed line of game ``game`` in the ``records.jsonl`` of tournament ``path`` — only an
        indexed tournament's, and only inside ``runs``."""
        self.refresh()
        with self._lock:
            t = self._db.execute("SELECT records FROM tournaments WHERE path = ?", (path,)).fetchone()
        if t is None:
            raise RequestError(f"no tournament {path!r} under --runs", 404)
        if not t["records"]:
            raise RequestError(f"the tournament {path!r} saved no records (evaluate --records saves "
                               f"them)", 404)
        try:
            file = inside(self.runs, f"{path}/records.jsonl", must_exist=True)
        except PathError as err:
            raise RequestError(f"no records: {err}", 404) from None
        key = (str(file), game, file.stat().st_mtime_ns)
        with self._lock:
            if key in self._lines:
                return self._lines[key]
        line = _read_line(file, game, path)
        with self._lock:
            self._lines[key] = line
            while len(self._lines) > KEPT_LINES:
                del self._lines[next(iter(self._lines))]
        return line


def _read_line(file: Path, game: int, path: str) -> dict[str, Any]:
    """The line of game ``game`` in ``file`` (a records.jsonl, whose lines begin ``{"game":N,``)."""
    with open(file, encoding="utf-8", errors="replace") as handle:
        for line in handle:
            if line.startswith(f'{{"game":{game},'):
                try:
                    return json.loads(line)
                except json.JSONDecodeError as err:
                    raise RequestError(f"the line of game {game} in {path}/records.jsonl is not "
                                       f"JSON: {err}") from None
    raise RequestError(f"no record of game {game} in {path}/records.jsonl", 404)


def _index_tournament(db: sqlite3.Connection, runs: Path, folder: Path) -> None:
    """Index one tournament folder; one that cannot be read is skipped (the others still show)."""
    where = runs / folder
    db.execute("SAVEPOINT tournament")
    try:
        results_file = inside(runs, (folder / "results.json").as_posix(), must_exist=True)  # no link out
        if results_file.stat().st_size > MAX_RESULTS_BYTES:
            raise ValueError("results.json too large")
        results = json.loads(results_file.read_text(encoding="utf-8"))
        config, stats = results["config"], results["statistics"]
        cursor = db.execute(
            "INSERT INTO tournaments (path, preset, players, agents, games, seed, records) "
            "VALUES (?,?,?,?,?,?,?)",
            (folder.as_posix(), config["preset"], config["players"], json.dumps(config["agents"]),
             stats["games_used"], config.get("seed"), _holds(runs, folder / "records.jsonl")))
        tid = cursor.lastrowid
        for a in stats["agents"]:
            db.execute("INSERT INTO ratings VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
                       (tid, a["agent"], a["rank"], a["rating"], *a["rating_ci"], a["games"], a["wins"],
                        a["win_rate"], *a["win_rate_ci"], a["points_per_hand"]))
        for table in stats["tables"]:
            for r in table["results"]:
                db.execute("INSERT INTO pairings VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
                           (tid, table["table"], r["agent"], json.dumps(r["opponents"]), r["games"],
                            r["wins"], r["win_rate"], *(r["win_rate_ci"] or (None, None)),
                            r.get("margin_per_hand"), *(r.get("margin_per_hand_ci") or (None, None))))
        for winner, losers in stats["head_to_head_wins"].items():
            for loser, count in losers.items():
                db.execute("INSERT INTO wins VALUES (?,?,?,?)", (tid, winner, loser, count))
        if _holds(runs, folder / "games.csv"):
            _index_games(db, tid, where / "games.csv")
    except (OSError, ValueError, KeyError, TypeError, PathError, sqlite3.Error):
        db.execute("ROLLBACK TO tournament")
    db.execute("RELEASE tournament")


def _holds(runs: Path, relative: Path) -> bool:
    """Whether ``runs / relative`` is a file inside ``runs`` (not a link leading out)."""
    try:
        inside(runs, relative.as_posix(), must_exist=True)
    except PathError:
        return False
    return True


def _index_games(db: sqlite3.Connection, tid: int, path: Path) -> None:
    with open(path, encoding="utf-8", newline="") as handle:
        for number, row in enumerate(csv.DictReader(handle)):
            if number == MAX_GAMES_LISTED:
                break
            sides = []
            while f"side{len(sides)}_agent" in row:
                sides.append(len(sides))
            db.execute("INSERT INTO games VALUES (?,?,?,?,?,?,?,?)",
                       (tid, int(row["game"]), int(row["table"]), int(row["seating"]),
                        json.dumps([row[f"side{s}_agent"] for s in sides]),
                        json.dumps([int(row[f"side{s}_score"]) for s in sides]),
                        row["winner_agent"], int(row["hands"] or 0)))
