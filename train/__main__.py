"""Command line: ``python -m train [--config NAME|PATH] [--set key=value ...] [--resume RUN]``.

    python -m train                                   # the quick default (a few minutes)
    python -m train --config full                     # the full recipe of the shipped policy
    python -m train --set total_timesteps=20000 --out runs/try
    python -m train --resume runs/full --timesteps 3000000   # continue that run, in its folder
    python -m train --resume runs/full/checkpoints/step_1000000.npz --out runs/branch
    python -m train --backend rllib                   # Ray RLlib (train.rllib; a local Ray instance)
    python -m train --backend rllib --set rllib.address=auto rllib.num_env_runners=16   # a cluster
    python -m train --backend jax                     # PPO on the batched JAX core (train.jax)

``--resume RUN`` continues the run in RUN from its newest checkpoint with its own saved config
(``--set`` may change what can change mid-run: the budget, the opponent mix, PPO's step settings,
evaluation; not the game, the reward, the network or the seed); with ``--out`` it branches a new run
from the checkpoint instead, which may change the game, reward or seed but not the network.
Bad input (an unknown config key, a bad value, an unusable output folder, agent
or checkpoint) prints one line and exits 2 before anything is written.
"""

from __future__ import annotations

import argparse
import sys

from agents.base import AgentError
from agents.cli import OneLineParser
from allfours_env.rules import RulesError
from evaluate.progress import interval
from train.config import ConfigError, load

PROG = "python -m train"
#: The config each backend runs without ``--config`` (the JAX backend plays no Python bots in training).
DEFAULT_CONFIG = {"sb3": "quick", "rllib": "quick", "jax": "jax_quick"}



def parser() -> argparse.ArgumentParser:
    p = OneLineParser(prog=PROG, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--config", default=None,
                   help="config name in train/configs (quick, full) or a TOML file (default: quick, "
                        "jax_quick with --backend jax; with --resume: the run's own config)")
    p.add_argument("--set", nargs="*", default=[], metavar="KEY=VALUE",
                   help="override settings, e.g. total_timesteps=50000 ppo.learning_rate=1e-4")
    p.add_argument("--out", help="output folder (overrides the config's out; with --resume: a new run "
                                 "branched from the checkpoint)")
    p.add_argument("--seed", type=int, help="seed for everything (overrides the config's seed)")
    p.add_argument("--timesteps", type=int, help="learner timesteps (overrides total_timesteps)")
    p.add_argument("--resume", metavar="RUN", help="a run folder (its newest checkpoint) or a checkpoint "
                                                   "step_<N>.npz to continue from")
    p.add_argument("--no-progress", action="store_true",
                   help="no progress (a bar on a terminal; in a log a line every 30 s, or every "
                   "ALLFOURS_PROGRESS_SECONDS)")
    p.add_argument("--backend", choices=("sb3", "rllib", "jax"), default="sb3",
                   help="sb3: Stable-Baselines3 on this machine (default); rllib: Ray RLlib multi-agent "
                   "PPO, locally or on a cluster (the [rllib] table; needs allfours[rllib]); jax: PPO "
                   "self-play on the batched core, inside jit (the [jax] table; needs allfours[jax])")
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    overrides = list(args.set)
    for key, value in (("out", args.out), ("seed", args.seed), ("total_timesteps", args.timesteps)):
        if value is not None:
            overrides.append(f"{key}={value!r}" if isinstance(value, str) else f"{key}={value}")
    try:
        if not args.no_progress:
            try:
                interval()  # a bad ALLFOURS_PROGRESS_SECONDS is refused before anything starts
            except ValueError as err:
                raise ConfigError(str(err)) from None
        if args.resume:
            from train.runs import resume_config

            config = resume_config(args.resume, args.config, overrides)
        else:
            config = load(args.config or DEFAULT_CONFIG[args.backend], overrides)
        if args.backend == "rllib":
            from train.rllib import train
        elif args.backend == "jax":
            from train.jax import train
        else:
            from train.trainer import train

        train(config, resume=args.resume, progress=not args.no_progress)
    except (ConfigError, RulesError, AgentError) as err:
        print(f"{PROG}: error: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted: checkpoints written so far are kept; resume with --resume", file=sys.stderr)
        return 130
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
