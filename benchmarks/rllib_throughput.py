"""Learner steps/s of the RLlib backend with 1 and 2 env runners, beside Stable-Baselines3's.

    python benchmarks/rllib_throughput.py                       # RLlib with 1 and 2 env runners, and SB3
    python benchmarks/rllib_throughput.py --runners 1 2 4 --iterations 8 --repeats 3
    python benchmarks/rllib_throughput.py --gpu                 # the learner on a GPU (RLlib only)

Both backends train the quick default's PPO (``train/configs/quick.toml``: 4,096 steps per update,
minibatches of 512, 4 epochs, a 256x256 network, heuristic/random opponents in the env) from
scratch, with no evaluation and no warm start. A learner step is one decision of the trained
policy; steps/s is sampling and learning together (PPO alternates them), measured after one
warm-up update. The configurations are run in turn, ``--repeats`` times, and the medians printed,
so that load on a shared machine hits them alike.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from train.config import load  # noqa: E402


def rllib_rate(config, iterations: int) -> float:
    """Learner steps/s of ``iterations`` RLlib training iterations (after a warm-up one)."""
    from train.rllib import league
    from train.rllib.trainer import algorithm_config, lookup

    league.register()
    algo = algorithm_config(config).build_algo()
    try:
        algo.train()
        steps, began = 0, time.perf_counter()
        for _ in range(iterations):  # an iteration whose env runners sampled nothing in time has no count
            steps += int(lookup(algo.train(), ("env_runners", "num_env_steps_sampled")) or 0)
        return steps / (time.perf_counter() - began)
    finally:
        algo.stop()


def sb3_rate(config, iterations: int) -> float:
    """Learner steps/s of ``iterations`` MaskablePPO updates (after a warm-up one)."""
    import torch

    from train.envs import make_vec_env
    from train.model import new_model

    torch.set_num_threads(config.torch_threads)
    env = make_vec_env(config)
    try:
        with tempfile.TemporaryDirectory() as folder:
            model = new_model(config, env, Path(folder))
            batch = config.ppo.n_steps * config.n_envs
            model.learn(batch)
            began = time.perf_counter()
            model.learn(iterations * batch, reset_num_timesteps=False)
            return iterations * batch / (time.perf_counter() - began)
    finally:
        env.close()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runners", type=int, nargs="+", default=[1, 2], help="env runner counts")
    parser.add_argument("--envs-per-runner", type=int, default=8, help="rllib.num_envs_per_env_runner")
    parser.add_argument("--iterations", type=int, default=5, help="timed updates per measurement")
    parser.add_argument("--repeats", type=int, default=2, help="repetitions; medians are reported")
    parser.add_argument("--gpu", action="store_true", help="RLlib's learner on one GPU")
    parser.add_argument("--no-sb3", action="store_true", help="skip Stable-Baselines3")
    parser.add_argument("--config", default=None, help="training config (default: quick)")
    args = parser.parse_args(argv)

    import torch

    from evaluate.ray_backend import init_ray

    torch.set_num_threads(load(args.config).torch_threads)  # the driver's learner, as in a run
    init_ray("")
    runs: dict[str, list[float]] = {}
    for _ in range(args.repeats):
        for runners in args.runners:
            overrides = [f"rllib.num_env_runners={runners}",
                         f"rllib.num_envs_per_env_runner={args.envs_per_runner}"]
            if args.gpu:
                overrides.append("rllib.num_gpus_per_learner=1")
            label = f"RLlib, {runners} env runner{'s' if runners != 1 else ''}"
            label += ", GPU learner" if args.gpu else ""
            runs.setdefault(label, []).append(rllib_rate(load(args.config, overrides), args.iterations))
            print(f"{label}: {runs[label][-1]:,.0f} steps/s", file=sys.stderr)
        if not args.no_sb3:
            config = load(args.config)
            label = f"Stable-Baselines3, {config.n_envs} env processes"
            runs.setdefault(label, []).append(sb3_rate(config, args.iterations))
            print(f"{label}: {runs[label][-1]:,.0f} steps/s", file=sys.stderr)

    print(f"learner steps/s, the quick default's PPO, {args.iterations} updates x {args.repeats} repeats "
          "(medians)")
    print("| backend | learner steps/s | runs |")
    print("| --- | ---: | --- |")
    for label, rates in runs.items():
        print(f"| {label} | {statistics.median(rates):,.0f} | {', '.join(f'{r:,.0f}' for r in rates)} |")


if __name__ == "__main__":
    main()
