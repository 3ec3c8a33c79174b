"""Command line: ``python -m train [--config NAME|PATH] [--set key=value ...] [--resume PATH]``.

    python -m train                                   # the quick default (a few minutes)
    python -m train --config full                     # the full recipe of the shipped policy
    python -m train --set total_timesteps=20000 --out runs/try
    python -m train --config full --resume runs/full  # continue from the newest checkpoint
    python -m train --backend rllib                   # Ray RLlib (train.rllib; a local Ray instance)
    python -m train --backend rllib --set rllib.address=auto rllib.num_env_runners=16   # a cluster

Bad input (an unknown config key, a bad value, a corrupt checkpoint) prints one line and exits 2.
"""

from __future__ import annotations

import argparse
import sys

from agents.base import AgentError
from allfours_env.rules import RulesError
from train.config import ConfigError, load


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m train", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--config", default=None,
                   help="config name in train/configs (quick, full) or a TOML file (default: quick)")
    p.add_argument("--set", nargs="*", default=[], metavar="KEY=VALUE",
                   help="override settings, e.g. total_timesteps=50000 ppo.learning_rate=1e-4")
    p.add_argument("--out", help="output folder (overrides the config's out)")
    p.add_argument("--seed", type=int, help="seed for everything (overrides the config's seed)")
    p.add_argument("--timesteps", type=int, help="learner timesteps (overrides total_timesteps)")
    p.add_argument("--resume", help="checkpoint .zip, or a run folder (its newest checkpoint)")
    p.add_argument("--no-progress", action="store_true", help="no progress bars")
    p.add_argument("--backend", choices=("sb3", "rllib"), default="sb3",
                   help="sb3: Stable-Baselines3 on this machine (default); rllib: Ray RLlib multi-agent "
                   "PPO, locally or on a cluster (the [rllib] table; needs allfours[rllib])")
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    overrides = list(args.set)
    for key, value in (("out", args.out), ("seed", args.seed), ("total_timesteps", args.timesteps)):
        if value is not None:
            overrides.append(f"{key}={value!r}" if isinstance(value, str) else f"{key}={value}")
    try:
        config = load(args.config, overrides)
        if args.backend == "rllib":
            from train.rllib import train
        else:
            from train.trainer import train

        train(config, resume=args.resume, progress=not args.no_progress)
    except (ConfigError, RulesError, AgentError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted: checkpoints written so far are kept; resume with --resume", file=sys.stderr)
        return 130
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
