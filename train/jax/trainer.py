"""PPO self-play on the batched core: ``python -m train --backend jax``.

The same TOML config as the other backends, checked the same way (:mod:`train.config`,
:mod:`train.runs`), plus the ``[jax]`` table (:mod:`train.jax.settings`). One run:

1. **Check** (one line, before anything is written): JAX installed; every agent spec of
   ``opponents.mix``, its schedule and ``opponents.partner`` builds
   (:func:`train.runs.check_agents`); a checkpoint to resume is this backend's, with this config's network
   (``ppo.net_arch``, ``ppo.privileged_critic``: a privileged critic also reads the hidden cards,
   :mod:`train.jax.network`).
2. **Warm start** (optional, ``[imitation]``): the learner imitates a teacher bot — the data and
   DAgger rounds of every backend, the cloning in JAX (:mod:`train.jax.warm_start`). Then **compile**
   :class:`train.jax.ppo.Learner`'s ``iterate`` once (ahead of time, timed apart).
3. **Loop** in Python, one call per rollout (``jax.num_envs`` games × ``jax.rollout_steps``
   decisions, then ``ppo.n_epochs`` × ``jax.minibatches`` updates, all inside ``jit``; when the mix
   names Python bots such as ``heuristic``, the rollout is stepped from Python with the bots
   deciding on mirrored reference games, :mod:`train.jax.bots`, and the update is the same). Every
   ``opponents.snapshot_every`` rollouts a frozen copy of the learner joins the pool (the newest
   ``opponents.pool_size`` are kept); each rollout's snapshot seats play one snapshot drawn from
   the pool. A timestep is one decision of the learner, as for the other backends.
4. **Evaluation** every ``eval.every`` timesteps against ``eval.opponents`` (duplicate games in the
   evaluation package, Python bots outside ``jit``, :func:`train.evaluation.periodic`), a
   checkpoint beside it, the progress line (a bar, or a line every 30 s in a log) and TensorBoard
   (``tb/jax``); at the end the final table, policy file and curve of :func:`train.trainer.finish`.

Checkpoints are :mod:`train.checkpoints`' (a policy file of the actor plus the learner's arrays of
:mod:`train.jax.network` and the pool's snapshots; ``"training": {"backend": "jax"}``). ``--resume``
restores the learner, its Adam state and the pool; the games in progress are not saved: a resumed
run deals a new batch. ``seed`` fixes everything: the network's initialisation, every deal and
decision (each rollout's key is the seed's, folded with the rollout's number) and the snapshot draws.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import numpy as np

from agents.policy import NumpyActor
from agents.policy_file import header, write
from allfours_env.seeding import derive_seed
from train import evaluation
from train.checkpoints import FOLDER, Checkpoint, snapshot_arrays, snapshots_from
from train.config import ConfigError, TrainConfig
from train.jax.settings import learning_rate_at

BACKEND = "jax"


def check(config: TrainConfig, checkpoint: Checkpoint | None) -> None:
    """What only the JAX backend needs (ConfigError, one line, before anything is written)."""
    try:
        import jax  # noqa: F401
        import torch.utils.tensorboard  # noqa: F401  (the logs)

        from allfours_env import batched  # noqa: F401
    except ImportError:
        raise ConfigError("--backend jax needs JAX and the training extra: pip install "
                          "'allfours[train,jax]' (scripts/setup.sh installs both)") from None
    if checkpoint is not None:
        backend = checkpoint.meta["training"].get("backend", "sb3")
        if backend != BACKEND:
            raise ConfigError(f"{checkpoint.path} was written by --backend {backend}: resume it with that "
                              f"backend")
        restored(checkpoint, config)


def restored(checkpoint: Checkpoint, config: TrainConfig):
    """The learner and Adam state of ``checkpoint`` (ConfigError, one line, if they do not fit)."""
    from train.jax import network

    try:
        return network.from_arrays(checkpoint.arrays, list(config.ppo.net_arch), checkpoint.path,
                                   config.ppo.privileged_critic)
    except (KeyError, ValueError) as err:
        message = err.args[0] if err.args else str(err)
        raise ConfigError(f"cannot resume from {message}: the checkpoint is damaged or of another "
                          f"network") from None


def opponent_probs(config: TrainConfig, mix: dict[str, float], snapshots: int) -> np.ndarray:
    """The weights of LEARNER, RANDOM, SNAPSHOT and each Python bot of the config
    (:func:`train.jax.ppo.python_bots`) for an opponent seat, normalised; the snapshot's weight goes
    to the others until the pool holds one (random play if nothing else is left)."""
    from train.jax.ppo import RANDOM, python_bots

    weights = np.array([config.jax.self_play, mix.get("random", 0.0), mix.get("snapshot", 0.0) if snapshots
                        else 0.0, *(mix.get(bot, 0.0) for bot in python_bots(config))], np.float32)
    if weights.sum() <= 0:
        weights[RANDOM] = 1.0
    return weights / weights.sum()


def save_checkpoint(params, opt, config: TrainConfig, out: Path, timesteps: int, pool: list[NumpyActor],
                    metrics: dict[str, Any]) -> Path:
    """Write ``checkpoints/step_<N>.npz`` (+ ``.json``): the actor as a policy file, the learner's
    whole state (:func:`train.jax.network.to_arrays`) and the pool's snapshots. Nothing is pickled."""
    from train.jax import network

    folder = Path(out) / FOLDER
    folder.mkdir(parents=True, exist_ok=True)
    actor = network.actor_of(params, config.ppo.activation)
    meta = header(actor.inputs, actor.hidden, actor.activation, config.game())
    meta |= {"kind": "checkpoint", "config": config.to_dict(), "seed": config.seed, "timesteps": timesteps,
             **metrics, "training": {"backend": BACKEND, "snapshots": len(pool)}}
    arrays = actor.to_arrays() | network.to_arrays(params, opt) | snapshot_arrays(pool)
    return write(folder / f"step_{timesteps}.npz", arrays, meta)


def train(config: TrainConfig, *, resume: str | Path | None = None, progress: bool = True,
          log=print) -> dict[str, Any]:
    """Run the training of ``config`` on the batched core (resuming ``resume`` as :mod:`train.runs`
    says); return its summary (paths, throughput, final results). Bad input raises ConfigError
    before anything is written."""
    from train import runs

    start = runs.prepare(config, resume)
    check(config, start.checkpoint)
    import jax
    from torch.utils.tensorboard import SummaryWriter

    from evaluate.progress import Progress
    from train.jax import network
    from train.jax.ppo import Learner
    from train.trainer import finish

    checkpoint = start.checkpoint
    runs.open_folder(start, config, log=log)
    out = start.out
    if checkpoint is not None:
        log(f"resuming from {checkpoint.path} at {checkpoint.step:,} timesteps, up to "
            f"{config.total_timesteps:,}" + ("" if start.continues else f", into {out}"))
    init_key, deal_key, run_key = jax.random.split(jax.random.PRNGKey(config.seed), 3)
    steps = iteration = 0
    pool: list[NumpyActor] = []
    if checkpoint is not None:
        params, opt = restored(checkpoint, config)
        steps, iteration = checkpoint.step, checkpoint.meta.get("iteration", 0)
        pool = snapshots_from(checkpoint)
    else:
        params = network.init_params(init_key, list(config.ppo.net_arch), config.ppo.privileged_critic)
        if config.imitation.teacher:
            from train.jax.warm_start import warm_start

            params = warm_start(params, config, start.dataset, log=log, progress=progress)
        opt = network.adam_init(params)
    learner = Learner(config)
    activation = config.ppo.activation

    def inputs() -> tuple[Any, np.ndarray]:
        """This rollout's snapshot (drawn from the pool; the learner's actor while it is empty)
        and opponent weights."""
        probs = opponent_probs(config, config.opponents.mix_at(steps), len(pool))
        if not pool:
            return params["actor"], probs
        rng = np.random.default_rng(derive_seed(config.seed, "snapshot", iteration))
        return network.actor_layers(pool[int(rng.integers(len(pool)))]), probs

    def rate_at(steps: int) -> np.float32:
        """The learning rate of the next update (``jax.anneal_lr``)."""
        return np.float32(learning_rate_at(config.ppo.learning_rate, steps, config.total_timesteps,
                                           config.jax.anneal_lr))

    snapshot, probs = inputs()
    batch = learner.start(jax.random.fold_in(deal_key, iteration), probs)
    clock = time.perf_counter()
    if learner.bots:
        from train.jax.bots import BotRollout

        log(f"opponents {', '.join(learner.bots)} decide in Python: the rollout ({config.jax.num_envs:,} "
            f"games x {config.jax.rollout_steps} decisions) is stepped from Python, compiled on first use")
        iterate = BotRollout(learner, config.seed).iterate
    else:
        log(f"compiling the rollout and update ({config.jax.num_envs:,} games x {config.jax.rollout_steps} "
            f"decisions per rollout)")
        iterate = learner.iterate.lower(params, opt, snapshot, probs, batch, run_key,
                                        rate_at(steps)).compile()
        log(f"compiled in {time.perf_counter() - clock:,.0f} s")
    writer = SummaryWriter(str(out / "tb" / BACKEND))
    first, every = steps, config.eval.every
    next_eval = (steps // every + 1) * every
    eval_seconds = 0.0
    bar = Progress(config.total_timesteps, "training", "step", initial=steps) if progress else None
    began = time.perf_counter()
    try:
        while steps < config.total_timesteps:
            snapshot, probs = inputs()
            rate = rate_at(steps)
            params, opt, batch, metrics = iterate(params, opt, snapshot, probs, batch,
                                                  jax.random.fold_in(run_key, iteration), rate)
            writer.add_scalar("train/learning_rate", float(rate), steps)
            metrics = jax.device_get(metrics)
            iteration += 1
            learned = int(metrics.pop("learner_steps"))
            steps += learned
            if bar is not None:
                bar.update(learned)
            for tag, value in metrics.items():
                writer.add_scalar(tag if "/" in tag else f"rollout/{tag}", float(value), steps)
            elapsed = time.perf_counter() - began - eval_seconds
            writer.add_scalar("time/fps", (steps - first) / max(elapsed, 1e-9), steps)
            if iteration % config.opponents.snapshot_every == 0:
                pool.append(network.actor_of(params, activation))
                del pool[:-config.opponents.pool_size]
            writer.add_scalar("pool/snapshots", len(pool), steps)
            if steps >= next_eval or steps >= config.total_timesteps:
                next_eval = (steps // every + 1) * every
                clock = time.perf_counter()
                rows = evaluation.periodic(network.actor_of(params, activation), config, steps, out, log=log)
                for row in rows:
                    writer.add_scalar(f"eval/win_rate_vs_{row['opponent']}", row["win_rate"], steps)
                if bar is not None:
                    bar.note(evaluation.describe_rows(rows))
                save_checkpoint(params, opt, config, out, steps, pool,
                                {"eval": rows, "iteration": iteration,
                                 "opponent_mix": config.opponents.mix_at(steps)})
                writer.flush()
                eval_seconds += time.perf_counter() - clock
        seconds = time.perf_counter() - began - eval_seconds
    except KeyboardInterrupt:  # Ctrl-C while a checkpoint was being saved: drop it, the one before is whole
        runs.drop_torn_checkpoint(out, checkpoint.step if checkpoint else 0, log=log)
        raise
    finally:
        if bar is not None:
            bar.close()
        writer.close()
    actor = network.actor_of(params, activation)
    averaged: list[Path] = []
    if config.average_since:
        from train.average import averaged_actor

        actor, averaged = averaged_actor(out, config.average_since, log=log)
    return finish(config, out, actor, timesteps=steps, seconds=seconds, learned=steps - first,
                  averaged=averaged, progress=progress, log=log, backend=BACKEND,
                  devices=[str(device) for device in jax.devices()])
