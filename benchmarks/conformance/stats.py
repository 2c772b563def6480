"""Aggregation: per-section, per-engine figures of a run, and the `Report` that holds them."""
from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from benchmarks.conformance.cases import ENGINES, LISTED, SECTIONS, SUITE_FORMAT, CaseResult, instance_text, percentile
from benchmarks.conformance.engines import schemac_first

_MAX_SHOWN_DATA = 160
_EXAMPLES = 3  # rejection messages kept per code


def _short(data: Any) -> str:
    text = instance_text(data)
    return text if len(text) <= _MAX_SHOWN_DATA else text[: _MAX_SHOWN_DATA - 1] + "…"


@dataclass
class EngineStats:
    """One engine's figures over one section."""

    compiled: int = 0
    rejected: Counter = field(default_factory=Counter)
    rejected_examples: dict[str, list[dict[str, str]]] = field(default_factory=dict)
    bugs: list[dict[str, Any]] = field(default_factory=list)
    instances_checked: int = 0
    invalidation_errors: list[dict[str, Any]] = field(default_factory=list)
    validation_errors: list[dict[str, Any]] = field(default_factory=list)
    compile_ms: list[float] = field(default_factory=list)
    compile_cpu_ms: list[float] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "compiled": self.compiled,
            "rejected": sum(self.rejected.values()),
            "rejected_by": dict(self.rejected.most_common()),
            "rejected_examples": self.rejected_examples,
            "bugs": self.bugs,
            "instances_checked": self.instances_checked,
            "invalidation_errors": len(self.invalidation_errors),
            "invalidation_error_list": self.invalidation_errors,
            "validation_errors": len(self.validation_errors),
            "validation_errors_property_order": sum(e["property_order"] for e in self.validation_errors),
            "validation_error_list": self.validation_errors,
            "compile_ms_p50": percentile(self.compile_ms, 50),
            "compile_ms_p99": percentile(self.compile_ms, 99),
            "compile_ms_mean": sum(self.compile_ms) / len(self.compile_ms) if self.compile_ms else 0.0,
            "compile_cpu_ms_p50": percentile(self.compile_cpu_ms, 50),
            "compile_cpu_ms_p99": percentile(self.compile_cpu_ms, 99),
        }


@dataclass
class SectionStats:
    schemas: int = 0
    instances: int = 0
    schemas_without_tests: int = 0
    engines: dict[str, EngineStats] = field(default_factory=lambda: {e: EngineStats() for e in ENGINES})
    #: compile ms on schemas both engines compiled: the like-for-like ratio
    both_compiled_ms: dict[str, list[float]] = field(default_factory=lambda: {e: [] for e in ENGINES})
    #: the same times split by whether the engine compiled the case first or second (warm caches)
    by_turn: dict[tuple[str, bool], list[float]] = field(default_factory=dict)
    #: valid instances rejected on schemas both engines compiled: the like-for-like error count
    both_compiled_validation: Counter = field(default_factory=Counter)
    #: schemas raw llguidance compiled and schemac rejected (coverage must be a superset)
    llguidance_only: list[str] = field(default_factory=list)
    validator_disagreements: Counter = field(default_factory=Counter)  # per file
    validator_disagreement_list: list[dict[str, Any]] = field(default_factory=list)
    validator_errors: Counter = field(default_factory=Counter)  # per file: instances it could not judge
    default_policy_rejected: Counter = field(default_factory=Counter)
    tokenizer_mismatches: int = 0
    cpu_s: float = 0.0
    slowest: list[tuple[float, str]] = field(default_factory=list)  # (cpu s, case), top LISTED
    #: schemac compiled the case and every instance got its label (grammar verdicts)
    passing: int = 0
    #: schemac refused the case as `unsatisfiable` and every instance is labelled invalid: the
    #: refusal is the right verdict for each, though no grammar was written (not counted as passing)
    unsatisfiable_exact: int = 0
    failing: list[dict[str, str]] = field(default_factory=list)  # case, description, why (schemac)

    def add(self, result: CaseResult) -> None:
        case = result.case
        self.schemas += 1
        self.cpu_s += result.cpu_s
        self.slowest = sorted([*self.slowest, (result.cpu_s, case.location)], reverse=True)[:LISTED]
        self.instances += len(case.tests)
        self.schemas_without_tests += not case.tests
        self.tokenizer_mismatches += result.tokenizer_mismatches
        for name, res in result.engines.items():
            stats = self.engines[name]
            stats.compile_ms.append(res.compile_ms)
            stats.compile_cpu_ms.append(res.compile_cpu_ms)
            if res.status == "bug":
                stats.bugs.append({"case": case.location, "error": res.message})
                continue
            if res.status == "rejected":
                stats.rejected[res.code] += 1
                examples = stats.rejected_examples.setdefault(res.code, [])
                if len(examples) < _EXAMPLES:
                    examples.append({"case": case.location, "message": (res.message.splitlines() or [""])[0][:300]})
                continue
            stats.compiled += 1
            stats.instances_checked += len(case.tests)
            verdicts = zip(case.tests, res.accepted, res.errors, res.order_only)
            for t, ((data, valid), accepted, error, order_only) in enumerate(verdicts):
                if accepted == valid:
                    continue
                item = {"file": case.source, "group": case.index, "test": t, "data": _short(data)}
                if valid:
                    item["matcher_error"] = error.splitlines()[0][:_MAX_SHOWN_DATA] if error else "not accepting at end"
                    item["property_order"] = order_only
                    stats.validation_errors.append(item)
                else:
                    stats.invalidation_errors.append(item)
        self._verdict(result)
        if all(r.status == "compiled" for r in result.engines.values()):
            ours_first = schemac_first(case)
            for name, res in result.engines.items():
                self.both_compiled_ms[name].append(res.compile_ms)
                self.by_turn.setdefault((name, (name == "schemac") == ours_first), []).append(res.compile_ms)
                self.both_compiled_validation[name] += sum(
                    valid and not accepted for (_, valid), accepted in zip(case.tests, res.accepted)
                )
        elif result.engines["llguidance"].status == "compiled" and result.engines["schemac"].status == "rejected":
            self.llguidance_only.append(case.location)
        for t, ((data, valid), verdict) in enumerate(zip(case.tests, result.validator)):
            if verdict is None:
                self.validator_errors[case.source] += 1
            elif verdict != valid:
                self.validator_disagreements[case.source] += 1
                self.validator_disagreement_list.append(
                    {"file": case.source, "group": case.index, "test": t, "valid": valid, "data": _short(data)}
                )
        if result.default_policy_code:
            self.default_policy_rejected[result.default_policy_code] += 1

    def _verdict(self, result: CaseResult) -> None:
        """Count the case as passing, an exact `unsatisfiable` refusal, or failing (and why)."""
        case, ours = result.case, result.engines["schemac"]
        if ours.status == "compiled":
            wrong = [valid for (_, valid), accepted in zip(case.tests, ours.accepted) if accepted != valid]
            if not wrong:
                self.passing += 1
                return
            kind = "invalid instances accepted" if not all(wrong) else "valid instances rejected"
            order = all(o for (_, valid), a, o in zip(case.tests, ours.accepted, ours.order_only) if valid and not a)
            why = f"{kind} ({len(wrong)})" + (", property order only" if all(wrong) and order else "")
        elif ours.code == "unsatisfiable" and case.tests and not any(valid for _, valid in case.tests):
            self.unsatisfiable_exact += 1
            return
        else:
            why = f"{ours.status}: {ours.code}"
        self.failing.append({"case": case.location, "description": case.description, "why": why})

    def ratio(self) -> float | None:
        ours, raw = (percentile(self.both_compiled_ms[e], 50) for e in ENGINES)
        return ours / raw if raw > 0 else None

    def to_json(self) -> dict[str, Any]:
        ours, raw = (self.both_compiled_ms[e] for e in ENGINES)
        return {
            "schemas": self.schemas,
            "instances": self.instances,
            "schemas_without_tests": self.schemas_without_tests,
            "engines": {name: stats.to_json() for name, stats in self.engines.items()},
            "both_compiled": {
                "schemas": len(ours),
                "schemac_ms_p50": percentile(ours, 50),
                "schemac_ms_p99": percentile(ours, 99),
                "llguidance_ms_p50": percentile(raw, 50),
                "llguidance_ms_p99": percentile(raw, 99),
                "ratio_p50": self.ratio(),
                "ms_p50_first_second": {
                    e: [percentile(self.by_turn.get((e, first), []), 50) for first in (True, False)] for e in ENGINES
                },
                "schemac_validation_errors": self.both_compiled_validation["schemac"],
                "llguidance_validation_errors": self.both_compiled_validation["llguidance"],
            },
            "llguidance_only": self.llguidance_only,
            "validator_disagreements": sum(self.validator_disagreements.values()),
            "validator_disagreements_by_file": dict(self.validator_disagreements.most_common()),
            "validator_disagreement_list": self.validator_disagreement_list,
            "validator_unjudged_by_file": dict(self.validator_errors.most_common()),
            "default_policy_rejected_by": dict(self.default_policy_rejected.most_common()),
            "groups_passing": self.passing,
            "groups_unsatisfiable_exact": self.unsatisfiable_exact,
            "groups_failing": self.failing,
            "tokenizer_mismatches": self.tokenizer_mismatches,
            "cpu_s": round(self.cpu_s, 2),
            "slowest_cases_cpu_s": [{"case": c, "cpu_s": round(t, 3)} for t, c in self.slowest],
        }


@dataclass
class Report:
    """All figures of one run; `render.render_text` for people, `to_json()` for tools and the README."""

    tokenizer: str
    vocab_size: int
    upgrade_drafts: bool
    jobs: int
    key_order: str = "schema"
    ref_map: dict[str, str] = field(default_factory=dict)  # remote documents served from folders
    wall_s: float = 0.0
    sections: dict[str, SectionStats] = field(default_factory=dict)
    validator_note: str = ""

    def add(self, result: CaseResult) -> None:
        self.sections.setdefault(result.case.section, SectionStats()).add(result)
        if result.validator_error and not self.validator_note:
            self.validator_note = result.validator_error

    def ordered(self) -> list[tuple[str, SectionStats]]:
        return [(name, self.sections[name]) for name in SECTIONS if name in self.sections]

    def promise_broken(self) -> bool:
        """True on any schemac bug, or any schemac invalidation error outside optional/format."""
        return any(
            stats.engines["schemac"].bugs or (name != SUITE_FORMAT and stats.engines["schemac"].invalidation_errors)
            for name, stats in self.sections.items()
        )

    def to_json(self) -> dict[str, Any]:
        from schemac.version import __version__

        return {
            "schemac_version": __version__,
            "tokenizer": self.tokenizer,
            "vocab_size": self.vocab_size,
            "upgrade_drafts": self.upgrade_drafts,
            "key_order": self.key_order,
            "ref_map": self.ref_map,
            "jobs": self.jobs,
            "wall_s": round(self.wall_s, 2),
            "cpu_s": round(sum(s.cpu_s for s in self.sections.values()), 2),
            "measured_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
            "validator_note": self.validator_note,
            "sections": {name: stats.to_json() for name, stats in self.ordered()},
        }

