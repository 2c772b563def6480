"""Every hostile schema compiles or is rejected with its diagnostic in a child (bounded to 1 GiB;
a compile past its step budget fails as a hang, `bounded`)."""
from __future__ import annotations

from typing import Any

import pytest
from bounded import run_bounded
from cases import CASES, EXPECTED


@pytest.fixture(scope="module")
def results() -> dict[str, dict[str, Any]]:
    return run_bounded(sorted(CASES))


def test_every_case_has_an_expectation() -> None:
    assert set(CASES) == set(EXPECTED)


@pytest.mark.parametrize("name", sorted(CASES))
def test_hostile_case_is_bounded(name: str, results: dict[str, dict[str, Any]]) -> None:
    result = results[name]
    assert result["outcome"] in EXPECTED[name], result
