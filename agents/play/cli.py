"""The command line of the terminal game: ``python -m agents.play`` (also ``allfours-play``).

Every argument is checked before the game starts — rules, seats, agent specs (model files included),
``--delay``, and the ``--save-record`` file, which must be new: a record is never written over an
existing file. A bad one is one line on stderr (``allfours-play: error: ...``) and exit status 2.
"""

from __future__ import annotations

import argparse
import math
import os
import random
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TextIO

from agents.base import AgentError, available_agents, make_agent, parse_spec
from agents.cli import OneLineParser
from agents.play.moves import QUIT_WORDS
from agents.play.ui import TerminalGame
from agents.policy import warn_unfit
from allfours_env.engine import Game
from allfours_env.record import save_record
from allfours_env.render import side_name
from allfours_env.rules import PRESETS, Rules, RulesError
from allfours_env.seeding import derive_seed

PROG = "allfours-play"
SAVE_PROMPT = "save the game record? file name (Enter to skip): "
#: Names asked for at the end before giving up on saving (a script answering with a taken name).
SAVE_TRIES = 5
#: The longest --delay (seconds before each bot move): a pause to follow the game, not a wait.
MAX_DELAY = 60


def split_specs(values: Sequence[str]) -> list[str]:
    """Agent specs from ``--opponent`` values: each value may list several, comma-separated; a
    ``key=value`` item continues the spec before it (``pimc:samples=8,max_nodes=5000,random``)."""
    specs: list[str] = []
    for value in values:
        for item in value.split(","):
            item = item.strip()
            if not item:
                continue
            if specs and "=" in item and ":" not in item and not specs[-1].startswith("ppo:"):
                specs[-1] += "," + item
            else:
                specs.append(item)
    return specs


def seat_specs(rules: Rules, seat: int, opponents: list[str], partner: str | None) -> dict[int, str]:
    """The agent spec of every seat but ``seat``: opponents in turn order, the partner apart."""
    n = rules.num_players
    others = [(seat + i) % n for i in range(1, n)]
    partner_seats = [s for s in others if rules.side_of(s) == rules.side_of(seat)]
    opponent_seats = [s for s in others if s not in partner_seats]
    if not opponents:
        raise AgentError("give at least one opponent agent")
    if len(opponents) == 1:
        opponents = opponents * len(opponent_seats)
    if len(opponents) != len(opponent_seats):
        raise AgentError(
            f"{len(opponents)} opponent specs for {len(opponent_seats)} opponent seat(s) "
            f"({', '.join(f'player_{s}' for s in opponent_seats)}): give one spec, or one per seat"
        )
    specs = dict(zip(opponent_seats, opponents))
    for s in partner_seats:
        specs[s] = partner or opponents[0]
    return specs


def new_file_problem(path: str) -> str | None:
    """Why a game record cannot be saved as the new file ``path``, or None if it can (its folder
    exists and takes a new file, checked by writing and removing one)."""
    target = Path(path)
    if target.is_dir():
        return f"{path} is a folder: give a file name, e.g. {target / 'game.json'}"
    if target.exists():
        return f"{path} exists and a game record is never written over a file: give a new name"
    folder = target.parent
    if not folder.is_dir():
        return f"cannot save {path}: the folder {folder} does not exist"
    try:
        handle, name = tempfile.mkstemp(prefix=".write-test-", dir=folder)
        os.close(handle)
        os.unlink(name)
    except OSError as err:
        return f"cannot save {path}: the folder {folder} is not writable ({err.strerror or err})"
    return None


def build_parser() -> argparse.ArgumentParser:
    """The command-line options (usage errors are one line: :class:`agents.cli.OneLineParser`)."""
    parser = OneLineParser(
        prog=PROG,
        description="Play All Fours in the terminal against the bots. At each decision type the "
                    "number of a move or its text ('play AS', 'AS', 'beg'); h for help, q to quit.",
    )
    parser.add_argument("--preset", default="seven_up", help=f"one of {', '.join(sorted(PRESETS))}")
    parser.add_argument("--players", type=int, default=2, help="number of players (2-4)")
    parser.add_argument("--seat", type=int, default=0, help="your seat, 0..players-1 (default 0)")
    parser.add_argument(
        "--opponent", action="append", metavar="SPEC",
        help=f"the agent(s) you play against: {', '.join(available_agents())}, pimc:samples=8, "
             f"ppo:path/to/model.npz; one for every opponent seat, or a comma-separated list with one "
             f"per opponent seat in turn order (default pimc)",
    )
    parser.add_argument("--partner", metavar="SPEC",
                        help="your partner's agent with 4 players in partnerships (default: the opponent's)")
    parser.add_argument("--target", type=int, help="points to win (default: the preset's)")
    parser.add_argument("--seed", type=int, help="seed of the deals and the bots (default: a random one)")
    parser.add_argument("--save-record", metavar="PATH",
                        help="save the game record (JSON) to PATH, a new file")
    parser.add_argument("--delay", type=float, default=0.0,
                        help=f"seconds to wait before each bot move (at most {MAX_DELAY})")
    return parser


def main(
    argv: Sequence[str] | None = None,
    *,
    input_fn: Callable[[str], str] = input,
    output: TextIO | None = None,
) -> int:
    """Run the terminal game; return the exit status (0: played or quit, 2: bad arguments)."""
    if output is None:
        output = sys.stdout
        if hasattr(output, "reconfigure"):  # a terminal without UTF-8 shows '?' for a suit symbol
            output.reconfigure(errors="replace")
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as exit_:
        return int(exit_.code or 0)
    try:
        session = setup(args, input_fn=input_fn, output=output)
    except (RulesError, AgentError, ValueError, ImportError) as err:
        print(f"{PROG}: error: {err}", file=sys.stderr)
        return 2
    return play(session, args.save_record, input_fn)


def setup(args: argparse.Namespace, *, input_fn: Callable[[str], str], output: TextIO) -> TerminalGame:
    """Check the parsed arguments and build the rules, the bots and the game (errors raise, before
    anything is played or written); :func:`play` runs it."""
    knobs: dict[str, Any] = {} if args.target is None else {"target_points": args.target}
    rules = Rules.make(args.preset, args.players, **knobs)
    if not 0 <= args.seat < rules.num_players:
        raise ValueError(f"--seat must be 0..{rules.num_players - 1}, got {args.seat}")
    if not (math.isfinite(args.delay) and args.delay >= 0):
        raise ValueError(f"--delay must be a number of seconds >= 0, got {args.delay}")
    if args.delay > MAX_DELAY:
        raise ValueError(f"--delay is at most {MAX_DELAY} seconds before a bot's move, got {args.delay}")
    if args.save_record is not None:
        problem = new_file_problem(args.save_record)
        if problem:
            raise ValueError(f"--save-record: {problem}")
    opponents = split_specs(args.opponent or ["pimc"])
    partner = split_specs([args.partner]) if args.partner else []
    if len(partner) > 1:
        raise AgentError(f"--partner takes one agent spec, got {args.partner!r}")
    specs = seat_specs(rules, args.seat, opponents, partner[0] if partner else None)
    for spec in set(specs.values()):
        parse_spec(spec)
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**31)
    bots = {}
    for s, spec in specs.items():
        bots[s] = make_agent(spec, seed=derive_seed(seed, "build", s))
        bots[s].reset(derive_seed(seed, "agent", s))
    warn_unfit(bots.values(), rules)  # a policy trained for another game: one line on stderr
    game = Game(rules, seed=seed)
    session = TerminalGame(game, args.seat, bots, input_fn=input_fn, output=output, delay=args.delay)
    direction = "clockwise" if rules.plan.clockwise else "anticlockwise"
    session.intro = [
        f"All Fours: {rules.preset}, {rules.num_players} players, {rules.target_points} points to win, "
        f"{direction}; seed {seed} (play these deals again with --seed {seed}).",
        f"You are player_{args.seat}. " + ", ".join(
            f"player_{s}{' (partner)' if rules.side_of(s) == rules.side_of(args.seat) else ''}: {spec}"
            for s, spec in sorted(specs.items())) + ".",
        "Type a move's number or its text (h for help, q to quit).",
    ]
    return session


def play(session: TerminalGame, save_path: str | None, input_fn: Callable[[str], str]) -> int:
    """Run a set-up game, then show the result and save (or offer to save) the record."""
    for line in session.intro:
        session.write(line)
    try:
        finished = session.run()
    except KeyboardInterrupt:
        finished = False
    game = session.game
    if not finished:
        session.write("")
        session.write("You quit; the game was not finished. Scores: " + ", ".join(
            f"{side_name(game, s)} {p}" for s, p in enumerate(game.scores)) + ".")
        if save_path:
            _save(session, save_path, "unfinished game record")
        return 0
    session.write("")
    session.write(session.table())
    session.write(session.result())
    if save_path is None:
        save_path = _ask_save_path(session, input_fn)
    if save_path:
        _save(session, save_path, "game record")
    return 0


def _ask_save_path(session: TerminalGame, input_fn: Callable[[str], str]) -> str | None:
    """Offer to save the record: a new file name, or None (Enter, n, q or end of input)."""
    for _ in range(SAVE_TRIES):
        try:
            answer = input_fn(SAVE_PROMPT).strip()
        except (EOFError, KeyboardInterrupt):
            return None
        if answer.lower() in ("", "n", "no", *QUIT_WORDS):
            return None
        problem = new_file_problem(answer)
        if problem is None:
            return answer
        session.write(problem)
    session.write("game record not saved")
    return None


def _save(session: TerminalGame, path: str, what: str) -> None:
    try:
        save_record(session.game.record(), path, overwrite=False)
    except OSError as err:
        session.write(f"could not save the {what} to {path}: {err.strerror or err}")
        return
    session.write(f"{what} saved to {path} (allfours_env.replay(path) replays it)")
