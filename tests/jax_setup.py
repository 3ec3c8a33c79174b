"""Setup of the tests that run JAX (the batched core, the JAX trainer): a plugin of their modules
(``pytest_plugins``).

JAX's persistent compilation cache lives in pytest's cache folder, so that a second run compiles
nothing. (XLA compiles with its backend optimisations off in the tests — they check results, not
speed —, which cuts each configuration's compile time several-fold: tests/conftest.py sets
``XLA_FLAGS`` before any test module starts JAX.)"""

import pytest


@pytest.fixture(scope="session", autouse=True)
def _compilation_cache(request: pytest.FixtureRequest) -> None:
    import jax

    cache = getattr(request.config, "cache", None)  # None with -p no:cacheprovider
    folder = cache.mkdir("jax-compilation") if cache is not None else None
    if folder is not None:
        jax.config.update("jax_compilation_cache_dir", str(folder))
        jax.config.update("jax_persistent_cache_min_compile_time_secs", 1.0)
