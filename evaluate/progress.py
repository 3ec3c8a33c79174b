"""Progress of long work that shows on a terminal and in a log file alike.

On a terminal it is a tqdm bar (done/total, rate, time left). When the output is not a terminal
(``python -m train > log``, a batch job), a bar would write nothing readable, so a line like

    games: 1,204/2,000 (60%), 38.5 games/s, 31 s elapsed, about 21 s left

is printed every :func:`interval` seconds (30 by default; the environment variable
``ALLFOURS_PROGRESS_SECONDS`` changes it) by a timer, so a line comes even while the work is busy
in one long step, and once more at the end. :meth:`Progress.note` adds a last word to each line
(a training run's last evaluation).
"""

from __future__ import annotations

import os
import sys
import threading
import time
from typing import Any, TextIO

#: The environment variable that sets the seconds between two progress lines in a log.
INTERVAL_ENV = "ALLFOURS_PROGRESS_SECONDS"
DEFAULT_INTERVAL = 30.0


def interval() -> float:
    """Seconds between two progress lines when the output is not a terminal: ``ALLFOURS_PROGRESS_SECONDS``
    or 30. A value that is not a positive number raises ValueError naming it."""
    text = os.environ.get(INTERVAL_ENV, "")
    if not text:
        return DEFAULT_INTERVAL
    try:
        seconds = float(text)
    except ValueError:
        seconds = float("nan")
    if not seconds > 0 or seconds == float("inf"):
        raise ValueError(f"{INTERVAL_ENV} must be a number of seconds above 0, got {text!r}")
    return seconds


def format_rate(per_second: float, unit: str) -> str:
    """A rate that reads at any speed: ``1,982 games/s``, ``2.50 games/s``, ``19 s per game``."""
    if per_second >= 10:
        return f"{per_second:,.0f} {unit}s/s"
    if per_second >= 0.1:
        return f"{per_second:.2f} {unit}s/s"
    if per_second > 0:
        return f"{1 / per_second:,.0f} s per {unit}"
    return f"no {unit} yet"


def format_duration(seconds: float) -> str:
    """``42 s``, ``3 min 05 s``, ``1 h 02 min``."""
    seconds = max(0, round(seconds))
    if seconds < 60:
        return f"{seconds} s"
    if seconds < 3600:
        return f"{seconds // 60} min {seconds % 60:02d} s"
    return f"{seconds // 3600} h {seconds % 3600 // 60:02d} min"


class Progress:
    """Done out of total of some work: a bar on a terminal, a line every :func:`interval` seconds
    in a log. ``update(n)`` counts work done (from any thread), ``note(text)`` sets the last word
    of each line, ``close()`` ends it (a last line in a log). Also a context manager."""

    def __init__(self, total: int, what: str, unit: str = "game", *, initial: int = 0,
                 stream: TextIO | None = None, seconds: float | None = None) -> None:
        self.total, self.what, self.unit = total, what, unit
        self.initial = self.done = initial
        self.stream = stream if stream is not None else sys.stderr
        self.seconds = interval() if seconds is None else seconds
        self.started = time.monotonic()
        self._note = ""
        self._closed = threading.Event()
        self._lock = threading.Lock()
        self._bar: Any = None
        self._timer: threading.Thread | None = None
        isatty = getattr(self.stream, "isatty", None)
        if isatty is not None and isatty():
            try:
                from tqdm import tqdm

                self._bar = tqdm(total=total, initial=initial, unit=unit, desc=what, file=self.stream,
                                 dynamic_ncols=True, smoothing=0.1)
            except ImportError:
                pass
        if self._bar is None:
            self._timer = threading.Thread(target=self._tick, name="allfours-progress", daemon=True)
            self._timer.start()

    def update(self, n: int = 1) -> None:
        """Count ``n`` more units done."""
        with self._lock:
            self.done += n
            if self._bar is not None:
                self._bar.update(n)

    def note(self, text: str) -> None:
        """Add ``text`` to every line from now on (e.g. "last evaluation: 61% vs random")."""
        with self._lock:
            self._note = text
            if self._bar is not None:
                self._bar.set_postfix_str(text, refresh=False)

    def line(self) -> str:
        """The progress line as printed in a log."""
        elapsed = time.monotonic() - self.started
        done = self.done
        rate = (done - self.initial) / elapsed if elapsed > 0 else 0.0
        share = f" ({done / self.total:.0%})" if self.total else ""
        parts = [f"{self.what}: {done:,}/{self.total:,}{share}", format_rate(rate, self.unit),
                 f"{format_duration(elapsed)} elapsed"]
        if 0 < done < self.total and rate > 0:
            parts.append(f"about {format_duration((self.total - done) / rate)} left")
        text = ", ".join(parts)
        return f"{text}; {self._note}" if self._note else text

    def _print(self) -> None:
        with self._lock:
            print(self.line(), file=self.stream, flush=True)

    def _tick(self) -> None:
        while not self._closed.wait(self.seconds):
            self._print()

    def close(self) -> None:
        """End the progress: close the bar, or print the last line in a log."""
        if self._closed.is_set():
            return
        self._closed.set()
        if self._bar is not None:
            self._bar.close()
        else:
            if self._timer is not None:
                self._timer.join()
            self._print()

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
