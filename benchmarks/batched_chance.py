"""The batched core's chance loop run per group of waiting games vs for the whole batch, in one run.

    python benchmarks/batched_chance.py --preset seven_up --batch-sizes 1024 --steps 20 --repeats 3

For each batch size, ``benchmarks/batched.py``'s jitted random play (auto-reset, observation and
mask at every decision) is measured twice, alternately: with the core as it is (under ``vmap`` the
chance loop runs only for the games waiting for chance, ``Core.chance_of_batch``) and with the loop
run for the whole batch (``Core.chance_loop`` vmapped, every game through every pass). Prints
compile seconds, median decisions/s and the ratio.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from batched import measure  # noqa: E402

from allfours_env import PRESETS, batched  # noqa: E402
from allfours_env.batched.core import Core  # noqa: E402


def whole_batch(core: Core, state):
    """The chance loop for every game of the batch (the loop vmapped as it is)."""
    return core.chance_loop(state)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--preset", default="seven_up", choices=sorted(PRESETS))
    parser.add_argument("--players", type=int, help="player count (default: the preset's first)")
    parser.add_argument("--batch-sizes", default="1024")
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    players = args.players or PRESETS[args.preset]["players"][0]
    grouped = Core.chance
    for batch in [int(b) for b in args.batch_sizes.split(",")]:
        rates = {}
        for name, chance in (("whole batch", whole_batch), ("grouped", grouped)):
            Core.chance = chance
            env = batched.make(args.preset, players)
            step = batched.auto_reset(env)
            compile_s, rates[name] = measure(env.init, step, batch, args.steps, args.repeats)
            print(f"{args.preset} {players}p batch {batch:>6} {name:<12} compile {compile_s:6.1f} s "
                  f"{rates[name]:>12,.0f} decisions/s", flush=True)
        Core.chance = grouped
        print(f"{args.preset} {players}p batch {batch:>6} grouped / whole batch: "
              f"{rates['grouped'] / rates['whole batch']:.2f}", flush=True)


if __name__ == "__main__":
    main()
