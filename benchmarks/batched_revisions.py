"""Before/after speed of the batched core: an older revision against the working tree.

    python benchmarks/batched_revisions.py 96457b3 --preset seven_up --players 2 --batch-sizes 1024,4096
    python benchmarks/batched_revisions.py d8764e1 --draw categorical --rounds 3

The revision's tree is extracted with ``git archive`` into a temporary folder. Each round measures the
old core, then the new one, each in a fresh process (both are ``allfours_env``, so they cannot share
one), with benchmarks/batched.py's loop: random play inside ``jit``, auto-reset, observation and mask
at every decision, timed after ``--warmup`` decisions per game. A shared machine's changing load hits
both alike; the ratios (new/old, medians over the rounds) are what to quote. The default draw,
``batched.random_action``, needs a revision that has it; ``--draw categorical`` works with any.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
from io import BytesIO
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def child(preset: str, players: int, batch: int, steps: int, repeats: int, warmup: int, draw: str) -> None:
    """Measure the ``allfours_env`` first on the path; print one ``RESULT compile_s rate`` line."""
    sys.path.insert(1, str(ROOT / "benchmarks"))
    from allfours_env import batched

    if draw == "uniform" and not hasattr(batched, "random_action"):
        sys.exit("this revision has no batched.random_action: pass --draw categorical")
    import batched as bench  # benchmarks/batched.py of the working tree

    env = batched.make(preset, players)
    draw_fn = batched.random_action if draw == "uniform" else bench.categorical_action
    compile_s, rate = bench.measure(env.init, batched.auto_reset(env), batch, steps, repeats, warmup, draw_fn)
    print(f"RESULT {compile_s:.1f} {rate:.0f}")


def run(tree: Path, args: argparse.Namespace, batch: int) -> tuple[float, float]:
    """(compile seconds, decisions/s) of the core in ``tree``, measured in a fresh process."""
    command = [sys.executable, __file__, "--child", args.preset, str(args.players), str(batch),
               str(args.steps), str(args.repeats), str(args.warmup), args.draw]
    env = dict(os.environ, PYTHONPATH=str(tree))
    done = subprocess.run(command, env=env, capture_output=True, text=True)
    lines = [line for line in done.stdout.splitlines() if line.startswith("RESULT ")]
    if done.returncode != 0 or not lines:
        sys.exit(f"the measurement of {tree} failed: {(done.stderr.strip().splitlines() or ['?'])[-1]}")
    compile_s, rate = map(float, lines[0].split()[1:])
    return compile_s, rate


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--child"]:
        preset, players, batch, steps, repeats, warmup, draw = argv[1:]
        child(preset, int(players), int(batch), int(steps), int(repeats), int(warmup), draw)
        return
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("revision", help="the older revision (a commit, tag or branch)")
    parser.add_argument("--preset", default="seven_up")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--batch-sizes", default="1024")
    parser.add_argument("--steps", type=int, default=20, help="decisions per game per timed run")
    parser.add_argument("--repeats", type=int, default=3, help="timed runs per process; the median is kept")
    parser.add_argument("--warmup", type=int, default=200, help="decisions per game before the timed runs")
    parser.add_argument("--rounds", type=int, default=2, help="old/new process pairs per batch size")
    parser.add_argument("--draw", choices=("uniform", "categorical"), default="uniform")
    args = parser.parse_args(argv)
    sizes = [int(b) for b in args.batch_sizes.split(",")]
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", args.revision], capture_output=True)
    if archive.returncode != 0:
        parser.error(f"git archive {args.revision} failed: {archive.stderr.decode().strip()}")
    with tempfile.TemporaryDirectory() as folder:
        with tarfile.open(fileobj=BytesIO(archive.stdout)) as tar:
            tar.extractall(folder, filter="data")
        trees = {args.revision: Path(folder), "working tree": ROOT}
        for batch in sizes:
            rates: dict[str, list[float]] = {name: [] for name in trees}
            compiles: dict[str, list[float]] = {name: [] for name in trees}
            for r in range(args.rounds):
                for name, tree in trees.items():
                    compile_s, rate = run(tree, args, batch)
                    rates[name].append(rate)
                    compiles[name].append(compile_s)
                    print(f"round {r}  {name:<14} batch {batch:>6}  {rate:>12,.0f} decisions/s  "
                          f"compile {compile_s:.1f} s", flush=True)
            old, new = (statistics.median(rates[name]) for name in trees)
            print(f"{args.preset} {args.players}p batch {batch}: {args.revision} {old:,.0f}, working tree "
                  f"{new:,.0f} decisions/s (medians of {args.rounds}), ratio {new / old:.2f}; compile s "
                  f"{statistics.median(compiles[args.revision]):.1f} / "
                  f"{statistics.median(compiles['working tree']):.1f}", flush=True)


if __name__ == "__main__":
    main()
