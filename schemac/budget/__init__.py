"""One shared expansion budget per schema.

Every lowering that generates branches, candidate evaluations or regex text reserves capacity here
*before* building the expansion, so a schema that would blow up is rejected early and never
approximated. Nested and sibling schemas draw on the same object.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

from schemac.diagnostics import reject

#: Default limits (see DESIGN.md): entries are generated anyOf branches, enum members and array
#: alternatives; evaluations are finite-domain candidates checked with the validator.
DEFAULT_LIMITS: dict[str, int] = {
    "entries": 256,
    "evaluations": 4096,
    "regex_chars": 262_144,
}


@dataclass(frozen=True)
class Limits:
    """Hard bounds that hold whatever the schema: size, depth and wall-clock time."""

    entries: int = DEFAULT_LIMITS["entries"]
    evaluations: int = DEFAULT_LIMITS["evaluations"]
    regex_chars: int = DEFAULT_LIMITS["regex_chars"]
    max_schema_bytes: int = 16 * 1024 * 1024
    max_depth: int = 256
    max_nodes: int = 200_000
    max_grammar_bytes: int = 8 * 1024 * 1024
    deadline_s: float = 5.0


@dataclass
class Budget:
    limits: Limits = field(default_factory=Limits)
    used: dict[str, int] = field(default_factory=lambda: {k: 0 for k in DEFAULT_LIMITS})
    started: float = field(default_factory=time.monotonic)

    def limit(self, kind: str) -> int:
        return int(getattr(self.limits, kind))

    def reserve(self, kind: str, n: int, pointer: str) -> None:
        """Claim `n` units of `kind` or raise `budget-exhausted`; nothing is claimed on failure."""
        if kind not in self.used:
            raise KeyError(kind)
        self.check_deadline(pointer)
        after = self.used[kind] + n
        if after > self.limit(kind):
            raise reject(
                "budget-exhausted",
                pointer,
                f"the '{kind}' budget ({self.limit(kind)}) is exhausted: this expansion needs {n} "
                f"more with {self.used[kind]} already used",
                hint="simplify the construct at this pointer (bound it, or make branches disjoint)",
            )
        self.used[kind] = after

    def check_deadline(self, pointer: str) -> None:
        if time.monotonic() - self.started > self.limits.deadline_s:
            raise reject(
                "too-large",
                pointer,
                f"compilation passed its {self.limits.deadline_s:g} s deadline",
            )

    def report(self) -> dict[str, dict[str, int]]:
        return {k: {"used": v, "limit": self.limit(k)} for k, v in self.used.items()}
