"""The hang verdict in steps, for the children that compile the adversarial and hostile corpora.

A compile's work is counted in steps (`schemac.budget`), and the step budget ends every compile
with `too-large` long before any clock matters; a compile still running past its steps did not
end within its step budget: a hang, on any machine and under any load. `install` counts every
step of every `Budget` in the process (`Budget.step`, which reservations and native calls pay
through) and raises `Hang` at each step past `STEP_CEILING` of one case (`start_case`). `NO_CLOCK`
turns off the compiler's own wall-clock guard (`compile-timeout`), so no outcome rides on the
clock. Work no step pays for (a native call that never returns) is left to the parent's
wall-clock last resort, which reports an infrastructure timeout (`infrastructure_timeout`),
never a verdict.
"""
from __future__ import annotations

import math
from typing import Any

from schemac.budget import Budget, Limits

#: The steps one case's compiles may take in all: the step budget (a first attempt and its
#: `properties`-order fallback share it, docs/budget.md), and as much again for the last
#: uninterruptible call that passes it (paid, by size, before it runs).
STEP_CEILING = 2 * Limits().steps
#: The last resort for work no step pays for, per case: generous (a compile within its step
#: budget takes seconds), and only ever an infrastructure timeout.
INFRA_WALL_S = 600.0
#: Limits with the compiler's wall-clock guard off: every outcome is decided in steps.
NO_CLOCK = Limits(deadline_s=math.inf)

_count = {"steps": 0}


class Hang(BaseException):
    """Raised at every step past the ceiling (a BaseException, and raised again at the next
    step: no handler in the compiler can keep the compile going past it)."""


def install(ceiling: int = STEP_CEILING) -> None:
    """Count every step this process's budgets take; past `ceiling` in one case, `Hang`."""
    step = Budget.step

    def counted(self: Budget, pointer: str, n: int = 1) -> None:
        _count["steps"] += n
        if _count["steps"] > ceiling:
            raise Hang(f"hang: the compile took {_count['steps']:,} steps without ending (its step budget is "
                       f"{self.limits.steps:,}; a case may take {ceiling:,} in all)")
        step(self, pointer, n)

    Budget.step = counted  # type: ignore[method-assign]


def start_case() -> None:
    """Count the next case's steps from zero."""
    _count["steps"] = 0


def steps() -> int:
    """The steps the current case took so far."""
    return _count["steps"]


def infrastructure_timeout(wall_s: float, what: str = "no result") -> str:
    """The message of the wall-clock last resort: loud, and never a verdict on the case."""
    return (f"infrastructure timeout: {what} after {wall_s:.0f} s of wall time, the last resort for work no "
            "step pays for; not a verdict on the case (its steps are counted, and a compile past its step "
            "budget ends as a hang): rerun on a quiet machine, and if it repeats, find the uncounted work")


def limits_with(options: dict[str, Any]) -> dict[str, Any]:
    """`schemac.compile` keyword arguments: `options` with `NO_CLOCK` unless they set limits."""
    return {"limits": NO_CLOCK, **options}
