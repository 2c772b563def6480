"""A second opinion on the final validator: plain jsonschema with exact numbers and ECMA patterns.

`verify` checks every text a grammar admits against `schemac.validate.final.FinalValidator`; this
oracle re-judges the same instances so a mistake of the final validator cannot hide behind an
agreeing grammar. It shares as little as it can with the final validator:

* numbers: instances and schema are parsed with `parse_float=Decimal` (exact; plain jsonschema
  then compares and divides exactly), and "integer" is any number with no fractional part;
* patterns (`pattern`, `patternProperties`, and the keys `additionalProperties` leaves) run on
  `schemac.regex.ecma_search`, the one ECMA-262 matcher (shared: there is no second one);
* formats: jsonschema's own checkers where they are strict (date, ipv4, ipv6, uuid,
  json-pointer, relative-json-pointer), schemac's for the other enforced formats (shared);
  every other format is an annotation, as in final validation.

Not covered (`unsupported`): `unevaluatedProperties` in a schema with `patternProperties`
(jsonschema computes evaluated keys with Python `re`), `$dynamicRef` and remote references.
"""
from __future__ import annotations

import json
from decimal import Decimal
from functools import lru_cache
from typing import Any, Iterator

#: enforced formats whose jsonschema checker is strict enough to be the oracle's own
INDEPENDENT_FORMATS = ("date", "ipv4", "ipv6", "uuid", "json-pointer", "relative-json-pointer")


class OracleUnsupported(ValueError):
    """The schema uses something the oracle cannot judge independently (see the module docstring)."""


def exact_json(text: str) -> Any:
    """Parse JSON text with exact numbers (int, Decimal)."""
    return json.loads(text, parse_float=Decimal)


def _exact_schema(schema: Any) -> Any:
    """The schema with every float replaced by the Decimal its shortest repr spells."""
    if isinstance(schema, float):
        return Decimal(repr(schema))
    if isinstance(schema, dict):
        return {k: _exact_schema(v) for k, v in schema.items()}
    if isinstance(schema, list):
        return [_exact_schema(v) for v in schema]
    return schema


def _is_integer(_checker: Any, v: Any) -> bool:
    if isinstance(v, bool):
        return False
    if isinstance(v, int):
        return True
    if isinstance(v, Decimal):
        return v.is_finite() and v == v.to_integral_value()
    if isinstance(v, float):
        return v.is_integer()
    return False


def _search(pattern: str, text: str) -> bool:
    from schemac.regex import ecma_search

    return ecma_search(pattern, text)


def _pattern(validator: Any, pattern: str, instance: Any, schema: dict[str, Any]) -> Iterator[Any]:
    from jsonschema.exceptions import ValidationError

    if validator.is_type(instance, "string") and not _search(pattern, instance):
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


def _pattern_properties(validator: Any, patterns: dict[str, Any], instance: Any, schema: dict[str, Any]) -> Iterator[Any]:
    if not validator.is_type(instance, "object"):
        return
    for pattern, sub in patterns.items():
        for key, value in instance.items():
            if _search(pattern, key):
                yield from validator.descend(value, sub, path=key, schema_path=pattern)


def _additional_properties(validator: Any, additional: Any, instance: Any, schema: dict[str, Any]) -> Iterator[Any]:
    from jsonschema.exceptions import ValidationError

    if not validator.is_type(instance, "object"):
        return
    listed = schema.get("properties", {})
    patterns = schema.get("patternProperties", {})
    extras = [k for k in instance if k not in listed and not any(_search(p, k) for p in patterns)]
    if validator.is_type(additional, "object"):
        for key in extras:
            yield from validator.descend(instance[key], additional, path=key)
    elif additional is False and extras:
        yield ValidationError(f"additional properties {extras!r} are not allowed")


@lru_cache(maxsize=1)
def _format_checker() -> Any:
    from jsonschema import FormatChecker

    from schemac.validate.formats import FORMAT_CHECKS

    own = FormatChecker()
    checker = FormatChecker(formats=())
    for name, check in FORMAT_CHECKS.items():
        if name in INDEPENDENT_FORMATS:
            checker.checkers[name] = own.checkers[name]
        else:
            checker.checks(name)(lambda v, _check=check: not isinstance(v, str) or _check(v))
    return checker


@lru_cache(maxsize=1)
def _validator_class() -> Any:
    from jsonschema import Draft202012Validator, validators

    return validators.extend(
        Draft202012Validator,
        type_checker=Draft202012Validator.TYPE_CHECKER.redefine("integer", _is_integer),
        validators={"pattern": _pattern, "patternProperties": _pattern_properties,
                    "additionalProperties": _additional_properties},
    )


def _unsupported(schema: Any) -> str | None:
    text = json.dumps(schema, default=str)
    if '"unevaluatedProperties"' in text and '"patternProperties"' in text:
        return "unevaluatedProperties with patternProperties"
    if '"$dynamicRef"' in text or '"$recursiveRef"' in text:
        return "$dynamicRef"
    return None


class Oracle:
    """Judges JSON texts (exact numbers) against a 2020-12 schema with plain jsonschema."""

    def __init__(self, schema: Any) -> None:
        from referencing import Registry

        why = _unsupported(schema)
        if why is not None:
            raise OracleUnsupported(why)
        self._validator = _validator_class()(_exact_schema(schema), registry=Registry(),
                                             format_checker=_format_checker())

    def is_valid_text(self, text: str) -> bool:
        return bool(self._validator.is_valid(exact_json(text)))
