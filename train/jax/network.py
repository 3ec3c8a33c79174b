"""The learner of the JAX backend: actor and critic MLPs, Adam, and their plain arrays.

Both networks read the observation (float32[1251]) through ``ppo.net_arch`` hidden layers with
``ppo.activation``, as Stable-Baselines3's ``MlpPolicy`` with ``net_arch=[...]`` does: the actor
ends in the 117 action logits, the critic in one value; the initialisation is SB3's (orthogonal,
gain sqrt(2) for hidden layers, 0.01 for the logits, 1 for the value). Weights are ``(inputs,
outputs)`` matrices, so the actor is :class:`agents.policy.NumpyActor`'s layers exactly.

With ``ppo.privileged_critic`` (``privileged=True`` here) the critic reads the observation followed
by the hidden cards (:mod:`allfours_env.hidden`, float32[212]), as
:class:`agents.critic_policy.PrivilegedCriticPolicy` does: its first layer is 1,463 inputs wide and
its weights on the hidden cards start at zero (a warm-started critic starts unchanged). The actor
never reads them.

Checkpoint arrays (:func:`to_arrays`), all float, in torch's ``(outputs, inputs)`` orientation:
the actor under the policy file's names (:func:`agents.policy_file.actor_names`), the critic as
SB3 names it (``mlp_extractor.value_net.<2i>.*``, ``value_net.*``), the Adam moments as
``optimizer.mu.<name>`` and ``optimizer.nu.<name>`` and the update count ``optimizer.count``.
"""

from __future__ import annotations

import math
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from agents import policy_file
from agents.policy import NumpyActor
from allfours_env.actions import NUM_ACTIONS
from allfours_env.hidden import HIDDEN_SIZE
from allfours_env.observation import OBS_SIZE
from train.model import OPTIMIZER_PREFIX

Layers = list[tuple[jax.Array, jax.Array]]
Params = dict[str, Layers]

ACTIVATIONS = {
    "relu": jax.nn.relu,
    "tanh": jnp.tanh,
    "leaky_relu": lambda x: jax.nn.leaky_relu(x, 0.01),
    "elu": jax.nn.elu,
}
#: Adam's constants (torch's defaults, with SB3's eps).
BETA1, BETA2, EPS = 0.9, 0.999, 1e-5
COUNT = f"{OPTIMIZER_PREFIX}count"


def init_mlp(key: jax.Array, sizes: list[int], last_gain: float) -> Layers:
    """Layers of an MLP of ``sizes`` (inputs, hidden..., outputs), initialised as SB3 does."""
    layers = []
    keys = jax.random.split(key, len(sizes) - 1)
    for i, (k, n_in, n_out) in enumerate(zip(keys, sizes[:-1], sizes[1:])):
        gain = last_gain if i == len(sizes) - 2 else math.sqrt(2)
        weight = jax.nn.initializers.orthogonal(gain)(k, (n_in, n_out), jnp.float32)
        layers.append((weight, jnp.zeros(n_out, jnp.float32)))
    return layers


def critic_inputs(privileged: bool) -> int:
    """The critic's input width: the observation, and the hidden cards with a privileged critic."""
    return OBS_SIZE + HIDDEN_SIZE if privileged else OBS_SIZE


def init_params(key: jax.Array, hidden: list[int], privileged: bool = False) -> Params:
    """A new learner: actor and critic of ``hidden`` layer widths (the critic also over the hidden
    cards, with zero weights on them, when ``privileged``)."""
    actor_key, critic_key = jax.random.split(key)
    critic = init_mlp(critic_key, [critic_inputs(privileged), *hidden, 1], 1.0)
    weight, bias = critic[0]
    critic[0] = (weight.at[OBS_SIZE:].set(0.0), bias)
    return {"actor": init_mlp(actor_key, [OBS_SIZE, *hidden, NUM_ACTIONS], 0.01), "critic": critic}


def mlp(layers: Layers, x: jax.Array, activation: str) -> jax.Array:
    """The MLP's output for ``x`` (one input or a batch)."""
    act = ACTIVATIONS[activation]
    for weight, bias in layers[:-1]:
        x = act(x @ weight + bias)
    weight, bias = layers[-1]
    return x @ weight + bias


def critic_input(obs: jax.Array, hidden: jax.Array | None) -> jax.Array:
    """What the critic reads: the observation, followed by the hidden cards when there are some
    (``None`` without a privileged critic)."""
    if hidden is None:
        return obs
    return jnp.concatenate([obs, hidden.astype(jnp.float32)], axis=-1)


def masked_logits(layers: Layers, obs: jax.Array, mask: jax.Array, activation: str) -> jax.Array:
    """The actor's logits with every illegal action at -1e9 (a finite number: no NaN in softmax)."""
    return jnp.where(mask, mlp(layers, obs, activation), -1e9)


# ---------------------------------------------------------------- Adam

def adam_init(params: Params) -> dict[str, Any]:
    """Adam's state for ``params``: zero moments, no update yet."""
    zeros = jax.tree.map(jnp.zeros_like, params)
    return {"mu": zeros, "nu": jax.tree.map(jnp.zeros_like, params), "count": jnp.zeros((), jnp.float32)}


def adam_step(params: Params, grads: Params, opt: dict[str, Any], learning_rate: float,
              max_grad_norm: float) -> tuple[Params, dict[str, Any]]:
    """One Adam update after clipping the gradients' global norm to ``max_grad_norm`` (as SB3)."""
    norm = jnp.sqrt(sum(jnp.sum(g * g) for g in jax.tree.leaves(grads)))
    scale = jnp.minimum(1.0, max_grad_norm / (norm + 1e-6))
    grads = jax.tree.map(lambda g: g * scale, grads)
    count = opt["count"] + 1
    mu = jax.tree.map(lambda m, g: BETA1 * m + (1 - BETA1) * g, opt["mu"], grads)
    nu = jax.tree.map(lambda v, g: BETA2 * v + (1 - BETA2) * g * g, opt["nu"], grads)
    step = learning_rate * jnp.sqrt(1 - BETA2 ** count) / (1 - BETA1 ** count)
    params = jax.tree.map(lambda p, m, v: p - step * m / (jnp.sqrt(v) + EPS), params, mu, nu)
    return params, {"mu": mu, "nu": nu, "count": count}


# ---------------------------------------------------------------- arrays

def layer_names(part: str, depth: int) -> list[tuple[str, str]]:
    """The (weight, bias) array names of the ``actor`` or ``critic`` with ``depth`` linear layers."""
    if part == "actor":
        return policy_file.actor_names(depth)
    hidden = [(f"mlp_extractor.value_net.{2 * i}.weight", f"mlp_extractor.value_net.{2 * i}.bias")
              for i in range(depth - 1)]
    return hidden + [("value_net.weight", "value_net.bias")]


def named(params: Params) -> dict[str, np.ndarray]:
    """The networks' weights by array name, torch's orientation."""
    arrays = {}
    for part, layers in params.items():
        for (weight_name, bias_name), (weight, bias) in zip(layer_names(part, len(layers)), layers):
            arrays[weight_name] = np.asarray(weight, np.float32).T.copy()
            arrays[bias_name] = np.asarray(bias, np.float32).copy()
    return arrays


def to_arrays(params: Params, opt: dict[str, Any]) -> dict[str, np.ndarray]:
    """The learner's whole state as the checkpoint's arrays (see the module docstring)."""
    arrays = named(params)
    for moment in ("mu", "nu"):
        arrays |= {f"{OPTIMIZER_PREFIX}{moment}.{name}": a for name, a in named(opt[moment]).items()}
    arrays[COUNT] = np.asarray(opt["count"], np.float64)
    return arrays


def params_from(arrays: dict[str, np.ndarray], hidden: list[int], where: Any, prefix: str = "",
                privileged: bool = False) -> Params:
    """The actor and critic of ``hidden`` layers (a privileged critic when ``privileged``) stored
    under ``prefix`` + their array names (:func:`named`: SB3's names, so an SB3 policy's state dict
    reads too); raises ``KeyError``/``ValueError`` naming the array that is missing or of the wrong
    shape."""
    template = init_params(jax.random.PRNGKey(0), hidden, privileged)
    out = {}
    for part, layers in template.items():
        rebuilt = []
        for (weight_name, bias_name), (weight, bias) in zip(layer_names(part, len(layers)), layers):
            pair = []
            for name, like, flip in ((weight_name, weight, True), (bias_name, bias, False)):
                array = arrays.get(prefix + name)
                wanted = like.T.shape if flip else like.shape
                if array is None:
                    raise KeyError(f"{where} has no array {prefix + name}")
                if array.shape != wanted:
                    raise ValueError(f"{where}: array {prefix + name} is {array.shape}, the network of "
                                     f"this config (ppo.net_arch, ppo.privileged_critic) needs {wanted}")
                pair.append(jnp.asarray(array.T if flip else array, jnp.float32))
            rebuilt.append(tuple(pair))
        out[part] = rebuilt
    return out


def from_arrays(arrays: dict[str, np.ndarray], hidden: list[int], where: Any, privileged: bool = False
                ) -> tuple[Params, dict[str, Any]]:
    """The learner and its Adam state stored by :func:`to_arrays` (errors as :func:`params_from`)."""
    params = params_from(arrays, hidden, where, privileged=privileged)
    if COUNT not in arrays:
        raise KeyError(f"{where} has no array {COUNT}")
    opt = {"mu": params_from(arrays, hidden, where, f"{OPTIMIZER_PREFIX}mu.", privileged),
           "nu": params_from(arrays, hidden, where, f"{OPTIMIZER_PREFIX}nu.", privileged),
           "count": jnp.asarray(arrays[COUNT], jnp.float32)}
    return params, opt


def actor_of(params: Params, activation: str) -> NumpyActor:
    """The learner's actor in numpy (evaluation, snapshots, the policy file ``ppo:`` plays)."""
    return NumpyActor([(np.asarray(w), np.asarray(b)) for w, b in params["actor"]], activation)


def actor_layers(actor: NumpyActor) -> Layers:
    """A numpy actor's layers as JAX arrays (a frozen snapshot played inside ``jit``)."""
    return [(jnp.asarray(w), jnp.asarray(b)) for w, b in actor.layers]
