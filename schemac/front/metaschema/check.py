"""Metaschema validation: the first stage, so no later pass ever sees a malformed keyword value.

Every schema is checked against the draft 2020-12 metaschema (and, under `--upgrade-drafts`,
against its declared draft's metaschema first), offline: the metaschemas come from
`jsonschema-specifications`, nothing is fetched. Every violation becomes an `invalid-schema`
diagnostic at its JSON Pointer into the user's document; all are reported.

Two choices keep this exact and cheap:

* The metaschemas' `format`s (`regex`, `uri`, ...) are annotations (no format checker), so
  jsonschema never runs Python `re` on a schema's patterns. The metaschemas' own two `pattern`s
  (anchor names, `$id` without a fragment) are matched with their ECMA-262 meaning (`$` is the end
  of input; Python's `$` would also match before a final newline).
* jsonschema takes ~16 ms per typical schema (the metaschema is seven `$dynamicRef`-linked
  vocabularies), 30 times the whole compile. `valid_2020_12` is a direct, iterative transcription
  of the 2020-12 metaschema's constraints; when it says valid the document is valid, and only
  otherwise does jsonschema run to produce the diagnostics. Tests check the two agree on every
  testdata schema and on generated ones (tests/front/test_metaschema.py).
"""
from __future__ import annotations

import re
from functools import lru_cache
from typing import Any, Callable, Iterator

from schemac.diagnostics import CompileError, Diagnostic, error
from schemac.numbers.exact import is_number

#: metaschema URI of each dialect name `schemac.front.dialect.gate.dialect_of` returns
METASCHEMAS: dict[str, str] = {
    "2020-12": "https://json-schema.org/draft/2020-12/schema",
    "2019-09": "https://json-schema.org/draft/2019-09/schema",
    "draft-07": "http://json-schema.org/draft-07/schema#",
    "draft-06": "http://json-schema.org/draft-06/schema#",
    "draft-04": "http://json-schema.org/draft-04/schema#",
}

#: every `pattern` in the metaschemas, as a Python pattern with the same (ECMA-262) meaning when
#: used with `re.search`; a metaschema pattern missing here is an error (see `_pattern`)
ECMA_PATTERNS: dict[str, str] = {
    "^[A-Za-z_][-A-Za-z0-9._]*$": r"\A[A-Za-z_][-A-Za-z0-9._]*\Z",
    "^[^#]*#?$": r"\A[^#]*#?\Z",
    "^[A-Za-z][-A-Za-z0-9.:_]*$": r"\A[A-Za-z][-A-Za-z0-9.:_]*\Z",
}

_ANCHOR = re.compile(r"[A-Za-z_][-A-Za-z0-9._]*")
_SIMPLE_TYPES = frozenset({"array", "boolean", "integer", "null", "number", "object", "string"})

# ---- the fast path: the 2020-12 metaschema, keyword by keyword ------------------------------

_SCHEMA = "schema"
_SCHEMA_MAP = "schema-map"
_SCHEMA_LIST = "schema-list"


def _is_integer(v: Any) -> bool:
    """2020-12 "integer", as final validation reads it (1.0 and exact big numbers included)."""
    if type(v) is int:
        return True
    from schemac.validate.final import is_json_integer

    return bool(is_json_integer(None, v))


def _string_array(v: Any) -> bool:
    return isinstance(v, list) and all(isinstance(s, str) for s in v) and len(set(v)) == len(v)


def _types(v: Any) -> bool:
    if isinstance(v, str):
        return v in _SIMPLE_TYPES
    return (isinstance(v, list) and len(v) > 0 and all(isinstance(t, str) and t in _SIMPLE_TYPES for t in v)
            and len(set(v)) == len(v))


def _non_negative_integer(v: Any) -> bool:
    return _is_integer(v) and v >= 0


def _id(v: Any) -> bool:
    return isinstance(v, str) and v.find("#") in (-1, len(v) - 1)


def _anchor(v: Any) -> bool:
    return isinstance(v, str) and _ANCHOR.fullmatch(v) is not None


def _is_str(v: Any) -> bool:
    return isinstance(v, str)


def _is_bool(v: Any) -> bool:
    return isinstance(v, bool)


#: keyword → a predicate on its value, or the kind of subschema position it is
_KEYWORDS: dict[str, Callable[[Any], bool] | str] = {
    # core
    "$id": _id, "$schema": _is_str, "$ref": _is_str, "$anchor": _anchor, "$dynamicRef": _is_str,
    "$dynamicAnchor": _anchor, "$comment": _is_str, "$defs": _SCHEMA_MAP,
    "$vocabulary": lambda v: isinstance(v, dict) and all(isinstance(b, bool) for b in v.values()),
    # applicator, unevaluated, content
    "prefixItems": _SCHEMA_LIST, "allOf": _SCHEMA_LIST, "anyOf": _SCHEMA_LIST, "oneOf": _SCHEMA_LIST,
    "items": _SCHEMA, "contains": _SCHEMA, "additionalProperties": _SCHEMA, "propertyNames": _SCHEMA,
    "if": _SCHEMA, "then": _SCHEMA, "else": _SCHEMA, "not": _SCHEMA, "unevaluatedItems": _SCHEMA,
    "unevaluatedProperties": _SCHEMA, "contentSchema": _SCHEMA,
    "properties": _SCHEMA_MAP, "patternProperties": _SCHEMA_MAP, "dependentSchemas": _SCHEMA_MAP,
    # validation
    "type": _types, "enum": lambda v: isinstance(v, list),
    "multipleOf": lambda v: is_number(v) and v > 0,
    "maximum": is_number, "exclusiveMaximum": is_number, "minimum": is_number, "exclusiveMinimum": is_number,
    "maxLength": _non_negative_integer, "minLength": _non_negative_integer, "maxItems": _non_negative_integer,
    "minItems": _non_negative_integer, "maxContains": _non_negative_integer, "minContains": _non_negative_integer,
    "maxProperties": _non_negative_integer, "minProperties": _non_negative_integer,
    "pattern": _is_str, "uniqueItems": _is_bool, "required": _string_array,
    "dependentRequired": lambda v: isinstance(v, dict) and all(_string_array(s) for s in v.values()),
    # meta-data, format-annotation, content
    "title": _is_str, "description": _is_str, "deprecated": _is_bool, "readOnly": _is_bool,
    "writeOnly": _is_bool, "examples": lambda v: isinstance(v, list), "format": _is_str,
    "contentEncoding": _is_str, "contentMediaType": _is_str,
    # the 2020-12 metaschema's own entries for keywords of earlier drafts
    "definitions": _SCHEMA_MAP, "$recursiveAnchor": _anchor, "$recursiveRef": _is_str,
}


def valid_2020_12(document: Any) -> bool:
    """Whether `document` is valid against the 2020-12 metaschema (formats as annotations).

    Iterative (nesting costs no stack). `dependencies` (schema or string array per member) is
    the one position with a choice; `const`, `enum`, `default` and `examples` hold data.
    """
    stack = [document]
    while stack:
        node = stack.pop()
        if isinstance(node, bool):
            continue
        if not isinstance(node, dict):
            return False
        for key, value in node.items():
            rule = _KEYWORDS.get(key)
            if rule is None:
                if key == "dependencies":
                    if not isinstance(value, dict):
                        return False
                    for member in value.values():
                        if isinstance(member, list):
                            if not _string_array(member):
                                return False
                        else:
                            stack.append(member)
                continue
            pushed = _pushed(rule, value, stack)
            if pushed is False or (pushed is None and not rule(value)):  # type: ignore[operator]
                return False
    return True


def _pushed(rule: Any, value: Any, stack: list[Any]) -> bool | None:
    """`value`'s subschemas pushed on `stack` for a schema, schema-map or schema-list keyword:
    True, or False where `value` has the wrong shape; None for any other rule (a predicate)."""
    if rule is _SCHEMA:
        stack.append(value)
        return True
    if rule is _SCHEMA_MAP or rule is _SCHEMA_LIST:
        if not (isinstance(value, dict) if rule is _SCHEMA_MAP else isinstance(value, list) and value):
            return False
        stack.extend(value.values() if rule is _SCHEMA_MAP else value)
        return True
    return None


# ---- the fast path for the older drafts: draft-04, draft-06 and draft-07 ------------------------
#
# Their metaschemas are single documents (no vocabularies), so each is a table too. Under
# --upgrade-drafts every old-draft schema is checked against its own draft's metaschema first;
# through jsonschema that took 1.7 ms at the median of MaskBench's old-draft schemas (up to
# 160 ms), more than the rest of such a compile. As for 2020-12 the fast path is trusted only when
# it says valid; anything else (an `enum` member it cannot compare, a violation) goes to
# jsonschema, which also writes the diagnostics.

_ITEMS = "schema-or-list"  # a schema, or a non-empty list of schemas
_DEPENDENCIES = "dependencies"  # a map whose members are schemas or string arrays
_LOOSE_SCHEMA = "bool-or-schema"  # draft-04's additionalItems/additionalProperties: a boolean or a schema


def _enum_unique(v: Any) -> bool | None:
    """Whether the members of list `v` are distinct under jsonschema's `uniq` (numbers compare by
    value, booleans apart from numbers), or None when a member is a list or an object (not
    compared here)."""
    seen = set()
    for m in v:
        if isinstance(m, bool):
            key: Any = ("b", m)
        elif m is None:
            key = ("z",)
        elif isinstance(m, str):
            key = ("s", m)
        elif is_number(m):
            key = ("n", m)  # 1, 1.0 and Decimal("1") are one key: equal and equally hashed
        else:
            return None
        if key in seen:
            return False
        seen.add(key)
    return True


def _draft04_enum(v: Any) -> bool:
    return isinstance(v, list) and len(v) > 0 and _enum_unique(v) is True


def _draft04_string_array(v: Any) -> bool:
    return _string_array(v) and len(v) > 0


def _positive(v: Any) -> bool:
    return is_number(v) and v > 0


_DRAFT_06_07: dict[str, Callable[[Any], bool] | str] = {
    "$id": _is_str, "$schema": _is_str, "$ref": _is_str, "title": _is_str, "description": _is_str,
    "examples": lambda v: isinstance(v, list), "multipleOf": _positive,
    "maximum": is_number, "exclusiveMaximum": is_number, "minimum": is_number, "exclusiveMinimum": is_number,
    "maxLength": _non_negative_integer, "minLength": _non_negative_integer, "pattern": _is_str,
    "additionalItems": _SCHEMA, "items": _ITEMS, "maxItems": _non_negative_integer, "minItems": _non_negative_integer,
    "uniqueItems": _is_bool, "contains": _SCHEMA, "maxProperties": _non_negative_integer,
    "minProperties": _non_negative_integer, "required": _string_array, "additionalProperties": _SCHEMA,
    "definitions": _SCHEMA_MAP, "properties": _SCHEMA_MAP, "patternProperties": _SCHEMA_MAP,
    "dependencies": _DEPENDENCIES, "propertyNames": _SCHEMA, "enum": lambda v: isinstance(v, list), "type": _types,
    "format": _is_str, "allOf": _SCHEMA_LIST, "anyOf": _SCHEMA_LIST, "oneOf": _SCHEMA_LIST, "not": _SCHEMA,
}
_DRAFT_07 = {**_DRAFT_06_07, "$comment": _is_str, "readOnly": _is_bool, "contentMediaType": _is_str,
             "contentEncoding": _is_str, "if": _SCHEMA, "then": _SCHEMA, "else": _SCHEMA}
_DRAFT_04: dict[str, Callable[[Any], bool] | str] = {
    "id": _is_str, "$schema": _is_str, "title": _is_str, "description": _is_str, "multipleOf": _positive,
    "maximum": is_number, "exclusiveMaximum": _is_bool, "minimum": is_number, "exclusiveMinimum": _is_bool,
    "maxLength": _non_negative_integer, "minLength": _non_negative_integer, "pattern": _is_str,
    "additionalItems": _LOOSE_SCHEMA, "items": _ITEMS, "maxItems": _non_negative_integer,
    "minItems": _non_negative_integer, "uniqueItems": _is_bool, "maxProperties": _non_negative_integer,
    "minProperties": _non_negative_integer, "required": _draft04_string_array, "additionalProperties": _LOOSE_SCHEMA,
    "definitions": _SCHEMA_MAP, "properties": _SCHEMA_MAP, "patternProperties": _SCHEMA_MAP,
    "dependencies": _DEPENDENCIES, "enum": _draft04_enum, "type": _types, "format": _is_str,
    "allOf": _SCHEMA_LIST, "anyOf": _SCHEMA_LIST, "oneOf": _SCHEMA_LIST, "not": _SCHEMA,
}
_OLD_DRAFTS = {"draft-04": _DRAFT_04, "draft-06": _DRAFT_06_07, "draft-07": _DRAFT_07}


def valid_old_draft(document: Any, dialect: str) -> bool:
    """Whether `document` is valid against `dialect`'s metaschema (draft-04, -06 or -07; formats
    as annotations); False also where unsure (see `_enum_unique`). Iterative, as `valid_2020_12`.
    Draft-04 schemas are objects only, and its `exclusiveMaximum`/`exclusiveMinimum` (booleans)
    need their `maximum`/`minimum`; draft-06 and -07 admit boolean schemas."""
    table = _OLD_DRAFTS[dialect]
    draft04 = dialect == "draft-04"
    dependencies_need_items = draft04  # draft-04's stringArray has minItems 1
    stack = [document]
    while stack:
        node = stack.pop()
        if isinstance(node, bool) and not draft04:
            continue
        if not isinstance(node, dict):
            return False
        if draft04 and ("exclusiveMaximum" in node and "maximum" not in node
                        or "exclusiveMinimum" in node and "minimum" not in node):
            return False
        for key, value in node.items():
            rule = table.get(key)
            if rule is None:
                continue
            pushed = _pushed(rule, value, stack)
            if pushed is not None:
                if not pushed:
                    return False
            elif rule is _ITEMS:
                if isinstance(value, list):
                    if not value:
                        return False
                    stack.extend(value)
                else:
                    stack.append(value)
            elif rule is _LOOSE_SCHEMA:
                if not isinstance(value, bool):
                    stack.append(value)
            elif rule is _DEPENDENCIES:
                if not isinstance(value, dict):
                    return False
                for member in value.values():
                    if isinstance(member, list):
                        if not _string_array(member) or (dependencies_need_items and not member):
                            return False
                    else:
                        stack.append(member)
            elif not rule(value):  # type: ignore[operator]
                return False
    return True


# ---- the reference path: jsonschema, for the diagnostics --------------------------------------


def _pattern(validator: Any, pattern: str, instance: Any, schema: dict[str, Any]) -> Iterator[Any]:
    from jsonschema.exceptions import ValidationError

    if not isinstance(instance, str):
        return
    translated = ECMA_PATTERNS.get(pattern)
    if translated is None:
        raise ValueError(f"metaschema pattern {pattern!r} has no ECMA translation in ECMA_PATTERNS")
    if re.search(translated, instance) is None:
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


@lru_cache(maxsize=8)
def metaschema_validator(dialect: str) -> Any:
    """A cached jsonschema validator for `dialect`'s metaschema (offline, no format checking)."""
    from jsonschema import validators
    from jsonschema_specifications import REGISTRY

    from schemac.validate.final import is_json_integer

    from referencing import Registry, Resource
    from referencing.jsonschema import specification_with

    uri = METASCHEMAS[dialect]
    base = validators.validator_for(REGISTRY.contents(uri))
    cls = validators.extend(base, type_checker=base.TYPE_CHECKER.redefine("integer", is_json_integer),
                            validators={"pattern": _pattern})
    # The dialect's metaschema resources without `$schema`: jsonschema picks the validator class of
    # each referenced resource from its `$schema`, which would drop the extension above.
    spec = specification_with(uri)
    resources = []
    for each in REGISTRY:
        contents = REGISTRY.contents(each)
        if isinstance(contents, dict) and contents.get("$schema") == uri:
            stripped = {k: v for k, v in contents.items() if k != "$schema"}
            resources.append((each, Resource(contents=stripped, specification=spec)))
    registry = Registry().with_resources(resources).crawl()
    return cls(registry.contents(uri), registry=registry, format_checker=None)


_HINTS: dict[tuple[str, str], str] = {
    ("items", "array"): "`items` as an array is the tuple form of drafts 4-2019-09; in 2020-12 write "
                        "`prefixItems` (or declare the draft in `$schema` and pass --upgrade-drafts)",
    ("type", "string"): "types are null, boolean, object, array, number, integer and string",
}


def _pointer(path: Any) -> str:
    return "".join("/" + str(t).replace("~", "~0").replace("/", "~1") for t in path)


def _message(err: Any) -> str:
    """jsonschema's message, with the most relevant alternative's reason for anyOf/oneOf."""
    from jsonschema.exceptions import best_match

    if err.context:
        inner = best_match(err.context)
        return f"{err.message} ({inner.message})" if inner is not None else err.message
    return err.message


def _diagnostic(err: Any, prefix: str) -> Diagnostic:
    pointer = _pointer(err.absolute_path)
    keyword = str(err.absolute_path[-1]) if err.absolute_path else ""
    kind = "array" if isinstance(err.instance, list) else "string" if isinstance(err.instance, str) else ""
    hint = _HINTS.get((keyword, kind))
    where = f"`{keyword}`" if keyword else "the schema"
    return error("invalid-schema", pointer, f"{prefix}{where} is malformed: {_message(err)}", hint)


def metaschema_errors(document: Any, dialect: str = "2020-12", prefix: str = "") -> list[Diagnostic]:
    """Every violation of `dialect`'s metaschema as an `invalid-schema` diagnostic, sorted by
    pointer; empty when `document` is valid. `prefix` starts each message (context)."""
    if dialect == "2020-12" and valid_2020_12(document):
        return []
    if dialect in _OLD_DRAFTS and valid_old_draft(document, dialect):
        return []
    errors = metaschema_validator(dialect).iter_errors(document)
    found = sorted((_diagnostic(e, prefix) for e in errors), key=lambda d: (d.pointer, d.message))
    return list(dict.fromkeys(found))


def check_metaschema(document: Any, dialect: str = "2020-12", prefix: str = "") -> None:
    """Raise CompileError with every `invalid-schema` diagnostic if `document` is malformed."""
    found = metaschema_errors(document, dialect, prefix)
    if found:
        raise CompileError(found)
