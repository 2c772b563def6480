"""Hostile schemas for issue 6: each must compile or be rejected with a diagnostic, bounded.

Builders are functions (a 10 MB schema is not built at import). `run_case` is what the bounded
subprocess runs; `EXPECTED` names the accepted outcomes of each case: "ok" or diagnostic codes.
"""
from __future__ import annotations

import json
from typing import Any, Callable


def _fanout(keyword: str, levels: int = 40) -> dict[str, Any]:
    defs: dict[str, Any] = {"d0": {"type": "integer"}}
    for i in range(1, levels):
        prev = {"$ref": f"#/$defs/d{i - 1}"}
        defs[f"d{i}"] = {keyword: [prev, prev]}
    return {"$defs": defs, "$ref": f"#/$defs/d{levels - 1}"}


def _nest(wrap: Callable[[Any, int], Any], levels: int = 30) -> Any:
    node: Any = {"type": "integer"}
    for i in range(levels):
        node = wrap(node, i)
    return node


def _deep_text(n: int, kind: str) -> str:
    if kind == "array":
        return '{"items": ' * n + "{}" + "}" * n
    return '{"properties": {"a": ' * n + "{}" + "}}" * n


def _deep_value(n: int, kind: str) -> dict[str, Any]:
    node: dict[str, Any] = {}
    for _ in range(n):
        node = {"items": node} if kind == "array" else {"properties": {"a": node}}
    return node


CASES: dict[str, Callable[[], Any]] = {
    # ReDoS-style and oversized patterns (RE2/llguidance are linear; size is what is bounded)
    "nested-quantifiers": lambda: {"type": "string", "pattern": "^(a+)+$"},
    "nested-stars": lambda: {"type": "string", "pattern": "((a*)*)*b"},
    "a-or-aa-star": lambda: {"type": "string", "pattern": "^(a|aa)*b$"},
    "huge-alternation": lambda: {"type": "string", "pattern": "^(" + "|".join(f"w{i}" for i in range(20_000)) + ")$"},
    "counted-of-counted": lambda: {"type": "string", "pattern": "(a{1000}){1000}"},
    "counted-counted-bare": lambda: {"type": "string", "pattern": "a{1000}{1000}"},
    "pattern-at-bound": lambda: {"type": "string", "pattern": "a" * 262_144},
    "pattern-over-bound": lambda: {"type": "string", "pattern": "a" * 262_145},
    "re2-program-over-2mib": lambda: {"type": "string", "pattern": ".{1000}" * 30},
    "re2-dfa-blowup": lambda: {"type": "string", "pattern": "[a-q][^u-z]{13}x"},
    # $ref bombs and cycles
    "ref-bomb-root": lambda: {"allOf": [{"$ref": "#"}, {"$ref": "#"}]},
    "ref-fanout-allof": lambda: _fanout("allOf"),
    "ref-fanout-anyof": lambda: _fanout("anyOf"),
    "ref-fanout-oneof": lambda: _fanout("oneOf"),
    "ref-cycle-bare": lambda: {"$ref": "#"},
    "ref-cycle-siblings": lambda: {"$ref": "#", "type": "object", "minProperties": 1},
    "ref-cycle-defs": lambda: {"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a"},
    "ref-cycle-productive": lambda: {"type": "array", "items": {"$ref": "#"}, "maxItems": 2},
    # depth
    "deep-arrays-text": lambda: _deep_text(10_000, "array"),
    "deep-objects-text": lambda: _deep_text(10_000, "object"),
    "deep-arrays-value": lambda: _deep_value(10_000, "array"),
    "deep-objects-value": lambda: _deep_value(10_000, "object"),
    "deep-const-literal": lambda: '{"const": ' + "[" * 10_000 + "]" * 10_000 + "}",
    # size
    "ten-megabytes": lambda: json.dumps({"type": "object", "properties": {
        f"p{i}": {"description": "x" * 1000} for i in range(10_000)}}),
    "enum-100k-ints": lambda: {"enum": list(range(100_000))},
    "enum-100k-strings": lambda: {"enum": [f"value-{i}" for i in range(100_000)]},
    "properties-10k": lambda: {"type": "object", "properties": {f"p{i}": {"type": "integer"} for i in range(10_000)}},
    "anyof-60k-consts": lambda: {"anyOf": [{"const": i} for i in range(60_000)]},
    "allof-merge-7k-properties": lambda: {"type": "object", "allOf": [
        {"properties": {f"a{j}_{i}": {"type": "integer"} for i in range(350)}} for j in range(20)]},
    "patterns-2000": lambda: {"anyOf": [{"type": "string", "pattern": "^" + "[a-z]{20}" * 10 + f"{i}$"} for i in range(2000)]},
    # expansion budgets
    "not-nest": lambda: _nest(lambda s, i: {"not": {"anyOf": [s, {"maximum": i}]}}),
    "oneof-nest": lambda: _nest(lambda s, i: {"oneOf": [s, {"not": s}, {"minimum": i}]}),
    "if-nest": lambda: _nest(lambda s, i: {"if": s, "then": {"minimum": i}, "else": {"not": s}}),
    "oneof-overlap-19k": lambda: {"oneOf": [{"const": i} for i in range(19_000)]},
    "unique-items-enum": lambda: {"type": "array", "items": {"enum": list(range(40_000))}, "uniqueItems": True, "maxItems": 3},
    "not-of-enum-in-oneof": lambda: {"oneOf": [{"enum": list(range(i, i + 50))} for i in range(0, 20_000, 25)]},
    # remote refs (never fetched)
    "remote-loopback": lambda: {"$ref": "http://127.0.0.1:9/schema.json"},
    "remote-loopback-nested": lambda: {"properties": {"a": {"$ref": "https://localhost/s.json#/x"}}},
    "remote-id-relative": lambda: {"$id": "http://127.0.0.1/root.json", "$ref": "other.json"},
    # text-level ambiguity
    "invalid-utf8": lambda: b'{"const": "\xff\xfe"}',
    "overlong-utf8": lambda: b'{"const": "\xc0\xaf"}',
    "lone-surrogate-value": lambda: '{"const": "\\ud800"}',
    "lone-surrogate-pattern": lambda: '{"pattern": "\\udfff"}',
    "lone-surrogate-key": lambda: '{"properties": {"\\udc00": {}}}',
    "lone-surrogate-dict": lambda: {"enum": ["ok", "\ud800"]},
    "nan-literal": lambda: '{"maximum": NaN}',
    "infinity-literal": lambda: '{"minimum": -Infinity}',
    "nan-float-value": lambda: {"maximum": float("nan")},
    "duplicate-keys": lambda: '{"type": "string", "type": "number"}',
    "number-1e400": lambda: '{"maximum": 1e400}',
    "minus-zero": lambda: '{"type": "number", "minimum": -0, "maximum": -0.0}',
    "huge-integer-text": lambda: '{"const": ' + "9" * 5000 + "}",
    "huge-integer-value": lambda: {"const": 10 ** 5000},
    "integer-past-double": lambda: '{"maximum": 2' + "0" * 309 + "}",
    "integer-in-double-range": lambda: '{"type": "integer", "maximum": 1' + "0" * 300 + "}",
    # unsatisfiable
    "unsat-false": lambda: False,
    "unsat-length": lambda: {"type": "string", "minLength": 5, "maxLength": 2},
    "unsat-allof-types": lambda: {"allOf": [{"type": "string"}, {"type": "integer"}]},
    "unsat-not-true": lambda: {"not": {}},
    "unsat-enum-type": lambda: {"type": "string", "enum": [1, 2]},
}

EXPECTED: dict[str, set[str]] = {
    "nested-quantifiers": {"ok"},
    "nested-stars": {"ok"},
    "a-or-aa-star": {"ok"},
    "huge-alternation": {"ok"},
    "counted-of-counted": {"regex-too-large"},
    "counted-counted-bare": {"unsupported-regex"},
    "pattern-at-bound": {"regex-too-large"},
    "pattern-over-bound": {"regex-too-large"},
    "re2-program-over-2mib": {"regex-too-large"},
    "ref-bomb-root": {"unresolvable-ref"},
    "ref-fanout-allof": {"ok"},
    "ref-fanout-anyof": {"ok"},
    "ref-fanout-oneof": {"ok", "one-of-not-exact", "budget-exhausted", "unsatisfiable", "too-large"},  # oneOf[X, X] is false; the deadline may end it first
    "ref-cycle-bare": {"unresolvable-ref"},
    "ref-cycle-siblings": {"unresolvable-ref"},
    "ref-cycle-defs": {"unresolvable-ref"},
    "ref-cycle-productive": {"ok"},
    "deep-arrays-text": {"too-large"},
    "deep-objects-text": {"too-large"},
    "deep-arrays-value": {"too-large"},
    "deep-objects-value": {"too-large"},
    "deep-const-literal": {"too-large"},
    "ten-megabytes": {"too-large"},
    "enum-100k-ints": {"too-large"},
    "enum-100k-strings": {"too-large"},
    "properties-10k": {"too-large"},
    "anyof-60k-consts": {"too-large"},
    "allof-merge-7k-properties": {"grammar-error", "too-large", "budget-exhausted"},
    "patterns-2000": {"ok", "too-large"},
    "not-nest": {"not-exact", "budget-exhausted", "too-large"},
    "oneof-nest": {"too-large", "budget-exhausted"},
    "if-nest": {"too-large", "budget-exhausted"},
    "oneof-overlap-19k": {"budget-exhausted", "too-large"},
    "unique-items-enum": {"budget-exhausted"},
    "not-of-enum-in-oneof": {"budget-exhausted", "one-of-not-exact", "too-large"},
    "remote-loopback": {"remote-ref"},
    "remote-loopback-nested": {"remote-ref"},
    "remote-id-relative": {"remote-ref"},
    "invalid-utf8": {"invalid-json"},
    "overlong-utf8": {"invalid-json"},
    "lone-surrogate-value": {"invalid-json"},
    "lone-surrogate-pattern": {"invalid-json"},
    "lone-surrogate-key": {"invalid-json"},
    "lone-surrogate-dict": {"invalid-json"},
    "nan-literal": {"invalid-number"},
    "infinity-literal": {"invalid-number"},
    "nan-float-value": {"invalid-number"},
    "duplicate-keys": {"duplicate-key"},
    "number-1e400": {"invalid-number"},
    "minus-zero": {"ok"},
    "huge-integer-text": {"invalid-number"},
    "huge-integer-value": {"invalid-number"},
    "integer-past-double": {"invalid-number"},
    "integer-in-double-range": {"ok"},  # a 301-digit bound: its digits are written as counted runs
    "re2-dfa-blowup": {"ok"},
    "unsat-false": {"unsatisfiable"},
    "unsat-length": {"unsatisfiable"},
    "unsat-allof-types": {"unsatisfiable"},
    "unsat-not-true": {"unsatisfiable"},
    "unsat-enum-type": {"unsatisfiable"},
}


def run_case(name: str) -> dict[str, Any]:
    """Compile one case in this process; the outcome as JSON-able data (never raises)."""
    import schemac
    from schemac.diagnostics import CompileError
    from testkit.step_watch import Hang, limits_with, start_case

    schema = CASES[name]()
    start_case()
    try:
        artifact = schemac.compile(schema, use_cache=False, **limits_with({}))
        outcome = "ok"
        diagnostics = [d.code for d in artifact.diagnostics]
    except CompileError as exc:
        outcome = exc.codes[0] if exc.codes else "no-error-code"
        diagnostics = [d.code for d in exc.diagnostics]
    except Hang as exc:  # past its step budget, still running (`testkit.step_watch`)
        outcome, diagnostics = str(exc), []
    except BaseException as exc:  # noqa: BLE001 - the point of the test is to see any escape
        outcome = f"escaped {type(exc).__name__}: {str(exc)[:200]}"
        diagnostics = []
    return {"outcome": outcome, "diagnostics": diagnostics}
