"""Load: schema text → Python value, rejecting what JSON leaves ambiguous.

Duplicate keys (last-wins in most parsers, first-wins in others), NaN/Infinity literals,
numbers that overflow a double and fraction/exponent literals no double spells exactly
(`0.10000000000000000001`, `1e-400`) all make a schema mean different things to different tools,
so they are errors here, with line and column. Integers stay Python ints (exact at any size up
to the double range); every float kept stands for the decimal its repr spells. Lone UTF-16 surrogates are refused too (no UTF-8 text,
so no answer, can hold one), and `check_cost` bounds the work the later stages will do.
"""
from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import Any

from schemac.budget import Limits, check_cost
from schemac.diagnostics import CompileError, Diagnostic, Severity, reject
from schemac.numbers.exact import literal_is_exact
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
    """A fraction/exponent literal as a float, only where the float stands for the literal's
    exact value (its shortest repr spells that value: `schemac.numbers.exact.exact`)."""
    value = float(text)
    if math.isinf(value):
        raise _Ambiguous("invalid-number", f"number {text} overflows a double")
    if not literal_is_exact(text):
        raise _Ambiguous(
            "invalid-number",
            f"number {text} has no exact double-precision value (it would be read as {value!r}, "
            "and tools disagree on which); write it with at most 15 significant digits, or an integer "
            "value without fraction or exponent",
        )
    return value


#: an integer at least 2**1024 overflows a double, like 1e400 does (and Python refuses to
#: convert integer text past 4,300 digits, which must not escape as a ValueError)
_MAX_INT_BITS = 1024


def _int(text: str) -> int:
    if len(text.lstrip("-")) > 310:
        raise _Ambiguous("invalid-number", f"integer {text[:20]}... ({len(text)} digits) overflows a double")
    value = int(text)
    if value.bit_length() > _MAX_INT_BITS:
        raise _Ambiguous("invalid-number", f"integer {text[:20]}... overflows a double")
    return value


def _line_col(text: str, pos: int) -> tuple[int, int]:
    line = text.count("\n", 0, pos) + 1
    return line, pos - (text.rfind("\n", 0, pos) + 1) + 1


def _located(code: str, message: str, text: str, pos: int | None) -> CompileError:
    line, col = _line_col(text, pos) if pos is not None else (None, None)
    where = f" (line {line}, column {col})" if line is not None else ""
    return CompileError(Diagnostic(Severity.ERROR, code, "", message + where, None, line, col))


def check_size(size: int, limits: Limits, unit: str = "bytes") -> None:
    """Refuse a schema text over `max_schema_bytes` (callers holding only a file's size ask first)."""
    if size > limits.max_schema_bytes:
        raise reject("too-large", "", f"schema is {size} {unit}; the limit is {limits.max_schema_bytes}")


def parse_text(text: str | bytes, limits: Limits | None = None) -> Any:
    """Parse JSON text strictly. Raises CompileError (invalid-json, duplicate-key, invalid-number, too-large)."""
    limits = limits or Limits()
    if isinstance(text, bytes):
        check_size(len(text), limits)
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise _located("invalid-json", f"schema is not valid UTF-8: {exc.reason}", "", None) from exc
    check_size(len(text), limits, "characters")
    try:  # CPython's C decoder guards its recursion: too deep a text raises RecursionError
        return json.loads(
            text, object_pairs_hook=_pairs, parse_constant=_constant, parse_float=_float, parse_int=_int
        )
    except _Ambiguous as exc:
        raise _located(exc.code, str(exc), text, None) from exc
    except json.JSONDecodeError as exc:
        raise _located("invalid-json", exc.msg, text, exc.pos) from exc
    except RecursionError:
        raise _too_deep(text, limits.max_depth) from None


#: a JSON string (escapes skipped; an unterminated one runs to the end) or one bracket
_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"?|[\[\]{}]', re.DOTALL)
_SURROGATE = re.compile("[\ud800-\udfff]")


def _nesting_limit(max_depth: int) -> int:
    return max_depth * 2 + 8  # a schema level is an object plus, often, an array/map inside


def _too_deep(text: str, max_depth: int) -> CompileError:
    """The error for text nested too deeply to parse, located at the first bracket past the limit.

    Only run once the C parser has given up (RecursionError), so valid schemas never pay for a
    Python-level scan (3 s on a 10 MB schema).
    """
    limit = _nesting_limit(max_depth)
    depth = 0
    for match in _TOKEN.finditer(text):
        token = match.group()
        if token in ("[", "{"):
            depth += 1
            if depth > limit:
                line, col = _line_col(text, match.start())
                return CompileError(Diagnostic(
                    Severity.ERROR, "too-large", "",
                    f"JSON nesting exceeds {limit} levels (line {line}, column {col})", None, line, col,
                ))
        elif token in ("]", "}"):
            depth -= 1
    return reject("too-large", "", "schema nesting is too deep to parse")


@dataclass(frozen=True)
class Census:
    """What the loader's walk saw, so later stages can skip walks for keywords that never occur.

    `keys` holds the keys of every object in the document (schema positions or not), so a key
    missing from it is missing everywhere; `schema_objects` counts the objects holding `$schema`;
    `depth` is the deepest JSON nesting level (the root is level 0), a bound on schema depth.
    """

    keys: frozenset[str]
    schema_objects: int
    depth: int
    #: counts over every value that bound `check_cost`'s from above were within its limits
    within_cost: bool


def _census(value: Any, limits: Limits) -> Census | None:
    """The census of a value that passes every check of `check_value`, else None.

    One breadth-first pass over plain JSON types, with the per-string surrogate test done once
    over the joined non-ASCII text. Anything unusual (a bound passed, a subclass, a surrogate)
    gives None, and the exact walk in `check_value` then gives the verdict and its error.
    """
    limit = _nesting_limit(limits.max_depth)
    keys: set[str] = set()
    texts: list[str] = []
    schema_objects = pairs = members = 0
    level: list[Any] = [value]
    depth = nodes = 0
    while level:
        nodes += len(level)
        if nodes > limits.max_nodes or depth > limit:
            return None
        below: list[Any] = []
        for cur in level:
            kind = type(cur)
            if kind is dict:
                keys.update(cur)  # key types and text are checked once, on the distinct keys
                if "$schema" in cur:
                    schema_objects += 1
                props = cur.get("properties")
                if isinstance(props, dict):
                    pairs += len(props) ** 2
                enum = cur.get("enum")
                if isinstance(enum, list):
                    members += len(enum)
                below.extend(cur.values())
            elif kind is str:
                if not cur.isascii():
                    texts.append(cur)
            elif kind is list:
                below.extend(cur)
            elif kind is int:
                if cur.bit_length() > _MAX_INT_BITS:
                    return None
            elif kind is float:
                if not math.isfinite(cur):
                    return None
            elif not (cur is None or kind is bool):
                return None
        level = below
        depth += 1
    try:
        joined = "".join(keys)  # TypeError: a key that is not a string
    except TypeError:
        return None
    if not joined.isascii():
        texts.append(joined)
    if texts and _SURROGATE.search("".join(texts)):
        return None
    # `check_cost` counts only schema positions; these counts take every object, so they bound
    # its counts from above: within the limits here, it would pass too
    within_cost = (nodes <= limits.max_subschemas and pairs <= limits.max_property_pairs
                   and members <= limits.max_enum_values)
    return Census(frozenset(keys), schema_objects, depth - 1, within_cost)


def document_census(value: Any, limits: Limits) -> Census | None:
    """The census of a document built in memory by a later stage (the draft upgrade), or None."""
    return _census(value, limits)


def check_value(value: Any, limits: Limits | None = None) -> Schema:
    """Validate an in-memory schema value: object or boolean, finite numbers, bounded depth."""
    return _checked(value, limits or Limits())[0]


def _checked(value: Any, limits: Limits) -> tuple[Schema, Census | None]:
    if not isinstance(value, (dict, bool)):
        raise reject("invalid-schema", "", f"a schema must be a JSON object or boolean, not {type(value).__name__}")
    census = _census(value, limits)
    if census is not None:
        if not census.within_cost:
            check_cost(value, limits)
        return value, census
    stack: list[tuple[Any, int]] = [(value, 0)]
    nodes = 0
    while stack:
        cur, depth = stack.pop()
        nodes += 1
        if nodes > limits.max_nodes:
            raise reject("too-large", "", f"schema has more than {limits.max_nodes} JSON values")
        if depth > _nesting_limit(limits.max_depth):
            raise reject("too-large", "", f"JSON nesting exceeds {_nesting_limit(limits.max_depth)} levels")
        if isinstance(cur, dict):
            for k, v in cur.items():
                if not isinstance(k, str):
                    raise reject("invalid-schema", "", f"object key {k!r} is not a string")
                if _SURROGATE.search(k):
                    raise _surrogate(k)
                stack.append((v, depth + 1))
        elif isinstance(cur, str):
            if _SURROGATE.search(cur):
                raise _surrogate(cur)
        elif isinstance(cur, list):
            stack.extend((v, depth + 1) for v in cur)
        elif isinstance(cur, float) and not math.isfinite(cur):
            raise reject("invalid-number", "", f"{cur} is not a JSON number")
        elif isinstance(cur, int) and not isinstance(cur, bool) and cur.bit_length() > _MAX_INT_BITS:
            raise reject("invalid-number", "", f"an integer of {cur.bit_length()} bits overflows a double")
        elif not (cur is None or isinstance(cur, (str, int, float, bool))):
            raise reject("invalid-schema", "", f"{type(cur).__name__} is not a JSON value")
    check_cost(value, limits)
    return value, None


def _surrogate(text: str) -> CompileError:
    """A lone UTF-16 surrogate is no Unicode text: no answer can hold it and UTF-8 cannot encode it."""
    found = _SURROGATE.search(text)
    assert found is not None
    return reject(
        "invalid-json", "",
        f"string {text[:40]!r} holds a lone UTF-16 surrogate (U+{ord(found.group()):04X}), which is not Unicode text",
    )


def load(source: Any, limits: Limits | None = None) -> Schema:
    """A schema from JSON text/bytes or an in-memory dict/bool."""
    return load_with_census(source, limits)[0]


def load_with_census(source: Any, limits: Limits | None = None) -> tuple[Schema, Census | None]:
    """`load`, plus the census of the document (None where the exact checks had to run)."""
    limits = limits or Limits()
    value = parse_text(source, limits) if isinstance(source, (str, bytes)) else source
    return _checked(value, limits)
