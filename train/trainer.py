"""MaskablePPO self-play training on the single-agent wrapper, with evaluation and checkpoints.

:func:`train` runs one configured training (:mod:`train.config`) into an output folder::

    runs/seven_up_2p/
      config.json               the full config and seed
      checkpoints/step_<N>.zip  model checkpoints (+ step_<N>.json: config, seed, pool, metrics)
      tb/                       TensorBoard logs (losses, entropy, episode reward, pool, win rates)
      eval.csv                  periodic evaluation: timesteps, opponent, win rate, 95% interval
      learning_curve.png        win rate against each evaluation opponent vs timesteps
      model.zip, model.json     the final policy (with ``average_since``: the weight average of the
                                checkpoints from that step on) and its metadata (config, seed, results)
      final_eval/               the final table against every configured baseline bot (table.md,
                                results.json, CSV files, results.png)

The learner sees only its own decisions (:class:`allfours_env.wrappers.SingleAgentEnv`), opponents
come from :class:`train.selfplay.OpponentPool`, and one process per core steps the environments.
"""

from __future__ import annotations

import csv
import json
import time
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
from stable_baselines3.common.callbacks import BaseCallback

from agents.base import make_agent
from agents.policy import SnapshotAgent, actor_from_sb3
from allfours_env.observation import OBS_SIZE
from allfours_env.seeding import derive_seed
from allfours_env.wrappers import SingleAgentEnv
from train.config import ConfigError, TrainConfig, from_dict
from train.selfplay import OpponentPool


class SelfPlayEnv(SingleAgentEnv):
    """The single-agent env with an opponent pool the trainer can add snapshots to."""

    def add_snapshot(self, actor) -> None:
        self.opponents.add_snapshot(actor)

    def set_mix(self, mix) -> None:
        self.opponents.set_mix(mix)

    def pool_size(self) -> int:
        return len(self.opponents.snapshots)


def make_env(config: TrainConfig, rank: int):
    """A factory for environment ``rank`` (seeded from the run's seed and the rank)."""

    def build():
        from stable_baselines3.common.monitor import Monitor

        partner = config.opponents.partner
        if partner != "learner":
            partner = make_agent(partner, seed=derive_seed(config.seed, "partner", rank))
        env = SelfPlayEnv(
            config.preset,
            config.num_players,
            opponents=OpponentPool(config.opponents.mix, config.opponents.pool_size),
            partner=partner,
            seed=derive_seed(config.seed, "env", rank),
            episode=config.episode,
            reward=config.reward,
            critic_state=config.ppo.privileged_critic,
            **config.knobs,
        )
        return Monitor(env)

    return build


def make_vec_env(config: TrainConfig):
    """One process per environment when there are several (a core each), else in-process."""
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    factories = [make_env(config, rank) for rank in range(config.n_envs)]
    if config.n_envs == 1:
        return DummyVecEnv(factories)
    return SubprocVecEnv(factories, start_method="fork")


def new_model(config: TrainConfig, env, out: Path):
    import torch
    from sb3_contrib import MaskablePPO

    ppo = config.ppo
    activation = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}[ppo.activation]
    policy_kwargs: dict[str, Any] = {"net_arch": list(ppo.net_arch), "activation_fn": activation}
    policy: Any = "MlpPolicy"
    if ppo.privileged_critic:
        from agents.critic_policy import PrivilegedCriticPolicy

        policy = PrivilegedCriticPolicy
        policy_kwargs["actor_inputs"] = OBS_SIZE
    return MaskablePPO(
        policy,
        env,
        learning_rate=ppo.learning_rate,
        n_steps=ppo.n_steps,
        batch_size=ppo.batch_size,
        n_epochs=ppo.n_epochs,
        gamma=ppo.gamma,
        gae_lambda=ppo.gae_lambda,
        clip_range=ppo.clip_range,
        ent_coef=ppo.ent_coef,
        vf_coef=ppo.vf_coef,
        max_grad_norm=ppo.max_grad_norm,
        policy_kwargs=policy_kwargs,
        tensorboard_log=str(out / "tb"),
        seed=config.seed,
        device="cpu",
        verbose=0,
    )


def evaluate_policy(model, config: TrainConfig, opponents: list[str], games: int, seed: int,
                    workers: int = 1, progress: bool = False):
    """A duplicate tournament of the current policy (greedy) against ``opponents``."""
    from evaluate import run_tournament

    learner = SnapshotAgent(actor_from_sb3(model.policy), deterministic=True, name="learner")
    return run_tournament(
        [learner, *opponents],
        preset=config.preset,
        players=config.num_players,
        knobs=config.knobs,
        games=games,
        seed=seed,
        workers=workers,
        schedule="first-vs-rest",
        progress=progress,
    )


class TrainingCallback(BaseCallback):
    """Snapshots into the opponent pools, periodic evaluation, checkpoints and logs."""

    def __init__(self, config: TrainConfig, out: Path) -> None:
        super().__init__()
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

    def follow_schedule(self) -> None:
        """Give the pools the opponent mix of ``opponents.schedule`` in force now."""
        mix = self.config.opponents.mix_at(self.num_timesteps)
        if mix != self.mix:
            self.training_env.env_method("set_mix", mix)
            self.mix = mix
            for kind, weight in mix.items():
                self.logger.record(f"pool/mix_{kind}", weight)

    def _on_step(self) -> bool:
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
        result = evaluate_policy(self.model, config, config.eval.opponents, config.eval.games,
                                 seed=derive_seed(config.seed, "eval", self.num_timesteps),
                                 workers=config.eval.workers)
        rows = []
        for opponent in config.eval.opponents:
            numbers = result.result_for("learner", opponent)
            low, high = numbers["win_rate_ci"]
            rows.append({"timesteps": self.num_timesteps, "opponent": opponent,
                         "win_rate": numbers["win_rate"], "ci_low": low, "ci_high": high,
                         "games": numbers["games"]})
            self.logger.record(f"eval/win_rate_vs_{opponent}", numbers["win_rate"])
        append_csv(self.out / "eval.csv", rows)
        save_checkpoint(self.model, config, self.out, self.num_timesteps, {"eval": rows},
                        self.training_env)
        self.logger.dump(self.num_timesteps)
        self.eval_seconds += time.perf_counter() - began


def append_csv(path: Path, rows: list[dict[str, Any]]) -> None:
    """Append rows to a CSV file, writing the header when the file is new."""
    new = not path.exists()
    with path.open("a", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        if new:
            writer.writeheader()
        writer.writerows(rows)


def save_checkpoint(model, config: TrainConfig, out: Path, timesteps: int, metrics: dict[str, Any],
                    vec_env=None) -> Path:
    """Save ``checkpoints/step_<N>.zip`` with its config, seed, pool snapshots and metrics."""
    folder = out / "checkpoints"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"step_{timesteps}.zip"
    model.save(path)
    meta = {"config": config.to_dict(), "seed": config.seed, "timesteps": timesteps, **metrics}
    path.with_suffix(".json").write_text(json.dumps(meta, indent=1))
    if vec_env is not None:
        import pickle

        pools = vec_env.get_attr("opponents")
        (folder / f"step_{timesteps}.pool.pkl").write_bytes(pickle.dumps(pools))
    return path


def load_checkpoint(path: str | Path, config: TrainConfig, env):
    """Load a checkpoint to resume ``config``; a corrupt or mismatched file raises ConfigError."""
    from sb3_contrib import MaskablePPO

    path = Path(path)
    if path.is_dir():
        found = sorted(path.glob("checkpoints/step_*.zip"), key=lambda p: int(p.stem.split("_")[1]))
        if not found:
            raise ConfigError(f"no checkpoints in {path}/checkpoints to resume from")
        path = found[-1]
    if not path.is_file() or not zipfile.is_zipfile(path):
        raise ConfigError(f"cannot resume from {path}: not a checkpoint (.zip) file, or corrupt")
    meta_path = path.with_suffix(".json")
    if not meta_path.is_file():
        raise ConfigError(f"cannot resume from {path}: its metadata {meta_path.name} is missing")
    try:
        saved = from_dict(json.loads(meta_path.read_text())["config"])
    except (json.JSONDecodeError, KeyError, ConfigError) as err:
        raise ConfigError(f"cannot resume from {path}: unreadable metadata ({err})") from None
    for key in ("preset", "num_players", "knobs", "episode", "reward"):
        if getattr(saved, key) != getattr(config, key):
            raise ConfigError(
                f"checkpoint {path.name} was trained with {key}={getattr(saved, key)!r}, "
                f"this config has {getattr(config, key)!r}: resume with the same game"
            )
    if (saved.ppo.net_arch, saved.ppo.activation, saved.ppo.privileged_critic) != (
            config.ppo.net_arch, config.ppo.activation, config.ppo.privileged_critic):
        raise ConfigError(f"checkpoint {path.name} has another network "
                          "(net_arch/activation/privileged_critic)")
    try:
        model = MaskablePPO.load(path, env=env, device="cpu", tensorboard_log=None)
    except Exception as err:  # noqa: BLE001 - report any unreadable checkpoint the same way
        raise ConfigError(f"cannot resume from {path}: {type(err).__name__}: {err}") from None
    pools = path.with_name(path.stem + ".pool.pkl")
    if pools.is_file():
        import pickle

        for index, pool in enumerate(pickle.loads(pools.read_bytes())):
            if index < env.num_envs:
                for actor in pool.snapshots:
                    env.env_method("add_snapshot", actor, indices=[index])
    return model, int(json.loads(meta_path.read_text())["timesteps"])


def average_final_model(model, config: TrainConfig, out: Path, *, log=print) -> list[Path]:
    """Replace ``model``'s weights by the average of the run's checkpoints from
    ``config.average_since`` on (the final one included); return the checkpoints averaged."""
    from train import average

    paths = average.find_checkpoints([out], config.average_since)
    model.policy.load_state_dict(average.mean_weights(paths)[1])
    log(f"final model: the weight average of {len(paths)} checkpoints "
        f"(steps {average.checkpoint_step(paths[0]):,} to {average.checkpoint_step(paths[-1]):,})")
    return paths


def warm_start(model, config: TrainConfig, *, log=print, progress: bool = True) -> None:
    """Fit the fresh model to the configured teacher's decisions (see :mod:`train.imitation`)."""
    from allfours_env.rules import Rules
    from train import imitation

    settings = config.imitation
    rules = Rules.make(config.preset, config.num_players, **config.knobs)
    path = Path(settings.dataset) if settings.dataset else None
    made_by = {"teacher": settings.teacher, "opponent": settings.opponent,
               "games": settings.games, "seed": config.seed}
    if path is not None and path.is_file():
        data, meta = imitation.load(path)
        if meta != imitation.describe(made_by):
            raise ConfigError(
                f"imitation.dataset {path} was recorded by {meta}, but this run asks for "
                f"{imitation.describe(made_by)}: delete the file or set imitation.dataset to a new path"
            )
        log(f"imitation data: {len(data['actions']):,} decisions from {path} ({meta})")
    else:
        data = imitation.collect(settings.teacher, settings.opponent, rules, settings.games,
                                 seed=config.seed, workers=settings.workers,
                                 progress=progress)
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            imitation.save(data, path, made_by)
    imitation.pretrain(model, data, epochs=settings.epochs, learning_rate=settings.learning_rate,
                       seed=config.seed, log=log)
    for round_number in range(1, settings.dagger_rounds + 1):
        student = SnapshotAgent(actor_from_sb3(model.policy), deterministic=True, name="student")
        extra = imitation.collect(settings.teacher, settings.opponent, rules, settings.dagger_games,
                                  seed=derive_seed(config.seed, "dagger", round_number),
                                  workers=settings.workers, progress=progress, student=student)
        data = {key: np.concatenate([data[key], extra[key]]) for key in data}
        log(f"DAgger round {round_number}: {len(extra['actions']):,} new decisions, "
            f"{len(data['actions']):,} in all")
        imitation.pretrain(model, data, epochs=settings.dagger_epochs,
                           learning_rate=settings.learning_rate, seed=config.seed + round_number, log=log)


def plot_curve(curve: list[dict[str, Any]], path: Path) -> Path | None:
    """Win rate (with its 95% interval) against timesteps, one line per evaluation opponent."""
    if not curve:
        return None
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 4))
    for opponent in dict.fromkeys(row["opponent"] for row in curve):
        rows = [r for r in curve if r["opponent"] == opponent]
        steps = [r["timesteps"] for r in rows]
        ax.plot(steps, [r["win_rate"] for r in rows], marker="o", label=f"vs {opponent}")
        ax.fill_between(steps, [r["ci_low"] for r in rows], [r["ci_high"] for r in rows], alpha=0.2)
    ax.axhline(0.5, color="grey", lw=0.8, ls="--")
    ax.set_xlabel("learner timesteps")
    ax.set_ylabel("win rate (95% interval)")
    ax.set_ylim(0, 1)
    ax.legend()
    ax.set_title("learning curve")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def read_curve(out: Path) -> list[dict[str, Any]]:
    """The rows of ``eval.csv`` (numbers parsed)."""
    path = out / "eval.csv"
    if not path.exists():
        return []
    with path.open() as handle:
        return [{**row, "timesteps": int(row["timesteps"]), "win_rate": float(row["win_rate"]),
                 "ci_low": float(row["ci_low"]), "ci_high": float(row["ci_high"])}
                for row in csv.DictReader(handle)]


def train(config: TrainConfig, *, resume: str | Path | None = None, progress: bool = True,
          log=print) -> dict[str, Any]:
    """Run the training of ``config``; return its summary (paths, throughput, final results)."""
    import torch

    torch.set_num_threads(config.torch_threads)  # small networks: more threads only add overhead
    out = Path(config.out)
    if not resume and (out / "config.json").exists():
        kept = out.with_name(f"{out.name}.{time.strftime('%Y%m%d-%H%M%S')}")
        out.rename(kept)  # a fresh run never mixes with (or deletes) an earlier one
        log(f"an earlier run was in {out}: moved it to {kept}")
    out.mkdir(parents=True, exist_ok=True)
    (out / "config.json").write_text(json.dumps(config.to_dict(), indent=1))
    env = make_vec_env(config)
    try:
        start = 0
        if resume:
            model, start = load_checkpoint(resume, config, env)
            if start >= config.total_timesteps:
                raise ConfigError(
                    f"the checkpoint is at {start:,} timesteps and total_timesteps is "
                    f"{config.total_timesteps:,}: "
                    f"raise total_timesteps (--timesteps N) to train further"
                )
            model.tensorboard_log = str(out / "tb")
            log(f"resuming from {resume} at {start:,} timesteps, up to {config.total_timesteps:,}")
        else:
            model = new_model(config, env, out)
            if config.imitation.teacher:
                warm_start(model, config, log=log, progress=progress)
        callback = TrainingCallback(config, out)
        began = time.perf_counter()
        # A resumed run continues up to total_timesteps (SB3 counts reset_num_timesteps=False on top).
        model.learn(total_timesteps=config.total_timesteps - start, callback=callback, progress_bar=progress,
                    reset_num_timesteps=not resume, tb_log_name="ppo")
        seconds = time.perf_counter() - began - callback.eval_seconds
        learned = model.num_timesteps - start
        steps_per_s = learned / seconds if seconds > 0 else 0.0
        if callback.last_eval != model.num_timesteps:
            callback.evaluate_and_checkpoint()  # the learning curve ends at the final policy
    finally:
        env.close()
    averaged = average_final_model(model, config, out, log=log) if config.average_since else []
    final = evaluate_policy(model, config, config.eval.final_opponents, config.eval.final_games,
                            seed=derive_seed(config.seed, "final"), workers=config.eval.workers,
                            progress=progress)
    from evaluate import report

    model_path = out / "model.zip"
    model.save(model_path)
    results = {}
    for opponent in config.eval.final_opponents:
        numbers = final.result_for("learner", opponent)
        results[opponent] = {"win_rate": numbers["win_rate"], "win_rate_ci": numbers["win_rate_ci"],
                             "games": numbers["games"]}
    meta = {"config": config.to_dict(), "seed": config.seed, "timesteps": model.num_timesteps,
            "train_seconds": seconds, "learner_steps_per_s": steps_per_s, "final_eval": results}
    if averaged:
        meta["averaged"] = [str(path) for path in averaged]
    model_path.with_suffix(".json").write_text(json.dumps(meta, indent=1))
    report.save(final, out / "final_eval")
    table = report.markdown(final)
    (out / "final_eval" / "table.md").write_text(table + "\n")
    curve_png = plot_curve(read_curve(out), out / "learning_curve.png")
    log("")
    log(table)
    log(f"\nlearner steps/s: {steps_per_s:,.0f} ({learned:,} steps in {seconds:,.0f} s)")
    log(f"model: {model_path}   learning curve: {curve_png}   logs: {out / 'tb'}")
    return {"model": model_path, "results": results, "learner_steps_per_s": steps_per_s,
            "table": table, "curve": curve_png}
