"""Ctrl-C that cannot be lost inside a training loop.

Python turns SIGINT into a ``KeyboardInterrupt`` raised wherever the main thread happens to be; code
that swallows it there (a library's cleanup, a finalizer) lets training go on as if nothing had
been pressed — seen once in CI: an SB3 run still collecting rollouts two minutes after SIGINT, with
nothing on stderr. :class:`CtrlC` raises as Python's own handler does and also remembers the press,
so that the training loop raises again at its next step (:meth:`CtrlC.check`).
"""

from __future__ import annotations

import signal
import threading


class CtrlC:
    """A context that, in the main thread, handles SIGINT by remembering it and raising
    ``KeyboardInterrupt``. Where SIGINT is ignored (a background job) or handled by someone else,
    or outside the main thread, it changes nothing and :meth:`check` never raises."""

    def __init__(self) -> None:
        self.pressed = False
        self._previous = None

    def __enter__(self) -> CtrlC:
        if threading.current_thread() is threading.main_thread() and (
                signal.getsignal(signal.SIGINT) is signal.default_int_handler):
            self._previous = signal.signal(signal.SIGINT, self._handle)
        return self

    def __exit__(self, *exc) -> None:
        if self._previous is not None:
            signal.signal(signal.SIGINT, self._previous)
            self._previous = None

    def _handle(self, signum, frame) -> None:
        self.pressed = True
        raise KeyboardInterrupt

    def check(self) -> None:
        """Raise ``KeyboardInterrupt`` if Ctrl-C was pressed inside this context."""
        if self.pressed:
            raise KeyboardInterrupt
