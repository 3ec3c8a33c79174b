"""The links of the README and of docs/ lead somewhere: every relative link names a file of the
repository, and every ``#anchor`` a heading of the page it points to (GitHub's rule: lower case,
punctuation dropped, spaces as hyphens)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"\]\(([^)\s]+)\)")


def anchor(heading: str) -> str:
    """GitHub's anchor of a heading."""
    text = heading.strip().lower().replace("`", "")
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors_of(page: Path) -> set[str]:
    text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.S)
    return {anchor(m.group(1)) for m in re.finditer(r"^#+ (.+)$", text, re.M)}


def test_anchors_follow_github():
    assert anchor("## 4. Presets and knobs".lstrip("# ")) == "4-presets-and-knobs"
    assert anchor("How long the two commands take") == "how-long-the-two-commands-take"


def broken_links(page: Path) -> list[str]:
    """The relative links of ``page`` whose file or heading does not exist."""
    text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.S)
    broken = []
    for target in LINK.findall(text):
        if re.match(r"[a-z]+:", target):
            continue  # https:, mailto:
        path, _, fragment = target.partition("#")
        goal = (page.parent / path).resolve() if path else page
        if not goal.exists():
            broken.append(target)
            continue
        if fragment and goal.suffix == ".md" and fragment not in anchors_of(goal):
            broken.append(target)
    return broken


def test_a_missing_file_or_heading_is_found(tmp_path):
    (tmp_path / "other.md").write_text("# Other\n\n## A heading\n")
    page = tmp_path / "page.md"
    page.write_text("[ok](other.md#a-heading) [gone](missing.md) [no heading](other.md#nowhere) "
                    "[web](https://example.org/x#y) [here](#title)\n\n# Title\n")
    assert broken_links(page) == ["missing.md", "other.md#nowhere"]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_link_leads_somewhere(page):
    assert not broken_links(page), f"{page.name}: links that lead nowhere: {broken_links(page)}"
