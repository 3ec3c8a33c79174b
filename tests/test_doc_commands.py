"""The command lines of the README and of docs/ are written as the commands take them.

Running them all would take hours (``python -m train --config full`` alone takes one), so every
``python -m`` line of a ```bash block is checked without doing its work: its arguments go through
the command's own parser, and beyond it ``python -m train`` builds its config (every ``--set`` key
and value checked, as the command does before it writes anything) and ``python -m evaluate`` its
rules, knobs and agent specs. The commands that are cheap enough are run by the tests of their
package; the Python examples run in full (tests/test_readme.py).
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
BASH = re.compile(r"```bash\n(.*?)```", re.S)
COMMAND = re.compile(r"(?:\.venv/bin/)?python -m ((?:agents\.play|evaluate\.pool|evaluate|train\.average|"
                     r"train\.convert|train)\b.*)")


def commands_of(page: Path) -> list[tuple[str, list[str]]]:
    """(where, [module, *args]) of every checked ``python -m`` line of the page's bash blocks."""
    text = page.read_text(encoding="utf-8")
    found = []
    for block in BASH.finditer(text):
        joined = block.group(1).replace("\\\n", " ")
        for offset, line in enumerate(joined.splitlines()):
            for part in line.split("&&"):
                match = COMMAND.search(part)
                if match is None:
                    continue
                words = shlex.split(match.group(1), comments=True)
                line_number = text.count("\n", 0, block.start()) + 2 + offset
                found.append((f"{page.relative_to(ROOT).as_posix()}:{line_number}", words))
    return found


COMMANDS = [command for page in PAGES for command in commands_of(page)]


def check_train(args: list[str]) -> None:
    from train import load
    from train.__main__ import parser

    parsed = parser().parse_args(args)
    if parsed.resume:
        return  # a config saved in the run's folder: nothing to build here
    overrides = list(parsed.set)
    for key, value in (("out", parsed.out), ("seed", parsed.seed), ("total_timesteps", parsed.timesteps)):
        if value is not None:
            overrides.append(f"{key}={value!r}" if isinstance(value, str) else f"{key}={value}")
    load(parsed.config, overrides)


def check_evaluate(args: list[str]) -> None:
    from agents.base import parse_spec
    from allfours_env import Rules
    from evaluate.__main__ import check_options, parse_knobs, parser

    parsed = parser().parse_args(args)
    check_options(parsed)
    Rules.make(parsed.preset, parsed.players, **parse_knobs(parsed.rule))
    for spec in parsed.agents:
        parse_spec(spec)


def check_with_parser(module: str, args: list[str]) -> None:
    if module == "agents.play":
        from agents.play.cli import build_parser as parser
    elif module == "evaluate.pool":
        from evaluate.pool import parser
    elif module == "train.average":
        from train.average import parser
    else:
        from train.convert import parser
    parser().parse_args(args)


def test_the_pages_have_their_commands():
    modules = {words[0] for _, words in COMMANDS}
    assert {"train", "evaluate", "evaluate.pool", "agents.play", "train.convert"} <= modules


@pytest.mark.parametrize("words", [pytest.param(words, id=where) for where, words in COMMANDS])
def test_command_is_written_as_the_command_takes_it(words, capsys):
    module, args = words[0], words[1:]
    try:
        if module == "train":
            check_train(args)
        elif module == "evaluate":
            check_evaluate(args)
        else:
            check_with_parser(module, args)
    except SystemExit as exit_:  # the command's parser refused the arguments
        pytest.fail(f"python -m {shlex.join(words)}: exit {exit_.code}: {capsys.readouterr().err.strip()}")


def test_a_mistyped_command_is_caught():
    with pytest.raises(SystemExit):
        check_evaluate(["random", "heuristic", "--gmaes", "10"])
    from train.config import ConfigError

    with pytest.raises(ConfigError):
        check_train(["--set", "ppo.learning_rte=3e-4"])
