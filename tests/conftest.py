"""Suite-wide test settings: hypothesis is deterministic in CI.

A red run must mean a regression, never a dice roll: every `@given` test draws the same examples
on every machine (derandomised, no example database carried between runs). Randomised deep runs
live in `benchmarks/` (`benchmarks/fuzz_deep.py SEED`).

Tests live in one folder per subject (tests/front, tests/lower, tests/emit, ...; each a package,
so `tests.<subject>.test_x` names a file wherever it is run from). What several files share (the
byte-level grammar harness, the ECMA-262 and gate oracles, the CLI and tool-request helpers) is
`testkit/` at the repository root, which the benchmarks import too; pyproject.toml's
`pythonpath = ["."]` puts the checkout on sys.path for it.
"""
from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, settings

from testkit.progress import FileProgress

settings.register_profile(
    "schemac-ci",
    derandomize=True,
    database=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.load_profile("schemac-ci")


@pytest.hookimpl(trylast=True)  # after the terminal reporter exists
def pytest_configure(config: Any) -> None:
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    distributed = getattr(config.option, "numprocesses", None) and not hasattr(config, "workerinput")
    if reporter is not None and distributed and config.option.verbose <= 0:
        config.pluginmanager.register(FileProgress(reporter), "schemac-file-progress")
