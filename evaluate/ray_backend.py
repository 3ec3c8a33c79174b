"""Tournaments on Ray: deal groups as Ray tasks, on this machine or across a cluster.

    python -m evaluate random heuristic --games 2000 --backend ray        # a local Ray instance
    python -m evaluate random heuristic --games 2000 --ray auto           # the cluster `ray start` began here
    python -m evaluate random heuristic --games 2000 --ray HEAD:6379      # a cluster's head node

Work is handed out as chunks of whole deal groups, sized as for worker processes
(:mod:`evaluate.parallel`); each task plays its chunk with a :class:`~evaluate.games.GroupPlayer`
kept per worker process and tournament, and returns the games. A game's result depends only on
the tournament seed and its number (:mod:`evaluate.schedule`), so the statistics are the same
whichever node played it — identical to ``--workers N``.

Every node must be able to import allfours (installed, or on a shared file system: the driver
passes its own source folder on ``PYTHONPATH``) and read the model files named in the agent specs.

:func:`init_ray` is also how the RLlib training backend connects (:mod:`train.rllib.trainer`).
Needs Ray (``pip install 'allfours[rllib]'``); nothing imports this module unless asked to.
"""

from __future__ import annotations

import itertools
import logging
import os
import time
import uuid
import warnings
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from evaluate.games import GameSummary, GroupPlayer
from evaluate.parallel import CHUNK_SECONDS, MAX_CHUNK, play_chunk

#: The source folder of this installation (holds allfours_env, agents, evaluate, train).
SOURCE_ROOT = Path(__file__).resolve().parents[1]


class RayUnavailable(RuntimeError):
    """Ray is not installed, or the cluster cannot be reached."""


def init_ray(address: str = "", **local_options: Any) -> bool:
    """Connect this process to Ray unless it already is: ``address`` ``""`` starts a private local
    instance (``local_options`` go to ``ray.init``, e.g. ``num_cpus``), ``"auto"`` joins the
    cluster started with ``ray start`` on this machine, ``"HOST:PORT"`` a head node and
    ``"ray://HOST:10001"`` goes through Ray Client. Workers get this installation's source folder
    on ``PYTHONPATH`` and one thread each for numpy/torch. Ray's messages that are not for the
    user are silenced (:func:`quiet_ray`). Returns True when this call connected (the caller then
    calls ``ray.shutdown()`` when done); raises :class:`RayUnavailable` with one line saying why
    not."""
    try:
        import ray
    except ImportError:
        raise RayUnavailable("the Ray backend needs Ray: pip install 'allfours[rllib]'") from None
    quiet_ray()
    if ray.is_initialized():
        return False
    if address and address != "auto":
        _probe(address)
    path = os.pathsep.join(filter(None, [str(SOURCE_ROOT), os.environ.get("PYTHONPATH")]))
    runtime_env = {"env_vars": {"PYTHONPATH": path, "OMP_NUM_THREADS": "1"}}
    options: dict[str, Any] = {"runtime_env": runtime_env, "log_to_driver": False,
                               "logging_level": RAY_LOG_LEVEL}
    if address:
        options["address"] = address
    else:
        options.update({"address": "local", "include_dashboard": False, **local_options})
    try:
        ray.init(**options)
    except (ConnectionError, ValueError, RuntimeError) as err:
        where = f"at {address}" if address else "locally"
        first = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
        hint = ""
        if address and "RAY_AUTH_MODE" not in os.environ and "Failed to connect" in first:
            hint = (" (a cluster begun with `ray start` uses token authentication: set RAY_AUTH_MODE=token "
                    "and give this machine the cluster's ~/.ray/auth_token)")
        raise RayUnavailable(f"cannot start or reach Ray {where}: {first}{hint}") from None
    return True


#: The level of Ray's and RLlib's Python loggers in this process: errors only. Their info and warnings
#: (token authentication, "Started a local Ray instance", the new API stack, deprecations inside
#: RLlib, "Install gputil") are about Ray itself, not the user's run.
RAY_LOG_LEVEL = logging.ERROR


def quiet_ray() -> None:
    """Silence Ray's messages that are not for the user: its loggers (``ray``; ``ray.rllib``, which
    does not pass its records up) at errors only, and the deprecation warnings raised inside Ray.
    Errors are still shown, and failures still raise."""
    for name in ("ray", "ray.rllib", "ray.tune"):
        logging.getLogger(name).setLevel(RAY_LOG_LEVEL)
    warnings.filterwarnings("ignore", category=DeprecationWarning, module=r"ray(\.|$)")


def _probe(address: str, timeout: float = 5.0) -> None:
    """Fail fast (Ray itself retries for minutes) when nothing listens at ``[ray://]HOST:PORT``."""
    import socket

    host, _, port = address.removeprefix("ray://").rpartition(":")
    if not host or not port.isdigit():
        raise RayUnavailable(f"cannot reach Ray at {address}: an address is HOST:PORT, ray://HOST:PORT "
                             "or 'auto'")
    try:
        socket.create_connection((host, int(port)), timeout=timeout).close()
    except OSError as err:
        raise RayUnavailable(f"cannot reach Ray at {address}: {err.strerror or err}") from None


# ---------------------------------------------------------------------------- worker side

_PLAYERS: dict[str, GroupPlayer] = {}


#: Seconds between two reports of a task to the tournament's game counter.
COUNT_SECONDS = 0.5


class GameCount:
    """Ray actor: the games the tasks of one tournament have finished, for the progress line."""

    def __init__(self) -> None:
        self.games = 0

    def add(self, games: int) -> None:
        self.games += games

    def total(self) -> int:
        return self.games


def _play_chunk(token: str, player_args: tuple[Any, ...], items: Sequence[tuple[int, int]],
                counter: Any = None) -> tuple[list[tuple], float, int]:
    """Ray task: play the deal groups ``items`` with this process's player of tournament ``token``,
    telling ``counter`` (a :class:`GameCount`, or None) of the games as they end — every
    :data:`COUNT_SECONDS` at most, and the rest when the chunk is done."""
    player = _PLAYERS.get(token)
    if player is None:
        _PLAYERS.clear()  # one tournament at a time per worker process
        player = _PLAYERS[token] = GroupPlayer(*player_args)
    if counter is None:
        return play_chunk(player, items)
    untold, told_at = 0, time.monotonic()

    def on_game() -> None:
        nonlocal untold, told_at
        untold += 1
        if time.monotonic() - told_at >= COUNT_SECONDS:
            counter.add.remote(untold)
            untold, told_at = 0, time.monotonic()

    result = play_chunk(player, items, on_game)
    if untold:
        counter.add.remote(untold)
    return result


# ---------------------------------------------------------------------------- driver side

def cluster_cpus() -> int:
    """CPUs of the connected Ray cluster (at least 1)."""
    import ray

    return max(1, int(ray.cluster_resources().get("CPU", 1)))


def run_on_ray(player_args: tuple[Any, ...], items: Iterable[tuple[int, int]], count: int,
               workers: int | None, on_games: Callable[[list[GameSummary]], None],
               address: str = "", on_played: Callable[[int], None] | None = None) -> tuple[bool, int]:
    """Play the ``count`` deal groups of ``items`` (``(table, group)`` pairs, taken in order as work
    is handed out) as Ray tasks, at most ``workers`` running at once (None: the cluster's CPUs),
    passing each chunk's games to ``on_games``, and to ``on_played`` the number of games the tasks
    finished since its last call (a :class:`GameCount` actor they tell as games end, read about
    twice a second). Returns (interrupted by Ctrl-C, workers used).
    Connects with :func:`init_ray` unless connected, and disconnects if it connected. An error
    raised by a game is re-raised here as itself."""
    started = init_ray(address)
    import ray

    try:
        workers = max(1, min(workers or cluster_cpus(), count))
        task = ray.remote(num_cpus=1, max_retries=0)(_play_chunk)
        token = uuid.uuid4().hex
        args_ref = ray.put(player_args)
        pending = iter(items)
        left = count  # groups not yet handed out
        seconds_per_group: float | None = None
        in_flight: list[Any] = []
        interrupted = False
        counter = ray.remote(num_cpus=0)(GameCount).remote() if on_played is not None else None
        told, asked, received = 0, time.monotonic(), 0

        def tell() -> None:
            nonlocal told, asked
            asked = time.monotonic()
            if counter is not None:
                total = ray.get(counter.total.remote())
                if total > told:
                    on_played(total - told)
                    told = total

        def submit() -> None:
            nonlocal left
            size = 1 if seconds_per_group is None else int(CHUNK_SECONDS / max(seconds_per_group, 1e-6))
            size = max(1, min(size, MAX_CHUNK, -(-left // (2 * workers))))
            chunk = list(itertools.islice(pending, size))
            left = left - len(chunk) if chunk else 0
            if chunk:
                in_flight.append(task.remote(token, args_ref, chunk, counter))

        try:
            while left and len(in_flight) < 2 * workers:
                submit()
            while in_flight:
                ready, in_flight = ray.wait(in_flight, num_returns=1, timeout=0.2)
                for ref in ready:
                    try:
                        games, seconds, groups = ray.get(ref)
                    except ray.exceptions.RayTaskError as err:
                        _keep_finished(ray, [r for r in ready if r is not ref] + in_flight, on_games)
                        cause = getattr(err, "cause", None)
                        raise (cause if isinstance(cause, BaseException) else err) from None
                    per_group = seconds / groups
                    seconds_per_group = per_group if seconds_per_group is None else (
                        0.7 * seconds_per_group + 0.3 * per_group)
                    on_games([GameSummary(*game) for game in games])
                    received += len(games)
                while left and len(in_flight) < 2 * workers:
                    submit()
                if ready or time.monotonic() - asked >= COUNT_SECONDS:
                    tell()
            if on_played is not None and received > told:  # a task's last word may still be on its way
                on_played(received - told)
        except KeyboardInterrupt:
            interrupted = True
        finally:
            for ref in in_flight:
                ray.cancel(ref, force=True)
        return interrupted, workers
    finally:
        if started:
            ray.shutdown()


def _keep_finished(ray: Any, refs: list[Any], on_games: Callable[[list[GameSummary]], None]) -> None:
    """Before a game's error ends the run: pass on the chunks of ``refs`` that have already finished."""
    if not refs:
        return
    ready, _ = ray.wait(refs, num_returns=len(refs), timeout=0)
    for ref in ready:
        try:
            games = ray.get(ref)[0]
        except ray.exceptions.RayTaskError:
            continue
        on_games([GameSummary(*game) for game in games])
