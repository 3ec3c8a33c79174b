"""Warm start by imitation: learn a teacher bot's decisions before PPO takes over.

PPO from scratch learns to beat ``random`` in a few hundred thousand steps but stays far below the
rule-based ``heuristic`` for a long time (see docs/training-notes.md). Starting from a
network that already plays like a strong teacher fixes that:

1. :func:`collect` plays games with the teacher (e.g. ``pimc`` or ``heuristic``) against an
   opponent, seats swapped, and records at every teacher decision with a choice the observation,
   the mask, the teacher's action and the return that followed — the points the teacher's side
   scored minus the others' mean until the end of the hand (the ``points`` reward of hand episodes).
2. :func:`pretrain` fits the MaskablePPO policy to the teacher's actions (cross-entropy on the
   masked logits) and its value head to the returns, so PPO starts from a sensible critic too.
3. Optionally DAgger rounds: the trained student plays, the teacher labels the states the student
   reaches, the data are pooled and the student is fitted again — a student drifts into states the
   teacher never showed it, and this is how it learns what to do there.

Datasets are ``.npz`` files of plain arrays (observations as float16) with a description of what
made them, read without unpickling and checked before a run starts (:func:`check_dataset`); they are
reusable across runs. Collection runs on several processes and depends only on the seed.
:func:`imitate` is the whole warm start of a run as its config asks for it, around a backend's
fitting (:func:`warm_start`: SB3's and RLlib's policies with :func:`pretrain`; the JAX backend
fits in JAX, :mod:`train.jax.warm_start`).
"""

from __future__ import annotations

import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from agents.arena import play_game
from agents.base import Agent, make_agent
from agents.policy import SnapshotAgent, actor_from_sb3
from allfours_env.actions import NUM_ACTIONS
from allfours_env.engine import Game
from allfours_env.events import EventKind
from allfours_env.knowledge import SeatView
from allfours_env.observation import OBS_SIZE
from allfours_env.rules import Rules
from allfours_env.seeding import derive_seed
from evaluate.parallel import pool_context
from evaluate.progress import Progress
from train.config import ConfigError, TrainConfig

#: The arrays of a dataset: (dtype, shape after the first axis).
ARRAYS = {"observations": (np.float16, (OBS_SIZE,)), "masks": (np.bool_, (NUM_ACTIONS,)),
          "actions": (np.int16, ()), "returns": (np.float32, ())}


class _Recorder(Agent):
    """Writes down the teacher's choice at every decision that has one, and plays it — or, when a
    ``student`` is given (DAgger), plays the student's choice so the states are the student's."""

    needs_observation = True

    def __init__(self, teacher: Agent, student: Agent | None = None) -> None:
        super().__init__()
        self.teacher = teacher
        self.student = student
        self.name = teacher.name
        self.rows: list[tuple[np.ndarray, np.ndarray, int, int, int]] = []

    def reset(self, seed: int | None = None) -> None:
        self.teacher.reset(seed)
        if self.student is not None:
            self.student.reset(seed)

    def act(self, observation: dict[str, np.ndarray] | None, view: SeatView) -> int:
        if observation["action_mask"].sum() == 1:
            return int(np.flatnonzero(observation["action_mask"])[0])
        label = self.teacher.act(observation, view)
        log_index = view.log_length  # where this decision will stand in the game log
        self.rows.append((observation["observation"].astype(np.float16),
                          observation["action_mask"].astype(bool), label, view.seat, log_index))
        return label if self.student is None else self.student.act(observation, view)


def hand_returns(game: Game, rows: list[tuple]) -> list[float]:
    """For each recorded decision, the points its side scored minus the other sides' mean from
    that decision to the end of its hand (awards later in the log, before the next deal)."""
    log = game.log
    out = []
    share = 1.0 / (game.num_sides - 1)
    for _, _, _, seat, index in rows:
        side = game.sides[seat]
        total = 0.0
        for kind, who, value in log[index:]:
            if kind == EventKind.DEAL or kind == EventKind.HAND_END:
                break
            if kind == EventKind.AWARD:
                total += value.points if who == side else -share * value.points
        out.append(total)
    return out


def _collect_games(args: tuple) -> dict[str, np.ndarray]:
    """Worker: play the games ``indices`` and return their recorded decisions as arrays."""
    teacher_spec, opponent_spec, rules_dict, seed, indices, student = args
    rules = Rules.from_dict(rules_dict)
    obs, masks, actions, returns = [], [], [], []
    for index in indices:
        game_seed = derive_seed(seed, "imitation", index)
        teacher = _Recorder(make_agent(teacher_spec, seed=game_seed), student)
        opponent = make_agent(opponent_spec, seed=game_seed + 1)
        teacher_side = index % 2  # alternate sides so the teacher learns every position
        players = [teacher if rules.side_of(s) % 2 == teacher_side else opponent
                   for s in range(rules.num_players)]
        game = play_game(rules, players, seed=game_seed)
        returns.extend(hand_returns(game, teacher.rows))
        for observation, mask, action, _, _ in teacher.rows:
            obs.append(observation)
            masks.append(mask)
            actions.append(action)
    return {
        "observations": np.array(obs, dtype=np.float16).reshape(-1, len(obs[0]) if obs else 0),
        "masks": np.array(masks, dtype=bool).reshape(-1, NUM_ACTIONS),
        "actions": np.array(actions, dtype=np.int16),
        "returns": np.array(returns, dtype=np.float32),
    }


def collect(teacher: str, opponent: str, rules: Rules, games: int, seed: int = 0,
            workers: int = 1, progress: bool = False, student: Agent | None = None
            ) -> dict[str, np.ndarray]:
    """Record ``teacher``'s decisions over ``games`` games against ``opponent``. With a
    ``student`` (a picklable agent), the student plays and the teacher only labels (DAgger)."""
    chunks = [list(range(start, min(start + 10, games))) for start in range(0, games, 10)]
    tasks = [(teacher, opponent, rules.to_dict(), seed, chunk, student) for chunk in chunks]
    parts: list[dict[str, np.ndarray]] = []
    bar = None
    if progress:
        who = teacher if student is None else f"{teacher} labelling the student"
        bar = Progress(games, f"imitation data: {who} vs {opponent}")
    try:
        if workers > 1:  # forked, or spawned once torch or JAX is loaded (a fork could hang)
            with pool_context().Pool(workers) as pool:
                for part, chunk in zip(pool.imap(_collect_games, tasks), chunks):
                    parts.append(part)
                    if bar:
                        bar.update(len(chunk))
        else:
            for task, chunk in zip(tasks, chunks):
                parts.append(_collect_games(task))
                if bar:
                    bar.update(len(chunk))
    finally:
        if bar:
            bar.close()
    return {key: np.concatenate([p[key] for p in parts if len(p["actions"])])
            for key in ("observations", "masks", "actions", "returns")}


def describe(meta: dict[str, Any]) -> str:
    """The stored description of what produced a dataset (teacher, opponent, games, seed)."""
    return repr(sorted(meta.items()))


def save(data: dict[str, np.ndarray], path: str | Path, meta: dict[str, Any]) -> None:
    """Write a dataset with what produced it (teacher, opponent, games, seed)."""
    with Path(path).open("wb") as handle:
        np.savez_compressed(handle, **data, meta=np.array(describe(meta)))


def load(path: str | Path) -> tuple[dict[str, np.ndarray], str]:
    """Read a dataset written by :func:`save` without unpickling anything; returns the arrays and
    its description. Raises ConfigError naming what is wrong with a damaged or foreign file."""
    path = Path(path)
    if not zipfile.is_zipfile(path):
        raise ConfigError(f"imitation.dataset {path} is not a dataset (.npz): delete it or name a new path")
    try:
        with np.load(path, allow_pickle=False) as stored:
            data = {key: stored[key] for key in ARRAYS if key in stored.files}
            meta = stored["meta"] if "meta" in stored.files else None
    except (ValueError, OSError, EOFError, zipfile.BadZipFile, KeyError, RuntimeError) as err:
        raise ConfigError(f"imitation.dataset {path} cannot be read ({type(err).__name__}: {err}): "
                          f"delete it or name a new path") from None
    problem = _problem(data, meta)
    if problem:
        raise ConfigError(f"imitation.dataset {path} {problem}: delete it or name a new path")
    return data, str(meta)


def _problem(data: dict[str, np.ndarray], meta: np.ndarray | None) -> str | None:
    """What is wrong with a dataset's arrays, or None."""
    if meta is None or meta.dtype.kind != "U" or meta.shape != ():
        return "has no description of what recorded it"
    for key, (dtype, shape) in ARRAYS.items():
        if key not in data:
            return f"lacks the array {key!r}"
        if data[key].dtype != dtype or data[key].shape[1:] != shape:
            return (f"holds {key} of type {data[key].dtype} and shape {data[key].shape}, "
                    f"not {np.dtype(dtype)} "
                    f"(n, {', '.join(map(str, shape))}): it was recorded by another version or is damaged")
    if len({len(array) for array in data.values()}) != 1:
        return "holds arrays of different lengths"
    actions = data["actions"].astype(np.int64)
    if len(actions) == 0 or actions.min() < 0 or actions.max() >= NUM_ACTIONS \
            or not data["masks"][np.arange(len(actions)), actions].all():
        return "holds no decisions, or actions that were not legal"
    if not np.isfinite(data["observations"]).all() or not np.isfinite(data["returns"]).all():
        return "holds NaN or infinite values"
    return None


def made_by(config: TrainConfig) -> dict[str, Any]:
    """What a run's imitation dataset is recorded by: teacher, opponent, games, seed."""
    settings = config.imitation
    return {"teacher": settings.teacher, "opponent": settings.opponent, "games": settings.games,
            "seed": config.seed}


def check_dataset(config: TrainConfig) -> tuple[dict[str, np.ndarray], str] | None:
    """The cached dataset of ``config`` if ``imitation.dataset`` names an existing file (read and
    checked: made by this config's teacher, opponent, games and seed), else None; raises ConfigError
    before a run starts for a file that cannot be used or a path that cannot be written."""
    from train.runs import check_writable

    if not config.imitation.dataset:
        return None
    path = Path(config.imitation.dataset)
    if not path.is_file():
        check_writable(path, "imitation.dataset", folder=False)
        return None
    data, meta = load(path)
    wanted = describe(made_by(config))
    if meta != wanted:
        raise ConfigError(f"imitation.dataset {path} was recorded by {meta}, but this run asks for "
                          f"{wanted}: delete the file or set imitation.dataset to a new path")
    return data, meta


def warm_start(model, config: TrainConfig, cached: tuple[dict[str, np.ndarray], str] | None = None, *,
               log=print, progress: bool = True) -> None:
    """Fit the fresh SB3 ``model`` to the configured teacher's decisions (:func:`imitate` with
    :func:`pretrain`)."""
    settings = config.imitation

    def fit(data: dict[str, np.ndarray], epochs: int, seed: int) -> None:
        pretrain(model, data, epochs=epochs, learning_rate=settings.learning_rate, seed=seed, log=log)

    imitate(fit, lambda: actor_from_sb3(model.policy), config, cached, log=log, progress=progress)


def imitate(fit: Callable[[dict[str, np.ndarray], int, int], None], student: Callable[[], Any],
            config: TrainConfig, cached: tuple[dict[str, np.ndarray], str] | None = None, *,
            log=print, progress: bool = True) -> None:
    """The warm start of any backend: the teacher's decisions from the ``cached`` dataset
    (:func:`check_dataset`) or from newly recorded games (saved to ``imitation.dataset`` when it
    names a file), fitted by ``fit(data, epochs, seed)``; then the DAgger rounds, where the actor
    ``student()`` returns (a numpy actor of the network as fitted so far) plays and the teacher
    labels."""
    settings = config.imitation
    rules = Rules.make(config.preset, config.num_players, **config.knobs)
    if cached is not None:
        data, meta = cached
        log(f"imitation data: {len(data['actions']):,} decisions from {settings.dataset} ({meta})")
    else:
        data = collect(settings.teacher, settings.opponent, rules, settings.games, seed=config.seed,
                       workers=settings.workers, progress=progress)
        if settings.dataset:
            path = Path(settings.dataset)
            path.parent.mkdir(parents=True, exist_ok=True)
            save(data, path, made_by(config))
    fit(data, settings.epochs, config.seed)
    for round_number in range(1, settings.dagger_rounds + 1):
        actor = SnapshotAgent(student(), deterministic=True, name="student")
        extra = collect(settings.teacher, settings.opponent, rules, settings.dagger_games,
                        seed=derive_seed(config.seed, "dagger", round_number),
                        workers=settings.workers, progress=progress, student=actor)
        data = {key: np.concatenate([data[key], extra[key]]) for key in data}
        log(f"DAgger round {round_number}: {len(extra['actions']):,} new decisions, "
            f"{len(data['actions']):,} in all")
        fit(data, settings.dagger_epochs, config.seed + round_number)


def pretrain(model, data: dict[str, np.ndarray], *, epochs: int = 10, batch_size: int = 512,
             learning_rate: float = 1e-3, value_weight: float = 0.5, seed: int = 0,
             log=print) -> list[dict[str, float]]:
    """Fit ``model.policy`` to the teacher: cross-entropy on its actions, MSE on the returns.
    Returns per-epoch metrics (loss, accuracy on the held-out tenth: every tenth decision).
    A model with a privileged critic (:mod:`agents.critic_policy`) gets zeros for the hidden cards,
    which the datasets do not hold: its critic's weights on them stay at zero."""
    import torch

    policy = model.policy
    rng = np.random.default_rng(seed)
    train_idx, held_out = split_rows(len(data["actions"]))
    obs = torch.as_tensor(data["observations"].astype(np.float32))
    width = policy.observation_space.shape[0]
    if obs.shape[1] < width:  # a privileged critic's hidden-card inputs: unknown here, left at zero
        obs = torch.nn.functional.pad(obs, (0, width - obs.shape[1]))
    masks = torch.as_tensor(data["masks"])
    actions = torch.as_tensor(data["actions"].astype(np.int64))
    returns = torch.as_tensor(data["returns"])
    optimizer = torch.optim.Adam(policy.parameters(), lr=learning_rate)
    history = []
    for epoch in range(epochs):
        policy.train()
        rng.shuffle(train_idx)
        losses = []
        for start in range(0, len(train_idx), batch_size):
            batch = torch.as_tensor(train_idx[start:start + batch_size])
            values, log_prob, _ = policy.evaluate_actions(obs[batch], actions[batch],
                                                          action_masks=masks[batch])
            loss = -log_prob.mean() + value_weight * torch.nn.functional.mse_loss(
                values.flatten(), returns[batch])
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), 1.0)
            optimizer.step()
            losses.append(loss.item())
        policy.eval()
        with torch.no_grad():
            batch = torch.as_tensor(held_out)
            dist = policy.get_distribution(obs[batch], action_masks=masks[batch].numpy())
            accuracy = float((dist.distribution.probs.argmax(dim=1) == actions[batch]).float().mean())
        history.append({"epoch": epoch + 1, "loss": float(np.mean(losses)), "accuracy": accuracy})
        log(epoch_line(history[-1], epochs))
    return history


def split_rows(count: int) -> tuple[np.ndarray, np.ndarray]:
    """The rows of a dataset of ``count`` decisions to fit on and to hold out: every tenth decision
    is held out, so the split stays put when DAgger appends data."""
    held_out = np.arange(0, count, 10)
    return np.setdiff1d(np.arange(count), held_out), held_out


def epoch_line(entry: dict[str, float], epochs: int) -> str:
    """The log line of one fitted epoch (``entry``: its number, mean loss and held-out accuracy)."""
    return (f"imitation epoch {entry['epoch']}/{epochs}: loss {entry['loss']:.3f}, "
            f"held-out accuracy {entry['accuracy']:.1%}")
