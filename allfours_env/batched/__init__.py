"""The batched core: the All Fours family in JAX, thousands of games per call (docs/batched.md).

``env = batched.make("seven_up", 2)``; ``state = env.init(key)``; ``state = env.step(state, action)``
— pure functions of fixed-shape arrays, ``jax.jit``- and ``jax.vmap``-able, in pgx's convention, and
exactly the reference engine (:class:`allfours_env.engine.Game`) with the AEC env's observation,
legal mask, rewards and hand cap. Needs the optional extra ``allfours[jax]``; ``import allfours_env``
never imports this package.
"""

from allfours_env.batched.env import Env, State, auto_reset, make, random_action
from allfours_env.batched.vector import VectorEnv

__all__ = ["Env", "State", "VectorEnv", "auto_reset", "make", "random_action"]
