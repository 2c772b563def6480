"""The conformance benchmark's per-group verdicts and its mapping of the Test Suite's remotes."""
from __future__ import annotations

import json
from pathlib import Path

from benchmarks import conformance
from benchmarks.conformance import SUITE
from benchmarks.conformance.driver import SUITE_REMOTES, suite_remotes

REMOTES = Path(__file__).resolve().parents[2] / "testdata" / "suite" / "remotes"
GROUPS = [
    {"description": "remote", "schema": {"$ref": "http://localhost:1234/draft2020-12/integer.json"},
     "tests": [{"description": "i", "data": 1, "valid": True}, {"description": "s", "data": "a", "valid": False}]},
    {"description": "false", "schema": False, "tests": [{"description": "any", "data": 1, "valid": False}]},
    {"description": "false, mislabelled", "schema": {"not": {}}, "tests": [{"description": "any", "data": 1, "valid": True}]},
    {"description": "order", "schema": {"properties": {"a": {}, "b": {}}},
     "tests": [{"description": "b first", "data": {"b": 1, "a": 2}, "valid": True}]},
]


def test_groups_pass_fail_or_are_refused_exactly(tmp_path: Path) -> None:
    (tmp_path / "draft2020-12").mkdir()
    (tmp_path / "remotes").symlink_to(REMOTES)
    path = tmp_path / "draft2020-12" / "groups.json"
    path.write_text(json.dumps(GROUPS))
    assert suite_remotes([path]) == {SUITE_REMOTES: str(tmp_path / "remotes")}
    report = conformance.run([path], upgrade_drafts=False)
    stats = report.sections[SUITE]
    assert (stats.passing, stats.unsatisfiable_exact) == (1, 1)
    assert [(f["description"], f["why"]) for f in stats.failing] == [
        ("false, mislabelled", "rejected: unsatisfiable"),
        ("order", "valid instances rejected (1), property order only"),
    ]
    assert conformance.run([path], upgrade_drafts=False, ref_map={}).sections[SUITE].passing == 0
