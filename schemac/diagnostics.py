"""Typed diagnostics: every stage reports through these records, the CLI prints them.

Codes are stable API: tools and CI configurations match on them. `CODES` documents each one;
a code not listed here is a bug (a test checks that every emitted code is documented).
"""
from __future__ import annotations

import enum
from dataclasses import dataclass, field, replace
from typing import Any


class Severity(str, enum.Enum):
    """Prints as its value (`error`), never as `Severity.ERROR`, wherever a message formats it."""

    ERROR = "error"
    WARNING = "warning"

    def __str__(self) -> str:
        return self.value

    def __format__(self, spec: str) -> str:
        return format(self.value, spec)


@dataclass(frozen=True)
class Diagnostic:
    """One finding, located by an RFC 6901 JSON Pointer into the user's original document."""

    severity: Severity
    code: str
    pointer: str
    message: str
    hint: str | None = None
    line: int | None = None
    column: int | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "severity": self.severity.value,
            "code": self.code,
            "pointer": self.pointer,
            "message": self.message,
        }
        if self.hint is not None:
            out["hint"] = self.hint
        if self.line is not None:
            out["line"] = self.line
            out["column"] = self.column
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "Diagnostic":
        return cls(
            Severity(data["severity"]),
            data["code"],
            data["pointer"],
            data["message"],
            data.get("hint"),
            data.get("line"),
            data.get("column"),
        )


def error(code: str, pointer: str, message: str, hint: str | None = None) -> Diagnostic:
    return Diagnostic(Severity.ERROR, code, pointer, message, hint)


def warning(code: str, pointer: str, message: str, hint: str | None = None) -> Diagnostic:
    return Diagnostic(Severity.WARNING, code, pointer, message, hint)


class CompileError(Exception):
    """Raised by any stage that rejects a schema; carries every diagnostic gathered so far."""

    def __init__(self, diagnostics: list[Diagnostic] | Diagnostic) -> None:
        if isinstance(diagnostics, Diagnostic):
            diagnostics = [diagnostics]
        self.diagnostics: list[Diagnostic] = list(diagnostics)
        first = next((d for d in self.diagnostics if d.severity is Severity.ERROR), None)
        super().__init__(f"{first.code} at {first.pointer or '/'}: {first.message}" if first else "compile error")

    @property
    def codes(self) -> list[str]:
        return [d.code for d in self.diagnostics if d.severity is Severity.ERROR]


def relocate(diagnostics: list[Diagnostic], old: str, new: str) -> list[Diagnostic]:
    """`diagnostics` with pointers at or below `old` moved under `new` (a rewrite moved a subtree)."""
    return [
        replace(d, pointer=new + d.pointer[len(old):])
        if d.pointer == old or d.pointer.startswith(old + "/") else d
        for d in diagnostics
    ]


def reject(code: str, pointer: str, message: str, hint: str | None = None) -> CompileError:
    """Build the exception for a single error; callers `raise reject(...)`."""
    return CompileError(error(code, pointer, message, hint))


@dataclass
class DiagnosticSink:
    """Collects warnings while a stage keeps going (errors are raised, not collected)."""

    items: list[Diagnostic] = field(default_factory=list)

    def warn(self, code: str, pointer: str, message: str, hint: str | None = None) -> None:
        self.items.append(warning(code, pointer, message, hint))


# code -> (summary, example of a schema that triggers it). docs/diagnostics.md's table is the same (a test keeps them equal).
CODES: dict[str, tuple[str, str]] = {
    "invalid-json": ("The schema text is not valid JSON (line and column given).", '{"type": '),
    "invalid-yaml": ("The schema file is not valid YAML (line and column given); YAML needs `schemac[yaml]`.", "type: [string"),
    "internal-error": ("schemac itself failed on this schema (a bug: please report it with the schema).", ""),
    "duplicate-key": ("An object in the schema repeats a key; its meaning is ambiguous.", '{"type": "string", "type": "number"}'),
    "invalid-schema": ("The document is not a JSON Schema (must be an object or a boolean), or a keyword has a malformed value.", "[1, 2]"),
    "invalid-number": ("NaN, Infinity, a number that overflows a double, or a literal whose nearest double spells another decimal (`0.10000000000000000001`) appears in the schema.", '{"maximum": 1e400}'),
    "unsupported-dialect": ("`$schema` names a dialect other than draft 2020-12 (use --upgrade-drafts for draft-04/06/07/2019-09).", '{"$schema": "http://json-schema.org/draft-07/schema#"}'),
    "remote-ref": ("A `$ref` points where schemac may not read: the network, or a file outside the reference root or the `--ref-map` folders; nothing is ever fetched.", '{"$ref": "https://example.com/s.json"}'),
    "unresolvable-ref": ("A local `$ref` (pointer or anchor) does not resolve.", '{"$ref": "#/$defs/missing"}'),
    "dynamic-ref": ("A 2019-09 `$recursiveRef` (under --upgrade-drafts) whose target depends on a dynamic scope that no 2020-12 `$dynamicRef` placement reproduces; 2020-12 `$dynamicRef`s are resolved per scope.", ""),
    "unsupported-regex": ("A pattern uses syntax no exact form exists for here (backreferences, look-arounds inside a repeated group) or llguidance rejects.", '{"pattern": "(a)\\\\1"}'),
    "regex-too-large": ("A pattern is longer than 262,144 characters or its RE2 program exceeds 2 MiB.", '{"pattern": "(a{1000}){1000}"}'),
    "client-options": ("The schema sets `x-guidance`; compile options belong to the server, not the client.", '{"x-guidance": {"lenient": true}}'),
    "unknown-format": ("A `format` llguidance does not enforce; dropped as an annotation (an error under --strict-formats).", '{"type": "string", "format": "color"}'),
    "unsupported-keyword": ("A validation keyword that no pass lowered and llguidance would not enforce (the last pass's backstop: unknown keywords are annotations and dropped).", ""),
    "budget-exhausted": ("A lowering needed more expansion than the schema's shared budget allows.", '{"type": "object", "properties": {"a": {}, "b": {}, "c": {}, "d": {}, "e": {}, "f": {}, "g": {}, "h": {}, "i": {}, "j": {}, "k": {}, "l": {}}, "minProperties": 6}'),
    "key-order-fallback": ("In the orders key_order admits (\"any\", or \"schema\"'s `required` orders) the grammar passed llguidance's limits or the step budget, so the schema was written in the order of `properties` (a warning).", ""),
    "too-large": ("The schema exceeds a size or depth limit, or compiling it takes more than its budget of work steps (the same verdict on any machine, under any load).", '{"enum": [0, 1, 2, ..., 50000]} (more than 50,000 enum values)'),
    "compile-timeout": ("Compilation ran past the last-resort wall-clock guard (300 s by default) on an overloaded machine: no verdict on the schema, never cached; retry.", ""),
    "unsatisfiable": ("No JSON value satisfies the schema, so no answer could ever be generated.", "false"),
    "tool-parameters-unsupported": ("A function's parameters schema has a shape the tool envelope cannot write exactly (DSML names each argument: an object schema with properties/required/additionalProperties only).", '{"type": "object", "properties": {"a": {}}, "minProperties": 1}'),
    "grammar-error": ("llguidance rejected the emitted grammar.", '{"type": "number", "exclusiveMinimum": 1e308}'),
    "not-exact": ("A `not` operand has no exact complement that llguidance can enforce.", '{"not": {"contains": {"type": "integer"}, "minContains": 2}}'),
    "one-of-not-exact": ("A `oneOf` whose branches overlap and cannot be made exclusive exactly.", '{"oneOf": [{"contains": {"type": "integer"}, "minContains": 2}, {"maxItems": 8}]}'),
    "if-not-exact": ("An `if` guard that cannot be complemented exactly nor enumerated.", '{"if": {"properties": {"a": {"contains": {"type": "integer"}, "minContains": 2}}}, "then": {"required": ["b"]}}'),
    "unique-items-unbounded": ("`uniqueItems` over an infinite item domain.", '{"type": "array", "uniqueItems": true}'),
    "contains-unbounded": ("`contains` on arrays without a bound that makes it expressible.", '{"type": "array", "contains": {"$ref": "#"}, "maxContains": 2}'),
    "property-names-not-exact": ("A `propertyNames` constraint with no exact key-level form.", '{"propertyNames": {"anyOf": [{"pattern": "a"}, {"maxLength": 2}]}}'),
    "unevaluated-dynamic": ("`unevaluatedProperties`/`unevaluatedItems` where the evaluated set is not static (a backstop: reference resolution refuses the in-place recursion that leads here first).", ""),
}
