"""One training run from start to end: :func:`train` (``python -m train`` calls it).

    runs/seven_up_2p/
      config.json               the full config and seed
      checkpoints/step_<N>.npz  checkpoints (+ step_<N>.json): network, optimiser, pool, metrics
      tb/                       TensorBoard logs (losses, entropy, episode reward, pool, win rates)
      eval.csv                  periodic evaluation: timesteps, opponent, win rate, 95% interval
      learning_curve.png        win rate against each evaluation opponent vs timesteps
      model.npz, model.json     the final policy (with ``average_since``: the weight average of the
                                checkpoints from that step on) and its metadata (config, seed, results)
      final_eval/               the final table against every configured baseline bot (table.md,
                                results.json, CSV files, results.png)

The steps, each in its module: check everything before writing anything (:mod:`train.runs`); build
the environments (:mod:`train.envs`) and the learner (:mod:`train.model`), or restore a checkpoint
(:mod:`train.checkpoints`); the warm start (:mod:`train.imitation`); PPO with periodic evaluations
and checkpoints (:mod:`train.callback`, :mod:`train.evaluation`, :mod:`train.curve`); the optional
weight average (:mod:`train.average`); the final model and table. Policy files are described in
:mod:`agents.policy_file`: nothing a run writes or reads is pickled.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from agents.policy import actor_from_sb3, save_policy
from allfours_env.seeding import derive_seed
from train import evaluation, runs
from train.callback import TrainingCallback
from train.checkpoints import restore
from train.config import ConfigError, TrainConfig
from train.curve import plot_curve, read_curve
from train.envs import close_vec_env, make_vec_env
from train.model import new_model


def train(config: TrainConfig, *, resume: str | Path | None = None, progress: bool = True,
          log=print) -> dict[str, Any]:
    """Run the training of ``config`` (resuming the checkpoint or run folder ``resume``, see
    :mod:`train.runs`); return its summary (paths, throughput, final results). Bad input raises
    :class:`~train.config.ConfigError` before anything is written."""
    import torch

    start = runs.prepare(config, resume)
    if start.checkpoint is not None and start.checkpoint.meta["training"].get("backend", "sb3") != "sb3":
        raise ConfigError(f"{start.checkpoint.path} was written by --backend "
                          f"{start.checkpoint.meta['training']['backend']}: resume it with that backend")
    torch.set_num_threads(config.torch_threads)  # small networks: more threads only add overhead
    out = start.out
    env = make_vec_env(config)
    interrupted = True  # until learning ends normally: Ctrl-C (or another error) may have cut a step
    opened = False
    callback = None
    try:
        model = new_model(config, env, out)
        if start.checkpoint is not None:
            restore(model, start.checkpoint, env)  # a mismatch raises here, before anything is written
        runs.open_folder(start, config, log=log)
        opened = True
        if start.checkpoint is not None:
            log(f"resuming from {start.checkpoint.path} at {start.checkpoint.step:,} timesteps, "
                f"up to {config.total_timesteps:,}" + ("" if start.continues else f", into {out}"))
        elif config.imitation.teacher:
            from train.imitation import warm_start

            warm_start(model, config, start.dataset, log=log, progress=progress)
        callback = TrainingCallback(config, out, progress=progress)
        began = time.perf_counter()
        first = model.num_timesteps
        # A resumed run continues up to total_timesteps (SB3 counts reset_num_timesteps=False on top).
        model.learn(total_timesteps=config.total_timesteps - first, callback=callback,
                    reset_num_timesteps=start.checkpoint is None, tb_log_name="ppo")
        seconds = time.perf_counter() - began - callback.eval_seconds
        learned = model.num_timesteps - first
        if callback.last_eval != model.num_timesteps:
            callback.evaluate_and_checkpoint()  # the learning curve ends at the final policy
        interrupted = False
    except KeyboardInterrupt:
        if opened:  # Ctrl-C while a checkpoint was being saved: drop it, the one before is whole
            runs.drop_torn_checkpoint(out, start.checkpoint.step if start.checkpoint else 0, log=log)
        raise
    finally:
        if callback is not None and callback.bar is not None:
            callback.bar.close()
        close_vec_env(env, interrupted)
    averaged = []
    if config.average_since:
        from train.average import average_into

        averaged = average_into(model, out, config.average_since, log=log)
    return finish(config, out, actor_from_sb3(model.policy), timesteps=model.num_timesteps,
                  seconds=seconds, learned=learned, averaged=averaged, progress=progress, log=log)


def finish(config: TrainConfig, out: Path, actor, *, timesteps: int, seconds: float, learned: int,
           averaged: list[Path], progress: bool, log=print, **metadata: Any) -> dict[str, Any]:
    """The end of a run, whichever backend trained it: the final table against
    ``eval.final_opponents``, the policy file ``model.npz`` (+ ``.json``: config, seed, timesteps,
    throughput, results, ``metadata``), ``final_eval/`` and the learning curve; returns the summary."""
    steps_per_s = learned / seconds if seconds > 0 else 0.0
    final = evaluation.evaluate(actor, config, config.eval.final_opponents, config.eval.final_games,
                                seed=derive_seed(config.seed, "final"), workers=config.eval.workers,
                                progress=progress, log=log)
    results = {opponent: {"win_rate": numbers["win_rate"], "win_rate_ci": numbers["win_rate_ci"],
                          "games": numbers["games"]}
               for opponent, numbers in evaluation.scores(final).items()}
    meta: dict[str, Any] = {"config": config.to_dict(), "seed": config.seed,
                            "timesteps": timesteps, "train_seconds": seconds,
                            "learner_steps_per_s": steps_per_s, "final_eval": results, **metadata}
    if averaged:
        meta["averaged"] = [str(path) for path in averaged]
    model_path = save_policy(out / "model.npz", actor, config.game(), **meta)
    table = evaluation.save_report(final, out / "final_eval")
    curve_png = plot_curve(read_curve(out), out / "learning_curve.png", evaluation.fair_share(config))
    log("")
    log(table)
    log(f"\nlearner steps/s: {steps_per_s:,.0f} ({learned:,} steps in {seconds:,.0f} s)")
    log(f"model: {model_path}   learning curve: {curve_png}   logs: {out / 'tb'}")
    return {"model": model_path, "results": results, "learner_steps_per_s": steps_per_s,
            "table": table, "curve": curve_png}
