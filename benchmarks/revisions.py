"""Before/after speed of the engine and the AEC env: an older revision against the working tree.

    python benchmarks/revisions.py 5184d97                 # round 1's last commit vs now
    python benchmarks/revisions.py a522c18 --repeats 9 --games 300

The ``allfours_env`` package of the revision is extracted with ``git archive`` into a temporary
folder under another name, so both versions are imported into one process and measured turn about
(every repetition runs the old one, then the new one): a shared machine's changing load hits them
alike, and the printed ratios (new/old, medians of ``--repeats``) are what to quote. Measured:
random legal games of the bare engine for the round-1 presets (both versions have them), and the
PettingZoo loop (``agent_iter`` / ``last`` / random legal action / ``step``) of ``env`` and
``raw_env`` on seven_up 2p.
"""

from __future__ import annotations

import argparse
import importlib
import random
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from io import BytesIO
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from aec import steps_per_second  # noqa: E402  (benchmarks/aec.py, beside this script)

import allfours_env  # noqa: E402

OLD_NAME = "allfours_before"
ENGINE_CASES = [("seven_up", 2), ("seven_up", 3), ("seven_up", 4), ("all_fours", 2), ("trinidad", 4),
                ("blind_all_fours", 2)]


def import_revision(revision: str, folder: Path):
    """The ``allfours_env`` package of ``revision``, importable as :data:`OLD_NAME`."""
    try:
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", revision, "allfours_env"],
                                 check=True, capture_output=True).stdout
    except subprocess.CalledProcessError as err:
        sys.exit(f"revisions.py: error: git cannot read {revision!r}: {err.stderr.decode().strip()}")
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        tar.extractall(folder, filter="data")
    package = folder / OLD_NAME
    (folder / "allfours_env").rename(package)
    for source in package.rglob("*.py"):
        source.write_text(source.read_text().replace("allfours_env", OLD_NAME))
    sys.path.insert(0, str(folder))
    return importlib.import_module(OLD_NAME)


def engine_rate(module, preset: str, players: int, games: int, seed: int) -> float:
    """Decisions per second of uniformly random legal games."""
    rules = module.Rules.make(preset, players)
    rng = random.Random(seed)
    over = module.engine.GAME_OVER
    decisions = 0
    start = time.perf_counter()
    for index in range(games):
        game = module.Game(rules, seed=seed + index)
        legal, apply = game.legal_actions, game.apply
        while game.phase != over:
            apply(rng.choice(legal()))
            decisions += 1
    return decisions / (time.perf_counter() - start)


def aec_rate(make, steps: int, seed: int) -> float:
    """AEC steps per second of seven_up 2p (the loop of ``aec.py``)."""
    return steps_per_second(make(preset="seven_up", num_players=2), steps, seed)


def turn_about(measure, old_args: tuple, new_args: tuple, repeats: int) -> tuple[float, float]:
    """Medians of ``repeats`` runs of ``measure(*args, seed)`` for the old and the new arguments,
    taken alternately."""
    old, new = [], []
    for repeat in range(repeats):
        old.append(measure(*old_args, 1000 * repeat))
        new.append(measure(*new_args, 1000 * repeat))
    return statistics.median(old), statistics.median(new)


def row(case: str, before: float, after: float) -> str:
    return f"{case:<28}{before:>12,.0f}{after:>12,.0f}{after / before:>10.3f}"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("revision", help="the git revision to compare the working tree with")
    parser.add_argument("--repeats", type=int, default=7, help="repetitions; medians are reported")
    parser.add_argument("--games", type=int, default=300, help="engine games per repetition")
    parser.add_argument("--steps", type=int, default=10_000, help="AEC steps per repetition")
    args = parser.parse_args(argv)
    for name in ("repeats", "games", "steps"):
        if getattr(args, name) < 1:
            parser.error(f"--{name} must be a whole number >= 1")
    with tempfile.TemporaryDirectory() as folder:
        old = import_revision(args.revision, Path(folder))
        print(f"{args.revision} (old) against the working tree (new), medians of {args.repeats}")
        print(f"{'case':<28}{'old':>12}{'new':>12}{'new/old':>10}")
        for preset, players in ENGINE_CASES:
            case = (preset, players, args.games)
            before, after = turn_about(engine_rate, (old, *case), (allfours_env, *case), args.repeats)
            print(row(f"engine {preset} {players}p", before, after))
        for label in ("env", "raw_env"):
            before, after = turn_about(aec_rate, (getattr(old, label), args.steps),
                                       (getattr(allfours_env, label), args.steps), args.repeats)
            print(row(f"AEC {label} seven_up 2p", before, after))

if __name__ == "__main__":
    main()
