"""The type checks of values a user gives (knobs, records, model files, tournament and training
settings), shared by every layer so that each says the same thing: a bool is not a number, and
nothing is coerced."""

from __future__ import annotations

import math
from typing import Any


def is_whole(value: Any) -> bool:
    """Whether ``value`` is an integer (a bool is not)."""
    return isinstance(value, int) and not isinstance(value, bool)


def is_number(value: Any) -> bool:
    """Whether ``value`` is a finite int or float (a bool is not)."""
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
