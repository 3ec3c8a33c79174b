"""For the tests that press Ctrl-C on a child process: start the child with SIGINT as a terminal
gives it.

A test run launched in the background (``cmd &`` in a non-interactive shell, nohup) has SIGINT
ignored, and a process can have it blocked; ``subprocess.Popen`` hands both down, and a child that
never sees the Ctrl-C runs on (the flake CI once saw: a trainer still training two minutes later)."""

import signal


def sigint_as_in_a_terminal() -> None:
    """In a child before it starts (``Popen(preexec_fn=...)``): SIGINT neither ignored nor blocked,
    whatever this process has."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
