"""What the command lines share: an argparse parser whose usage errors are one line.

``allfours-play`` and ``allfours-evaluate`` report a bad argument as one line on stderr that names it
and points at ``--help``, with exit status 2 and no usage block::

    allfours-evaluate: error: argument --games: invalid int value: 'many' (see --help)

Counts have upper bounds (:func:`count`): a number of games, workers or processes far beyond what a
machine can run is a typo, refused at once rather than run for ever or forked until the system
runs out of processes or open files. :func:`write_problem` is the one check that a folder can be
written (a probe file created and removed).
"""

from __future__ import annotations

import argparse
import os
import tempfile
from collections.abc import Callable
from typing import NoReturn

#: The most worker processes a command starts (evaluation workers, training environments): each is
#: a process with its own pipes; far more than any machine has cores only slows it down.
MAX_WORKERS = 256
#: The most games of one evaluation (per pairing): hours at the speed of the bots.
MAX_GAMES = 10_000_000


class OneLineParser(argparse.ArgumentParser):
    """argparse, but a usage error is one line on stderr (and exit status 2)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see --help)\n")


def count(low: int, high: int) -> Callable[[str], int]:
    """An argparse ``type``: a whole number from ``low`` to ``high`` (a one-line usage error else)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"invalid int value: {text!r}") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"must be a whole number from {low:,} to {high:,}, "
                                             f"got {value:,}")
        return value

    return parse


def write_problem(folder: str | os.PathLike) -> str | None:
    """Why no file can be created in the existing folder ``folder``, or None if one can: a probe file
    is created and removed. (``os.access`` is no test: it is always true for root, and it does not
    know read-only or virtual file systems such as ``/proc``.)"""
    try:
        handle, name = tempfile.mkstemp(prefix=".write-test-", dir=folder)
    except OSError as err:
        return err.strerror or str(err)
    os.close(handle)
    try:
        os.unlink(name)
    except OSError as err:
        return err.strerror or str(err)
    return None
