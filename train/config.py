"""Training configuration: small TOML files under ``train/configs/`` plus command-line overrides.

A config names the game (preset, players, knob overrides), the episode and reward shape, the PPO
settings, the opponent mix of self-play, the evaluation schedule, the budget and the seed::

    python -m train --config train/configs/full.toml --set total_timesteps=2000000 ppo.learning_rate=1e-4

Every value is checked: an unknown key or a bad value raises :class:`ConfigError` naming the key
and what it accepts.
"""

from __future__ import annotations

import dataclasses
import tomllib
from pathlib import Path
from typing import Any

from train.rllib.settings import RLlibSettings
from train.rllib.settings import checks as rllib_checks

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

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


_SECTIONS = {"ppo": PPOSettings, "opponents": OpponentSettings, "eval": EvalSettings,
             "imitation": ImitationSettings, "rllib": RLlibSettings}


def from_dict(data: dict[str, Any]) -> TrainConfig:
    """Build and validate a config from nested dicts (a parsed TOML file or saved JSON)."""
    top = {f.name for f in dataclasses.fields(TrainConfig)}
    unknown = sorted(set(data) - top)
    if unknown:
        raise ConfigError(f"unknown config key(s) {unknown}: the keys are {sorted(top)}")
    values = dict(data)
    for section, cls in _SECTIONS.items():
        raw = values.get(section, {})
        if not isinstance(raw, dict):
            raise ConfigError(f"[{section}] must be a table of settings, got {raw!r}")
        names = {f.name for f in dataclasses.fields(cls)}
        bad = sorted(set(raw) - names)
        if bad:
            raise ConfigError(f"unknown key(s) {bad} in [{section}]: the keys are {sorted(names)}")
        values[section] = cls(**raw)
    config = TrainConfig(**values)
    validate(config)
    return config


def load(path: str | Path | None = None, overrides: list[str] | None = None) -> TrainConfig:
    """Read a TOML config (default: ``train/configs/quick.toml``; a bare name like ``full`` means
    ``train/configs/full.toml``) and apply ``key=value`` overrides (dotted keys for sections)."""
    path = Path(path) if path else CONFIG_DIR / "quick.toml"
    if not path.suffix and not path.exists():
        path = CONFIG_DIR / f"{path}.toml"
    if not path.is_file():
        choices = ", ".join(sorted(p.stem for p in CONFIG_DIR.glob("*.toml")))
        raise ConfigError(f"no config file {path} (the shipped configs are: {choices})")
    try:
        data = tomllib.loads(path.read_text())
    except tomllib.TOMLDecodeError as err:
        raise ConfigError(f"{path} is not valid TOML: {err}") from None
    for item in overrides or []:
        apply_override(data, item)
    return from_dict(data)


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
    """Raise :class:`ConfigError` for values that cannot work (the rules are checked too)."""
    from allfours_env.rules import Rules, RulesError

    try:
        Rules.make(config.preset, config.num_players, **config.knobs)
    except RulesError as err:
        raise ConfigError(str(err)) from None
    checks = [
        (config.episode in ("game", "hand"), "episode must be 'game' or 'hand'"),
        (config.reward in ("win", "points"), "reward must be 'win' or 'points'"),
        (_positive_int(config.total_timesteps), "total_timesteps must be a whole number > 0"),
        (_positive_int(config.n_envs), "n_envs must be a whole number > 0"),
        (_positive_int(config.torch_threads), "torch_threads must be a whole number > 0"),
        (isinstance(config.seed, int), "seed must be a whole number"),
        (isinstance(config.average_since, int) and 0 <= config.average_since < config.total_timesteps,
         "average_since must be a whole number of timesteps below total_timesteps (0: no averaging)"),
        (_positive_int(config.ppo.n_steps), "ppo.n_steps must be a whole number > 0"),
        (_positive_int(config.ppo.batch_size), "ppo.batch_size must be a whole number > 0"),
        (config.ppo.activation in ("tanh", "relu"), "ppo.activation must be 'tanh' or 'relu'"),
        (all(_positive_int(w) for w in config.ppo.net_arch), "ppo.net_arch must list layer widths > 0"),
        (isinstance(config.ppo.privileged_critic, bool), "ppo.privileged_critic must be true or false"),
        (_valid_mix(config.opponents.mix), "opponents.mix needs weights >= 0, not all 0"),
        (_valid_schedule(config.opponents.schedule),
         "opponents.schedule is a list of {at = <timesteps>, mix = {...}} with 'at' increasing "
         "and every mix's weights >= 0, not all 0"),
        (_positive_int(config.opponents.snapshot_every), "opponents.snapshot_every must be > 0"),
        (_positive_int(config.opponents.pool_size), "opponents.pool_size must be > 0"),
        (_positive_int(config.eval.every), "eval.every must be a whole number of timesteps > 0"),
        (_positive_int(config.eval.games), "eval.games must be > 0"),
        (_positive_int(config.eval.final_games), "eval.final_games must be > 0"),
        (_positive_int(config.eval.workers), "eval.workers must be > 0"),
        (_positive_int(config.imitation.games), "imitation.games must be > 0"),
        (_positive_int(config.imitation.epochs), "imitation.epochs must be > 0"),
        (_positive_int(config.imitation.workers), "imitation.workers must be > 0"),
        (isinstance(config.imitation.dagger_rounds, int) and config.imitation.dagger_rounds >= 0,
         "imitation.dagger_rounds must be a whole number >= 0"),
        (_positive_int(config.imitation.dagger_games), "imitation.dagger_games must be > 0"),
        (_positive_int(config.imitation.dagger_epochs), "imitation.dagger_epochs must be > 0"),
        *rllib_checks(config.rllib),
    ]
    for ok, message in checks:
        if not ok:
            raise ConfigError(message)
    from agents.base import AgentError, parse_spec

    mixes = [config.opponents.mix] + [stage["mix"] for stage in config.opponents.schedule]
    specs = [k for mix in mixes for k in mix if k != "snapshot"] + config.eval.opponents
    specs += config.eval.final_opponents
    if config.opponents.partner != "learner":
        specs.append(config.opponents.partner)
    if config.imitation.teacher:
        specs += [config.imitation.teacher, config.imitation.opponent]
    for spec in specs:
        try:
            parse_spec(spec)
        except AgentError as err:
            raise ConfigError(f"opponent {spec!r}: {err}") from None


def _valid_mix(mix: Any) -> bool:
    return (isinstance(mix, dict) and bool(mix)
            and all(isinstance(v, int | float) and v >= 0 for v in mix.values()) and sum(mix.values()) > 0)


def _valid_schedule(schedule: Any) -> bool:
    if not isinstance(schedule, list):
        return False
    if not all(isinstance(s, dict) and set(s) == {"at", "mix"} and _positive_int(s["at"])
               and _valid_mix(s["mix"]) for s in schedule):
        return False
    steps = [s["at"] for s in schedule]
    return steps == sorted(set(steps))


def _positive_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value > 0
