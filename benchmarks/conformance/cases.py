"""Conformance cases: Test Suite and MaskBench files loaded into labelled schemas, and the
per-case records the engines fill in."""
from __future__ import annotations

import fnmatch
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

#: Report sections: the Test Suite's optional/format files are kept apart because formats are
#: optional assertions there, and schemac's goal is "0 invalidation errors outside them".
SUITE = "suite"
SUITE_FORMAT = "suite:optional/format"
MASKBENCH = "maskbench"
SECTIONS = (SUITE, SUITE_FORMAT, MASKBENCH)
ENGINES = ("schemac", "llguidance")

LISTED = 20  # items shown per list in the text report; --json has them all


@dataclass
class Case:
    """One schema and its labelled instances, located by file and group index."""

    source: str
    index: int
    section: str
    description: str
    schema: Any
    tests: list[tuple[Any, bool]]

    @property
    def location(self) -> str:
        return f"{self.source}#{self.index}" if self.section != MASKBENCH else self.source


@dataclass
class EngineResult:
    """One engine on one case: how compiling went and, if it compiled, each instance's verdict."""

    status: str  # "compiled" | "rejected" | "bug"
    code: str = ""
    message: str = ""
    compile_ms: float = 0.0
    compile_cpu_ms: float = 0.0  # thread CPU time of the same span: robust on a shared machine
    accepted: list[bool] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)  # matcher error per instance ("" if none)
    order_only: list[bool] = field(default_factory=list)  # rejected, but accepted with keys reordered


@dataclass
class CaseResult:
    case: Case
    engines: dict[str, EngineResult]
    validator: list[bool | None] = field(default_factory=list)  # None: validator raised
    validator_error: str = ""
    default_policy_code: str = ""  # first error code with upgrade_drafts off (MaskBench only)
    tokenizer_mismatches: int = 0
    cpu_s: float = 0.0  # worker CPU time for the whole case: wall time lies on a busy machine


# ---------------------------------------------------------------------------------------------
# Loading


def _section_for(path: Path, is_suite: bool) -> str:
    if not is_suite:
        return MASKBENCH
    parts = path.as_posix().split("/")
    return SUITE_FORMAT if any(a == "optional" and b == "format" for a, b in zip(parts, parts[1:])) else SUITE


def _expand(paths: Iterable[str | os.PathLike[str]], files: str | None) -> list[tuple[Path, str]]:
    """(file, display name) for each JSON file under `paths`, filtered by the `files` glob."""
    found: list[tuple[Path, str]] = []
    for raw in paths:
        root = Path(raw)
        if root.is_dir():
            items = [(p, p.relative_to(root.parent).as_posix()) for p in sorted(root.rglob("*.json"))]
        else:
            items = [(root, root.name)]
        for path, name in items:
            if files is None or fnmatch.fnmatch(name, files) or fnmatch.fnmatch(path.name, files):
                found.append((path, name))
    return found


def load_cases(paths: Iterable[str | os.PathLike[str]], *, files: str | None = None) -> list[Case]:
    """Cases from Test Suite files (a list of groups) and MaskBench files (one object each)."""
    cases: list[Case] = []
    for path, name in _expand(paths, files):
        data = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(data, list):
            section = _section_for(path, True)
            for i, group in enumerate(data):
                tests = [(t["data"], bool(t["valid"])) for t in group.get("tests", [])]
                cases.append(Case(name, i, section, group.get("description", ""), group["schema"], tests))
        elif isinstance(data, dict) and "schema" in data:
            tests = [(t["data"], bool(t["valid"])) for t in data.get("tests", [])]
            cases.append(Case(name, 0, MASKBENCH, data.get("description", ""), data["schema"], tests))
        else:
            raise ValueError(f"{path}: neither a Test Suite file nor a MaskBench file")
    return cases



def percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    rank = min(len(ordered) - 1, max(0, int(round(q / 100.0 * (len(ordered) - 1)))))
    return ordered[rank]


def instance_text(data: Any) -> str:
    """The answer text fed to the matchers: `json.dumps` default text (", " and ": ")."""
    text = json.dumps(data, ensure_ascii=False)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # lone surrogates: only the escaped form is a UTF-8 text
        text = json.dumps(data)
    return text
