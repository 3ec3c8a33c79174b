"""The checks of setting values that every table of a training config shares (:mod:`train.config`,
:mod:`train.rllib.settings`): each rule is ``(test, what it accepts)``, the form of
:data:`train.config.RULES`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from allfours_env.values import is_number, is_whole

Rule = tuple[Callable[[Any], bool], str]

__all__ = ["Rule", "count_rule", "is_number", "is_whole"]


def count_rule(low: int, high: int, what: str = "") -> Rule:
    """A rule for a whole number from ``low`` to ``high`` (``what``: of what, e.g. 'games')."""
    return (lambda value: is_whole(value) and low <= value <= high,
            f"a whole number{' of ' + what if what else ''} from {low:,} to {high:,}")
