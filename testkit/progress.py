"""The suite's progress report under pytest-xdist: one line per finished test file.

Registered by tests/conftest.py (`pytest_configure`) when workers run the suite and output is not verbose.
"""
from __future__ import annotations

from collections import Counter, defaultdict
from typing import Any

import pytest


class FileProgress:
    """Under pytest-xdist, one line per finished test file (`tests/emit/test_x.py 42 passed [ 37%]`)
    instead of minutes of bare dots: the suite's progress stays readable in a CI log."""

    def __init__(self, reporter: Any) -> None:
        self.reporter = reporter
        self.total: Counter[str] = Counter()
        self.done: Counter[str] = Counter()
        self.outcomes: dict[str, Counter[str]] = defaultdict(Counter)
        self.finished = 0

    def pytest_xdist_node_collection_finished(self, node: Any, ids: list[str]) -> None:
        if not self.total:  # every worker collects the same items
            self.total = Counter(i.split("::")[0] for i in ids)

    @pytest.hookimpl(wrapper=True)
    def pytest_report_teststatus(self, report: Any, config: Any) -> Any:
        category, _letter, word = yield
        return category, "", word

    def pytest_runtest_logreport(self, report: Any) -> None:
        path = report.nodeid.split("::")[0]
        category = self.reporter.config.hook.pytest_report_teststatus(report=report, config=self.reporter.config)[0]
        if category:
            self.outcomes[path][category] += 1
        if report.when != "teardown":
            return
        self.done[path] += 1
        self.finished += 1
        if self.done[path] == self.total.get(path):
            counts = ", ".join(f"{n} {c}" for c, n in sorted(self.outcomes[path].items()))
            share = 100 * self.finished // max(1, sum(self.total.values()))
            self.reporter.write_line(f"{path} {counts} [{share:3d}%]")
