"""Running deal groups in worker processes, and in this process.

Work is handed out as chunks of whole deal groups. Chunk sizes adapt to how long a group takes
(aiming at a fraction of a second per chunk, smaller near the end so that no worker idles long),
which keeps the inter-process traffic small for fast bots and the answers frequent for slow ones.
Sizes only change speed: every game's result depends on the tournament seed and its number.
Progress counts games, through a counter the workers share, not the chunks that come back.

Ctrl-C: workers ignore SIGINT; the main process stops handing out work, terminates the pool and
keeps every chunk that had come back (whole deal groups only).
"""

from __future__ import annotations

import itertools
import multiprocessing
import queue
import signal
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from evaluate.games import GameSummary, GroupPlayer

#: Seconds of play a chunk of work should take, once the speed of a group is known.
CHUNK_SECONDS = 0.25
MAX_CHUNK = 512

_PLAYER: GroupPlayer | None = None
_PLAYED: Any = None  # the pool's shared count of games played, for the progress line


def _init_worker(args: tuple[Any, ...], played: Any = None) -> None:
    """Pool initializer: ignore Ctrl-C (the main process handles it), set up the player and keep
    the shared game counter."""
    global _PLAYER, _PLAYED
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _PLAYER = GroupPlayer(*args)
    _PLAYED = played


def _count_game() -> None:
    """Add one to the pool's shared count of games played."""
    with _PLAYED.get_lock():
        _PLAYED.value += 1


def _play_chunk(items: Sequence[tuple[int, int]]) -> tuple[list[tuple], float, int]:
    """Worker task: play the deal groups ``items`` with this worker's player (:func:`play_chunk`)."""
    assert _PLAYER is not None
    return play_chunk(_PLAYER, items, _count_game if _PLAYED is not None else None)


def play_chunk(player: GroupPlayer, items: Sequence[tuple[int, int]],
               on_game: Callable[[], None] | None = None) -> tuple[list[tuple], float, int]:
    """Play the deal groups ``items`` = [(table, group), ...] in a worker (a process of the pool, or a
    Ray task), calling ``on_game`` after each game; returns the games (as
    :meth:`GameSummary.to_tuple`), the seconds it took and the number of groups."""
    start = time.perf_counter()
    out: list[tuple] = []
    for table, group in items:
        _one_thread()
        out.extend(game.to_tuple() for game in player.play_group(table, group, on_game))
    return out, time.perf_counter() - start, len(items)


def _one_thread() -> None:
    """One torch thread per worker (once an agent has loaded torch): the workers are the parallelism."""
    torch = sys.modules.get("torch")
    if torch is not None and torch.get_num_threads() != 1:
        torch.set_num_threads(1)


def run_in_process(player: GroupPlayer, items: Iterable[tuple[int, int]],
                   on_games: Callable[[list[GameSummary]], None],
                   on_played: Callable[[int], None] | None = None) -> bool:
    """Play ``items`` (``(table, group)`` pairs, consumed as they are played) here, group by group,
    passing each group's games to ``on_games`` and telling ``on_played(1)`` of every game as it
    ends. Returns True if interrupted by Ctrl-C (the group in progress is dropped)."""
    on_game = None if on_played is None else (lambda: on_played(1))
    try:
        for table, group in items:
            on_games(player.play_group(table, group, on_game))
    except KeyboardInterrupt:
        return True
    return False


#: Libraries that start thread pools when imported or first used: no fork once one is loaded.
THREADED = frozenset({"torch", "jax"})


def pool_context() -> multiprocessing.context.BaseContext:
    """``fork`` where it is safe and available (fast start); ``spawn`` once torch or JAX is loaded,
    as forking a process that has started their thread pools can hang."""
    methods = multiprocessing.get_all_start_methods()
    if not THREADED.intersection(sys.modules) and "fork" in methods:
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context("spawn")


def run_in_pool(player_args: tuple[Any, ...], items: Iterable[tuple[int, int]], count: int, workers: int,
                on_games: Callable[[list[GameSummary]], None],
                on_played: Callable[[int], None] | None = None) -> bool:
    """Play the ``count`` deal groups of ``items`` (``(table, group)`` pairs, taken from the iterable
    in order as work is handed out) in ``workers`` processes, passing each chunk's games to
    ``on_games`` as it comes back, and the number of games the workers finished since the last
    call to ``on_played`` (a counter they share, read a few times a second). Returns True if
    interrupted by Ctrl-C. Errors raised by a game are re-raised here."""
    context = pool_context()
    played = context.Value("q", 0) if on_played is not None else None
    told = 0

    def tell() -> None:
        nonlocal told
        if played is not None:
            now = played.value
            if now > told:
                on_played(now - told)
                told = now

    pending = iter(items)
    left = count  # groups not yet handed out
    done: queue.SimpleQueue = queue.SimpleQueue()
    seconds_per_group: float | None = None
    in_flight = 0
    pool = None
    interrupted = False
    try:
        pool = context.Pool(workers, initializer=_init_worker, initargs=(player_args, played))

        def submit() -> None:
            nonlocal in_flight, left
            if seconds_per_group is None:
                size = 1
            else:
                size = int(CHUNK_SECONDS / max(seconds_per_group, 1e-6))
            size = max(1, min(size, MAX_CHUNK, -(-left // (2 * workers))))
            chunk = list(itertools.islice(pending, size))
            left -= len(chunk)
            if not chunk:  # the iterable held fewer groups than counted
                left = 0
                return
            pool.apply_async(_play_chunk, (chunk,), callback=done.put, error_callback=done.put)
            in_flight += 1

        while left and in_flight < 2 * workers:
            submit()
        while in_flight:
            reply = _wait(done, tell)
            tell()
            in_flight -= 1
            if isinstance(reply, BaseException):
                _keep_finished(done, on_games)
                raise reply
            games, seconds, groups = reply
            per_group = seconds / groups
            seconds_per_group = per_group if seconds_per_group is None else (
                0.7 * seconds_per_group + 0.3 * per_group)
            on_games([GameSummary(*game) for game in games])
            while left and in_flight < 2 * workers:
                submit()
    except KeyboardInterrupt:
        interrupted = True
    finally:
        if pool is not None:
            if interrupted or in_flight:
                pool.terminate()
            else:
                pool.close()
            pool.join()
    return interrupted


def _keep_finished(done: queue.SimpleQueue, on_games: Callable[[list[GameSummary]], None]) -> None:
    """Before a game's error ends the run: pass on the chunks that had already come back."""
    while True:
        try:
            reply = done.get_nowait()
        except queue.Empty:
            return
        if not isinstance(reply, BaseException):
            on_games([GameSummary(*game) for game in reply[0]])


def _wait(done: queue.SimpleQueue, tick: Callable[[], None]) -> Any:
    """Block for the next reply; short timeouts keep the main thread responsive to Ctrl-C and call
    ``tick`` (the progress count) a few times a second."""
    while True:
        try:
            return done.get(timeout=0.2)
        except queue.Empty:
            tick()
