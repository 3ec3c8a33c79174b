"""The one check of a path a page names: it must lie inside a given folder (``--runs``, the
shipped policies) once every ``..`` and symbolic link is resolved. Nothing else reads files."""

from __future__ import annotations

from pathlib import Path


class PathError(ValueError):
    """A path outside the folder it must lie in, or a missing one."""


def inside(root: Path, relative: str, *, must_exist: bool = False) -> Path:
    """``root / relative`` resolved, if it lies inside ``root`` (resolved too); raises
    :class:`PathError` for an absolute path, one that leaves ``root`` (``..``, a link) or — with
    ``must_exist`` — a missing file."""
    if not isinstance(relative, str) or not relative or "\x00" in relative:
        raise PathError("give a path relative to the folder")
    if Path(relative).is_absolute():
        raise PathError(f"{relative!r} is an absolute path: give a path relative to the folder")
    base = root.resolve()
    target = (base / relative).resolve()
    if target != base and base not in target.parents:
        raise PathError(f"{relative!r} lies outside the folder")
    if must_exist and not target.is_file():
        raise PathError(f"{relative!r} is not a file in the folder")
    return target
