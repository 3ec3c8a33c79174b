"""The checks of setting values that every table of a training config shares (:mod:`train.config`,
:mod:`train.rllib.settings`): each rule is ``(test, what it accepts)``, the form of
:data:`train.config.RULES`."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

Rule = tuple[Callable[[Any], bool], str]


def is_whole(value: Any) -> bool:
    """Whether ``value`` is an integer (a bool is not)."""
    return isinstance(value, int) and not isinstance(value, bool)


def is_number(value: Any) -> bool:
    """Whether ``value`` is a finite int or float (a bool is not)."""
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def count_rule(low: int, high: int, what: str = "") -> Rule:
    """A rule for a whole number from ``low`` to ``high`` (``what``: of what, e.g. 'games')."""
    return (lambda value: is_whole(value) and low <= value <= high,
            f"a whole number{' of ' + what if what else ''} from {low:,} to {high:,}")
