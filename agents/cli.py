"""What the command lines share: an argparse parser whose usage errors are one line.

``allfours-play`` and ``allfours-evaluate`` report a bad argument as one line on stderr that names it
and points at ``--help``, with exit status 2 and no usage block::

    allfours-evaluate: error: argument --games: invalid int value: 'many' (see --help)

:func:`write_problem` is the one check that a folder can be written (a probe file created and
removed).
"""

from __future__ import annotations

import argparse
import os
import tempfile
from typing import NoReturn


class OneLineParser(argparse.ArgumentParser):
    """argparse, but a usage error is one line on stderr (and exit status 2)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see --help)\n")


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
