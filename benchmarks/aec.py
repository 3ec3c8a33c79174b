"""Speed of the PettingZoo surface: AEC steps per second with observations and masks.

    python benchmarks/aec.py                  # seven_up 2p, 20,000 steps x 5 repetitions
    python benchmarks/aec.py --steps 50000 --repeats 7 --preset trinidad --players 4

Every environment runs the same loop — ``agent_iter`` / ``last`` / a uniformly random legal action
from the mask / ``step`` — in the same process: allfours behind PettingZoo's three standard wrappers
(``env``) and bare (``raw_env``); PettingZoo's classic card games ``leduc_holdem`` and
``texas_holdem`` where installed (``pip install -e '.[bench]'``: rlcard and pygame); and a
do-nothing AEC env behind the same three wrappers, the ceiling those wrappers leave. Repetitions
are interleaved (every env once, then every env again), so that a shared machine's changing load
hits them alike; medians of ``--repeats`` runs are printed, with ratios.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from gymnasium import spaces  # noqa: E402
from pettingzoo import AECEnv  # noqa: E402
from pettingzoo.utils import wrappers  # noqa: E402

import allfours_env  # noqa: E402


class NullEnv(AECEnv):
    """A two-player AEC env that does nothing: fixed observation, episodes of 50 steps."""

    metadata = {"name": "null_v0", "render_modes": [], "is_parallelizable": False}

    def __init__(self) -> None:
        super().__init__()
        self.possible_agents = ["player_0", "player_1"]
        self._obs = {"observation": np.zeros(8, np.float32), "action_mask": np.ones(4, np.int8)}
        self._obs_space = spaces.Dict({
            "observation": spaces.Box(0, 1, (8,), np.float32),
            "action_mask": spaces.Box(0, 1, (4,), np.int8),
        })
        self._act_space = spaces.Discrete(4)

    def observation_space(self, agent):
        return self._obs_space

    def action_space(self, agent):
        return self._act_space

    def observe(self, agent):
        obs = self._obs
        return {"observation": obs["observation"].copy(), "action_mask": obs["action_mask"].copy()}

    def reset(self, seed=None, options=None):
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = "player_0"
        self._t = 0

    def step(self, action):
        agent = self.agent_selection
        if self.terminations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0.0
        self._t += 1
        if self._t >= 50:
            self.terminations = dict.fromkeys(self.agents, True)
        self.agent_selection = "player_1" if agent == "player_0" else "player_0"
        self._accumulate_rewards()


def null_env():
    env = NullEnv()
    env = wrappers.TerminateIllegalWrapper(env, illegal_reward=-1)
    env = wrappers.AssertOutOfBoundsWrapper(env)
    return wrappers.OrderEnforcingWrapper(env)


def steps_per_second(env, steps: int, seed: int) -> float:
    """Run the standard AEC loop (whole episodes, random legal actions) until ``steps`` decisions
    were made; the time includes resets and the dead agents' final ``step(None)`` calls, which are
    not counted as steps (short episodes would otherwise look faster than they are)."""
    rng = random.Random(seed)
    flatnonzero = np.flatnonzero
    env.reset(seed=seed)
    done = 0
    start = time.perf_counter()
    while done < steps:
        for _agent in env.agent_iter():
            observation, reward, termination, truncation, info = env.last()
            if termination or truncation:
                action = None
            else:
                legal = flatnonzero(observation["action_mask"])
                action = int(legal[rng.randrange(len(legal))])
                done += 1
            env.step(action)
        env.reset()
    return done / (time.perf_counter() - start)


def candidates(preset: str, players: int):
    yield "allfours env (wrapped)", lambda: allfours_env.env(preset=preset, num_players=players)
    yield "allfours raw_env", lambda: allfours_env.raw_env(preset=preset, num_players=players)
    try:
        from pettingzoo.classic import leduc_holdem_v4, texas_holdem_v4
    except Exception as err:  # rlcard missing
        print(f"(PettingZoo classic card games unavailable: {err}; pip install -e '.[bench]')")
    else:
        yield "pettingzoo leduc_holdem_v4", leduc_holdem_v4.env
        yield "pettingzoo texas_holdem_v4", texas_holdem_v4.env
    yield "do-nothing env (wrapped)", null_env


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--steps", type=int, default=20_000, help="steps per repetition")
    parser.add_argument("--repeats", type=int, default=5, help="repetitions; medians are reported")
    parser.add_argument("--preset", default="seven_up")
    parser.add_argument("--players", type=int, default=2)
    args = parser.parse_args(argv)
    makers = dict(candidates(args.preset, args.players))
    runs: dict[str, list[float]] = {name: [] for name in makers}
    for seed in range(args.repeats):  # interleaved, so that changing load hits every env alike
        for name, make in makers.items():
            runs[name].append(steps_per_second(make(), args.steps, seed))
    results = {name: statistics.median(values) for name, values in runs.items()}
    card_envs = [v for k, v in results.items() if k.startswith("pettingzoo")]
    ceiling = results["do-nothing env (wrapped)"]
    print(f"AEC loop, {args.preset} {args.players}p, {args.steps} steps x {args.repeats}, median steps/s")
    print(f"{'environment':<30}{'steps/s':>10}  ratios")
    for name, value in results.items():
        notes = [f"{value / ceiling:.0%} of the wrapper ceiling"]
        if card_envs and not name.startswith("pettingzoo"):
            notes.append(f"{value / max(card_envs):.2f}x the fastest PettingZoo card env")
        print(f"{name:<30}{value:>10,.0f}  {', '.join(notes)}")


if __name__ == "__main__":
    main()
