"""Suite-wide test settings: hypothesis is deterministic in CI.

A red run must mean a regression, never a dice roll: every `@given` test draws the same examples
on every machine (derandomised, no example database carried between runs). Randomised deep runs
live in `benchmarks/` (`benchmarks/fuzz_deep.py SEED`).
"""
from __future__ import annotations

from hypothesis import HealthCheck, settings

settings.register_profile(
    "schemac-ci",
    derandomize=True,
    database=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.load_profile("schemac-ci")
