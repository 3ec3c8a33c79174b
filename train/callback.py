"""What happens inside ``model.learn`` besides PPO: snapshots of the learner into the opponent pools,
the opponent curriculum, every ``eval.every`` steps an evaluation, a row of the learning curve and a
checkpoint, and the progress (:mod:`evaluate.progress`: a bar on a terminal, a line every 30 s in a
log, with the last evaluation)."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
from stable_baselines3.common.callbacks import BaseCallback

from agents.policy import actor_from_sb3
from allfours_env.seeding import derive_seed
from evaluate.progress import Progress
from train import evaluation
from train.checkpoints import save_checkpoint
from train.config import TrainConfig
from train.curve import append_csv


class TrainingCallback(BaseCallback):
    """Snapshots into the opponent pools, periodic evaluation, checkpoints and logs."""

    def __init__(self, config: TrainConfig, out: Path, progress: bool = False) -> None:
        super().__init__()
        self.progress = progress
        self.bar: Progress | None = None
        self.config = config
        self.out = out
        self.rollouts = 0
        self.next_eval = config.eval.every
        self.last_eval = -1
        self.eval_seconds = 0.0  # time spent evaluating inside learn(), left out of the throughput
        self.mix: dict[str, float] | None = None  # the opponent mix the pools were last given

    def _on_training_start(self) -> None:
        every = self.config.eval.every
        self.next_eval = (self.num_timesteps // every + 1) * every
        self.follow_schedule()
        if self.progress:
            self.bar = Progress(self.config.total_timesteps, "training", "step", initial=self.num_timesteps)

    def _on_training_end(self) -> None:
        if self.bar is not None:
            self.bar.close()

    def follow_schedule(self) -> None:
        """Give the pools the opponent mix of ``opponents.schedule`` in force now."""
        mix = self.config.opponents.mix_at(self.num_timesteps)
        if mix != self.mix:
            self.training_env.env_method("set_mix", mix)
            self.mix = mix
            for kind, weight in mix.items():
                self.logger.record(f"pool/mix_{kind}", weight)

    def _on_step(self) -> bool:
        if self.bar is not None:
            self.bar.update(self.training_env.num_envs)
        if self.num_timesteps >= self.next_eval:
            self.next_eval += self.config.eval.every
            self.evaluate_and_checkpoint()
        return True

    def _on_rollout_end(self) -> None:
        self.rollouts += 1
        if self.rollouts % self.config.opponents.snapshot_every == 0:
            self.training_env.env_method("add_snapshot", actor_from_sb3(self.model.policy))
        self.logger.record("pool/snapshots", int(np.mean(self.training_env.env_method("pool_size"))))
        self.follow_schedule()

    def evaluate_and_checkpoint(self) -> None:
        """Evaluate the greedy policy against the configured bots, log it, save a checkpoint."""
        config = self.config
        self.last_eval = self.num_timesteps
        began = time.perf_counter()
        seed = derive_seed(config.seed, "eval", self.num_timesteps)
        results = evaluation.evaluate(actor_from_sb3(self.model.policy), config, config.eval.opponents,
                                      config.eval.games, seed=seed, workers=config.eval.workers)
        rows = evaluation.curve_rows(results, self.num_timesteps)
        for row in rows:
            self.logger.record(f"eval/win_rate_vs_{row['opponent']}", row["win_rate"])
        append_csv(self.out / "eval.csv", rows)
        if self.bar is not None:
            self.bar.note(evaluation.describe_rows(rows))
        # the pools of all environments hold the same snapshots: every one is added to each
        snapshots = self.training_env.get_attr("opponents", indices=[0])[0].snapshots
        save_checkpoint(self.model, config, self.out, self.num_timesteps,
                        {"eval": rows, "opponent_mix": self.mix}, snapshots)
        self.logger.dump(self.num_timesteps)
        self.eval_seconds += time.perf_counter() - began
