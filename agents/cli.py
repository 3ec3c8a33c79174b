"""What the command lines share: an argparse parser whose usage errors are one line.

``allfours-play`` and ``allfours-evaluate`` report a bad argument as one line on stderr that names it
and points at ``--help``, with exit status 2 and no usage block::

    allfours-evaluate: error: argument --games: invalid int value: 'many' (see --help)
"""

from __future__ import annotations

import argparse
from typing import NoReturn


class OneLineParser(argparse.ArgumentParser):
    """argparse, but a usage error is one line on stderr (and exit status 2)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see --help)\n")
