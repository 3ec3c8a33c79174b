"""Shared helpers for the tests: stacked games and scripted play."""

from __future__ import annotations

import os
import random

import pytest

from agents.base import Agent
from allfours_env import Game, Rules, str_to_action
from allfours_env.engine import stack_deck

# The batched core's tests check results, not speed: XLA compiles without its backend optimisations,
# several times faster (set before any test module starts JAX; tests/jax_setup.py).
os.environ.setdefault("XLA_FLAGS", "--xla_backend_optimization_level=0")

#: Every core preset with every player count it allows (docs/rules.md §4, K1).
PRESET_PLAYERS = [
    ("seven_up", 2), ("seven_up", 3), ("seven_up", 4),
    ("all_fours", 2), ("all_fours", 3), ("all_fours", 4),
    ("trinidad", 2), ("trinidad", 4),
    ("blind_all_fours", 2), ("blind_all_fours", 3), ("blind_all_fours", 4),
]
#: The stock, auction and don presets with every player count they allow (docs/rules.md §4).
STOCK_AUCTION_PRESET_PLAYERS = [
    ("california_jack", 2), ("shasta_sam", 2),
    ("auction_pitch", 2), ("auction_pitch", 3), ("auction_pitch", 4),
    ("pitch_with_joker", 3), ("pitch_with_joker", 4),
    ("don", 2), ("don", 3), ("don", 4),
]
ALL_PRESET_PLAYERS = PRESET_PLAYERS + STOCK_AUCTION_PRESET_PLAYERS


def random_game(preset: str, num_players: int, seed: int, decisions: int = 10_000) -> Game:
    """A game of uniformly random legal play from ``seed``, stopped at its end or after
    ``decisions`` decisions (random bidders may never reach the target of an auction preset)."""
    game = Game(Rules.make(preset, num_players), seed=seed)
    rng = random.Random(seed)
    for _ in range(decisions):
        if game.is_over:
            break
        game.apply(rng.choice(game.legal_actions()))
    return game


def stacked_game(preset="seven_up", num_players=2, *, dealer=0, hands, turnup=None, runs=(),
                 stock=None, scores=None, stop_after_hand=False, **knobs) -> Game:
    """A game whose first deal gives ``hands`` (text, seat order) and turns up ``turnup``; ``stock``
    (text, top card first) orders the rest of the pack, e.g. the stock of california_jack;
    ``stop_after_hand`` as :class:`~allfours_env.engine.Game`'s."""
    rules = Rules.make(preset, num_players, **knobs)
    deck = stack_deck(num_players, dealer, [h.split() for h in hands], turnup,
                      [([p.split() for p in packets], t) for packets, t in runs],
                      None if stock is None else stock.split(), joker=rules.joker)
    return Game(rules, seed=0, dealer=dealer, decks=[deck], scores=scores, stop_after_hand=stop_after_hand)


def play(game: Game, *moves: str) -> None:
    """Apply moves written as ``'seat:action'`` (e.g. ``'1:play TH'``), checking who is to move."""
    for move in moves:
        seat, text = move.split(":", 1)
        assert game.current_player == int(seat), (
            f"{move}: player_{game.current_player} is to move, not player_{seat}"
        )
        game.apply(str_to_action(text))


def awards_of(game: Game, deal: int = 0) -> list[tuple[str, int, int]]:
    """The awards of deal ``deal`` as (kind, side, points)."""
    return [(a.kind, a.side, a.points) for a in game.awards if a.deal == deal]


@pytest.fixture
def seven_up_2p() -> Rules:
    return Rules.make("seven_up", 2)


def hand_scores(game: Game, deal: int = 0) -> list[int]:
    """Points each side scored in deal ``deal`` (plus the starting scores for deal 0)."""
    totals = list(game.initial_scores) if deal == 0 else [0] * game.num_sides
    for award in game.awards:
        if award.deal == deal:
            totals[award.side] += award.points
    return totals


def exit_status(main, args) -> int:
    """What a command line returns, or exits with (argparse exits on a usage error)."""
    try:
        return main(args)
    except SystemExit as exit_:
        return exit_.code


def run_cli(main, args, capsys) -> tuple[int, str, str]:
    """Run a command line's ``main(args)``: its exit status, stdout and stderr."""
    code = exit_status(main, args)
    out, err = capsys.readouterr()
    return code, out, err


class FailingAgent(Agent):
    """A random player that raises ``error("agent crashed")`` during its game number ``stop + 1``
    (KeyboardInterrupt stands for Ctrl-C)."""

    name = "failing"

    def __init__(self, stop, error=RuntimeError, seed=None):
        super().__init__(seed)
        self.stop, self.error, self.games = stop, error, 0

    def reset(self, seed=None):
        super().reset(seed)
        self.games += 1

    def act(self, observation, view):
        if self.games > self.stop:
            raise self.error("agent crashed")
        legal = view.legal_actions()
        return legal[self.rng.randrange(len(legal))]


#: A training run small enough for the tests: quick.toml's settings and warm start, shrunk.
TINY = ["total_timesteps=1024", "n_envs=1", "ppo.n_steps=256", "ppo.batch_size=64", "ppo.n_epochs=1",
        "ppo.net_arch=[32]", "eval.every=512", "eval.games=4", "eval.final_games=4", "eval.workers=1",
        "opponents.snapshot_every=1", "opponents.mix={random=0.5,snapshot=0.5}",
        "imitation.games=20", "imitation.epochs=1", "imitation.workers=1"]


def npz(path) -> dict:
    """The arrays of an ``.npz`` file by name (read without unpickling)."""
    import numpy as np

    with np.load(path, allow_pickle=False) as stored:
        return {name: stored[name] for name in stored.files}


def files_of(folder) -> dict[str, bytes]:
    """Every file under ``folder`` with its bytes (to show that nothing changed)."""
    from pathlib import Path

    folder = Path(folder)
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture(scope="session")
def trained(tmp_path_factory):
    """A :data:`TINY` training run, made once per session (a test that changes it copies it first)."""
    from train.__main__ import main

    out = tmp_path_factory.mktemp("run")
    assert main(["--set", *TINY, "--out", str(out), "--no-progress"]) == 0
    return out
