"""Records to step through: uploaded files, games played in the browser, lines of a tournament's
``records.jsonl``.

An uploaded or saved record is checked by replaying it (:func:`allfours_env.record.replay`) and kept
under an unguessable id — the replay's link works in any browser on the machine while the server
runs — for :data:`KEEP_SECONDS` since last seen, at most :data:`MAX_REPLAYS` of them. Records are
JSON only, never unpickled, and at most :data:`MAX_RECORD_BYTES`.
"""

from __future__ import annotations

import json
import secrets
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any

from allfours_env.actions import str_to_action
from allfours_env.record import RecordError, as_record, replay
from allfours_env.render import pretty_action
from serve import view
from serve.errors import RequestError

#: The largest record file a page may upload (a whole game's record is some tens of kilobytes).
MAX_RECORD_BYTES = 1 << 20
MAX_REPLAYS = 256
KEEP_SECONDS = 24 * 3600


def parse_record(data: bytes | str) -> dict[str, Any]:
    """The game record in an uploaded file's bytes (a record file, or one ``records.jsonl`` line),
    checked by replaying it; a bad one raises :class:`RequestError` (400) with the reason."""
    if len(data) > MAX_RECORD_BYTES:
        raise RequestError(f"the record is {len(data):,} bytes, more than the {MAX_RECORD_BYTES:,} "
                           f"allowed", 413)
    try:
        text = data.decode("utf-8") if isinstance(data, bytes) else data
    except UnicodeDecodeError:
        raise RequestError("not a game record: the file is not UTF-8 text (a record is JSON)") from None
    try:
        parsed = json.loads(text)
    except RecursionError:
        raise RequestError("not a game record: its JSON is nested too deeply") from None
    except json.JSONDecodeError as err:
        hint = " (several lines? upload one line of a records.jsonl)" if err.msg == "Extra data" else ""
        raise RequestError(f"not a game record: invalid JSON: {err}{hint}") from None
    if not isinstance(parsed, dict):
        raise RequestError("not a game record: the file does not hold a JSON object")
    return checked(parsed)


def checked(source: Mapping[str, Any]) -> dict[str, Any]:
    """The game record ``source`` holds (a record or a ``records.jsonl`` line), replayed to check it."""
    try:
        record = dict(as_record(source))
        replay(record)
    except RecordError as err:
        raise RequestError(f"bad game record: {err}") from None
    return record


def state(record: Mapping[str, Any], step: int, observer: int | None) -> dict[str, Any]:
    """The table after the first ``step`` decisions of a (checked) record as ``observer`` sees it
    (None: every hand open), with the decisions' list and the step's place in it."""
    decisions = record["decisions"]
    players = record["rules"].get("num_players", 0)
    if not isinstance(step, int) or not 0 <= step <= len(decisions):
        raise RequestError(f"step must be 0..{len(decisions)}, got {step!r}")
    if observer is not None and not 0 <= observer < players:
        raise RequestError(f"seat must be 0..{players - 1} or 'all', got {observer!r}")
    try:
        game = replay(record, steps=step)
    except RecordError as err:
        raise RequestError(f"bad game record: {err}") from None
    return view.table(game, observer) | {
        "step": step, "steps": len(decisions),
        "decisions": [{"seat": seat, "move": pretty_action(str_to_action(text))} for seat, text in decisions],
    }


class ReplayStore:
    """Checked records by unguessable id, bounded in number and dropped when unused for long."""

    def __init__(self, *, max_replays: int = MAX_REPLAYS, keep_seconds: float = KEEP_SECONDS,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.max_replays = max_replays
        self.keep_seconds = keep_seconds
        self.clock = clock
        self._records: dict[str, tuple[dict[str, Any], float]] = {}
        self._lock = threading.Lock()

    def add(self, record: dict[str, Any]) -> str:
        """Keep a checked record; returns its id (the least recently seen is dropped beyond the bound)."""
        now = self.clock()
        with self._lock:
            self._expire(now)
            while len(self._records) >= self.max_replays:
                oldest = min(self._records, key=lambda key: self._records[key][1])
                del self._records[oldest]
            replay_id = secrets.token_urlsafe(18)
            self._records[replay_id] = (record, now)
            return replay_id

    def get(self, replay_id: str) -> dict[str, Any]:
        """The record kept as ``replay_id``; 404 if unknown or expired."""
        now = self.clock()
        with self._lock:
            self._expire(now)
            kept = self._records.get(replay_id)
            if kept is None:
                raise RequestError("no such replay: replays of uploaded and played games are kept while the "
                                f"server runs, {self.keep_seconds / 3600:g} h after last seen", 404)
            self._records[replay_id] = (kept[0], now)
            return kept[0]

    def _expire(self, now: float) -> None:
        for key in [k for k, (_, seen) in self._records.items() if now - seen > self.keep_seconds]:
            del self._records[key]
