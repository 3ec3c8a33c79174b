"""The agent interface and ``make_agent``, the one way every tool builds a player.

An agent decides for one seat at a time from what that seat may know:

* ``observation`` — the AEC observation dict of the seat (``"observation"``: the information state,
  :data:`~allfours_env.observation.OBS_SIZE` floats; ``"action_mask"``: the legal actions), see
  :mod:`allfours_env.observation`;
* ``view`` — :class:`allfours_env.knowledge.SeatView`, the engine's state restricted to that seat
  (its hand, the public history, card counts, ``resample()`` for search), never another player's
  hidden cards.

Agents are seeded and own their random generator; :meth:`Agent.reset` is called with a new seed at
the start of every game, so a game's result depends only on the seeds, never on what was played
before or in which process (tournaments rely on this). Nothing uses a global RNG.

Agent specs are strings: a registered name (``random``, ``heuristic``, ``pimc``), optionally with
options (``pimc:samples=16,time_budget=0.05``), ``ppo:path/to/model.npz`` for a trained policy
(``ppo:path/to/model.npz,endgame=0`` with options after the file's path), or
``split:bid=pimc,play=heuristic`` for one that delegates each kind of decision (:mod:`agents.split`).
"""

from __future__ import annotations

import importlib
import random
from abc import ABC, abstractmethod
from typing import Any

import numpy as np

from allfours_env.knowledge import SeatView


class AgentError(ValueError):
    """An unknown agent name, a bad option, or a policy file that cannot be used."""


class Agent(ABC):
    """A player. Subclasses implement :meth:`act`; ``name`` is how tables and logs show it."""

    name = "agent"
    #: Whether :meth:`act` reads ``observation["observation"]`` (tools may skip encoding otherwise).
    needs_observation = False

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def reset(self, seed: int | None = None) -> None:
        """Start a new game: reseed the agent's generator and forget per-game memory."""
        self.rng = random.Random(seed)

    @abstractmethod
    def act(self, observation: dict[str, np.ndarray] | None, view: SeatView) -> int:
        """Return a legal action id for ``view.seat``, which is to move. ``observation`` may be
        ``None`` when the caller knows the agent does not read it (``needs_observation`` False)."""

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"


# name -> "module:Class", imported on first use so that `random` does not load torch
_REGISTRY: dict[str, str] = {
    "random": "agents.random_agent:RandomAgent",
    "heuristic": "agents.heuristic:HeuristicAgent",
    "pimc": "agents.pimc:PIMCAgent",
    "ppo": "agents.policy:PPOAgent",
    "split": "agents.split:SplitAgent",
}


def available_agents() -> list[str]:
    """The registered agent names."""
    return sorted(_REGISTRY)


def parse_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """Split ``"pimc:samples=16,time_budget=0.05"`` into a name and options; ``"ppo:path"`` gives
    ``("ppo", {"path": path})`` (``"ppo:path,endgame=8"`` adds its options). Values are parsed as
    int, float, bool (``true``/``false``), ``none`` or left as text."""
    if not isinstance(spec, str) or not spec:
        raise AgentError(f"an agent spec is a non-empty string such as 'heuristic', got {spec!r}")
    name, _, rest = spec.partition(":")
    if name not in _REGISTRY:
        raise AgentError(
            f"unknown agent {name!r}: choose one of {', '.join(available_agents())} "
            f"(a trained policy is 'ppo:path/to/model.npz')"
        )
    if name == "ppo":
        path, _, rest = rest.partition(",")
        if not path:
            raise AgentError("a trained policy needs its file: 'ppo:path/to/model.npz'")
        options = _options(rest, spec)
        if "path" in options:
            raise AgentError(f"{spec!r} names the policy file twice: give it once, as 'ppo:FILE'")
        return name, {"path": path} | options
    return name, _options(rest, spec)


def _options(rest: str, spec: str) -> dict[str, Any]:
    """The ``key=value`` options, separated by commas, of ``spec``'s tail ``rest``."""
    options: dict[str, Any] = {}
    for item in filter(None, rest.split(",")):
        key, eq, value = item.partition("=")
        if not eq or not key:
            raise AgentError(f"agent option {item!r} in {spec!r} must look like key=value")
        options[key] = _parse_value(value)
    return options


def _parse_value(text: str) -> Any:
    if text in ("true", "false"):
        return text == "true"
    if text == "none":
        return None
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def make_agent(spec: str, *, seed: int | None = None, **options: Any) -> Agent:
    """Build an agent from a spec string (see the module docstring) and keyword options."""
    name, spec_options = parse_spec(spec)
    target = _REGISTRY[name]
    if isinstance(target, str):
        module, _, attr = target.partition(":")
        target = getattr(importlib.import_module(module), attr)
    merged = spec_options | options
    try:
        agent = target(seed=seed, **merged)
    except TypeError as err:
        raise AgentError(f"agent {name!r} does not take these options {sorted(merged)}: {err}") from None
    if spec != name:
        agent.name = spec
    return agent
