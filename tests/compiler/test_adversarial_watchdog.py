"""The adversarial corpus's watchdog (`test_adversarial.run_shard`) can fail, and in steps.

A compile that never ends within its step budget is a hang whatever the clock says: the child
counts the steps of every budget a case's compiles make and ends the case past `STEP_CEILING`.
Work no step pays for is caught only by the wall-clock last resort, which names itself an
infrastructure timeout. The faults are put in the child by `prelude` (a fake `schemac.compile`).
"""
from __future__ import annotations

import json
from pathlib import Path

from tests.compiler.test_adversarial import STEP_CEILING, run_shard

#: a compile that keeps working on fresh budgets, each ended by `too-large`: budgeted work that
#: never ends (the hang the steps catch, long before any clock would)
RUNAWAY = '''
from schemac.budget import Budget
def _runaway(*args, **kwargs):
    budget = Budget()
    while True:
        try:
            budget.step("")
        except CompileError:
            budget = Budget()
schemac.compile = _runaway
'''
#: a compile stuck where no step is counted (as a native call that never returns would be)
STUCK = '''
import time
def _stuck(*args, **kwargs):
    time.sleep(3600)
schemac.compile = _stuck
'''


def _corpus(tmp_path: Path) -> Path:
    (tmp_path / "one.json").write_text(json.dumps({"schema": {"type": "integer"}, "valid": ["1"], "invalid": ['"a"'],
                                                   "why": "a plain case"}))
    return tmp_path


def test_runaway_compile_is_a_hang_counted_in_steps(tmp_path: Path) -> None:
    result = run_shard(["one"], corpus=_corpus(tmp_path), prelude=RUNAWAY)["one"]
    assert result["problems"][0].startswith("hang: the compile took"), result
    assert result["steps"] == STEP_CEILING + 1


def test_uncounted_work_is_an_infrastructure_timeout_not_a_verdict(tmp_path: Path) -> None:
    result = run_shard(["one"], corpus=_corpus(tmp_path), prelude=STUCK, wall_s=2.0)["one"]
    assert result["problems"][0].startswith("infrastructure timeout: no result after"), result
    assert "not a verdict" in result["problems"][0]


def test_a_plain_case_passes_with_its_steps_counted(tmp_path: Path) -> None:
    result = run_shard(["one"], corpus=_corpus(tmp_path))["one"]
    assert result["problems"] == [] and result["steps"] > 0, result
