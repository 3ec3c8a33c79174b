"""Seeds derived from one seed: every layer (deals, agents, tournaments, training) draws its random
streams from names under the run's single seed, never from a global RNG."""

from __future__ import annotations

import hashlib


def derive_seed(seed: int, *tags: object) -> int:
    """A 63-bit seed derived from ``seed`` and ``tags``, the same in every process and Python run."""
    text = ":".join(str(part) for part in (seed, *tags))
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little") >> 1
