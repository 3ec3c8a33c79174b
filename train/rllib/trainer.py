"""Multi-agent PPO on Ray RLlib (new API stack): ``python -m train --backend rllib``.

The same TOML config as the Stable-Baselines3 backend, read the same way (:mod:`train.config`),
plus the ``[rllib]`` table (:mod:`train.rllib.settings`). One run:

1. **Warm start** (optional, ``[imitation]``): the module imitates the teacher exactly as for SB3
   (:mod:`train.rllib.warm_start`), here in the driver, before Ray starts.
2. **Ray**: a local instance (``rllib.address = ""``) or a cluster (``"auto"``, ``"HOST:PORT"``);
   ``rllib.num_env_runners`` env runners each step ``rllib.num_envs_per_env_runner`` games of
   :class:`allfours_env.rllib_env.AllFoursMultiAgentEnv`; ``rllib.num_learners`` learner actors
   (0: in the driver) with ``rllib.num_gpus_per_learner`` GPUs each.
3. **Multi-agent PPO** with :class:`train.rllib.module.MaskedActorCriticModule`: the policy mapping
   maps every RLlib agent (seat) to the one trained module, ``"learner"``. The other seats are the
   league (:mod:`train.rllib.league`): opponents drawn per episode from ``opponents.mix`` — baseline
   bots and frozen snapshots of the learner (one every ``opponents.snapshot_every`` training
   iterations, the newest ``opponents.pool_size`` kept), played inside the env runners — and, with
   ``rllib.self_play``, the learner's own module. ``opponents.schedule`` and ``opponents.partner``
   work as for SB3. ``ppo.privileged_critic``: the critic also reads the hidden cards.
4. **Evaluation** every ``eval.every`` steps against ``eval.opponents`` through the evaluation
   package (duplicate games in ``eval.workers`` processes on the driver's machine), with a
   checkpoint beside it; at the end a table against ``eval.final_opponents``.

``[ppo]`` maps onto RLlib's PPO: ``n_steps × n_envs`` env steps per training iteration (split
among the learners), ``batch_size`` → ``minibatch_size``, ``n_epochs`` → ``num_epochs``,
``learning_rate``, ``gamma``, ``gae_lambda`` → ``lambda_``, ``clip_range`` → ``clip_param``,
``ent_coef`` → ``entropy_coeff``, ``vf_coef`` → ``vf_loss_coeff``, ``max_grad_norm`` →
``grad_clip``; no KL penalty and no value clipping, as in SB3. A timestep is a decision of the
learner's module (an env step: exactly one agent acts per step), as an SB3 timestep is.
``torch_threads`` is the driver's learner; every Ray worker uses one thread.

Output folder, as for SB3 but with RLlib checkpoints::

    config.json                   the config (backend: rllib)
    checkpoints/step_<N>/         RLlib's checkpoint of the algorithm (learner, optimizer, runners)
    checkpoints/step_<N>.json     config, seed, timesteps, iteration, league mix, evaluation
    checkpoints/step_<N>.npz      the learner's actor (a policy file, :mod:`train.rllib.export`)
    checkpoints/step_<N>.pool.npz the league's snapshots (numpy arrays)
    tb/rllib/                     TensorBoard: losses, entropy, KL, explained variance, episode
                                  return, steps/s, pool, win rates
    eval.csv, learning_curve.png, model.npz + model.json, final_eval/

RLlib's checkpoints are pickles: ``--resume`` reads only the run's own output. Never resume from
a checkpoint folder that came from someone else — unpickling runs code. The exported policy
files (``*.npz``) hold plain arrays and are safe to share.

**Reproducibility.** ``seed`` seeds the driver, every learner and env runner (RLlib's
``debugging(seed=...)``: Python, numpy, torch, and each env from the seed and its runner and
vector index), the league's draws and the warm start; with the same ``[rllib]`` layout the deals
and opponents of every env are the same. RLlib does not promise identical updates: see the README
("Training on a cluster") for what was measured.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from agents.policy import NumpyActor, SnapshotAgent
from allfours_env.seeding import derive_seed
from train.config import ConfigError, TrainConfig, from_dict

MODULE_ID = "learner"
_GAME_KEYS = ("preset", "num_players", "knobs", "episode", "reward")


def agent_to_module(agent_id: Any, episode: Any = None, **kwargs: Any) -> str:
    """The policy mapping: every seat that RLlib plays is the learner's module."""
    return MODULE_ID


# ---------------------------------------------------------------------------- config

def check(config: TrainConfig) -> None:
    """Input problems only the RLlib backend has (:class:`ConfigError`, before any work)."""
    try:
        import ray  # noqa: F401
        import ray.rllib  # noqa: F401
    except ImportError:
        raise ConfigError("--backend rllib needs Ray RLlib: pip install 'allfours[rllib]' "
                          "(scripts/setup.sh installs it)") from None
    batch = config.ppo.n_steps * config.n_envs
    learners = max(1, config.rllib.num_learners)
    if config.ppo.batch_size > batch // learners:
        raise ConfigError(f"ppo.batch_size ({config.ppo.batch_size}) must not exceed the env steps per "
                          f"iteration per learner, ppo.n_steps x n_envs / rllib.num_learners "
                          f"({batch // learners})")


def module_spec(config: TrainConfig, with_spaces: bool = False):
    """The ``RLModuleSpec`` of the learner's module (with the env's spaces when asked, to build it
    outside RLlib)."""
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    from train.rllib.module import MaskedActorCriticModule

    spaces = {}
    if with_spaces:
        from allfours_env.rllib_env import AllFoursMultiAgentEnv

        env = AllFoursMultiAgentEnv(_game(config) | {"critic_state": config.ppo.privileged_critic})
        agent = env.possible_agents[0]
        spaces = {"observation_space": env.observation_spaces[agent],
                  "action_space": env.action_spaces[agent]}
    model_config = {"hidden": list(config.ppo.net_arch), "activation": config.ppo.activation}
    return RLModuleSpec(module_class=MaskedActorCriticModule, model_config=model_config, **spaces)


def _game(config: TrainConfig) -> dict[str, Any]:
    return {"preset": config.preset, "num_players": config.num_players, "episode": config.episode,
            "reward": config.reward, "knobs": dict(config.knobs)}


def algorithm_config(config: TrainConfig):
    """The RLlib ``PPOConfig`` of a training config (see the module docstring for the mapping)."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec

    from train.rllib.league import ENV_NAME

    settings, ppo = config.rllib, config.ppo
    env_config = _game(config) | {
        "critic_state": ppo.privileged_critic,
        "illegal_action": "raise",
        "league": {"mix": config.opponents.mix_at(0), "pool_size": config.opponents.pool_size,
                   "self_play": settings.self_play, "partner": config.opponents.partner,
                   "seed": config.seed},
    }
    per_learner = config.ppo.n_steps * config.n_envs // max(1, settings.num_learners)
    return (
        PPOConfig()
        .environment(ENV_NAME, env_config=env_config, disable_env_checking=True)
        .env_runners(num_env_runners=settings.num_env_runners,
                     num_envs_per_env_runner=settings.num_envs_per_env_runner,
                     num_cpus_per_env_runner=settings.num_cpus_per_env_runner,
                     rollout_fragment_length="auto")
        .learners(num_learners=settings.num_learners, num_gpus_per_learner=settings.num_gpus_per_learner)
        .training(train_batch_size_per_learner=per_learner, minibatch_size=ppo.batch_size,
                  num_epochs=ppo.n_epochs, lr=ppo.learning_rate, gamma=ppo.gamma, lambda_=ppo.gae_lambda,
                  clip_param=ppo.clip_range, entropy_coeff=ppo.ent_coef, vf_loss_coeff=ppo.vf_coef,
                  grad_clip=ppo.max_grad_norm, grad_clip_by="global_norm", use_kl_loss=False,
                  vf_clip_param=float("inf"))
        .multi_agent(policies={MODULE_ID}, policy_mapping_fn=agent_to_module, policies_to_train=[MODULE_ID])
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={MODULE_ID: module_spec(config)}))
        .debugging(seed=config.seed, log_level="ERROR")
    )


# ---------------------------------------------------------------------------- weights

def learner_state(algo) -> dict[str, Any]:
    """The learner module's weights (numpy), from the learner group."""
    return algo.learner_group.get_weights(module_ids=[MODULE_ID])[MODULE_ID]


def learner_actor(algo, config: TrainConfig) -> NumpyActor:
    """The learner's actor as numpy (snapshots, evaluation, export)."""
    from train.rllib.export import actor_from_state

    return actor_from_state(learner_state(algo), config.ppo.activation)


def set_learner_state(algo, state: dict[str, Any]) -> None:
    """Give the learner (and every env runner) these weights."""
    algo.learner_group.set_weights({MODULE_ID: state})
    algo.env_runner_group.sync_weights(from_worker_or_learner_group=algo.learner_group,
                                       inference_only=True, timeout_seconds=60.0)


# ---------------------------------------------------------------------------- checkpoints

def find_checkpoint(path: str | Path) -> Path:
    """The checkpoint folder ``step_<N>`` named by ``path``: itself, or a run folder's newest."""
    path = Path(path)
    if path.is_file() and path.suffix == ".zip":
        raise ConfigError(f"{path} is a Stable-Baselines3 checkpoint: resume it without --backend rllib")
    if path.is_dir() and not path.name.startswith("step_"):
        found = sorted((p for p in path.glob("checkpoints/step_*") if p.is_dir()),
                       key=lambda p: int(p.name.split("_")[1]))
        if not found:
            raise ConfigError(f"no RLlib checkpoints in {path}/checkpoints to resume from "
                              "(a Stable-Baselines3 run resumes without --backend rllib)")
        path = found[-1]
    if not (path / "rllib_checkpoint.json").is_file():
        raise ConfigError(f"cannot resume from {path}: not an RLlib checkpoint folder of this backend")
    return path


def read_checkpoint_meta(path: Path, config: TrainConfig) -> dict[str, Any]:
    """The metadata of checkpoint ``path``, checked against ``config`` (same game, same network)."""
    meta_path = path.with_name(path.name + ".json")
    try:
        meta = json.loads(meta_path.read_text())
        saved = from_dict(meta["config"])
        int(meta["timesteps"])
    except FileNotFoundError:
        raise ConfigError(f"cannot resume from {path}: its metadata {meta_path.name} is missing") from None
    except (json.JSONDecodeError, KeyError, TypeError, ValueError) as err:
        raise ConfigError(f"cannot resume from {path}: unreadable metadata ({err})") from None
    if meta.get("backend") != "rllib":
        raise ConfigError(f"cannot resume from {path}: it was not written by --backend rllib")
    for key in _GAME_KEYS:
        if getattr(saved, key) != getattr(config, key):
            raise ConfigError(f"checkpoint {path.name} was trained with {key}={getattr(saved, key)!r}, "
                              f"this config has {getattr(config, key)!r}: resume with the same game")
    network = ("net_arch", "activation", "privileged_critic")
    if any(getattr(saved.ppo, key) != getattr(config.ppo, key) for key in network):
        raise ConfigError(f"checkpoint {path.name} has another network "
                          "(net_arch/activation/privileged_critic)")
    return meta


def save_checkpoint(algo, config: TrainConfig, out: Path, timesteps: int, meta: dict[str, Any],
                    league) -> Path:
    """Write ``checkpoints/step_<N>/`` (RLlib) and its ``.json``, ``.npz`` (the actor) and
    ``.pool.npz`` (the league's snapshots)."""
    from train.rllib.export import save_policy, save_snapshots

    folder = out / "checkpoints"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"step_{timesteps}"
    algo.save_to_path(str(path.resolve()))
    info = {"backend": "rllib", "config": config.to_dict(), "seed": config.seed, "timesteps": timesteps,
            "mix": league.mix, **meta}
    path.with_name(path.name + ".json").write_text(json.dumps(info, indent=1))
    save_policy(learner_actor(algo, config), path.with_name(path.name + ".npz"))
    save_snapshots(league.snapshots, path.with_name(path.name + ".pool.npz"))
    return path


# ---------------------------------------------------------------------------- evaluation

def evaluate_actor(actor: NumpyActor, config: TrainConfig, opponents: list[str], games: int, seed: int,
                   progress: bool = False):
    """A duplicate tournament of the greedy actor against ``opponents``, in ``eval.workers``
    processes on the driver's machine (not as Ray tasks: the env runners may hold every CPU of
    the cluster, and Ray would wait for one forever)."""
    from evaluate import run_tournament

    learner = SnapshotAgent(actor, deterministic=True, name="learner")
    return run_tournament([learner, *opponents], preset=config.preset, players=config.num_players,
                          knobs=config.knobs, games=games, seed=seed, workers=config.eval.workers,
                          schedule="first-vs-rest", progress=progress)


def eval_rows(result, config: TrainConfig, timesteps: int) -> list[dict[str, Any]]:
    rows = []
    for opponent in config.eval.opponents:
        numbers = result.result_for("learner", opponent)
        low, high = numbers["win_rate_ci"]
        rows.append({"timesteps": timesteps, "opponent": opponent, "win_rate": numbers["win_rate"],
                     "ci_low": low, "ci_high": high, "games": numbers["games"]})
    return rows


def average_actor(out: Path, since: int) -> tuple[NumpyActor, list[Path]]:
    """The element-wise mean of the actors of the run's checkpoints from step ``since`` on."""
    import numpy as np

    from train.rllib.export import load_policy

    paths = sorted((p for p in (out / "checkpoints").glob("step_*.npz")
                    if not p.name.endswith(".pool.npz") and int(p.stem.split("_")[1]) >= since),
                   key=lambda p: int(p.stem.split("_")[1]))
    actors = [load_policy(p) for p in paths]
    layers = [tuple(np.mean([actor.layers[i][part] for actor in actors], axis=0) for part in (0, 1))
              for i in range(len(actors[0].layers))]
    return NumpyActor(layers, actors[0].activation), paths


# ---------------------------------------------------------------------------- metrics

#: TensorBoard tags and where RLlib's result dict has them.
_SCALARS = {
    "rollout/ep_rew_mean": ("env_runners", "module_episode_returns_mean", MODULE_ID),
    "rollout/ep_len_mean": ("env_runners", "episode_len_mean"),
    "train/policy_loss": ("learners", MODULE_ID, "policy_loss"),
    "train/value_loss": ("learners", MODULE_ID, "vf_loss"),
    "train/entropy": ("learners", MODULE_ID, "entropy"),
    "train/approx_kl": ("learners", MODULE_ID, "mean_kl_loss"),
    "train/explained_variance": ("learners", MODULE_ID, "vf_explained_var"),
    "train/learning_rate": ("learners", MODULE_ID, "default_optimizer_learning_rate"),
}


def _lookup(result: dict[str, Any], keys: tuple[str, ...]) -> float | None:
    node: Any = result
    for key in keys:
        if not isinstance(node, dict) or key not in node:
            return None
        node = node[key]
    try:
        return float(node)
    except (TypeError, ValueError):
        return None


# ---------------------------------------------------------------------------- the run

def train(config: TrainConfig, *, resume: str | Path | None = None, progress: bool = True,
          log=print) -> dict[str, Any]:
    """Run the training of ``config`` on RLlib; return its summary (paths, throughput, results)."""
    check(config)
    checkpoint, meta = None, None
    if resume:
        checkpoint = find_checkpoint(resume)
        meta = read_checkpoint_meta(checkpoint, config)
        if int(meta["timesteps"]) >= config.total_timesteps:
            raise ConfigError(f"the checkpoint is at {int(meta['timesteps']):,} timesteps and "
                              f"total_timesteps is {config.total_timesteps:,}: raise total_timesteps "
                              "(--timesteps N) to train further")
    import torch

    from evaluate.ray_backend import RayUnavailable, init_ray
    from train import trainer as sb3  # the output helpers both backends share
    from train.rllib import league as league_module
    from train.rllib.export import load_snapshots, save_policy

    torch.set_num_threads(config.torch_threads)
    out = Path(config.out)
    if not resume and (out / "config.json").exists():
        kept = out.with_name(f"{out.name}.{time.strftime('%Y%m%d-%H%M%S')}")
        out.rename(kept)  # a fresh run never mixes with (or deletes) an earlier one
        log(f"an earlier run was in {out}: moved it to {kept}")
    out.mkdir(parents=True, exist_ok=True)
    (out / "config.json").write_text(json.dumps({"backend": "rllib", **config.to_dict()}, indent=1))

    warm = None
    if config.imitation.teacher and not resume:
        from train.rllib.warm_start import warm_start

        warm = warm_start(module_spec(config, with_spaces=True), config, log=log, progress=progress)
    try:
        started = init_ray(config.rllib.address)
    except RayUnavailable as err:
        raise ConfigError(str(err)) from None
    from torch.utils.tensorboard import SummaryWriter

    algo = None
    writer = SummaryWriter(str(out / "tb" / "rllib"))
    try:
        league_module.register()
        algo = algorithm_config(config).build_algo()
        league = league_module.League(config.opponents.mix_at(0), config.opponents.pool_size)
        steps, iteration = 0, 0
        if checkpoint is not None:
            try:
                algo.restore_from_path(str(checkpoint.resolve()))
            except Exception as err:  # noqa: BLE001 - any unreadable checkpoint is reported the same way
                raise ConfigError(f"cannot resume from {checkpoint}: {type(err).__name__}: {err}") from None
            steps, iteration = int(meta["timesteps"]), int(meta.get("iteration", 0))
            league.mix = dict(meta.get("mix", league.mix))
            pool = checkpoint.with_name(checkpoint.name + ".pool.npz")
            league.snapshots = load_snapshots(pool) if pool.is_file() else []
            log(f"resuming from {checkpoint} at {steps:,} timesteps, up to {config.total_timesteps:,}")
        elif warm is not None:
            set_learner_state(algo, warm)
        league.sync(algo)
        start = steps
        every = config.eval.every
        next_eval = (steps // every + 1) * every
        last_eval, eval_seconds = -1, 0.0
        bar = None
        if progress:
            from tqdm import tqdm

            bar = tqdm(total=config.total_timesteps, initial=steps, unit="step", desc="rllib ppo")
        began = time.perf_counter()
        while steps < config.total_timesteps:
            result = algo.train()
            iteration += 1
            sampled = int(_lookup(result, ("env_runners", "num_env_steps_sampled")) or 0)
            steps += sampled
            if bar is not None:
                bar.update(sampled)
            for tag, keys in _SCALARS.items():
                value = _lookup(result, keys)
                if value is not None:
                    writer.add_scalar(tag, value, steps)
            elapsed = time.perf_counter() - began - eval_seconds
            writer.add_scalar("time/fps", (steps - start) / max(elapsed, 1e-9), steps)
            if iteration % config.opponents.snapshot_every == 0:
                league.update(algo, snapshot=learner_actor(algo, config))
            mix = config.opponents.mix_at(steps)
            if mix != league.mix:
                league.update(algo, mix=mix)
                for kind, weight in mix.items():
                    writer.add_scalar(f"pool/mix_{kind}", weight, steps)
            writer.add_scalar("pool/snapshots", len(league.snapshots), steps)
            if steps >= next_eval or steps >= config.total_timesteps:
                next_eval = (steps // every + 1) * every
                clock = time.perf_counter()
                eval_result = evaluate_actor(learner_actor(algo, config), config, config.eval.opponents,
                                             config.eval.games, seed=derive_seed(config.seed, "eval", steps))
                rows = eval_rows(eval_result, config, steps)
                for row in rows:
                    writer.add_scalar(f"eval/win_rate_vs_{row['opponent']}", row["win_rate"], steps)
                sb3.append_csv(out / "eval.csv", rows)
                save_checkpoint(algo, config, out, steps, {"iteration": iteration, "eval": rows}, league)
                writer.flush()
                last_eval = steps
                eval_seconds += time.perf_counter() - clock
        if bar is not None:
            bar.close()
        seconds = time.perf_counter() - began - eval_seconds
        learned = steps - start
        steps_per_s = learned / seconds if seconds > 0 else 0.0
        if last_eval != steps:  # a resumed run that was already at its budget
            save_checkpoint(algo, config, out, steps, {"iteration": iteration}, league)
        actor = learner_actor(algo, config)
        averaged: list[Path] = []
        if config.average_since:
            actor, averaged = average_actor(out, config.average_since)
            log(f"final model: the weight average of {len(averaged)} checkpoints")
        final = evaluate_actor(actor, config, config.eval.final_opponents, config.eval.final_games,
                               seed=derive_seed(config.seed, "final"), progress=progress)
    finally:
        writer.close()
        if algo is not None:
            algo.stop()
        if started:
            import ray

            ray.shutdown()
    from evaluate import report

    results = {}
    for opponent in config.eval.final_opponents:
        numbers = final.result_for("learner", opponent)
        results[opponent] = {"win_rate": numbers["win_rate"], "win_rate_ci": numbers["win_rate_ci"],
                             "games": numbers["games"]}
    model_meta = {"backend": "rllib", "config": config.to_dict(), "seed": config.seed, "timesteps": steps,
                  "train_seconds": seconds, "learner_steps_per_s": steps_per_s, "final_eval": results}
    if averaged:
        model_meta["averaged"] = [str(path) for path in averaged]
    model_path = save_policy(actor, out / "model.npz", model_meta)
    report.save(final, out / "final_eval")
    table = report.markdown(final)
    (out / "final_eval" / "table.md").write_text(table + "\n")
    curve_png = sb3.plot_curve(sb3.read_curve(out), out / "learning_curve.png")
    log("")
    log(table)
    log(f"\nlearner steps/s: {steps_per_s:,.0f} ({learned:,} steps in {seconds:,.0f} s)")
    log(f"model: {model_path}   learning curve: {curve_png}   logs: {out / 'tb'}")
    return {"model": model_path, "results": results, "learner_steps_per_s": steps_per_s,
            "table": table, "curve": curve_png, "timesteps": steps}


__all__ = ["agent_to_module", "algorithm_config", "train"]
