"""Ray's messages that are not for the user are silenced (evaluate.ray_backend.quiet_ray): its
loggers at errors only, its deprecation warnings filtered, and ``ray.init`` told the same. Cheap
checks, without starting Ray (the runs on Ray are in test_rllib_cluster.py and
tests/train/test_rllib_train.py)."""

from __future__ import annotations

import logging
import warnings

import pytest

ray = pytest.importorskip("ray")

from evaluate import ray_backend  # noqa: E402


@pytest.fixture
def restore_logging():
    names = ("ray", "ray.rllib", "ray.tune")
    levels = {name: logging.getLogger(name).level for name in names}
    with warnings.catch_warnings():
        yield
    for name, level in levels.items():
        logging.getLogger(name).setLevel(level)


def test_ray_loggers_show_errors_only(restore_logging):
    ray_backend.quiet_ray()
    for name in ("ray", "ray.rllib", "ray.rllib.utils.deprecation", "ray.tune", "ray._private.worker"):
        logger = logging.getLogger(name)
        assert not logger.isEnabledFor(logging.WARNING) and logger.isEnabledFor(logging.ERROR)


def test_deprecation_warnings_from_ray_are_filtered_and_others_kept(restore_logging):
    ray_backend.quiet_ray()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")  # what the test runner does; quiet_ray's filter comes first
        ray_backend.quiet_ray()
        warnings.warn_explicit("old API", DeprecationWarning, "ray/rllib/x.py", 1, module="ray.rllib.x")
        warnings.warn_explicit("old API", DeprecationWarning, "mine.py", 1, module="mine")
        warnings.warn_explicit("a real problem", UserWarning, "ray/x.py", 1, module="ray.x")
    assert [(str(w.message), w.category) for w in caught] == [("old API", DeprecationWarning),
                                                              ("a real problem", UserWarning)]


def test_ray_init_is_given_the_error_level(monkeypatch, restore_logging):
    seen = {}
    monkeypatch.setattr(ray, "is_initialized", lambda: False)
    monkeypatch.setattr(ray, "init", lambda **options: seen.update(options))
    assert ray_backend.init_ray("") is True
    assert seen["logging_level"] == logging.ERROR and seen["log_to_driver"] is False
