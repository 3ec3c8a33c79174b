"""evaluate.progress: the progress line of long work in a log, and its interval."""

from __future__ import annotations

import io
import time

import pytest

from evaluate.progress import Progress, format_duration, format_rate, interval


def test_rates_read_at_any_speed():
    assert format_rate(1982.4, "game") == "1,982 games/s"
    assert format_rate(2.5, "game") == "2.50 games/s"
    assert format_rate(0.05, "game") == "20 s per game"  # never "0 games/s"
    assert format_rate(0.0, "step") == "no step yet"


def test_durations():
    assert format_duration(42.4) == "42 s"
    assert format_duration(185) == "3 min 05 s"
    assert format_duration(3725) == "1 h 02 min"


def test_a_log_gets_lines_with_done_total_and_the_note():
    stream = io.StringIO()  # not a terminal
    progress = Progress(10, "training", "step", stream=stream, seconds=3600)
    progress.update(4)
    progress.note("evaluation at 4 steps: 60% vs random")
    line = progress.line()
    assert line.startswith("training: 4/10 (40%), ") and "steps/s" in line and "left" in line
    assert line.endswith("; evaluation at 4 steps: 60% vs random")
    progress.update(6)
    progress.close()
    progress.close()  # once only
    printed = stream.getvalue().splitlines()
    assert len(printed) == 1 and printed[0].startswith("training: 10/10 (100%)")
    assert "left" not in printed[0]


def test_the_timer_prints_while_nothing_is_updated():
    stream = io.StringIO()
    with Progress(5, "games", stream=stream, seconds=0.01) as progress:
        while stream.getvalue().count("\n") < 3:
            time.sleep(0.01)
        progress.update(5)
    lines = stream.getvalue().splitlines()
    assert lines[0].startswith("games: 0/5 (0%), no game yet")
    assert lines[-1].startswith("games: 5/5 (100%)")


@pytest.mark.parametrize("value", ["soon", "0", "-1", "nan", "inf"])
def test_a_bad_interval_names_the_variable(monkeypatch, value):
    monkeypatch.setenv("ALLFOURS_PROGRESS_SECONDS", value)
    with pytest.raises(ValueError, match=f"ALLFOURS_PROGRESS_SECONDS must be a number of seconds above 0, "
                                         f"got '{value}'"):
        interval()


def test_the_interval_defaults_to_30_seconds(monkeypatch):
    monkeypatch.delenv("ALLFOURS_PROGRESS_SECONDS", raising=False)
    assert interval() == 30.0
    monkeypatch.setenv("ALLFOURS_PROGRESS_SECONDS", "0.5")
    assert interval() == 0.5
