"""Training configuration: small TOML files under ``train/configs/`` plus command-line overrides.

A config names the game (preset, players, knob overrides), the episode and reward shape, the PPO
settings, the opponent mix of self-play, the evaluation schedule, the budget and the seed::

    python -m train --config train/configs/full.toml --set total_timesteps=2000000 ppo.learning_rate=1e-4

A config may build on another: ``base = "don_2p"`` (a shipped config's name, or a path relative to
the file) takes that config's settings and puts the file's own on top, tables key by key.

Every value is checked, its type and its range, before anything runs: an unknown key or a bad
value raises :class:`ConfigError`, one line naming the key and what it accepts. Every count has an
upper bound too, far above any real run (a value beyond it is a typo that would fork processes until
the system runs out of open files, or never end): at most :data:`MAX_PROCESSES` processes or threads
(``n_envs``, ``eval.workers``, ``imitation.workers``, ``torch_threads``), :data:`MAX_TIMESTEPS`
timesteps, :data:`MAX_GAMES` games per evaluation or imitation, a rollout (``ppo.n_steps`` ×
``n_envs``) of :data:`MAX_ROLLOUT` steps, :data:`MAX_EPOCHS` epochs, :data:`MAX_POOL` snapshots,
layers of :data:`MAX_WIDTH` units; a checkpoint's saved config is checked the same way on resume.
"""

from __future__ import annotations

import dataclasses
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agents.cli import MAX_GAMES, MAX_WORKERS
from train.checks import count_rule, is_number, is_whole
from train.jax.settings import RULES as JAX_RULES
from train.jax.settings import JaxSettings
from train.jax.settings import cross_checks as jax_cross_checks
from train.rllib.settings import RULES as RLLIB_RULES
from train.rllib.settings import RLlibSettings
from train.rllib.settings import cross_checks as rllib_cross_checks

CONFIG_DIR = Path(__file__).parent / "configs"


class ConfigError(ValueError):
    """A configuration file or override that cannot be used."""


@dataclasses.dataclass
class PPOSettings:
    """sb3-contrib MaskablePPO hyper-parameters (see its documentation). ``privileged_critic``:
    the value network also sees the cards the learner cannot (the other hands and the stock;
    :mod:`agents.critic_policy`) — less noisy advantages; the policy network still sees only the
    learner's observation, so the trained policy plays fair."""

    learning_rate: float = 3e-4
    n_steps: int = 1024
    batch_size: int = 256
    n_epochs: int = 4
    gamma: float = 0.995
    gae_lambda: float = 0.95
    clip_range: float = 0.2
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    net_arch: list[int] = dataclasses.field(default_factory=lambda: [256, 256])
    activation: str = "relu"
    privileged_critic: bool = False


@dataclasses.dataclass
class OpponentSettings:
    """Who the learner plays against. ``mix`` weighs the opponent kinds drawn for each opponent
    seat at every episode: agent specs of the agents package (``random``, ``heuristic``, ``pimc``
    — slow) and ``snapshot``, a frozen copy of the learner taken every ``snapshot_every`` rollouts
    (the newest ``pool_size`` are kept; until the first exists its weight goes to the others).
    ``partner`` (4 players): ``learner`` plays both seats of its side, or an agent spec.
    ``schedule`` changes the mix during training, a curriculum: a list of
    ``{at = <timesteps>, mix = {...}}``, each mix in force from its ``at`` on (``mix`` before the
    first); in TOML, ``[[opponents.schedule]]`` tables."""

    mix: dict[str, float] = dataclasses.field(
        default_factory=lambda: {"heuristic": 0.5, "random": 0.1, "snapshot": 0.4}
    )
    snapshot_every: int = 10
    pool_size: int = 8
    partner: str = "learner"
    schedule: list[dict[str, Any]] = dataclasses.field(default_factory=list)

    def mix_at(self, timesteps: int) -> dict[str, float]:
        """The opponent mix in force after ``timesteps`` learner steps."""
        mix = self.mix
        for stage in self.schedule:
            if timesteps >= stage["at"]:
                mix = stage["mix"]
        return mix


@dataclasses.dataclass
class EvalSettings:
    """Periodic evaluation (duplicate games through the evaluation package) and the final table."""

    every: int = 50_000
    games: int = 200
    opponents: list[str] = dataclasses.field(default_factory=lambda: ["random", "heuristic"])
    final_games: int = 1000
    final_opponents: list[str] = dataclasses.field(default_factory=lambda: ["random", "heuristic"])
    workers: int = 1


@dataclasses.dataclass
class ImitationSettings:
    """Optional warm start (:mod:`train.imitation`): before PPO, fit the network to ``teacher``'s
    decisions in ``games`` games against ``opponent`` (``teacher = ""`` skips it). ``dataset``
    caches the recorded decisions (.npz): an existing file is reused, a new one is written. Then
    ``dagger_rounds`` rounds of DAgger: the student plays ``dagger_games`` games, the teacher
    labels its decisions, and the student is refitted on all data for ``dagger_epochs`` epochs."""

    teacher: str = ""
    opponent: str = "heuristic"
    games: int = 2000
    epochs: int = 8
    learning_rate: float = 1e-3
    dataset: str = ""
    workers: int = 2
    dagger_rounds: int = 0
    dagger_games: int = 500
    dagger_epochs: int = 4


@dataclasses.dataclass
class TrainConfig:
    """Everything one training run needs; saved beside every checkpoint. ``average_since``
    (timesteps, 0 = off): the final model is the weight average of the run's checkpoints from that
    step on (:mod:`train.average`), not the last update's weights."""

    preset: str = "seven_up"
    num_players: int = 2
    knobs: dict[str, Any] = dataclasses.field(default_factory=dict)
    episode: str = "hand"
    reward: str = "points"
    total_timesteps: int = 100_000
    n_envs: int = 2
    torch_threads: int = 1
    seed: int = 0
    out: str = "runs/seven_up_2p"
    average_since: int = 0
    ppo: PPOSettings = dataclasses.field(default_factory=PPOSettings)
    opponents: OpponentSettings = dataclasses.field(default_factory=OpponentSettings)
    eval: EvalSettings = dataclasses.field(default_factory=EvalSettings)
    imitation: ImitationSettings = dataclasses.field(default_factory=ImitationSettings)
    rllib: RLlibSettings = dataclasses.field(default_factory=RLlibSettings)  # --backend rllib only
    jax: JaxSettings = dataclasses.field(default_factory=JaxSettings)  # --backend jax only

    def to_dict(self) -> dict[str, Any]:
        """The config as nested dicts (what ``config.json`` and checkpoints hold)."""
        return dataclasses.asdict(self)

    def game(self) -> dict[str, Any]:
        """The game a policy of this config is trained for (policy files record it)."""
        return {"preset": self.preset, "num_players": self.num_players, "knobs": dict(self.knobs)}


_SECTIONS = {"ppo": PPOSettings, "opponents": OpponentSettings, "eval": EvalSettings,
             "imitation": ImitationSettings, "rllib": RLlibSettings, "jax": JaxSettings}

MAX_SEED = 2**32 - 1  # numpy's and torch's seeding take seeds below 2**32
#: The upper bounds of the counts (see the module docstring).
MAX_PROCESSES = MAX_WORKERS  # each environment and worker is a process with its own pipes
MAX_TIMESTEPS = 10**10  # months at the throughput of one machine
MAX_ROLLOUT = 2**20  # ppo.n_steps × n_envs observations of 1251 floats in memory: 5 GiB
MAX_EPOCHS = 1000
MAX_POOL = 100  # snapshots, a copy of the network each, held by every environment
MAX_WIDTH = 8192
MAX_LAYERS = 16
MAX_ROUNDS = 100  # imitation.dagger_rounds
MAX_SNAPSHOT_EVERY = 10**6  # rollouts


def _at_least(low: int) -> Callable[[Any], bool]:
    return lambda value: is_whole(value) and value >= low


def _above(low: float) -> Callable[[Any], bool]:
    return lambda value: is_number(value) and value > low


def _one_of(*choices: str) -> Callable[[Any], bool]:
    return lambda value: isinstance(value, str) and value in choices


def _text(value: Any) -> bool:
    return isinstance(value, str) and bool(value)


def _specs(value: Any) -> bool:
    return (isinstance(value, list) and bool(value) and all(_text(v) for v in value)
            and len(set(value)) == len(value))


def _mix(value: Any) -> bool:
    return (isinstance(value, dict) and bool(value) and all(_text(k) for k in value)
            and all(is_number(v) and v >= 0 for v in value.values()) and sum(value.values()) > 0)


def _schedule(value: Any) -> bool:
    if not (isinstance(value, list) and all(isinstance(s, dict) and set(s) == {"at", "mix"}
                                            and _at_least(1)(s["at"]) and _mix(s["mix"]) for s in value)):
        return False
    steps = [s["at"] for s in value]
    return steps == sorted(set(steps))


_PROCESSES = count_rule(1, MAX_PROCESSES, "processes")
_GAMES = count_rule(1, MAX_GAMES, "games")
_EPOCHS = count_rule(1, MAX_EPOCHS, "epochs")
_RATE = (_above(0), "a number > 0")

#: Every setting: (check, what it accepts). Floats accept whole numbers too (stored as floats).
RULES: dict[str, tuple[Callable[[Any], bool], str]] = {
    "preset": (_text, "a preset name such as 'seven_up'"),
    "num_players": (lambda v: is_whole(v) and 2 <= v <= 4, "a whole number of players, 2 to 4"),
    "knobs": (lambda v: isinstance(v, dict), "a table of rules knobs, e.g. {target_points = 11}"),
    "episode": (_one_of("game", "hand"), "'game' or 'hand'"),
    "reward": (_one_of("win", "points"), "'win' or 'points'"),
    "total_timesteps": count_rule(1, MAX_TIMESTEPS, "timesteps"),
    "n_envs": count_rule(1, MAX_PROCESSES, "environments (a process each)"),
    "torch_threads": count_rule(1, MAX_PROCESSES, "threads"),
    "seed": (lambda v: is_whole(v) and 0 <= v <= MAX_SEED, f"a whole number from 0 to {MAX_SEED}"),
    "out": (_text, "a folder path"),
    "average_since": (lambda v: is_whole(v) and 0 <= v <= MAX_TIMESTEPS,
                      "a whole number of timesteps below total_timesteps (0: no averaging)"),
    "ppo.learning_rate": _RATE,
    "ppo.n_steps": count_rule(1, MAX_ROLLOUT, "steps per environment and rollout"),
    "ppo.batch_size": count_rule(2, MAX_ROLLOUT, "steps"),
    "ppo.n_epochs": _EPOCHS,
    "ppo.gamma": (lambda v: is_number(v) and 0 < v <= 1, "a number in (0, 1]"),
    "ppo.gae_lambda": (lambda v: is_number(v) and 0 <= v <= 1, "a number in [0, 1]"),
    "ppo.clip_range": _RATE,
    "ppo.ent_coef": (lambda v: is_number(v) and v >= 0, "a number >= 0"),
    "ppo.vf_coef": (lambda v: is_number(v) and v >= 0, "a number >= 0"),
    "ppo.max_grad_norm": _RATE,
    "ppo.net_arch": (lambda v: isinstance(v, list) and len(v) <= MAX_LAYERS
                     and all(is_whole(w) and 1 <= w <= MAX_WIDTH for w in v),
                     f"a list of at most {MAX_LAYERS} hidden layer widths from 1 to {MAX_WIDTH:,}, "
                     f"e.g. [256, 256]"),
    "ppo.activation": (_one_of("tanh", "relu"), "'tanh' or 'relu'"),
    "ppo.privileged_critic": (lambda v: isinstance(v, bool), "true or false"),
    "opponents.mix": (_mix, "a table of agent specs (or snapshot) with weights >= 0, not all 0"),
    "opponents.snapshot_every": count_rule(1, MAX_SNAPSHOT_EVERY, "rollouts"),
    "opponents.pool_size": count_rule(1, MAX_POOL, "snapshots"),
    "opponents.partner": (_text, "'learner' or an agent spec"),
    "opponents.schedule": (_schedule, "a list of {at = <timesteps>, mix = {...}} with 'at' increasing "
                                      "and every mix's weights >= 0, not all 0"),
    "eval.every": count_rule(1, MAX_TIMESTEPS, "timesteps"),
    "eval.games": _GAMES,
    "eval.opponents": (_specs, "a non-empty list of distinct agent specs"),
    "eval.final_games": _GAMES,
    "eval.final_opponents": (_specs, "a non-empty list of distinct agent specs"),
    "eval.workers": _PROCESSES,
    "imitation.teacher": (lambda v: isinstance(v, str), "an agent spec, or '' for no warm start"),
    "imitation.opponent": (_text, "an agent spec"),
    "imitation.games": _GAMES,
    "imitation.epochs": _EPOCHS,
    "imitation.learning_rate": _RATE,
    "imitation.dataset": (lambda v: isinstance(v, str), "a .npz file path, or '' for no cache"),
    "imitation.workers": _PROCESSES,
    "imitation.dagger_rounds": count_rule(0, MAX_ROUNDS, "rounds"),
    "imitation.dagger_games": _GAMES,
    "imitation.dagger_epochs": _EPOCHS,
    **RLLIB_RULES,
    **JAX_RULES,
}


def _float_fields(cls: type) -> set[str]:
    return {f.name for f in dataclasses.fields(cls) if f.type == "float"}


def from_dict(data: dict[str, Any]) -> TrainConfig:
    """Build and validate a config from nested dicts (a parsed TOML file or saved JSON)."""
    if not isinstance(data, dict):
        raise ConfigError(f"a config is a table of settings, got {data!r}")
    top = {f.name for f in dataclasses.fields(TrainConfig)}
    unknown = sorted(set(data) - top)
    if unknown:
        raise ConfigError(f"unknown config key(s) {unknown}: the keys are {sorted(top)}")
    values = {key: _checked(key, value, _float_fields(TrainConfig))
              for key, value in data.items() if key not in _SECTIONS}
    for section, cls in _SECTIONS.items():
        raw = data.get(section, {})
        if not isinstance(raw, dict):
            raise ConfigError(f"[{section}] must be a table of settings, got {raw!r}")
        names = {f.name for f in dataclasses.fields(cls)}
        bad = sorted(set(raw) - names)
        if bad:
            raise ConfigError(f"unknown key(s) {bad} in [{section}]: the keys are {sorted(names)}")
        floats = _float_fields(cls)
        values[section] = cls(**{key: _checked(f"{section}.{key}", value, floats)
                                 for key, value in raw.items()})
    config = TrainConfig(**values)
    validate(config)
    return config


def _checked(key: str, value: Any, floats: set[str]) -> Any:
    """``value`` if it is acceptable for ``key`` (a whole number given for a float becomes one)."""
    check, accepts = RULES[key]
    if not check(value):
        raise ConfigError(f"{key} must be {accepts}, got {value!r}")
    return float(value) if key.rpartition(".")[2] in floats else value


def load(path: str | Path | None = None, overrides: list[str] | None = None) -> TrainConfig:
    """Read a TOML config (default: ``train/configs/quick.toml``; a bare name like ``full`` means
    ``train/configs/full.toml``) and apply ``key=value`` overrides (dotted keys for sections)."""
    return from_dict(load_dict(path, overrides))


def load_dict(path: str | Path | None = None, overrides: list[str] | None = None) -> dict[str, Any]:
    """The settings of a TOML config (its ``base`` config's, if it names one, with its own on top)
    with ``overrides`` applied, not yet checked."""
    data = _read_config(config_path(path or "quick", None), ())
    for item in overrides or []:
        apply_override(data, item)
    return data


def config_path(name: str | Path, including: Path | None) -> Path:
    """The file a ``--config`` (or a ``base`` key in the config ``including``) names: a bare name
    like ``full`` means ``train/configs/full.toml``; a relative path is read from the current folder
    (or, for a ``base``, from the including config's folder)."""
    path = Path(name)
    if not path.suffix and not path.exists():
        return CONFIG_DIR / f"{path}.toml"
    return path if including is None or path.is_absolute() else including.parent / path


def _read_config(path: Path, chain: tuple[Path, ...]) -> dict[str, Any]:
    """The settings of the config file ``path`` merged over those of its ``base`` (tables key by
    key, any other value replaced); ``chain`` holds the files that include it, to refuse a cycle."""
    if not path.is_file():
        choices = ", ".join(sorted(p.stem for p in CONFIG_DIR.glob("*.toml")))
        named = f" (the base of {chain[-1]})" if chain else ""
        raise ConfigError(f"no config file {path}{named} (the shipped configs are: {choices})")
    if path.resolve() in chain:
        raise ConfigError(f"{path} is its own base (through {' -> '.join(str(p) for p in chain)}): "
                          "remove one of the base keys")
    try:
        data = tomllib.loads(path.read_text())
    except (tomllib.TOMLDecodeError, UnicodeDecodeError, OSError) as err:
        raise ConfigError(f"{path} is not a readable TOML file: {err}") from None
    if "base" not in data:
        return data
    base = data.pop("base")
    if not isinstance(base, str) or not base:
        raise ConfigError(f"{path}: base must name another config (e.g. base = \"full\"), got {base!r}")
    merged = _read_config(config_path(base, path), (*chain, path.resolve()))
    _merge(merged, data)
    return merged


def _merge(into: dict[str, Any], settings: dict[str, Any]) -> None:
    """Put ``settings`` over ``into``: a table into a table key by key, any other value in place."""
    for key, value in settings.items():
        if isinstance(value, dict) and isinstance(into.get(key), dict):
            _merge(into[key], value)
        else:
            into[key] = value


def apply_override(data: dict[str, Any], item: str) -> None:
    """Apply one ``key=value`` (``ppo.learning_rate=1e-4``, ``eval.opponents=["random"]``); the
    value is read as TOML, or as a plain string when it is not valid TOML."""
    key, eq, text = item.partition("=")
    if not eq or not key:
        raise ConfigError(f"override {item!r} must look like key=value (e.g. total_timesteps=50000)")
    try:
        value = tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        value = text
    *sections, last = key.split(".")
    node = data
    for section in sections:
        node = node.setdefault(section, {})
        if not isinstance(node, dict):
            raise ConfigError(f"override {item!r}: {section} is not a section")
    node[last] = value


def validate(config: TrainConfig) -> None:
    """Raise :class:`ConfigError` for a value that cannot work: each setting's type and range, the
    settings that depend on each other, the rules of the game and every agent spec's syntax."""
    from agents.base import AgentError, parse_spec
    from allfours_env.rules import Rules, RulesError

    for key, value in flatten(config.to_dict()).items():
        check, accepts = RULES[key]
        if not check(value):
            raise ConfigError(f"{key} must be {accepts}, got {value!r}")
    if config.average_since >= config.total_timesteps:
        raise ConfigError(f"average_since must be {RULES['average_since'][1]}, got {config.average_since} "
                          f"with total_timesteps {config.total_timesteps}")
    every = config.eval.every  # every backend writes its checkpoints at the multiples of eval.every
    first_in_window = -(-config.average_since // every) * every  # the first multiple >= average_since
    if config.average_since and first_in_window >= config.total_timesteps:
        raise ConfigError(f"average_since = {config.average_since:,} would average the final checkpoint "
                          f"alone: checkpoints are written every eval.every = {every:,} steps and none "
                          f"falls between it and total_timesteps = {config.total_timesteps:,}; lower "
                          f"eval.every or average_since, or set average_since = 0")
    rollout = config.ppo.n_steps * config.n_envs
    if rollout < 2:
        raise ConfigError("ppo.n_steps × n_envs must be at least 2 (PPO normalises over a rollout)")
    if rollout > MAX_ROLLOUT:
        raise ConfigError(f"ppo.n_steps × n_envs is the rollout held in memory: at most {MAX_ROLLOUT:,} "
                          f"steps, got {config.ppo.n_steps:,} × {config.n_envs:,} = {rollout:,}")
    for ok, message in [*rllib_cross_checks(config.rllib), *jax_cross_checks(config.jax, MAX_ROLLOUT)]:
        if not ok:
            raise ConfigError(message)
    if config.jax.points_share and config.reward != "win":
        raise ConfigError(f"jax.points_share = {config.jax.points_share} pays a share of the points beside "
                          f"the game: it needs reward = 'win' (reward = {config.reward!r} pays every point "
                          f"already)")
    try:
        rules = Rules.make(config.preset, config.num_players, **config.knobs)
    except RulesError as err:
        raise ConfigError(str(err)) from None
    if config.opponents.partner != "learner" and rules.num_sides == rules.num_players:
        raise ConfigError(f"opponents.partner = {config.opponents.partner!r} has no seat: {config.preset} "
                          f"with {config.num_players} players has no partnerships; leave opponents.partner "
                          f"= \"learner\"")
    for where, spec in agent_specs(config):
        try:
            parse_spec(spec)
        except AgentError as err:
            raise ConfigError(f"{where} {spec!r}: {err}") from None


def agent_specs(config: TrainConfig) -> list[tuple[str, str]]:
    """Every agent spec the config names, with the setting that names it."""
    specs = [("opponents.mix", k) for k in config.opponents.mix if k != "snapshot"]
    specs += [("opponents.schedule", k) for stage in config.opponents.schedule for k in stage["mix"]
              if k != "snapshot"]
    specs += [("eval.opponents", s) for s in config.eval.opponents]
    specs += [("eval.final_opponents", s) for s in config.eval.final_opponents]
    if config.opponents.partner != "learner":
        specs.append(("opponents.partner", config.opponents.partner))
    if config.imitation.teacher:
        specs += [("imitation.teacher", config.imitation.teacher),
                  ("imitation.opponent", config.imitation.opponent)]
    return list(dict.fromkeys(specs))


def flatten(data: dict[str, Any]) -> dict[str, Any]:
    """``{"ppo": {"gamma": 0.99}, "seed": 0}`` -> ``{"ppo.gamma": 0.99, "seed": 0}`` (sections only)."""
    flat = {}
    for key, value in data.items():
        if key in _SECTIONS:
            flat.update({f"{key}.{inner}": v for inner, v in value.items()})
        else:
            flat[key] = value
    return flat
