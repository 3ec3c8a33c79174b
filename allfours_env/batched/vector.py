"""A numpy-facing vector of batched games for learners that are not JAX (torch, CleanRL-style code).

``VectorEnv("seven_up", 2, num_envs=1024, seed=0)``: ``reset()`` and ``step(actions)`` take and give
numpy arrays — the observation and legal mask of the seat to move in every game, the acting seats,
each step's rewards per seat, terminated and truncated — and a game that ends is replaced by a new
one at once (auto-reset). One seed fixes every deal.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from allfours_env.actions import NUM_ACTIONS
from allfours_env.batched.env import auto_reset, make


class VectorEnv:
    """``num_envs`` games of one configuration stepped together (see the module docstring); the
    keyword arguments are those of :func:`allfours_env.batched.make`."""

    def __init__(self, preset: str = "seven_up", num_players: int = 2, *, num_envs: int = 64, seed: int = 0,
                 **options: Any) -> None:
        if not isinstance(num_envs, int) or isinstance(num_envs, bool) or num_envs < 1:
            raise ValueError(f"num_envs must be a whole number >= 1, got {num_envs!r}")
        if not isinstance(seed, int) or isinstance(seed, bool):
            raise TypeError(f"seed must be an int, got {type(seed).__name__}")
        self.env = make(preset, num_players, **options)
        self.num_envs = num_envs
        self.num_players = num_players
        self._key = jax.random.PRNGKey(seed)
        env, step = self.env, auto_reset(self.env)
        self._init = jax.jit(lambda key: jax.vmap(env.init)(jax.random.split(key, num_envs)))
        self._step = jax.jit(lambda state, actions, key: jax.vmap(step)(
            state, actions, jax.random.split(key, num_envs)))
        self.state = None

    def _next_key(self) -> jax.Array:
        self._key, key = jax.random.split(self._key)
        return key

    def _view(self) -> dict[str, np.ndarray]:
        state = self.state
        return {"observation": np.asarray(state.observation),
                "action_mask": np.asarray(state.legal_action_mask),
                "current_player": np.asarray(state.current_player)}

    def reset(self) -> dict[str, np.ndarray]:
        """Deal ``num_envs`` new games: ``{"observation": float32[N, 1251], "action_mask": bool[N, 117],
        "current_player": int32[N]}``."""
        self.state = self._init(self._next_key())
        return self._view()

    def step(self, actions: Any) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray, np.ndarray]:
        """Each game's seat to move makes its action (int[N], from the mask; an illegal one ends that
        game, -1 to its player). Returns ``(view, rewards float32[N, players], terminated bool[N],
        truncated bool[N])``; where a game ended, ``view`` already shows the next game's first
        decision."""
        if self.state is None:
            raise RuntimeError("step() before reset(): call reset() to deal the games")
        actions = np.asarray(actions)
        if actions.shape != (self.num_envs,) or not np.issubdtype(actions.dtype, np.integer):
            raise ValueError(f"actions must be {self.num_envs} integer action ids "
                             f"(shape ({self.num_envs},)), "
                             f"got shape {actions.shape} of {actions.dtype}")
        if actions.size and (actions.min() < 0 or actions.max() >= NUM_ACTIONS):
            raise ValueError(f"action ids are 0..{NUM_ACTIONS - 1}, got {actions.min()}..{actions.max()}")
        self.state, rewards, terminated, truncated = self._step(
            self.state, jnp.asarray(actions, jnp.int32), self._next_key())
        return self._view(), np.asarray(rewards), np.asarray(terminated), np.asarray(truncated)
