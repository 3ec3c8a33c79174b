"""The batched core's tests: skipped where JAX is not installed (the optional extra ``allfours[jax]``).

XLA compiles with its backend optimisations off here (the tests check results, not speed), which
cuts each configuration's compile time several-fold; JAX's persistent compilation cache lives in
pytest's cache folder, so that a second run compiles nothing."""

import os

import pytest

os.environ.setdefault("XLA_FLAGS", "--xla_backend_optimization_level=0")
jax = pytest.importorskip("jax")


@pytest.fixture(scope="session", autouse=True)
def _compilation_cache(request: pytest.FixtureRequest) -> None:
    folder = request.config.cache.mkdir("jax-compilation") if request.config.cache else None
    if folder is not None:
        jax.config.update("jax_compilation_cache_dir", str(folder))
        jax.config.update("jax_persistent_cache_min_compile_time_secs", 1.0)
