"""Learned policies as agents: policy files (``ppo:path/to/model.npz``) and frozen snapshots.

A policy's actor network runs in numpy (:class:`NumpyActor`), so it decides in a few microseconds,
without torch, in any process — tournaments, the terminal game and self-play opponents use it.
Actions are the argmax of the masked logits (``deterministic=True``, the default) or sampled from
the masked softmax with the agent's own seeded generator. Policy files are described in
:mod:`agents.policy_file`: they load without unpickling anything.

A policy meets a game it was not trained for (another preset, player count or knobs) with a one-line
warning from :func:`warn_unfit`, which every tool that seats agents calls.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any, TextIO

import numpy as np

from agents import policy_file
from agents.base import Agent, AgentError
from agents.endgame import OFF, EndgameSearch, check_cards, check_samples
from agents.pimc import AUTO
from allfours_env.actions import NUM_ACTIONS
from allfours_env.knowledge import SeatView
from allfours_env.rules import Rules, RulesError

_ACTIVATIONS = {
    "tanh": np.tanh,
    "relu": lambda x: np.maximum(x, 0.0),
    "leaky_relu": lambda x: np.where(x > 0, x, 0.01 * x),
    "elu": lambda x: np.where(x > 0, x, np.expm1(x)),
}
#: torch module class name -> activation name of a policy file
TORCH_ACTIVATIONS = {"Tanh": "tanh", "ReLU": "relu", "LeakyReLU": "leaky_relu", "ELU": "elu"}


class NumpyActor:
    """The actor path of an MLP policy (observation -> hidden layers -> action logits), in numpy.
    ``layers`` are (weight, bias) pairs with weights shaped (inputs, outputs). It reads the first
    ``inputs`` entries of an observation, so it keeps working when the observation grows."""

    def __init__(self, layers: list[tuple[np.ndarray, np.ndarray]], activation: str) -> None:
        if activation not in _ACTIVATIONS:
            raise AgentError(f"unsupported activation {activation!r}: one of {', '.join(_ACTIVATIONS)}")
        self.layers = [(np.ascontiguousarray(w, np.float32), np.asarray(b, np.float32)) for w, b in layers]
        self.activation = activation
        self._act = _ACTIVATIONS[activation]

    @property
    def inputs(self) -> int:
        """How many leading observation entries the network reads."""
        return self.layers[0][0].shape[0]

    @property
    def hidden(self) -> list[int]:
        """The widths of the hidden layers."""
        return [bias.shape[0] for _, bias in self.layers[:-1]]

    def logits(self, observation: np.ndarray) -> np.ndarray:
        """The action logits for one observation (or a batch, one per row)."""
        x = np.asarray(observation, np.float32)[..., :self.inputs]
        last = len(self.layers) - 1
        for i, (weight, bias) in enumerate(self.layers):
            x = x @ weight + bias
            if i < last:
                x = self._act(x)
        return x

    def to_arrays(self) -> dict[str, np.ndarray]:
        """The layers as named arrays of a policy file (:mod:`agents.policy_file`)."""
        arrays = {}
        for (weight_name, bias_name), (weight, bias) in zip(policy_file.actor_names(len(self.layers)),
                                                            self.layers):
            arrays[weight_name] = weight.T
            arrays[bias_name] = bias
        return arrays

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray], network: dict[str, Any], where: str | Path
                    ) -> NumpyActor:
        """The actor stored in ``arrays`` (a policy file's), its shapes checked against ``network``."""
        layers = policy_file.actor_layers(arrays, network, where)
        return cls([(weight.T, bias) for weight, bias in layers], network["activation"])

    def __getstate__(self) -> dict[str, Any]:
        return {"layers": self.layers, "activation": self.activation}

    def __setstate__(self, state: dict[str, Any]) -> None:
        # snapshots pickled by earlier versions (trusted pools, train.convert) name torch's modules
        activation = TORCH_ACTIVATIONS.get(state["activation"], state["activation"])
        self.__init__(state["layers"], activation)


def actor_from_sb3(policy: Any) -> NumpyActor:
    """Copy the actor of an SB3 ``ActorCriticPolicy`` with an MLP extractor into numpy."""
    import torch

    layers = []
    modules = list(policy.mlp_extractor.policy_net) + [policy.action_net]
    activation = "tanh"  # a network without hidden layers has none; any name will do
    for module in modules:
        if isinstance(module, torch.nn.Linear):
            layers.append((module.weight.detach().cpu().numpy().T.copy(),
                           module.bias.detach().cpu().numpy().copy()))
        else:
            name = type(module).__name__
            if name not in TORCH_ACTIVATIONS:
                raise AgentError(f"unsupported activation {name}: one of {', '.join(TORCH_ACTIVATIONS)}")
            activation = TORCH_ACTIVATIONS[name]
    return NumpyActor(layers, activation)


def choose(actor: NumpyActor, observation: dict[str, np.ndarray], deterministic: bool, rng) -> int:
    """The masked argmax of the actor's logits, or a sample of the masked softmax drawn with
    ``rng`` (a ``random.Random``)."""
    mask = observation["action_mask"].astype(bool)
    logits = np.where(mask, actor.logits(observation["observation"]), -np.inf)
    if deterministic:
        return int(np.argmax(logits))
    probs = np.exp(logits - logits.max())
    cumulative = np.cumsum(probs)
    index = int(np.searchsorted(cumulative, rng.random() * cumulative[-1], side="right"))
    legal = np.flatnonzero(mask)
    return index if index < NUM_ACTIONS and mask[index] else int(legal[-1])


class SnapshotAgent(Agent):
    """A frozen copy of a policy (self-play opponents, pools)."""

    needs_observation = True

    def __init__(self, actor: NumpyActor, seed: int | None = None, deterministic: bool = False,
                 name: str = "snapshot") -> None:
        super().__init__(seed)
        self.actor = actor
        self.deterministic = deterministic
        self.name = name

    def act(self, observation: dict[str, np.ndarray] | None, view: SeatView) -> int:
        if observation is None:
            raise AgentError(f"{self.name} reads the observation: pass the AEC observation dict")
        return choose(self.actor, observation, self.deterministic, self.rng)


def load_policy(path: str | Path) -> tuple[NumpyActor, dict[str, Any]]:
    """The actor and metadata of the policy file ``path`` (a training checkpoint works too);
    raises :class:`AgentError` saying why a file cannot be used. Nothing is unpickled."""
    path = Path(path)
    arrays, meta = policy_file.read(path, actor_only=True)
    return NumpyActor.from_arrays(arrays, meta["network"], path), meta


def save_policy(path: str | Path, actor: NumpyActor, trained_for: dict[str, Any],
                **metadata: Any) -> Path:
    """Write ``actor`` as a policy file (``path`` ends in ``.npz``; its ``.json`` beside it) for the
    game ``trained_for`` (preset, num_players, knobs), with ``metadata`` (config, results, ...)."""
    meta = policy_file.header(actor.inputs, actor.hidden, actor.activation, trained_for) | metadata
    return policy_file.write(path, actor.to_arrays(), meta)


class PPOAgent(Agent):
    """A trained policy: ``make_agent("ppo:path/to/model.npz")``. ``endgame``: the last cards of a
    hand are played by search (:mod:`agents.endgame`) once all hands hold at most this many; ``None``
    (the default) takes the count the policy file names (``"play": {"endgame": N}``, none: 0),
    ``0`` plays the network alone. ``endgame_samples``: the deals each searched decision draws;
    ``None`` takes the file's ``"samples"`` beside its count (none: ``"auto"``, pimc's for the game)."""

    needs_observation = True

    def __init__(self, path: str, seed: int | None = None, deterministic: bool = True,
                 endgame: int | None = None, endgame_samples: int | str | None = None) -> None:
        super().__init__(seed)
        self.actor, self.metadata = load_policy(path)
        self.trained_for = self.metadata["trained_for"]
        self.path = str(path)
        self.deterministic = deterministic
        self.name = f"ppo:{path}"
        cards, samples = endgame_of(self.metadata, path)
        if endgame is not None:
            cards = check_cards(endgame, f"ppo:{path}")
        if endgame_samples is not None:
            samples = check_samples(endgame_samples, f"ppo:{path}")
        self.endgame = EndgameSearch(cards, seed, samples) if cards else None

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        if self.endgame is not None:
            self.endgame.reset(seed)

    def act(self, observation: dict[str, np.ndarray] | None, view: SeatView) -> int:
        if self.endgame is not None and self.endgame.decides(view):
            return self.endgame.act(view)
        if observation is None:
            raise AgentError("a PPO policy reads the observation: pass the AEC observation dict")
        return choose(self.actor, observation, self.deterministic, self.rng)


def endgame_of(metadata: dict[str, Any], path: str | Path) -> tuple[int, int | str]:
    """The endgame size and samples a policy file names for its play (``"play": {"endgame": N,
    "samples": S}``): 0 if no size, ``"auto"`` if no samples."""
    play = metadata.get("play", {})
    where = str(policy_file.metadata_path(path))
    if not isinstance(play, dict):
        raise AgentError(f"{where}: \"play\" must be an object such as {{\"endgame\": 8}}, got {play!r}")
    unknown = sorted(set(play) - {"endgame", "samples"})
    if unknown:
        raise AgentError(f"{where}: \"play\" knows \"endgame\" and \"samples\", not {', '.join(unknown)}")
    return check_cards(play.get("endgame", OFF), where), check_samples(play.get("samples", AUTO), where)


def describe_game(preset: str, num_players: int, knobs: dict[str, Any] | None = None) -> str:
    """``"seven_up with 2 players"`` (and the knob overrides, if any)."""
    text = f"{preset} with {num_players} players"
    return text + (f" ({', '.join(f'{k}={v!r}' for k, v in sorted(knobs.items()))})" if knobs else "")


def fit_warning(agent: Agent, rules: Rules) -> str | None:
    """A one-line warning when ``agent`` is a policy trained for another game than ``rules`` (preset,
    player count or knobs), else None."""
    trained_for = getattr(agent, "trained_for", None)
    if trained_for is None:
        return None
    preset, players = trained_for["preset"], trained_for["num_players"]
    knobs = trained_for.get("knobs") or {}
    try:
        same = Rules.make(preset, players, **knobs).to_dict() == rules.to_dict()
    except (RulesError, TypeError):
        same = False
    if same:
        return None
    default = Rules.make(rules.preset, rules.num_players).to_dict()
    overrides = {k: v for k, v in rules.to_dict().items() if default.get(k) != v}
    return (f"warning: {agent.name} was trained for {describe_game(preset, players, knobs)}, not "
            f"{describe_game(rules.preset, rules.num_players, overrides)}: expect weak play")


def _with_parts(agent: Agent) -> list[Agent]:
    """The agent and the agents it is made of (the parts of ``split:``), recursively."""
    return [agent, *(a for part in getattr(agent, "parts", {}).values() for a in _with_parts(part))]


def warn_unfit(agents: Iterable[Agent], rules: Rules, stream: TextIO | None = None) -> list[str]:
    """Print :func:`fit_warning` for every agent (or part of one) trained for another game than
    ``rules`` on ``stream`` (default stderr); return those warnings."""
    warnings = list(dict.fromkeys(w for agent in agents for part in _with_parts(agent)
                                  if (w := fit_warning(part, rules))))
    for warning in warnings:
        print(warning, file=stream or sys.stderr)
    return warnings
