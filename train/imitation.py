"""Warm start by imitation: learn a teacher bot's decisions before PPO takes over.

PPO from scratch learns to beat ``random`` in a few hundred thousand steps but stays far below the
rule-based ``heuristic`` for a long time (see the README's training notes). Starting from a
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

Datasets are ``.npz`` files (observations as float16), reusable across runs; collection runs on
several processes and depends only on the seed.
"""

from __future__ import annotations

import multiprocessing
from pathlib import Path
from typing import Any

import numpy as np

from agents.arena import play_game
from agents.base import Agent, make_agent
from allfours_env.actions import NUM_ACTIONS
from allfours_env.engine import Game
from allfours_env.events import EventKind
from allfours_env.knowledge import SeatView
from allfours_env.rules import Rules
from allfours_env.seeding import derive_seed


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
                total += value[1] if who == side else -share * value[1]
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
        from tqdm import tqdm

        who = teacher if student is None else f"{teacher} labelling the student"
        bar = tqdm(total=games, desc=f"imitation data: {who} vs {opponent}", unit="game")
    if workers > 1:
        with multiprocessing.get_context("fork").Pool(workers) as pool:
            for part, chunk in zip(pool.imap(_collect_games, tasks), chunks):
                parts.append(part)
                if bar:
                    bar.update(len(chunk))
    else:
        for task, chunk in zip(tasks, chunks):
            parts.append(_collect_games(task))
            if bar:
                bar.update(len(chunk))
    if bar:
        bar.close()
    return {key: np.concatenate([p[key] for p in parts if len(p["actions"])])
            for key in ("observations", "masks", "actions", "returns")}


def describe(meta: dict[str, Any]) -> str:
    """The stored description of what produced a dataset (teacher, opponent, games, seed)."""
    return repr(sorted(meta.items()))


def save(data: dict[str, np.ndarray], path: str | Path, meta: dict[str, Any]) -> None:
    """Write a dataset with what produced it (teacher, opponent, rules, games, seed)."""
    np.savez_compressed(path, **data, meta=np.array(describe(meta)))


def load(path: str | Path) -> tuple[dict[str, np.ndarray], str]:
    """Read a dataset written by :func:`save`; returns the arrays and its description."""
    with np.load(path) as stored:
        data = {key: stored[key] for key in ("observations", "masks", "actions", "returns")}
        return data, str(stored["meta"])


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
    count = len(data["actions"])
    # every tenth decision is held out; the split stays put when DAgger appends data
    held_out = np.arange(0, count, 10)
    train_idx = np.setdiff1d(np.arange(count), held_out)
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
        log(f"imitation epoch {epoch + 1}/{epochs}: loss {history[-1]['loss']:.3f}, "
            f"held-out accuracy {accuracy:.1%}")
    return history
