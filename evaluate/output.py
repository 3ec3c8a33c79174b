"""Where the files of a tournament go, decided and checked before its first game.

* ``--out DIR`` given: ``DIR`` is created if needed. If it already holds results (any file of
  :data:`evaluate.report.REPORT_FILES`), the run is refused unless ``overwrite`` is set (the command
  line's ``--overwrite``): earlier results are never replaced silently. Files of other names in
  ``DIR`` are left alone.
* No ``--out``: a new folder :func:`default_name` under ``runs/evaluate/`` — agents, preset,
  players and seed, e.g. ``runs/evaluate/heuristic-vs-random-seven_up-2p-seed0`` — and, when that
  name is taken, the same name with ``-2``, ``-3`` ... The folder is created at once (an atomic
  ``mkdir``), so two tournaments started together cannot pick the same one.

Either way the folder is known to be writable before any game is played (a probe file is written
and removed). Folders made for a run that ends with nothing to save are removed again
(:meth:`OutputFolder.release`).
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from agents.cli import write_problem
from allfours_env.rules import Rules
from evaluate.report import REPORT_FILES
from evaluate.tournament import TournamentError

DEFAULT_ROOT = Path("runs", "evaluate")
#: Longest agents part of a default folder name (the numbering keeps names unique anyway).
MAX_AGENTS_CHARS = 80
MAX_NUMBER = 10_000


def default_name(labels: Sequence[str], rules: Rules, seed: int) -> str:
    """``<agent>-vs-<agent>...-<preset>-<players>p-seed<seed>``, every character outside letters,
    digits and ``._=+-`` of an agent's label replaced by ``-`` (``ppo:runs/a/model.zip`` →
    ``ppo-runs-a-model.zip``)."""
    agents = "-vs-".join(re.sub(r"[^A-Za-z0-9._=+-]+", "-", label).strip("-.") or "agent"
                         for label in labels)
    return f"{agents[:MAX_AGENTS_CHARS].rstrip('-.')}-{rules.preset}-{rules.num_players}p-seed{seed}"


@dataclass
class OutputFolder:
    """A checked, writable folder for a tournament's files; ``created`` lists the folders made for
    it (deepest first), which :meth:`release` removes again if they stayed empty."""

    path: Path
    created: list[Path] = field(default_factory=list)

    @classmethod
    def given(cls, out: str | os.PathLike, overwrite: bool = False) -> OutputFolder:
        """The folder the user named: refused (:class:`TournamentError`) if it is a file, cannot be
        created or written, or holds results and ``overwrite`` is False."""
        path = Path(out)
        if path.exists() and not path.is_dir():
            raise TournamentError(f"--out {out} is a file, not a folder: give a folder for the results")
        if path.is_dir():
            held = [name for name in REPORT_FILES if (path / name).exists()]
            if held and not overwrite:
                raise TournamentError(
                    f"--out {out} already holds results ({', '.join(held)}): give a new folder, or add "
                    f"--overwrite to replace them"
                )
        folder = cls(path, _make_folders(path, out))
        folder._probe()
        return folder

    @classmethod
    def new(cls, labels: Sequence[str], rules: Rules, seed: int,
            root: str | os.PathLike = DEFAULT_ROOT) -> OutputFolder:
        """A folder no earlier run has used: ``root/`` :func:`default_name`, numbered ``-2``, ``-3``
        ... when taken."""
        root = Path(root)
        created = _make_folders(root, root)
        base = default_name(labels, rules, seed)
        for number in range(1, MAX_NUMBER + 1):
            path = root / (base if number == 1 else f"{base}-{number}")
            try:
                path.mkdir()
            except FileExistsError:
                continue
            except OSError as err:
                raise TournamentError(f"cannot create the results folder {path}: {_reason(err)}") from None
            folder = cls(path, [path, *created])
            folder._probe()
            return folder
        raise TournamentError(f"{root} already holds {MAX_NUMBER} folders named {base}: give --out DIR")

    def release(self) -> None:
        """Remove the folders made for this run that are still empty (nothing was saved)."""
        for path in self.created:
            try:
                path.rmdir()
            except OSError:
                return

    def _probe(self) -> None:
        """Write and remove a file, so that an unwritable folder fails before the games."""
        problem = write_problem(self.path)
        if problem is not None:
            self.release()
            raise TournamentError(f"cannot write to the results folder {self.path}: {problem}")


def _make_folders(path: Path, shown: str | os.PathLike) -> list[Path]:
    """Create ``path`` and its missing parents; return the folders created, deepest first."""
    missing = []
    probe = path
    while not probe.exists() and probe != probe.parent:
        missing.append(probe)
        probe = probe.parent
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise TournamentError(f"cannot create the results folder {shown}: {_reason(err)}") from None
    return missing


def _reason(err: OSError) -> str:
    return err.strerror or str(err)
