"""The README's Python examples run as written.

Each ```python block runs in a fresh interpreter whose working folder is a temporary one that sees
the repository's ``agents/`` (the examples name ``agents/policies/...`` relative to the repository
root) and writes its files (``game.json``) there. A block that the text introduces as "continuing"
an example runs after the first block of its section.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
BLOCK = re.compile(r"```python\n(.*?)```", re.S)


def _examples() -> list[tuple[str, str]]:
    """(id, code) of every Python block, a continuation prefixed by its section's first block."""
    examples = []
    first_of_section: dict[int, str] = {}
    for match in BLOCK.finditer(README):
        section = README.rfind("\n## ", 0, match.start())
        code = textwrap.dedent(match.group(1))
        first = first_of_section.setdefault(section, code)
        if "continuing" in README[max(section, match.start() - 200):match.start()] and first is not code:
            code = first + "\n" + code
        line = README.count("\n", 0, match.start()) + 1
        examples.append((f"README.md:{line}", code))
    return examples


EXAMPLES = _examples()


def test_the_readme_has_its_examples():
    assert len(EXAMPLES) >= 8


@pytest.mark.parametrize("code", [pytest.param(code, id=where) for where, code in EXAMPLES])
def test_readme_example_runs_as_written(code, tmp_path):
    (tmp_path / "agents").symlink_to(ROOT / "agents", target_is_directory=True)
    env = dict(os.environ, PYTHONPATH=str(ROOT), MPLBACKEND="Agg")
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
