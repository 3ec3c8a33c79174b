"""Learner steps/s of the JAX backend beside Stable-Baselines3's (and RLlib's), in one run.

    python benchmarks/train_backends.py                          # JAX and SB3
    python benchmarks/train_backends.py --rllib --iterations 5 --repeats 3
    python benchmarks/train_backends.py --bots --no-sb3          # JAX against heuristic beside random
    python benchmarks/train_backends.py --bots --no-sb3 --preset don   # the same on another 2p preset

Every backend trains the same PPO from scratch: the quick default's (``train/configs/quick.toml``:
a 256x256 network, 4,096 decisions per update, minibatches of 512, 4 epochs, Adam), against
uniformly random opponents (the one opponent every backend plays alike), no evaluation, no warm
start. SB3: ``n_steps`` 2,048 x 2 env processes; JAX: ``jax.num_envs`` games x
``jax.rollout_steps`` decisions = 4,096, ``jax.minibatches`` 8: minibatches of 512 learner
decisions, as SB3's (against random play half the rollout is the opponent's, which SB3's
single-agent env steps inside the environment and JAX leaves out of the update).
A learner step is one decision of the trained policy; steps/s is sampling and learning together,
after one warm-up update (and, for JAX, after compiling, which is reported apart). Two JAX rows:
the learner in one seat against random play (as SB3), and the learner in every seat (self-play,
``jax.self_play = 1`` and an empty snapshot pool: every decision of the batch is a learner step).
``--bots`` adds the learner against ``heuristic`` (a Python bot: the rollout is stepped from Python
on mirrored reference games, :mod:`train.jax.bots`), beside the learner against random play, and
where its time goes. ``--preset`` measures another two-player game (default seven_up). The
configurations run in turn, ``--repeats`` times, and the medians are printed, so that load on a
shared machine hits them alike. SB3 and RLlib are measured each in a fresh process (this script
with ``--measure``), so that neither runs beside JAX's threads, Ray's processes or a fork of a
process that has loaded them (which halved SB3's rate when they shared one).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rllib_throughput import rllib_rate, sb3_rate  # noqa: E402  (this folder)

from allfours_env.rules import PRESETS  # noqa: E402
from train.config import load  # noqa: E402

#: The quick default's PPO against random opponents, for every backend.
COMMON = ["opponents.mix={random=1}", 'imitation.teacher=""', "n_envs=2", "ppo.n_steps=2048",
          "ppo.batch_size=512", "ppo.n_epochs=4", "ppo.net_arch=[256,256]"]


class JaxRun:
    """A JAX learner of ``config``, compiled once (the seconds it took kept), timed by :meth:`rate`."""

    def __init__(self, config) -> None:
        import jax

        from train.jax import network
        from train.jax.ppo import Learner
        from train.jax.trainer import opponent_probs

        learner = Learner(config)
        self.params = network.init_params(jax.random.PRNGKey(config.seed), list(config.ppo.net_arch),
                                          config.ppo.privileged_critic)
        self.opt = network.adam_init(self.params)
        self.probs = opponent_probs(config, config.opponents.mix, 0)
        self.learning_rate = jax.numpy.float32(config.ppo.learning_rate)
        self.batch = learner.start(jax.random.PRNGKey(1), self.probs)
        self.calls = 0
        self.bots = None
        began = time.perf_counter()
        if learner.bots:  # compiled on first use: the first rollout and update is the compile
            from train.jax.bots import BotRollout

            self.bots = BotRollout(learner, config.seed)
            self.iterate = self.bots.iterate
            self.step()
            self.bots.seconds = dict.fromkeys(self.bots.seconds, 0.0)
        else:
            self.iterate = learner.iterate.lower(self.params, self.opt, self.params["actor"], self.probs,
                                                 self.batch, jax.random.PRNGKey(2),
                                                 self.learning_rate).compile()
        self.compile_seconds = time.perf_counter() - began
        self.step()  # warm-up

    def step(self) -> int:
        """One rollout and update; returns the learner steps it made."""
        import jax
        import numpy as np

        self.calls += 1
        key = jax.random.PRNGKey(self.calls)
        self.params, self.opt, self.batch, metrics = self.iterate(
            self.params, self.opt, self.params["actor"], self.probs, self.batch, key, self.learning_rate)
        return int(np.asarray(metrics["learner_steps"]))

    def rate(self, iterations: int) -> float:
        """Learner steps/s of ``iterations`` rollouts and updates."""
        began = time.perf_counter()
        steps = sum(self.step() for _ in range(iterations))
        return steps / (time.perf_counter() - began)


def rllib_on_private_ray(config, iterations: int) -> float:
    """:func:`rllib_rate` on a local Ray started for it and shut down after, so that Ray's own
    processes do not take a share of the cores while the other backends are measured."""
    import ray

    from evaluate.ray_backend import init_ray

    init_ray("")
    try:
        return rllib_rate(config, iterations)
    finally:
        ray.shutdown()


def measure(backend: str, overrides: list[str], iterations: int) -> float:
    """Learner steps/s of SB3 or RLlib (``backend``) on the quick config with ``overrides``, in this
    process."""
    import torch

    config = load("quick", overrides)
    if backend == "sb3":
        return sb3_rate(config, iterations)
    torch.set_num_threads(config.torch_threads)  # the driver's learner, as in a run
    return rllib_on_private_ray(config, iterations)


def measure_apart(backend: str, overrides: list[str], iterations: int) -> float:
    """:func:`measure` in a fresh process of this script (its rate is the last line it prints)."""
    command = [sys.executable, __file__, "--measure", backend, "--iterations", str(iterations), *overrides]
    done = subprocess.run(command, stdout=subprocess.PIPE, text=True, check=True)
    return float(done.stdout.split()[-1])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--measure", choices=["sb3", "rllib"], help=argparse.SUPPRESS)
    parser.add_argument("overrides", nargs="*", help=argparse.SUPPRESS)
    parser.add_argument("--iterations", type=int, default=4, help="timed updates per measurement")
    parser.add_argument("--repeats", type=int, default=3, help="repetitions; medians are reported")
    parser.add_argument("--num-envs", type=int, default=128, help="jax.num_envs (x rollout steps = 4,096)")
    parser.add_argument("--rllib", action="store_true", help="also RLlib with one env runner")
    parser.add_argument("--bots", action="store_true", help="also JAX against heuristic (a Python bot)")
    parser.add_argument("--no-sb3", action="store_true", help="leave out SB3 (ratios to JAX vs random)")
    parser.add_argument("--preset", default="seven_up", choices=sorted(PRESETS),
                        help="the game (two players; default seven_up, the quick default's)")
    args = parser.parse_args(argv)
    if args.measure:
        print(measure(args.measure, args.overrides, args.iterations))
        return
    if args.overrides:
        parser.error(f"unrecognized arguments: {' '.join(args.overrides)}")
    if 2 not in PRESETS[args.preset]["players"]:
        parser.error(f"--preset {args.preset} is not played by two players; choose a 2-player preset")
    steps = 4096 // args.num_envs
    common = [*COMMON, f"preset={args.preset}", "num_players=2"]
    jax_common = [*common, f"jax.num_envs={args.num_envs}", f"jax.rollout_steps={steps}", "jax.minibatches=8"]
    setups = {
        "JAX, learner vs random": ("jax", jax_common + ["jax.self_play=0"]),
        "JAX, learner in every seat": ("jax", jax_common + ["jax.self_play=1", "opponents.mix={snapshot=1}"]),
        "Stable-Baselines3, 2 env processes": ("sb3", common),
    }
    if args.bots:
        setups["JAX, learner vs heuristic (Python)"] = ("jax", jax_common + ["jax.self_play=0",
                                                                            "opponents.mix={heuristic=1}"])
    if args.no_sb3:
        del setups["Stable-Baselines3, 2 env processes"]
    if args.rllib:
        try:
            import ray  # noqa: F401
        except ImportError:
            parser.error("--rllib needs Ray: pip install 'allfours[rllib]'")
        setups["RLlib, 1 env runner"] = ("rllib", [*common, "rllib.num_env_runners=1",
                                                    "rllib.num_envs_per_env_runner=8"])
    runs: dict[str, list[float]] = {}
    compiled = {label: JaxRun(load("quick", overrides)) for label, (backend, overrides) in setups.items()
                if backend == "jax"}
    compile_seconds = [run.compile_seconds for run in compiled.values()]
    for _ in range(args.repeats):
        for label, (backend, overrides) in setups.items():
            if backend == "jax":
                rate = compiled[label].rate(args.iterations)
            else:
                rate = measure_apart(backend, overrides, args.iterations)
            runs.setdefault(label, []).append(rate)
            print(f"{label}: {rate:,.0f} steps/s", file=sys.stderr)

    against = "JAX, learner vs random" if args.no_sb3 else "Stable-Baselines3, 2 env processes"
    reference = statistics.median(runs[against])
    import jax

    also = " (and heuristic)" if args.bots else ""
    print(f"learner steps/s on {args.preset} 2p, the quick default's PPO against random{also}, "
          f"{args.iterations} updates x {args.repeats} repeats (medians); "
          f"JAX on {jax.devices()[0].platform}, compile "
          f"{min(compile_seconds):,.0f}-{max(compile_seconds):,.0f} s")
    print(f"| backend | learner steps/s | x {'JAX vs random' if args.no_sb3 else 'SB3'} | runs |")
    print("| --- | ---: | ---: | --- |")
    for label, rates in runs.items():
        median = statistics.median(rates)
        print(f"| {label} | {median:,.0f} | {median / reference:.2f} | "
              f"{', '.join(f'{r:,.0f}' for r in rates)} |")
    for label, run in compiled.items():
        if run.bots is not None:
            total = sum(run.bots.seconds.values())
            shares = ", ".join(f"{part} {seconds / total:.0%}" for part, seconds in run.bots.seconds.items())
            print(f"{label}, where the time goes: {shares}")


if __name__ == "__main__":
    main()
