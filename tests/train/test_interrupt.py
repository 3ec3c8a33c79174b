"""Ctrl-C in a training loop is remembered, so a KeyboardInterrupt that code swallowed still stops
the run at its next step (train.interrupt.CtrlC)."""

import os
import signal
import threading
import time

import pytest

from train.interrupt import CtrlC


def press_ctrl_c() -> None:
    """Send this process SIGINT and give the main thread the chance to run its handler."""
    os.kill(os.getpid(), signal.SIGINT)
    time.sleep(0.5)


def test_a_swallowed_ctrl_c_is_raised_again_by_check():
    with CtrlC() as ctrl_c:
        ctrl_c.check()  # nothing pressed yet
        try:
            press_ctrl_c()
        except KeyboardInterrupt:
            pass  # what a library's cleanup might do
        assert ctrl_c.pressed
        with pytest.raises(KeyboardInterrupt):
            ctrl_c.check()
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # restored on the way out


def test_where_ctrl_c_is_ignored_it_stays_ignored():
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)  # as in a background job
    try:
        with CtrlC() as ctrl_c:
            press_ctrl_c()  # ignored: no exception
            ctrl_c.check()
            assert not ctrl_c.pressed
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGINT, previous)


def test_outside_the_main_thread_nothing_changes():
    seen = []

    def in_thread():
        with CtrlC() as ctrl_c:
            seen.append(signal.getsignal(signal.SIGINT))
            ctrl_c.check()

    thread = threading.Thread(target=in_thread)
    thread.start()
    thread.join()
    assert seen == [signal.default_int_handler]


def test_the_training_callback_stops_at_the_next_step_after_a_ctrl_c(tmp_path):
    from train.callback import TrainingCallback
    from train.config import load

    ctrl_c = CtrlC()
    callback = TrainingCallback(load("quick"), tmp_path, ctrl_c=ctrl_c)
    ctrl_c.pressed = True  # a Ctrl-C whose KeyboardInterrupt was swallowed
    with pytest.raises(KeyboardInterrupt):
        callback._on_step()  # what BaseCallback.on_step calls at every step of a rollout
