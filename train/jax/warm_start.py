"""The imitation warm start of the JAX backend: behaviour cloning in JAX.

The teacher's data and the DAgger rounds are those of every backend (:func:`train.imitation.imitate`:
recorded games, cached datasets, the student playing while the teacher labels); the fitting is
:func:`fit`, the JAX twin of :func:`train.imitation.pretrain`: cross-entropy of the actor's masked
logits on the teacher's actions plus half the squared error of the critic on the hands' returns
(a privileged critic reads zeros for the hidden cards, which the datasets do not hold: its weights
on them stay at zero), Adam with gradients clipped to a global norm of 1, every tenth decision held
out for the accuracy. Each epoch is one jitted scan over the shuffled minibatches (the remainder of
a shuffle that does not fill a minibatch waits for the next epoch's).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from train.config import TrainConfig

#: The weight of the critic's squared error beside the actor's cross-entropy (as ``pretrain``).
VALUE_WEIGHT = 0.5
BATCH_SIZE = 512
MAX_GRAD_NORM = 1.0


def fit(params, data: dict[str, np.ndarray], *, epochs: int, learning_rate: float, seed: int,
        activation: str, batch_size: int = BATCH_SIZE, log=print) -> tuple[Any, list[dict[str, float]]]:
    """``params`` fitted to the teacher's decisions in ``data`` (a dataset of
    :mod:`train.imitation`) for ``epochs`` epochs; returns them and each epoch's loss and held-out
    accuracy. Adam starts afresh."""
    import jax
    import jax.numpy as jnp

    from train.imitation import epoch_line, split_rows
    from train.jax import network

    train_rows, held_out = split_rows(len(data["actions"]))
    batches = max(1, len(train_rows) // batch_size)
    size = min(batch_size, len(train_rows))
    width = params["critic"][0][0].shape[0]
    arrays = (jnp.asarray(data["observations"]),  # float16, cast a minibatch at a time
              jnp.asarray(data["masks"]), jnp.asarray(data["actions"].astype(np.int32)),
              jnp.asarray(data["returns"], jnp.float32))

    def loss(params, arrays, rows):
        obs, masks, actions, returns = arrays
        x = obs[rows].astype(jnp.float32)
        logits = network.masked_logits(params["actor"], x, masks[rows], activation)
        logp = jnp.take_along_axis(jax.nn.log_softmax(logits), actions[rows][:, None], axis=1)[:, 0]
        critic_in = jnp.pad(x, ((0, 0), (0, width - x.shape[1])))
        value = network.mlp(params["critic"], critic_in, activation)[:, 0]
        return -jnp.mean(logp) + VALUE_WEIGHT * jnp.mean((value - returns[rows]) ** 2)

    # The data are arguments, not constants captured by the trace: a large dataset would otherwise be
    # copied into the compiled program.
    @jax.jit
    def epoch(params, opt, order, arrays):
        def step(carry, rows):
            params, opt = carry
            value, grads = jax.value_and_grad(loss)(params, arrays, rows)
            params, opt = network.adam_step(params, grads, opt, learning_rate, MAX_GRAD_NORM)
            return (params, opt), value

        (params, opt), losses = jax.lax.scan(step, (params, opt), order.reshape(batches, size))
        obs, masks, actions, _ = arrays
        x = obs[held_out].astype(jnp.float32)
        chosen = jnp.argmax(network.masked_logits(params["actor"], x, masks[held_out], activation), axis=1)
        return params, opt, jnp.mean(losses), jnp.mean(chosen == actions[held_out])

    rng = np.random.default_rng(seed)
    opt = network.adam_init(params)
    history = []
    for number in range(1, epochs + 1):
        order = jnp.asarray(rng.permutation(train_rows)[:batches * size])
        params, opt, mean_loss, accuracy = epoch(params, opt, order, arrays)
        history.append({"epoch": number, "loss": float(mean_loss), "accuracy": float(accuracy)})
        log(epoch_line(history[-1], epochs))
    return params, history


def warm_start(params, config: TrainConfig, cached, *, log=print, progress: bool = True):
    """``params`` (a new learner) after imitating ``config.imitation.teacher`` and its DAgger rounds
    (``cached``: the checked dataset of :func:`train.imitation.check_dataset`)."""
    from train.imitation import imitate
    from train.jax import network

    fitted = {"params": params}
    activation = config.ppo.activation

    def fit_data(data: dict[str, np.ndarray], epochs: int, seed: int) -> None:
        fitted["params"], _ = fit(fitted["params"], data, epochs=epochs, seed=seed, activation=activation,
                                  learning_rate=config.imitation.learning_rate, log=log)

    imitate(fit_data, lambda: network.actor_of(fitted["params"], activation), config, cached, log=log,
            progress=progress)
    return fitted["params"]
