"""The games being played in the browser: a person at one seat, bots at the others.

A :class:`LiveGame` pauses after each hand (``stop_after_hand``) so that the page shows the hand's
awards until the person deals the next one; its bots move one decision per request
(:meth:`LiveGame.bot_step`), which the server runs off the event loop (``pimc`` takes a tenth of a
second or more). :class:`GameStore` keeps the games of every browser session apart: each game has an
unguessable id and belongs to the session that made it; their number is bounded (per session and
in all) and a game left alone for :data:`IDLE_SECONDS` is dropped.
"""

from __future__ import annotations

import random
import secrets
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agents.base import AgentError, make_agent
from agents.play.bots import BotSeats
from agents.play.cli import seat_specs, split_specs
from agents.policy import fit_warning
from allfours_env.actions import as_action_id, str_to_action
from allfours_env.engine import Game, IllegalActionError
from allfours_env.events import Phase
from allfours_env.render import pretty_action
from allfours_env.rules import Rules, RulesError
from allfours_env.seeding import derive_seed
from allfours_env.values import is_whole
from serve import view
from serve.errors import RequestError
from serve.specs import resolve_spec

#: Games kept for one browser session; a new one beyond this replaces its least recently used.
GAMES_PER_SESSION = 4
#: Games kept in all; beyond this a new game is refused until one expires.
MAX_GAMES = 64
#: A game untouched this long is dropped.
IDLE_SECONDS = 2 * 3600
#: How long a read of a game waits for a bot's decision under way.
LOCK_WAIT_SECONDS = 30.0
#: The largest seed a page may give (seeds are whole numbers 0 .. 2**63-1).
MAX_SEED = 2**63 - 1


@dataclass
class LiveGame:
    """One game in the browser: the person at ``seat``, ``specs[s]`` the agent of every other seat."""

    id: str
    owner: str
    game: Game
    seat: int
    specs: dict[int, str]
    bots: BotSeats
    warnings: list[str]
    touched: float
    lock: threading.Lock = field(default_factory=threading.Lock)

    def waiting_for(self) -> str | None:
        """``"you"``, ``"bot"`` (a bot is to move), ``"next_hand"`` (paused after a hand) or None
        (the game is over)."""
        game = self.game
        if game.is_over:
            return None
        if game.phase == Phase.HAND_OVER:
            return "next_hand"
        return "you" if game.current_player == self.seat else "bot"

    def state(self) -> dict[str, Any]:
        """What the person's seat sees, the legal moves when it is to move, and who is awaited."""
        with self._waited():
            waiting = self.waiting_for()
            return view.table(self.game, self.seat) | {
                "id": self.id, "seat": self.seat, "seed": self.game.seed,
                "agents": {str(s): spec for s, spec in sorted(self.specs.items())},
                "warnings": self.warnings, "waiting_for": waiting,
                "moves": view.moves(self.game) if waiting == "you" else [],
            }

    def record(self) -> dict[str, Any]:
        """The game record so far (:mod:`allfours_env.record`). Paused after a hand, it is the
        record of a copy with the next hand dealt — the deal the game will make — so that it
        replays exactly."""
        with self._waited():
            game = self.game
            if game.phase == Phase.HAND_OVER:
                game = game.copy()
                game.next_hand()
            return game.record()

    def act(self, move: Any) -> None:
        """Apply the person's move: an action id or its text (``"play AS"``); refused with the reason
        unless it is the person's turn and the move is legal."""
        with self._locked():
            if self.waiting_for() != "you":
                raise RequestError(f"it is not your turn: {self._awaited()}", 409)
            action = _action(move)
            try:
                self.game.apply(action)
            except IllegalActionError as err:
                raise RequestError(f"illegal move: {err}") from None

    def bot_step(self) -> dict[str, Any]:
        """Let the bot that is to move decide and apply its move; returns who moved and what."""
        with self._locked():
            if self.waiting_for() != "bot":
                raise RequestError(f"no bot is to move: {self._awaited()}", 409)
            seat = self.game.current_player
            try:
                action = self.bots.act(seat)
                self.game.apply(action)
            except Exception as err:  # any failure of an agent is a message, never a trace
                raise RequestError(f"player_{seat}'s agent ({self.specs[seat]}) failed: "
                                f"{type(err).__name__}: {err}", 502) from None
            return {"seat": seat, "move": pretty_action(action)}

    def next_hand(self) -> None:
        """Deal the next hand after the pause at the end of one."""
        with self._locked():
            if self.waiting_for() != "next_hand":
                raise RequestError(f"the hand is not over: {self._awaited()}", 409)
            self.game.next_hand()

    def _awaited(self) -> str:
        return {None: "the game is over", "you": "it is your move", "bot": "a bot is to move",
                "next_hand": "the hand is over: deal the next one"}[self.waiting_for()]

    def _waited(self) -> _Held:
        """The game's lock, waited for (a read while a bot decides)."""
        if not self.lock.acquire(timeout=LOCK_WAIT_SECONDS):
            raise RequestError("the game is busy: try again", 409)
        return _Held(self.lock)

    def _locked(self) -> _Held:
        """The game's lock for a change: refused at once if another request holds it."""
        if not self.lock.acquire(blocking=False):
            raise RequestError("the game is busy with another request: try again", 409)
        return _Held(self.lock)


class _Held:
    """The game's lock, already taken, released at the end of a ``with`` block."""

    def __init__(self, lock: threading.Lock) -> None:
        self.lock = lock

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        self.lock.release()


def _action(move: Any) -> int:
    """An action id from a request: an integer id, or the action's text."""
    try:
        return str_to_action(move) if isinstance(move, str) else as_action_id(move)
    except (TypeError, ValueError) as err:
        raise RequestError(f"not a move: {err}") from None


def new_game(options: Mapping[str, Any], owner: str, runs: Path | None, now: float) -> LiveGame:
    """A game set up from the page's choices — ``preset``, ``players``, ``seat``, ``opponents`` (one
    spec for all, or a list in turn order), ``partner``, ``seed`` — each checked before anything is
    built (a bad one raises :class:`RequestError` naming it)."""
    unknown = sorted(set(options) - {"preset", "players", "seat", "opponents", "partner", "seed"})
    if unknown:
        raise RequestError(f"unknown option(s) {', '.join(unknown)}: give preset, players, seat, "
                        f"opponents, partner, seed")
    preset = options.get("preset", "seven_up")
    players = options.get("players", 2)
    seat = options.get("seat", 0)
    seed = options.get("seed")
    for name, value in (("players", players), ("seat", seat)):
        if not is_whole(value):
            raise RequestError(f"{name} must be a whole number, got {value!r}")
    if seed is not None and not (is_whole(seed) and 0 <= seed <= MAX_SEED):
        raise RequestError(f"seed must be a whole number 0..{MAX_SEED} or null, got {seed!r}")
    try:
        rules = Rules.make(preset, players)
    except (RulesError, TypeError) as err:
        raise RequestError(f"bad game: {err}") from None
    if not 0 <= seat < rules.num_players:
        raise RequestError(f"seat must be 0..{rules.num_players - 1}, got {seat}")
    opponents = options.get("opponents", "heuristic")
    opponents = [opponents] if isinstance(opponents, str) else opponents
    partner = options.get("partner")
    if not isinstance(opponents, list) or not all(isinstance(o, str) for o in opponents):
        raise RequestError(f"opponents must be an agent spec or a list of them, got {opponents!r}")
    if partner is not None and not isinstance(partner, str):
        raise RequestError(f"partner must be an agent spec, got {partner!r}")
    try:
        specs = seat_specs(rules, seat, split_specs(opponents), partner or None)
        resolved = {s: resolve_spec(spec, runs) for s, spec in specs.items()}
    except AgentError as err:
        raise RequestError(str(err)) from None
    if seed is None:
        seed = random.SystemRandom().randrange(2**31)
    try:
        bots = {}
        for s, spec in resolved.items():
            bots[s] = make_agent(spec, seed=derive_seed(seed, "build", s))
            bots[s].reset(derive_seed(seed, "agent", s))
    except (AgentError, ValueError, TypeError, OSError, ImportError) as err:
        raise RequestError(f"cannot build the bots: {err}") from None
    warnings = list(dict.fromkeys(w for agent in bots.values() if (w := fit_warning(agent, rules))))
    game = Game(rules, seed=seed, stop_after_hand=True)
    return LiveGame(id=secrets.token_urlsafe(18), owner=owner, game=game, seat=seat, specs=specs,
                    bots=BotSeats(game, bots), warnings=warnings, touched=now)


class GameStore:
    """The live games of every browser session, bounded and expiring (``clock`` gives the time)."""

    def __init__(self, runs: Path | None, *, per_session: int = GAMES_PER_SESSION,
                 max_games: int = MAX_GAMES, idle_seconds: float = IDLE_SECONDS,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.runs = runs
        self.per_session = per_session
        self.max_games = max_games
        self.idle_seconds = idle_seconds
        self.clock = clock
        self._games: dict[str, LiveGame] = {}
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._games)

    def create(self, owner: str, options: Mapping[str, Any]) -> LiveGame:
        """A new game for session ``owner`` (its oldest game dropped beyond :attr:`per_session`)."""
        now = self.clock()
        live = new_game(options, owner, self.runs, now)
        with self._lock:
            self._expire(now)
            mine = sorted((g for g in self._games.values() if g.owner == owner), key=lambda g: g.touched)
            for old in mine[:max(0, len(mine) - self.per_session + 1)]:
                del self._games[old.id]
            if len(self._games) >= self.max_games:
                raise RequestError(f"the server holds {self.max_games} games, its most: try again once "
                                f"one has expired ({self.idle_seconds / 3600:g} h unused)", 503)
            self._games[live.id] = live
        return live

    def get(self, owner: str, game_id: str) -> LiveGame:
        """Session ``owner``'s game ``game_id``; another session's game, an expired or unknown one
        is not found (404)."""
        now = self.clock()
        with self._lock:
            self._expire(now)
            live = self._games.get(game_id)
            if live is None or not secrets.compare_digest(live.owner, owner):
                raise RequestError("no such game in this browser session (games expire after "
                                f"{self.idle_seconds / 3600:g} h unused): start a new one", 404)
            live.touched = now
            return live

    def _expire(self, now: float) -> None:
        for game_id in [i for i, g in self._games.items() if now - g.touched > self.idle_seconds]:
            del self._games[game_id]
