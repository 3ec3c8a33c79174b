"""Every Python example of the README and of the pages under ``docs/`` runs as written.

Each ```python block runs in a fresh interpreter whose working folder is a temporary one that sees
the repository's ``agents/`` and ``benchmarks/`` (the examples name ``agents/policies/...`` and
import the benchmark scripts relative to the repository root) and writes its files (``game.json``)
there. A block that the text introduces as "continuing" an example runs after the first block of its
section (a ``## `` heading of the same page).

None is shrunk or skipped: the slowest (five seconds of PPO in docs/environment.md, a game of the
search bot) take seconds. The command lines of the pages are checked by tests/test_doc_commands.py.
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
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
BLOCK = re.compile(r"```python\n(.*?)```", re.S)


def examples_of(page: Path) -> list[tuple[str, str]]:
    """(where, code) of every Python block of ``page``, a continuation prefixed by its section's first
    block."""
    text = page.read_text(encoding="utf-8")
    name = page.relative_to(ROOT).as_posix()
    examples = []
    first_of_section: dict[int, str] = {}
    for match in BLOCK.finditer(text):
        section = text.rfind("\n## ", 0, match.start())
        code = textwrap.dedent(match.group(1))
        first = first_of_section.setdefault(section, code)
        if "continuing" in text[max(section, match.start() - 200):match.start()] and first is not code:
            code = first + "\n" + code
        line = text.count("\n", 0, match.start()) + 1
        examples.append((f"{name}:{line}", code))
    return examples


EXAMPLES = [example for page in PAGES for example in examples_of(page)]


def test_the_readme_and_the_docs_have_their_examples():
    where = {spot.split(":")[0] for spot, _ in EXAMPLES}
    assert {"README.md", "docs/environment.md", "docs/evaluation.md"} <= where
    assert len(EXAMPLES) >= 12


def test_no_example_is_indented_inside_a_list_item():
    """A block indented under a list item fails when pasted (its first line starts with spaces)."""
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        assert not re.search(r"\n[ \t]+```python", text), f"{page.name}: an indented Python block"


@pytest.mark.parametrize("code", [pytest.param(code, id=where) for where, code in EXAMPLES])
def test_example_runs_as_written(code, tmp_path):
    for folder in ("agents", "benchmarks"):
        (tmp_path / folder).symlink_to(ROOT / folder, target_is_directory=True)
    env = dict(os.environ, PYTHONPATH=str(ROOT), MPLBACKEND="Agg")
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
