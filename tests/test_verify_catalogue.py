"""The primitive catalogue, every golden fixture and every supported testdata schema through
`schemac.verify` (issue 13): 0 unsound texts, 0 refused canonical instances, 0 dead ends, and on
the catalogue 0 disagreements between the final validator and plain jsonschema.

Depths are chosen so the whole file runs in about two minutes on 2 cores (keys need 4 tokens:
`{`, `"\\u0062":`, a value, `}`); `benchmarks/verify_deep.py` walks deeper and prints figures.

Failures being fixed by other work (issue 13) are named in `KNOWN` (a case) or `KNOWN_CLASSES`
(a kind of counterexample, with a minimal repro): a case whose every counterexample belongs to a
known class is an xfail; any other counterexample fails. Each known class's repro is a strict
xfail, so the fix makes it fail here until its entry is removed.
"""
from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path
from typing import Any, Callable

import pytest

import schemac
from schemac.verify.alphabet import render

ROOT = Path(__file__).resolve().parents[1]
CATALOGUE = ROOT / "testdata" / "catalogue"
#: per catalogue file: walk depth in alphabet tokens
DEPTHS = {"keys.json": 4}
CI = {"max_nodes": 4000, "canonical": 300, "time_s": 20.0}

#: catalogue/fixture id → why it fails today (see the verify helper's report for repros)
KNOWN: dict[str, str] = {
}
#: class → (does a counterexample text belong to it, why, minimal repro schema, depth)
KNOWN_CLASSES: dict[str, tuple[Callable[[str], bool], str, Any, int]] = {
    "raw-DEL": (lambda text: "\x7f" in text,
                "a raw U+007F in a string (json.dumps writes it raw) is refused: syntax policy (emit)",
                {"const": "\x7f"}, 1),
}


def _catalogue() -> list[Any]:
    out = []
    for path in sorted(CATALOGUE.glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"), parse_float=Decimal)
        for case in data["cases"]:
            name = f"{path.name}:{case['name']}"
            marks = [pytest.mark.xfail(reason=KNOWN[name], strict=True)] if name in KNOWN else []
            # exact numbers: the schema goes to the compiler as text, literals spelt as written
            out.append(pytest.param(render(case["schema"], ",", ":"), DEPTHS.get(path.name, 3), id=name, marks=marks))
    return out


def _corpus() -> list[Any]:
    paths = sorted((ROOT / "tests" / "fixtures" / "lower").glob("**/*.json"))
    paths += sorted((ROOT / "testdata" / "schemas" / "supported").glob("*.json"))
    out = []
    for path in paths:
        text = path.read_text(encoding="utf-8")
        data = json.loads(text)
        source = data["schema"] if "tests" in data and "schema" in data else text
        name = str(path.relative_to(ROOT))
        marks = [pytest.mark.xfail(reason=KNOWN[name], strict=True)] if name in KNOWN else []
        out.append(pytest.param(source, id=name, marks=marks))
    return out


def _check(report: Any) -> None:
    """Pass when clean; xfail when every counterexample is of a known class; else fail."""
    if report.ok:
        return
    classes = {name for c in report.counterexamples for name, (matches, *_rest) in KNOWN_CLASSES.items()
               if matches(c.text)}
    unknown = [c for c in report.counterexamples if not any(m(c.text) for m, *_rest in KNOWN_CLASSES.values())]
    if classes and not unknown and not report.dead_ends and report.counterexamples:
        pytest.xfail("; ".join(KNOWN_CLASSES[name][1] for name in sorted(classes)))
    raise AssertionError(_explain(report, unknown))


@pytest.mark.parametrize("name", sorted(KNOWN_CLASSES))
def test_known_class_still_fails(name: str) -> None:
    """Strict: passes only while the class is still broken (remove its entry once fixed)."""
    matches, why, schema, depth = KNOWN_CLASSES[name]
    report = schemac.verify(schema, depth=depth, cross_check=True, **CI)
    if report.ok or not all(matches(c.text) for c in report.counterexamples):
        raise AssertionError(f"{name} no longer reproduces as described ({why}): remove it from KNOWN_CLASSES\n"
                             + _explain(report))


def _explain(report: Any, shown: list[Any] | None = None) -> str:
    lines = [report.summary()]
    lines += [f"{c.kind}: {c.text!r} {c.detail}" for c in (report.counterexamples if shown is None else shown)[:6]]
    lines += [f"dead end after {t!r}" for t in report.dead_ends[:3]]
    return "\n".join(lines)


def test_catalogue_is_there() -> None:
    cases = _catalogue()
    assert len(cases) >= 140
    assert len(_corpus()) >= 100


@pytest.mark.parametrize("source, depth", _catalogue())
def test_catalogue(source: str, depth: int) -> None:
    report = schemac.verify(source, depth=depth, cross_check=True, **CI)
    _check(report)
    assert report.status == "rejected" or report.oracle != "on" or report.oracle_checked > 0


@pytest.mark.parametrize("source", _corpus())
def test_fixtures_and_testdata(source: Any) -> None:
    report = schemac.verify(source, depth=3, upgrade_drafts=True, **CI)
    _check(report)
