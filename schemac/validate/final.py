"""Final validation: the one definition of "valid answer" that the runtime and benchmarks share.

`FinalValidator` is jsonschema's Draft 2020-12 validator with four changes that make it agree with
what the compiled grammar enforces:

* Regexes run through `schemac.regex.ecma_search` (RE2 on the translated pattern), never on
  Python `re`: `pattern`, `patternProperties`, the "matched by a pattern property" test of
  `additionalProperties`, and the evaluated-keys computation of `unevaluatedProperties`.
  `propertyNames` applies a schema to each key, so its `pattern` goes through the same keyword.
* ECMA-262 semantics: JSON Schema patterns are ECMA-262 regexes ("u" flag). They differ from RE2
  and from llguidance's Rust-like engine in `\\s` (ECMA: Unicode White_Space + line terminators +
  U+FEFF, without U+0085; RE2: `[\\t\\n\\f\\r ]`; llguidance: Unicode White_Space), `.` (ECMA
  excludes \\n \\r U+2028 U+2029; RE2 and llguidance exclude only \\n), `[^]`/`[]`, `\\u` escapes
  and POSIX-looking `[[:alpha:]]` (literal in ECMA, a class in RE2). `\\d`, `\\w`, `\\b` are ASCII
  in ECMA and RE2, and `$` is end-of-input in ECMA and RE2 (Python's `$` also matches before a
  final newline). `schemac.regex.translate` rewrites a pattern into an explicit form that means
  the ECMA thing in both RE2 and llguidance; the validator matches with that form (search, not
  full match: patterns are unanchored).
* References never leave the document: the registry has no retrieval, so an unknown URI is a
  validation error and nothing is fetched. Nested `$schema` naming another dialect is refused
  (`ValueError` at construction): the engine never switches dialect halfway.
* Numbers are mathematical numbers (2020-12 §4.2.1, RFC 8259 §6). `parse_answer` keeps every
  literal exactly: a `float` when the literal is the shortest decimal of a finite double (the
  value its `repr` spells), else a `decimal.Decimal` (`1e400`, `1e-400`, `0.30000000000000000001`,
  integers past Python's 4,300-digit conversion limit), else (an exponent past libmpdec's ±10^18)
  an `ExtremeNumber`. Type checks count these as numbers (integers when integral), and the
  numeric keywords (bounds, `multipleOf`, and equality in `const`/`enum`/`uniqueItems` when such
  a number is involved) compare exactly, reading a float by its shortest decimal (the literal the
  schema author wrote). `multipleOf` is exact decimal arithmetic everywhere (jsonschema's float
  division says 0.3 is no multiple of 0.1).
* `format` asserts only the formats the grammar enforces exactly (`schemac.front.formats`: date-time,
  time, date, duration, email, hostname, ipv4, ipv6, uuid, uri, uri-reference, iri,
  iri-reference, json-pointer, relative-json-pointer, uri-template), each implemented in
  `schemac.validate.formats` so the result never depends on which optional packages happen to be
  installed; every other format is an annotation.

Answers are parsed by `schemac.validate.answer.parse_answer` (re-exported here), with the exact
numbers above. Departures from the letter of the RFCs, all documented at the checker: `hostname`
checks RFC 1123 syntax and lengths but not IDNA2008 rules for `xn--` labels; `email` accepts RFC
5321 `Mailbox` without the §4.5.3 size limits and without General-address-literals;
`relative-json-pointer` follows the ABNF of draft-bhutton-00, which has no "#" after an index
manipulation (`0-1#`).
"""
from __future__ import annotations

from decimal import Decimal
from functools import lru_cache
from typing import Any, Callable, Iterator

from schemac.regex import ecma_search
from schemac.schema import Schema
from schemac.validate.answer import ExtremeNumber, number_parts, parse_answer
from schemac.validate.formats import ASSERTED_FORMATS, FORMAT_CHECKS, format_checker

__all__ = ["ASSERTED_FORMATS", "DIALECT_2020_12", "FORMAT_CHECKS", "ExtremeNumber", "FinalValidator",
           "is_multiple", "parse_answer"]

DIALECT_2020_12 = "https://json-schema.org/draft/2020-12/schema"

# --------------------------------------------------------------------------------------------
# pattern keywords (the one ECMA-262 semantics, `schemac.regex`)


def _search(pattern: str, value: str) -> bool:
    return ecma_search(pattern, value)


def _matches_any(patterns: Any, key: str) -> bool:
    return any(_search(p, key) for p in patterns)


def _error(message: str) -> Any:
    from jsonschema.exceptions import ValidationError

    return ValidationError(message)


def _unicode_ok(value: str) -> bool:
    """No lone surrogate (no regex engine can match one; `parse_answer` refuses them anyway)."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _pattern(validator: Any, pattern: str, instance: Any, schema: dict) -> Iterator[Any]:
    if not validator.is_type(instance, "string"):
        return
    if not _unicode_ok(instance):
        yield _error(f"{instance!r} contains a lone surrogate and cannot match {pattern!r}")
    elif not _search(pattern, instance):
        yield _error(f"{instance!r} does not match {pattern!r}")


def _pattern_properties(validator: Any, pattern_properties: dict, instance: Any, schema: dict) -> Iterator[Any]:
    if not validator.is_type(instance, "object"):
        return
    for pattern, subschema in pattern_properties.items():
        for key, value in instance.items():
            if _unicode_ok(key) and _search(pattern, key):
                yield from validator.descend(value, subschema, path=key, schema_path=pattern)


def _additional_keys(instance: dict, schema: dict) -> list[str]:
    properties = schema.get("properties", {})
    patterns = schema.get("patternProperties", {})
    return [
        key for key in instance
        if key not in properties and not (patterns and _unicode_ok(key) and _matches_any(patterns, key))
    ]


def _additional_properties(validator: Any, additional: Any, instance: Any, schema: dict) -> Iterator[Any]:
    if not validator.is_type(instance, "object"):
        return
    extras = _additional_keys(instance, schema)
    if validator.is_type(additional, "object") or additional is True:
        for key in extras:
            yield from validator.descend(instance[key], additional, path=key)
    elif extras:
        yield _error(f"additional properties are not allowed ({', '.join(map(repr, extras))} unexpected)")


def _at(validator: Any, schema: Schema) -> Any:
    """`validator` moved onto subschema `schema` (entering its resource if it has an `$id`)."""
    if isinstance(schema, dict) and "$id" in schema:
        from referencing.jsonschema import DRAFT202012

        resolver = validator._resolver.in_subresource(DRAFT202012.create_resource(schema))
        return validator.evolve(schema=schema, _resolver=resolver)
    return validator.evolve(schema=schema)


def _evaluated_keys(validator: Any, instance: dict, schema: Schema, top: bool = False) -> set[str]:
    """Keys that `schema` evaluates (its annotations), for a `schema` that accepts `instance`.

    Follows 2020-12 §11.3: annotations come from properties, patternProperties,
    additionalProperties and unevaluatedProperties, and from in-place applicators whose subschema
    succeeded (failed branches contribute nothing). `top` skips the calling keyword itself.
    """
    if not isinstance(schema, dict):
        return set()
    if not top and "unevaluatedProperties" in schema:
        return set(instance)
    keys: set[str] = set()
    for kw in ("$ref", "$dynamicRef"):
        ref = schema.get(kw)
        if isinstance(ref, str):
            resolved = validator._resolver.lookup(ref)
            sub = validator.evolve(schema=resolved.contents, _resolver=resolved.resolver)
            keys |= _evaluated_keys(sub, instance, resolved.contents)
    properties = schema.get("properties")
    if isinstance(properties, dict):
        keys.update(k for k in instance if k in properties)
    patterns = schema.get("patternProperties")
    if isinstance(patterns, dict):
        keys.update(k for k in instance if _unicode_ok(k) and _matches_any(patterns, k))
    if "additionalProperties" in schema:
        keys.update(_additional_keys(instance, schema))
    candidates: list[Schema] = []
    dependent = schema.get("dependentSchemas")
    if isinstance(dependent, dict):
        candidates.extend(sub for key, sub in dependent.items() if key in instance)
    for kw in ("allOf", "anyOf", "oneOf"):
        candidates.extend(schema.get(kw, ()))
    if "if" in schema:
        if _at(validator, schema["if"]).is_valid(instance):
            candidates.append(schema["if"])
            branch = schema.get("then")
        else:
            branch = schema.get("else")
        if branch is not None:
            candidates.append(branch)
    for sub in candidates:
        child = _at(validator, sub)
        if child.is_valid(instance):
            keys |= _evaluated_keys(child, instance, sub)
    return keys


def _unevaluated_properties(validator: Any, unevaluated: Any, instance: Any, schema: dict) -> Iterator[Any]:
    if not validator.is_type(instance, "object"):
        return
    evaluated = _evaluated_keys(validator, instance, schema, top=True)
    rest = [k for k in instance if k not in evaluated]
    if unevaluated is False:
        if rest:
            yield _error(f"unevaluated properties are not allowed ({', '.join(map(repr, rest))} unexpected)")
        return
    for key in rest:
        yield from validator.descend(instance[key], unevaluated, path=key)


# --------------------------------------------------------------------------------------------
# exact numbers


def _exact(value: Any) -> Any:
    """A number as an exact value: floats by their shortest decimal, anything else as it is."""
    return Decimal(repr(value)) if type(value) is float else value


def _exact_tree(value: Any) -> Any:
    if type(value) is float:
        return Decimal(repr(value))
    if isinstance(value, list):
        return [_exact_tree(v) for v in value]
    if isinstance(value, dict):
        return {k: _exact_tree(v) for k, v in value.items()}
    return value


def _has_exact(*values: Any) -> bool:
    """Whether `values` hold a number that Python's own `==` would not compare by its decimal: a
    float (a literal stands for its shortest decimal, `1e23` for 10^23, not for the double
    99999999999999991611392 that `10**23 == 1e23` compares against) or a number only
    `parse_answer`'s exact path makes (Decimal, ExtremeNumber)."""
    stack = list(values)
    while stack:
        item = stack.pop()
        if isinstance(item, (float, Decimal, ExtremeNumber)):
            return True
        if isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, dict):
            stack.extend(item.values())
    return False


def _pair(instance: Any, bound: Any) -> tuple[Any, Any]:
    """Operands for an exact comparison (two floats compare exactly as doubles already)."""
    if type(instance) is float and type(bound) is float:
        return instance, bound
    return _exact(instance), _exact(bound)


def _power(n: int, p: int) -> int:
    count = 0
    while n and n % p == 0:
        n //= p
        count += 1
    return count


def is_multiple(instance: Any, divisor: Any) -> bool:
    """`instance` is an integer multiple of `divisor` (> 0), in exact decimal arithmetic.

    With instance = m1·10^e1 and divisor = m2·10^e2, the quotient is (m1·10^k)/m2 for
    k = e1 - e2; only the first max(v2(m2), v5(m2)) powers of ten can help, so no operand ever
    grows past the digits of the two literals, whatever the exponents.
    """
    if isinstance(instance, int) and isinstance(divisor, int):
        return instance % divisor == 0
    _, m1, n1, e1 = number_parts(instance)
    _, m2, _, e2 = number_parts(divisor)
    if m1 == 0:
        return True
    k = e1 - e2
    if k >= 0:
        return m1 * 10 ** min(k, max(_power(m2, 2), _power(m2, 5))) % m2 == 0
    if -k > n1:
        return False  # 0 < m1 < 10^-k <= m2·10^-k
    return m1 % (m2 * 10 ** -k) == 0


def is_json_integer(checker: Any, instance: Any) -> bool:
    """2020-12 "integer": any number with a zero fractional part (1.0 and 1e400 included)."""
    if isinstance(instance, bool):
        return False
    if isinstance(instance, (float, ExtremeNumber)):
        return instance.is_integer()
    if isinstance(instance, Decimal):
        if not instance.is_finite():
            return False
        _, m, n, e = number_parts(instance)
        return e >= 0 or m % 10 ** min(-e, n + 1) == 0
    return isinstance(instance, int)


def _bound(name: str, fails: Callable[[Any, Any], bool], words: str) -> Callable[..., Iterator[Any]]:
    def keyword(validator: Any, bound: Any, instance: Any, schema: dict) -> Iterator[Any]:
        if validator.is_type(instance, "number") and fails(*_pair(instance, bound)):
            yield _error(f"{instance!r} is {words} {bound!r}")

    keyword.__name__ = name
    return keyword


def _multiple_of(validator: Any, divisor: Any, instance: Any, schema: dict) -> Iterator[Any]:
    if validator.is_type(instance, "number") and not is_multiple(instance, divisor):
        yield _error(f"{instance!r} is not a multiple of {divisor}")


def _const(validator: Any, const: Any, instance: Any, schema: dict) -> Iterator[Any]:
    from jsonschema._utils import equal

    if _has_exact(instance, const):
        instance, const = _exact_tree(instance), _exact_tree(const)
    if not equal(instance, const):
        yield _error(f"{const!r} was expected")


#: longer enums are checked by one hash lookup (`member_keys`) instead of a comparison per
#: member: 7,000 members checked against each other took a minute
_LONG_ENUM = 32


def _enum(validator: Any, enums: Any, instance: Any, schema: dict) -> Iterator[Any]:
    from jsonschema._utils import equal

    if isinstance(enums, list) and len(enums) > _LONG_ENUM:
        from schemac.json_key import json_key, member_keys

        found = json_key(instance) in member_keys(enums)
    elif _has_exact(instance, enums):
        found = any(equal(_exact_tree(instance), _exact_tree(each)) for each in enums)
    else:
        found = any(equal(each, instance) for each in enums)
    if not found:
        yield _error(f"{instance!r} is not one of {enums!r}")


def _unique_items(validator: Any, unique: Any, instance: Any, schema: dict) -> Iterator[Any]:
    from jsonschema._utils import uniq

    if unique and validator.is_type(instance, "array"):
        items = _exact_tree(instance) if _has_exact(instance) else instance
        if not uniq(items):
            yield _error(f"{instance!r} has non-unique elements")


@lru_cache(maxsize=1)
def _validator_class() -> Any:
    from jsonschema import Draft202012Validator, validators

    return validators.extend(
        Draft202012Validator,
        type_checker=Draft202012Validator.TYPE_CHECKER.redefine("integer", is_json_integer),
        validators={
            "minimum": _bound("minimum", lambda i, b: i < b, "less than the minimum of"),
            "maximum": _bound("maximum", lambda i, b: i > b, "greater than the maximum of"),
            "exclusiveMinimum": _bound("exclusiveMinimum", lambda i, b: i <= b,
                                       "less than or equal to the minimum of"),
            "exclusiveMaximum": _bound("exclusiveMaximum", lambda i, b: i >= b,
                                       "greater than or equal to the maximum of"),
            "multipleOf": _multiple_of,
            "const": _const,
            "enum": _enum,
            "uniqueItems": _unique_items,
            "pattern": _pattern,
            "patternProperties": _pattern_properties,
            "additionalProperties": _additional_properties,
            "unevaluatedProperties": _unevaluated_properties,
        },
    )


def _refuse_retrieval(uri: str) -> Any:
    raise LookupError(f"{uri!r} is not in the document; schemac never retrieves references")


def _check_dialects(schema: Schema) -> None:
    """Refuse any `$schema` other than 2020-12 in a schema position, at any depth.

    Only schema positions are walked (names inside `properties` etc. are data, as are
    const/enum/default/examples values), so a property named "$schema" is no declaration.
    """
    from schemac.schema import child_pointer, iter_subschemas

    stack: list[tuple[Any, str]] = [(schema, "")]
    while stack:
        node, pointer = stack.pop()
        if not isinstance(node, dict):
            continue
        dialect = node.get("$schema")
        if dialect is not None and (not isinstance(dialect, str) or dialect.rstrip("#") != DIALECT_2020_12):
            raise ValueError(f"{pointer or '/'} declares $schema {dialect!r}: only draft 2020-12 is validated")
        stack.extend((sub, child_pointer(pointer, *tokens)) for tokens, sub in iter_subschemas(node))


def _pointer(path: Any) -> str:
    return "".join("/" + str(t).replace("~", "~0").replace("/", "~1") for t in path)


class FinalValidator:
    """Validates answers against a (resolved) 2020-12 schema exactly as the grammar means it."""

    def __init__(self, schema: Schema) -> None:
        from referencing import Registry

        _check_dialects(schema)
        self.schema = schema
        self._validator = _validator_class()(
            schema,
            registry=Registry(retrieve=_refuse_retrieval),  # type: ignore[call-arg]
            format_checker=format_checker(),
        )

    def errors(self, instance: Any) -> list[str]:
        """Every violation as "<instance pointer>: <message>"; empty when `instance` is valid."""
        return [f"{pointer or '/'}: {message}" for pointer, message in self.violations(instance)]

    def violations(self, instance: Any) -> list[tuple[str, str]]:
        """Every violation as (RFC 6901 instance pointer, "" for the root; message)."""
        from referencing.exceptions import Unresolvable

        try:
            return [(_pointer(e.absolute_path), e.message) for e in self._validator.iter_errors(instance)]
        except Unresolvable as exc:
            return [("", f"unresolvable reference: {exc}")]
        except RecursionError:
            return [("", "the schema recurses without consuming the instance")]

    def is_valid(self, instance: Any) -> bool:
        return bool(self.verdict(instance))

    def verdict(self, instance: Any) -> bool | None:
        """`is_valid`, or None where no verdict was reached (an unresolvable reference, or Python's
        recursion limit, which depends on the caller's stack): `is_valid` reads None as invalid,
        and a cache of verdicts must not remember it."""
        from referencing.exceptions import Unresolvable

        try:
            return bool(self._validator.is_valid(instance))
        except (Unresolvable, RecursionError):
            return None
