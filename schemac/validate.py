"""Final validation: the one definition of "valid answer" that the runtime and benchmarks share.

`FinalValidator` is jsonschema's Draft 2020-12 validator with four changes that make it agree with
what the compiled grammar enforces:

* Regexes run on RE2 (`schemac.regex.compile_re2`), never on Python `re`: `pattern`,
  `patternProperties`, the "matched by a pattern property" test of `additionalProperties`, and the
  evaluated-keys computation of `unevaluatedProperties`. `propertyNames` applies a schema to each
  key, so its `pattern` goes through the same keyword.
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
* `format` asserts only the formats llguidance enforces (date-time, time, date, duration, email,
  hostname, ipv4, ipv6, uuid, uri), each implemented here so the result never depends on which
  optional packages happen to be installed; every other format is an annotation.

Departures from the letter of the RFCs, all documented at the checker: `hostname` checks RFC 1123
syntax and lengths but not IDNA2008 rules for `xn--` labels; `email` accepts RFC 5321 `Mailbox`
without the §4.5.3 size limits and without General-address-literals.
"""
from __future__ import annotations

import json
import math
import re
from functools import lru_cache
from typing import Any, Callable, Iterator

from schemac.schema import Schema

DIALECT_2020_12 = "https://json-schema.org/draft/2020-12/schema"

#: formats llguidance enforces; everything else is an annotation
ASSERTED_FORMATS: tuple[str, ...] = (
    "date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid", "uri",
)

_SURROGATE = re.compile("[\ud800-\udfff]")
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89abcdefABCDEF]")


# --------------------------------------------------------------------------------------------
# strict JSON answers


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise ValueError(f"duplicate object key {key!r}")
            seen.add(key)
    return out


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _finite_float(text: str) -> float:
    value = float(text)
    if math.isinf(value):
        raise ValueError(f"number {text} overflows a double")
    return value


def _check_unicode(value: Any) -> None:
    """Reject lone surrogates (from `\\ud800`-style escapes): no regex engine can match them."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if _SURROGATE.search(item):
                raise ValueError("string contains a lone UTF-16 surrogate")
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)


def parse_answer(text: str) -> Any:
    """Parse an answer as strict JSON; `ValueError` says why it is not."""
    try:
        value = json.loads(
            text,
            object_pairs_hook=_no_duplicates,
            parse_constant=_no_constant,
            parse_float=_finite_float,
        )
    except RecursionError:
        raise ValueError("invalid JSON answer: nested too deeply") from None
    except ValueError as exc:
        raise ValueError(f"invalid JSON answer: {exc}") from None
    if _SURROGATE_ESCAPE.search(text) or _SURROGATE.search(text):
        try:
            _check_unicode(value)
        except ValueError as exc:
            raise ValueError(f"invalid JSON answer: {exc}") from None
    return value


# --------------------------------------------------------------------------------------------
# formats (strict ABNF; ASCII only: every class below is spelt out, never \d or \w)

_DIGIT = "[0-9]"
_HEX = "[0-9A-Fa-f]"
_DEC_OCTET = "(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9][0-9]|[0-9])"
_IPV4 = rf"{_DEC_OCTET}(?:\.{_DEC_OCTET}){{3}}"
_H16 = f"{_HEX}{{1,4}}"
_LS32 = f"(?:{_H16}:{_H16}|{_IPV4})"
# RFC 3986 §3.2.2 IPv6address, alternative by alternative
_IPV6 = "(?:" + "|".join([
    f"(?:{_H16}:){{6}}{_LS32}",
    f"::(?:{_H16}:){{5}}{_LS32}",
    f"(?:{_H16})?::(?:{_H16}:){{4}}{_LS32}",
    f"(?:(?:{_H16}:){{0,1}}{_H16})?::(?:{_H16}:){{3}}{_LS32}",
    f"(?:(?:{_H16}:){{0,2}}{_H16})?::(?:{_H16}:){{2}}{_LS32}",
    f"(?:(?:{_H16}:){{0,3}}{_H16})?::{_H16}:{_LS32}",
    f"(?:(?:{_H16}:){{0,4}}{_H16})?::{_LS32}",
    f"(?:(?:{_H16}:){{0,5}}{_H16})?::{_H16}",
    f"(?:(?:{_H16}:){{0,6}}{_H16})?::",
]) + ")"

_UNRESERVED = r"A-Za-z0-9\-._~"
_SUB_DELIMS = r"!$&'()*+,;="
_PCT = f"%{_HEX}{_HEX}"
_PCHAR = f"(?:[{_UNRESERVED}{_SUB_DELIMS}:@]|{_PCT})"
_SEGMENT = f"{_PCHAR}*"
_SEGMENT_NZ = f"{_PCHAR}+"
_URI = "".join([
    "[A-Za-z][A-Za-z0-9+\\-.]*:",  # scheme
    "(?:",
    "//",
    f"(?:(?:[{_UNRESERVED}{_SUB_DELIMS}:]|{_PCT})*@)?",  # userinfo
    "(?:",
    rf"\[(?:{_IPV6}|v{_HEX}+\.[{_UNRESERVED}{_SUB_DELIMS}:]+)\]",  # IP-literal
    f"|{_IPV4}",
    f"|(?:[{_UNRESERVED}{_SUB_DELIMS}]|{_PCT})*",  # reg-name
    ")",
    "(?::[0-9]*)?",  # port
    f"(?:/{_SEGMENT})*",  # path-abempty
    f"|/(?:{_SEGMENT_NZ}(?:/{_SEGMENT})*)?",  # path-absolute
    f"|{_SEGMENT_NZ}(?:/{_SEGMENT})*",  # path-rootless
    "|",  # path-empty
    ")",
    f"(?:\\?(?:{_PCHAR}|[/?])*)?",  # query
    f"(?:\\#(?:{_PCHAR}|[/?])*)?",  # fragment
])

_DATE = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})")
_TIME = re.compile(
    r"([0-9]{2}):([0-9]{2}):([0-9]{2})(?:\.[0-9]+)?(?:([Zz])|([+-])([0-9]{2}):([0-9]{2}))"
)
# RFC 3339 Appendix A
_DURATION = re.compile(
    r"P(?:(?:[0-9]+D|[0-9]+M(?:[0-9]+D)?|[0-9]+Y(?:[0-9]+M(?:[0-9]+D)?)?)"
    r"(?:T(?:[0-9]+H(?:[0-9]+M(?:[0-9]+S)?)?|[0-9]+M(?:[0-9]+S)?|[0-9]+S))?"
    r"|T(?:[0-9]+H(?:[0-9]+M(?:[0-9]+S)?)?|[0-9]+M(?:[0-9]+S)?|[0-9]+S)"
    r"|[0-9]+W)"
)
_IPV4_RE = re.compile(_IPV4)
_IPV6_RE = re.compile(_IPV6)
_URI_RE = re.compile(_URI)
_UUID = re.compile(f"{_HEX}{{8}}-{_HEX}{{4}}-{_HEX}{{4}}-{_HEX}{{4}}-{_HEX}{{12}}")
_LABEL = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9\-]*[A-Za-z0-9])?")
_ATOM = r"[A-Za-z0-9!#$%&'*+\-/=?^_`{|}~]+"
_LOCAL_PART = re.compile(
    rf'{_ATOM}(?:\.{_ATOM})*|"(?:[\x20\x21\x23-\x5b\x5d-\x7e]|\\[\x20-\x7e])*"'
)
_ADDRESS_LITERAL = re.compile(rf"\[(?:{_IPV4}|IPv6:{_IPV6})\]")


def _days_in_month(year: int, month: int) -> int:
    if month == 2:
        leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
        return 29 if leap else 28
    return 30 if month in (4, 6, 9, 11) else 31


def is_date(value: str) -> bool:
    """RFC 3339 full-date, with the real calendar (leap years)."""
    m = _DATE.fullmatch(value)
    if not m:
        return False
    year, month, day = (int(g) for g in m.groups())
    return 1 <= month <= 12 and 1 <= day <= _days_in_month(year, month)


def is_time(value: str) -> bool:
    """RFC 3339 full-time; second 60 only where the UTC time is 23:59 (a leap second)."""
    m = _TIME.fullmatch(value)
    if not m:
        return False
    hour, minute, second = int(m[1]), int(m[2]), int(m[3])
    if hour > 23 or minute > 59 or second > 60:
        return False
    off_h = off_m = 0
    if m[5]:
        off_h, off_m = int(m[6]), int(m[7])
        if off_h > 23 or off_m > 59:
            return False
    if second == 60:
        sign = 1 if m[5] == "+" else -1
        utc = (hour * 60 + minute - sign * (off_h * 60 + off_m)) % (24 * 60)
        return utc == 23 * 60 + 59
    return True


def is_date_time(value: str) -> bool:
    """RFC 3339 date-time (`T`/`Z` in either case, as §5.6 allows)."""
    if len(value) < 11 or value[10] not in "Tt":
        return False
    return is_date(value[:10]) and is_time(value[11:])


def is_duration(value: str) -> bool:
    """RFC 3339 Appendix A duration (ISO 8601 subset; letters upper case)."""
    return _DURATION.fullmatch(value) is not None


def is_hostname(value: str) -> bool:
    """RFC 1123 host name: LDH labels of 1-63 octets, 253 octets in all, no trailing dot.

    `xn--` labels are checked as LDH labels only (no Punycode/IDNA2008 check), which is also all
    the grammar enforces.
    """
    if not value or len(value) > 253:
        return False
    return all(len(label) <= 63 and _LABEL.fullmatch(label) for label in value.split("."))


def is_email(value: str) -> bool:
    """RFC 5321 Mailbox: Dot-string or Quoted-string "@" Domain or IPv4/IPv6 address literal."""
    at = value.rfind("@")
    if at <= 0:
        return False
    local, domain = value[:at], value[at + 1:]
    if not _LOCAL_PART.fullmatch(local):
        return False
    if domain.startswith("["):
        return _ADDRESS_LITERAL.fullmatch(domain) is not None
    return bool(domain) and all(_LABEL.fullmatch(label) for label in domain.split("."))


def is_ipv4(value: str) -> bool:
    """RFC 2673 §3.2 dotted-quad: four decimal octets, no leading zeros."""
    return _IPV4_RE.fullmatch(value) is not None


def is_ipv6(value: str) -> bool:
    """RFC 4291 §2.2 text form (RFC 3986 IPv6address); no zone identifier."""
    return _IPV6_RE.fullmatch(value) is not None


def is_uuid(value: str) -> bool:
    """RFC 9562 string form: 8-4-4-4-12 hex digits, any case, any version."""
    return _UUID.fullmatch(value) is not None


def is_uri(value: str) -> bool:
    """RFC 3986 URI (absolute, with scheme; a fragment is allowed); ASCII only."""
    return _URI_RE.fullmatch(value) is not None


FORMAT_CHECKS: dict[str, Callable[[str], bool]] = {
    "date-time": is_date_time,
    "time": is_time,
    "date": is_date,
    "duration": is_duration,
    "email": is_email,
    "hostname": is_hostname,
    "ipv4": is_ipv4,
    "ipv6": is_ipv6,
    "uuid": is_uuid,
    "uri": is_uri,
}


@lru_cache(maxsize=1)
def _format_checker() -> Any:
    from jsonschema import FormatChecker

    checker = FormatChecker(formats=())
    for name, check in FORMAT_CHECKS.items():
        checker.checks(name)(lambda v, _check=check: not isinstance(v, str) or _check(v))
    return checker


# --------------------------------------------------------------------------------------------
# RE2-backed keywords


def _search(pattern: str, value: str) -> bool:
    from schemac.regex import compile_re2

    return compile_re2(pattern).search(value) is not None


def _matches_any(patterns: Any, key: str) -> bool:
    return any(_search(p, key) for p in patterns)


def _error(message: str) -> Any:
    from jsonschema.exceptions import ValidationError

    return ValidationError(message)


def _unicode_ok(value: str) -> bool:
    return _SURROGATE.search(value) is None


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


@lru_cache(maxsize=1)
def _validator_class() -> Any:
    from jsonschema import Draft202012Validator, validators

    return validators.extend(
        Draft202012Validator,
        validators={
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
            format_checker=_format_checker(),
        )

    def errors(self, instance: Any) -> list[str]:
        """Every violation as "<instance pointer>: <message>"; empty when `instance` is valid."""
        from referencing.exceptions import Unresolvable

        try:
            return [
                f"{_pointer(e.absolute_path) or '/'}: {e.message}"
                for e in self._validator.iter_errors(instance)
            ]
        except Unresolvable as exc:
            return [f"/: unresolvable reference: {exc}"]
        except RecursionError:
            return ["/: the schema recurses without consuming the instance"]

    def is_valid(self, instance: Any) -> bool:
        from referencing.exceptions import Unresolvable

        try:
            return bool(self._validator.is_valid(instance))
        except (Unresolvable, RecursionError):
            return False
