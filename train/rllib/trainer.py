"""Multi-agent PPO on Ray RLlib (new API stack): ``python -m train --backend rllib``.

The same TOML config as the Stable-Baselines3 backend, checked the same way (:mod:`train.config`,
:mod:`train.runs`), plus the ``[rllib]`` table (:mod:`train.rllib.settings`). One run:

1. **Warm start** (optional, ``[imitation]``): the module imitates the teacher with the SB3
   backend's own code and data (:mod:`train.rllib.warm_start`), in the driver, before Ray starts.
2. **Ray**: a local instance (``rllib.address = ""``) or a cluster (``"auto"``, ``"HOST:PORT"``,
   ``"ray://HOST:PORT"``); ``rllib.num_env_runners`` env runners each step
   ``rllib.num_envs_per_env_runner`` games of :class:`allfours_env.rllib_env.AllFoursMultiAgentEnv`;
   ``rllib.num_learners`` learner actors (0: in the driver), ``rllib.num_gpus_per_learner`` GPUs each.
3. **Multi-agent PPO** with :class:`train.rllib.module.MaskedActorCriticModule`: the policy mapping
   (:func:`agent_to_module`) maps every RLlib agent — a seat — to the one trained module,
   ``"learner"``. The other seats are the league (:mod:`train.rllib.league`): opponents drawn per
   episode from ``opponents.mix`` — baseline bots and frozen snapshots of the learner (one every
   ``opponents.snapshot_every`` training iterations, the newest ``opponents.pool_size`` kept),
   played inside the env runners — and, with ``rllib.self_play``, the learner's own module.
   ``opponents.schedule`` and ``opponents.partner`` work as for SB3; ``ppo.privileged_critic``
   gives the critic the hidden cards.
4. **Evaluation** every ``eval.every`` steps against ``eval.opponents`` (:mod:`train.evaluation`,
   duplicate games in ``eval.workers`` processes on the driver's machine), a checkpoint beside it,
   and at the end the SB3 backend's final table, policy file and curve (:func:`train.trainer.finish`).

``[ppo]`` maps onto RLlib's PPO: ``n_steps × n_envs`` env steps per training iteration (split
among the learners), ``batch_size`` → ``minibatch_size``, ``n_epochs`` → ``num_epochs``,
``learning_rate``, ``gamma``, ``gae_lambda`` → ``lambda_``, ``clip_range`` → ``clip_param``,
``ent_coef`` → ``entropy_coeff``, ``vf_coef`` → ``vf_loss_coeff``, ``max_grad_norm`` →
``grad_clip``; no KL penalty and no value clipping, as in SB3. A timestep is one decision of the
learner's module (an env step: exactly one agent acts per step), as an SB3 timestep is.
``torch_threads`` is the driver's; every Ray worker uses one thread.

The output folder is the SB3 backend's (:mod:`train.trainer`)::

    checkpoints/step_<N>.npz, .json   a checkpoint in the project's form (:mod:`train.checkpoints`):
                                      a policy file of the learner's actor (``ppo:`` plays it) with
                                      the learner's whole state, the league's snapshots, config,
                                      seed, evaluation, mix and training iteration
    tb/rllib/                         TensorBoard: losses, entropy, KL, explained variance, episode
                                      return, steps/s, pool, win rates

Beside the actor's policy-file arrays and the league's ``pool.<k>.*``, a checkpoint's ``.npz``
holds the learner's state as plain float arrays (:func:`learner_arrays`):

* ``module.<name>``: the learner's RL module, actor and critic, named as in its state dict
  (``module.actor.0.weight``, ..., ``module.critic.0.bias``, ...);
* ``optimizer.<optimizer>.<index>.<key>``: its Adam state, as RLlib's ``Learner.get_state``
  gives it — ``<optimizer>`` is RLlib's name of the optimizer (:data:`OPTIMIZER`), ``<index>``
  the parameter's position in ``module.parameters()``, ``<key>`` one of ``step`` (a scalar),
  ``exp_avg``, ``exp_avg_sq``.

The JSON adds ``"iteration"``, the training iterations done. ``--resume`` works as for SB3
(:mod:`train.runs`: the run's own config, continue in place or branch with ``--out``): the arrays
are checked against the module of the run's config (a mismatch is one line) before anything is
built, the algorithm is built afresh and the learner given the module and optimiser state
(:func:`restore_learner`). Nothing is unpickled: RLlib's own checkpoints (``save_to_path``, the
``step_<N>.rllib/`` folders an older version wrote) are cloudpickles, which are never written and
never opened — one found beside a checkpoint is ignored, and said to be. What RLlib keeps beside
the learner (its env runners' connector state, its lifetime counters) starts afresh on resume;
with this config it holds nothing a run depends on.

**Reproducibility.** ``seed`` seeds the driver, every learner and env runner (RLlib's
``debugging(seed=...)``: Python, numpy, torch, and each env from the seed and its runner and
vector index), the league's draws and the warm start. With one env runner a run repeats bit for
bit; what is not promised (several runners, GPUs, resumed runs) is in the README.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import numpy as np

from agents.policy import NumpyActor
from agents.policy_file import header, write
from train import evaluation
from train.checkpoints import FOLDER, Checkpoint, snapshot_arrays, snapshots_from
from train.config import ConfigError, TrainConfig
from train.model import ADAM_KEYS, OPTIMIZER_PREFIX

MODULE_ID = "learner"
#: RLlib's name of the learner's optimizer (``Learner.register_optimizer``: module id + "_" + name).
OPTIMIZER = f"{MODULE_ID}_default_optimizer"
#: The checkpoint array name prefix of the learner module's weights.
MODULE_PREFIX = "module."
#: The suffix of the RLlib checkpoint folders older versions wrote beside each ``step_<N>.npz``
#: (pickles: never opened).
RLLIB_SUFFIX = ".rllib"


def agent_to_module(agent_id: Any, episode: Any = None, **kwargs: Any) -> str:
    """The policy mapping: every seat that RLlib plays is the learner's module."""
    return MODULE_ID


# ---------------------------------------------------------------------------- config

def check(config: TrainConfig, checkpoint: Checkpoint | None) -> None:
    """What only the RLlib backend needs (ConfigError, before anything is written): Ray installed,
    minibatches that fit the batch, and a checkpoint of this backend, with the whole learner state
    of this config's module, to resume."""
    try:
        import ray.rllib  # noqa: F401
    except ImportError:
        raise ConfigError("--backend rllib needs Ray RLlib: pip install 'allfours[rllib]' "
                          "(scripts/setup.sh installs it)") from None
    per_learner = config.ppo.n_steps * config.n_envs // max(1, config.rllib.num_learners)
    if config.ppo.batch_size > per_learner:
        raise ConfigError(f"ppo.batch_size ({config.ppo.batch_size}) must not exceed the env steps per "
                          f"training iteration per learner, ppo.n_steps x n_envs / rllib.num_learners "
                          f"({per_learner})")
    if checkpoint is not None:
        backend = checkpoint.meta["training"].get("backend", "sb3")
        if backend != "rllib":
            raise ConfigError(f"{checkpoint.path} was written by --backend {backend}: resume it with that "
                              "backend")
        iteration = checkpoint.meta.get("iteration", 0)
        if not (isinstance(iteration, int) and not isinstance(iteration, bool) and iteration >= 0):
            raise ConfigError(f"{checkpoint.path}: iteration must be a whole number >= 0, got {iteration!r}")
        check_learner_arrays(checkpoint.arrays, config, checkpoint.path)


def rllib_folder(path: Path) -> Path:
    """The RLlib checkpoint folder an older version wrote beside the checkpoint at ``path`` (never
    opened)."""
    return path.with_suffix(RLLIB_SUFFIX)


def module_spec(config: TrainConfig, with_spaces: bool = False):
    """The ``RLModuleSpec`` of the learner's module (with the env's spaces when asked, to build it
    outside RLlib)."""
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    from train.rllib.module import MaskedActorCriticModule

    spaces = {}
    if with_spaces:
        from allfours_env.rllib_env import AllFoursMultiAgentEnv

        env = AllFoursMultiAgentEnv(game_config(config) | {"critic_state": config.ppo.privileged_critic})
        agent = env.possible_agents[0]
        spaces = {"observation_space": env.observation_spaces[agent],
                  "action_space": env.action_spaces[agent]}
    model_config = {"hidden": list(config.ppo.net_arch), "activation": config.ppo.activation}
    return RLModuleSpec(module_class=MaskedActorCriticModule, model_config=model_config, **spaces)


def game_config(config: TrainConfig) -> dict[str, Any]:
    """The env_config entries of the game (preset, players, episode, reward, knobs)."""
    return {"preset": config.preset, "num_players": config.num_players, "episode": config.episode,
            "reward": config.reward, "knobs": dict(config.knobs)}


def algorithm_config(config: TrainConfig):
    """The RLlib ``PPOConfig`` of a training config (see the module docstring for the mapping)."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec

    from train.rllib.league import ENV_NAME

    settings, ppo = config.rllib, config.ppo
    env_config = game_config(config) | {
        "critic_state": ppo.privileged_critic,
        "illegal_action": "raise",
        "league": {"mix": config.opponents.mix_at(0), "pool_size": config.opponents.pool_size,
                   "self_play": settings.self_play, "partner": config.opponents.partner,
                   "seed": config.seed},
    }
    per_learner = ppo.n_steps * config.n_envs // max(1, settings.num_learners)
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
        # On a private local instance a failing runner is a bug to see, not to restart (and Ray
        # would warn at every start that a restart could fail); a cluster's runners restart.
        .fault_tolerance(restart_failed_env_runners=bool(settings.address))
    )


# ---------------------------------------------------------------------------- weights

def learner_actor(algo, config: TrainConfig) -> NumpyActor:
    """The learner's actor as numpy (snapshots, evaluation, policy files), from the learner group."""
    from train.rllib.module import actor_from_state

    state = algo.learner_group.get_weights(module_ids=[MODULE_ID])[MODULE_ID]
    return actor_from_state(state, config.ppo.activation)


def set_learner_state(algo, state: dict[str, Any]) -> None:
    """Give the learner (and every env runner) these module weights."""
    algo.learner_group.set_weights({MODULE_ID: state})
    sync_env_runners(algo)


def sync_env_runners(algo) -> None:
    """Send the learner's module weights to every env runner."""
    algo.env_runner_group.sync_weights(from_worker_or_learner_group=algo.learner_group,
                                       inference_only=True, timeout_seconds=60.0)


def optimizer_name(optimizer: str, index: int, key: str) -> str:
    """The checkpoint array name of one entry of the optimiser state (see the module docstring)."""
    return f"{OPTIMIZER_PREFIX}{optimizer}.{index}.{key}"


def learner_arrays(algo) -> dict[str, np.ndarray]:
    """The learner's whole state as named float arrays (see the module docstring): its module's
    weights, actor and critic, and its optimiser's state, from the learner group."""
    state = algo.learner_group.get_state(
        components=[f"learner/rl_module/{MODULE_ID}", "learner/optimizer"])["learner"]
    arrays = {f"{MODULE_PREFIX}{name}": np.array(value) for name, value in
              state["rl_module"][MODULE_ID].items()}
    for optimizer, entry in state["optimizer"].items():
        for index, parameter in entry["state"]["state"].items():
            for key in ADAM_KEYS:
                arrays[optimizer_name(optimizer, index, key)] = np.array(
                    parameter[key], np.float64 if key == "step" else None)
    return arrays


def module_arrays(arrays: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The module's weights among a checkpoint's arrays, named as in its state dict."""
    return {name[len(MODULE_PREFIX):]: array for name, array in arrays.items()
            if name.startswith(MODULE_PREFIX)}


def check_learner_arrays(arrays: dict[str, np.ndarray], config: TrainConfig, where: Path) -> None:
    """Raise ConfigError (one line) unless ``arrays`` hold the whole learner state of ``config``'s
    module: every weight of a freshly built module with its shape, and the optimiser state of
    every parameter (or of none, before any update)."""
    weights = module_arrays(arrays)
    if not weights:
        raise ConfigError(f"cannot resume from {where}: it holds no learner state (module.* arrays), as "
                          f"checkpoints of older versions did (their {rllib_folder(where).name} folders "
                          f"are RLlib's pickles, which are never opened); start a new run, or play it "
                          f"with ppo:{where}")
    module = module_spec(config, with_spaces=True).build()
    expected = {f"{MODULE_PREFIX}{name}": tuple(tensor.shape) for name, tensor in module.state_dict().items()}
    _check_shapes({f"{MODULE_PREFIX}{name}": array for name, array in weights.items()}, expected,
                  "the module", "no such weight", where)
    shapes = [tuple(parameter.shape) for parameter in module.parameters()]
    wanted = {optimizer_name(OPTIMIZER, index, key): (() if key == "step" else shape)
              for index, shape in enumerate(shapes) for key in ADAM_KEYS}
    saved = {name: array for name, array in arrays.items() if name.startswith(OPTIMIZER_PREFIX)}
    if saved:
        _check_shapes(saved, wanted, "the optimiser state", "not part of the optimiser state", where)


def _check_shapes(arrays: dict[str, np.ndarray], wanted: dict[str, tuple[int, ...]], whose: str,
                  stranger: str, where: Path) -> None:
    """Raise ConfigError (one line) unless ``arrays`` hold exactly the names of ``wanted``, each of
    its shape; ``whose`` names what needs them, ``stranger`` what an extra array is."""
    for name in sorted(set(arrays) | set(wanted)):
        if name not in arrays or name not in wanted or arrays[name].shape != wanted[name]:
            got = arrays[name].shape if name in arrays else "missing"
            raise ConfigError(f"cannot resume from {where}: array {name} is {got}, {whose} needs "
                              f"{wanted.get(name, stranger)}: the checkpoint is damaged or of another "
                              f"network than this config's")


def restore_learner(algo, arrays: dict[str, np.ndarray]) -> None:
    """Give the freshly built ``algo``'s learner(s) the module weights and optimiser state of
    ``arrays`` (checked by :func:`check_learner_arrays`), then every env runner the weights."""
    fresh = algo.learner_group.get_state(components="learner/optimizer")["learner"]["optimizer"]
    if set(fresh) != {OPTIMIZER}:
        raise ConfigError(f"this version of RLlib names the learner's optimizers {sorted(fresh)}, not "
                          f"[{OPTIMIZER!r}]: the checkpoint's optimiser state cannot be restored")
    entry = fresh[OPTIMIZER]
    indices = [index for group in entry["state"]["param_groups"] for index in group["params"]]
    state = {}
    if any(name.startswith(OPTIMIZER_PREFIX) for name in arrays):
        state = {index: {key: arrays[optimizer_name(OPTIMIZER, index, key)] for key in ADAM_KEYS}
                 for index in indices}
    optimizer = {OPTIMIZER: {"module_id": entry["module_id"], "state": {**entry["state"], "state": state}}}
    algo.learner_group.set_state({"learner": {"rl_module": {MODULE_ID: module_arrays(arrays)},
                                              "optimizer": optimizer}})
    sync_env_runners(algo)


# ---------------------------------------------------------------------------- checkpoints

def save_checkpoint(algo, config: TrainConfig, out: Path, timesteps: int, league,
                    metrics: dict[str, Any]) -> Path:
    """Write ``checkpoints/step_<N>.npz`` (+ ``.json``): the learner's actor as a policy file, the
    learner's whole state (:func:`learner_arrays`) and the league's snapshots, as a checkpoint of
    :mod:`train.checkpoints`. Nothing is pickled."""
    from train.rllib.module import actor_from_state

    folder = Path(out) / FOLDER
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"step_{timesteps}.npz"
    state = learner_arrays(algo)
    actor = actor_from_state(module_arrays(state), config.ppo.activation)
    meta = header(actor.inputs, actor.hidden, actor.activation, config.game())
    meta |= {"kind": "checkpoint", "config": config.to_dict(), "seed": config.seed, "timesteps": timesteps,
             **metrics, "opponent_mix": league.mix,
             "training": {"backend": "rllib", "snapshots": len(league.snapshots)}}
    return write(path, actor.to_arrays() | state | snapshot_arrays(league.snapshots), meta)


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


def lookup(result: dict[str, Any], keys: tuple[str, ...]) -> float | None:
    """The number at ``keys`` in RLlib's nested result dict, or None."""
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
    """Run the training of ``config`` on RLlib (resuming ``resume`` as :mod:`train.runs` says);
    return its summary (paths, throughput, final results). Bad input raises ConfigError before
    anything is written."""
    from train import runs

    start = runs.prepare(config, resume)
    check(config, start.checkpoint)
    import torch

    from evaluate.ray_backend import RayUnavailable, init_ray
    from train.trainer import finish

    torch.set_num_threads(config.torch_threads)
    try:
        started = init_ray(config.rllib.address)
    except RayUnavailable as err:
        raise ConfigError(str(err)) from None
    import ray

    try:
        return _run(config, start, progress=progress, log=log, finish=finish)
    finally:
        if started:
            ray.shutdown()


def _run(config: TrainConfig, start, *, progress: bool, log, finish) -> dict[str, Any]:
    """The run once Ray is up (see :func:`train`)."""
    from torch.utils.tensorboard import SummaryWriter

    from evaluate.progress import Progress
    from train import runs
    from train.rllib import league as league_module

    league_module.register()
    algo = algorithm_config(config).build_algo()
    writer = bar = None
    try:
        league = league_module.League(config.opponents.mix_at(0), config.opponents.pool_size)
        checkpoint = start.checkpoint
        steps, iteration = 0, 0
        if checkpoint is not None:
            restore_learner(algo, checkpoint.arrays)
            steps, iteration = checkpoint.step, checkpoint.meta.get("iteration", 0)
            league.mix = dict(checkpoint.meta.get("opponent_mix") or league.mix)
            league.snapshots = snapshots_from(checkpoint)
        runs.open_folder(start, config, log=log)
        out = start.out
        if checkpoint is not None:
            log(f"resuming from {checkpoint.path} at {steps:,} timesteps, up to {config.total_timesteps:,}"
                + ("" if start.continues else f", into {out}"))
            if rllib_folder(checkpoint.path).exists():
                log(f"ignoring {rllib_folder(checkpoint.path).name}/ beside it: RLlib's own checkpoints are "
                    f"pickles, which are never opened (the .npz holds the learner's state)")
        elif config.imitation.teacher:
            from train.rllib.warm_start import warm_start

            set_learner_state(algo, warm_start(module_spec(config, with_spaces=True), config, start.dataset,
                                               log=log, progress=progress))
        league.sync(algo)
        writer = SummaryWriter(str(out / "tb" / "rllib"))
        first, every = steps, config.eval.every
        next_eval = (steps // every + 1) * every
        eval_seconds = 0.0
        bar = Progress(config.total_timesteps, "training", "step", initial=steps) if progress else None
        began = time.perf_counter()
        while steps < config.total_timesteps:
            result = algo.train()
            iteration += 1
            sampled = int(lookup(result, ("env_runners", "num_env_steps_sampled")) or 0)
            steps += sampled
            if bar is not None:
                bar.update(sampled)
            for tag, keys in _SCALARS.items():
                value = lookup(result, keys)
                if value is not None:
                    writer.add_scalar(tag, value, steps)
            elapsed = time.perf_counter() - began - eval_seconds
            writer.add_scalar("time/fps", (steps - first) / max(elapsed, 1e-9), steps)
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
                rows = evaluation.periodic(learner_actor(algo, config), config, steps, out, log=log)
                for row in rows:
                    writer.add_scalar(f"eval/win_rate_vs_{row['opponent']}", row["win_rate"], steps)
                if bar is not None:
                    bar.note(evaluation.describe_rows(rows))
                save_checkpoint(algo, config, out, steps, league, {"eval": rows, "iteration": iteration})
                writer.flush()
                eval_seconds += time.perf_counter() - clock
        seconds = time.perf_counter() - began - eval_seconds
        actor = learner_actor(algo, config)
    finally:
        if bar is not None:
            bar.close()
        if writer is not None:
            writer.close()
        algo.stop()
    averaged: list[Path] = []
    if config.average_since:
        from train.average import averaged_actor

        actor, averaged = averaged_actor(out, config.average_since, log=log)
    return finish(config, out, actor, timesteps=steps, seconds=seconds, learned=steps - first,
                  averaged=averaged, progress=progress, log=log, backend="rllib")


__all__ = ["agent_to_module", "algorithm_config", "train"]
