"""Load: schema text → Python value, rejecting what JSON leaves ambiguous.

Duplicate keys (last-wins in most parsers, first-wins in others), NaN/Infinity literals and
numbers that overflow a double all make a schema mean different things to different tools, so
they are errors here, with line and column.
"""
from __future__ import annotations

import json
import math
from typing import Any

from schemac.budget import Limits
from schemac.diagnostics import CompileError, Diagnostic, Severity, reject
from schemac.schema import Schema


class _Ambiguous(ValueError):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _Ambiguous("duplicate-key", f"duplicate object key {key!r}")
        out[key] = value
    return out


def _constant(name: str) -> Any:
    raise _Ambiguous("invalid-number", f"{name} is not valid JSON")


def _float(text: str) -> float:
    value = float(text)
    if math.isinf(value):
        raise _Ambiguous("invalid-number", f"number {text} overflows a double")
    return value


def _line_col(text: str, pos: int) -> tuple[int, int]:
    line = text.count("\n", 0, pos) + 1
    return line, pos - (text.rfind("\n", 0, pos) + 1) + 1


def _located(code: str, message: str, text: str, pos: int | None) -> CompileError:
    line, col = _line_col(text, pos) if pos is not None else (None, None)
    where = f" (line {line}, column {col})" if line is not None else ""
    return CompileError(Diagnostic(Severity.ERROR, code, "", message + where, None, line, col))


def parse_text(text: str | bytes, limits: Limits | None = None) -> Any:
    """Parse JSON text strictly. Raises CompileError (invalid-json, duplicate-key, invalid-number, too-large)."""
    limits = limits or Limits()
    if isinstance(text, bytes):
        if len(text) > limits.max_schema_bytes:
            raise reject("too-large", "", f"schema is {len(text)} bytes; the limit is {limits.max_schema_bytes}")
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise _located("invalid-json", f"schema is not valid UTF-8: {exc.reason}", "", None) from exc
    if len(text) > limits.max_schema_bytes:
        raise reject("too-large", "", f"schema is {len(text)} characters; the limit is {limits.max_schema_bytes}")
    # a cheap bracket-depth pre-scan keeps json's recursive decoder from overflowing the stack
    _check_depth(text, limits.max_depth)
    try:
        return json.loads(text, object_pairs_hook=_pairs, parse_constant=_constant, parse_float=_float)
    except _Ambiguous as exc:
        raise _located(exc.code, str(exc), text, None) from exc
    except json.JSONDecodeError as exc:
        raise _located("invalid-json", exc.msg, text, exc.pos) from exc
    except RecursionError as exc:
        raise reject("too-large", "", "schema nesting is too deep to parse") from exc


def _check_depth(text: str, max_depth: int) -> None:
    """Reject bracket nesting past `max_depth` (strings skipped) before the recursive parser runs."""
    depth = 0
    in_string = False
    escaped = False
    limit = max_depth * 2 + 8  # a schema level is an object plus, often, an array/map inside
    for i, ch in enumerate(text):
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            if depth > limit:
                line, col = _line_col(text, i)
                raise CompileError(Diagnostic(
                    Severity.ERROR, "too-large", "",
                    f"JSON nesting exceeds {limit} levels (line {line}, column {col})", None, line, col,
                ))
        elif ch in "]}":
            depth -= 1


def check_value(value: Any, limits: Limits | None = None) -> Schema:
    """Validate an in-memory schema value: object or boolean, finite numbers, bounded depth."""
    limits = limits or Limits()
    if not isinstance(value, (dict, bool)):
        raise reject("invalid-schema", "", f"a schema must be a JSON object or boolean, not {type(value).__name__}")
    stack: list[tuple[Any, int]] = [(value, 0)]
    nodes = 0
    while stack:
        cur, depth = stack.pop()
        nodes += 1
        if nodes > limits.max_nodes:
            raise reject("too-large", "", f"schema has more than {limits.max_nodes} JSON values")
        if depth > limits.max_depth * 2 + 8:
            raise reject("too-large", "", "schema nesting is too deep")
        if isinstance(cur, dict):
            for k, v in cur.items():
                if not isinstance(k, str):
                    raise reject("invalid-schema", "", f"object key {k!r} is not a string")
                stack.append((v, depth + 1))
        elif isinstance(cur, list):
            stack.extend((v, depth + 1) for v in cur)
        elif isinstance(cur, float) and not math.isfinite(cur):
            raise reject("invalid-number", "", f"{cur} is not a JSON number")
        elif not (cur is None or isinstance(cur, (str, int, float, bool))):
            raise reject("invalid-schema", "", f"{type(cur).__name__} is not a JSON value")
    return value


def load(source: Any, limits: Limits | None = None) -> Schema:
    """A schema from JSON text/bytes or an in-memory dict/bool."""
    value = parse_text(source, limits) if isinstance(source, (str, bytes)) else source
    return check_value(value, limits)
