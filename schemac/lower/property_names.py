"""propertyNames → key-level forms llguidance enforces: per-key `false`, patterns, a closed set.

Keys are strings, so only the string part of the name schema matters. Exact forms:
- no string passes (`false`, a non-string type): only `{}` → additionalProperties false;
- a finite set K (enum/const): each k in K gets the schema the object would give it (its
  `properties` entry, else additionalProperties, and every matching patternProperty folded in),
  every other key is forbidden;
- a pattern/length constraint R: listed properties failing R become `false`; other keys go
  through `patternProperties: {R: additionalProperties}` with additionalProperties false. That
  moves additionalProperties onto listed keys matching R, so it is exact only when that changes
  nothing; existing patternProperties must be R itself (RE2 cannot intersect patterns).
- what negation leaves (an anyOf whose one string branch carries the pattern, or a negated
  pattern `NOT_PATTERN`, which becomes `patternProperties: {p: false}`) is read on strings only.
Anything else is rejected with `property-names-not-exact`. Listed keys are judged with the one
ECMA-262 semantics (`schemac.regex.ecma_search`), as the final validator judges them.
"""
from __future__ import annotations

from typing import Any

from schemac.diagnostics import reject
from schemac.lower.support.context import LowerContext
from schemac.lower.support.marks import NOT_PATTERN
from schemac.regex import PatternError, ecma_search
from schemac.schema import Schema, all_of, child_pointer

_STRING_KEYWORDS = frozenset({"type", "enum", "const", "pattern", "minLength", "maxLength"})


def _search(pattern: str, name: str, here: str) -> bool:
    """ECMA-262 search; a pattern RE2 cannot run (only a generated one can get here) is a rejection."""
    try:
        return ecma_search(pattern, name)
    except PatternError as exc:
        raise reject(exc.code, here, f"a pattern on property names cannot be evaluated: {exc}") from None


def _allows_strings(schema: dict[str, Any]) -> bool:
    t = schema.get("type")
    return t is None or t == "string" or (isinstance(t, list) and "string" in t)


def _name_ok(name: str, schema: dict[str, Any], here: str) -> bool:
    """Whether the string `name` satisfies `schema` (restricted to _STRING_KEYWORDS)."""
    if not _allows_strings(schema):
        return False
    if "const" in schema and schema["const"] != name:
        return False
    if "enum" in schema and name not in [v for v in schema["enum"] if isinstance(v, str)]:
        return False
    n = len(name)
    if n < schema.get("minLength", 0) or ("maxLength" in schema and n > schema["maxLength"]):
        return False
    return "pattern" not in schema or _search(schema["pattern"], name, here)


def _key_regex(schema: dict[str, Any]) -> str | None:
    """One regex equivalent to the schema on strings, or None when there is none we can write."""
    pattern = schema.get("pattern")
    if "minLength" in schema or "maxLength" in schema:
        if pattern is not None:
            return None
        lo = int(schema.get("minLength", 0))
        hi = schema.get("maxLength")
        return "^[\\s\\S]{%d,%s}$" % (lo, "" if hi is None else int(hi))
    return pattern if pattern is not None else ""


def _empty_only(out: dict[str, Any]) -> dict[str, Any]:
    out.pop("properties", None)
    out.pop("patternProperties", None)
    out["additionalProperties"] = False
    return out


def _string_part(names: Schema) -> Schema:
    """`names` as it acts on strings (keys are strings): of an anyOf (what negation leaves:
    `{"anyOf": [{"type": [non-string types]}, {"type": "string", ...}]}`, possibly beside a
    `type` that admits strings) the one branch that admits strings, `false` when none does;
    allOf members merged into the node where no keyword clashes; anything else unchanged."""
    if isinstance(names, dict) and isinstance(names.get("allOf"), list) and all(
            isinstance(m, dict) for m in names["allOf"]):  # members merged where they do not clash
        merged = {k: v for k, v in names.items() if k != "allOf"}
        for member in names["allOf"]:
            for k, v in member.items():
                if k in merged and merged[k] != v:
                    return names
                merged[k] = v
        names = merged
    if not isinstance(names, dict) or set(names) - {"type"} != {"anyOf"} or not _allows_strings(names):
        return names
    strings = [b for b in names["anyOf"] if b is True or (isinstance(b, dict) and _allows_strings(b))]
    return names if len(strings) > 1 else strings[0] if strings else False


def _forbidden(out: dict[str, Any], patterns: list[str]) -> dict[str, Any]:
    """Names that match none of `patterns` (a negated pattern, `NOT_PATTERN`): each pattern
    forbids its keys (`patternProperties: {p: false}`); a key it newly takes from
    additionalProperties is forbidden either way."""
    out["patternProperties"] = {**out.get("patternProperties", {}), **{p: False for p in patterns}}
    return out


def lower(node: dict[str, Any], ctx: LowerContext) -> Schema:
    if "propertyNames" not in node:
        return node
    here = child_pointer(ctx.pointer, "propertyNames")
    names = _string_part(ctx.deref(node["propertyNames"]))
    out = {k: v for k, v in node.items() if k != "propertyNames"}
    if names is True or names == {}:
        return out
    if names is False or (isinstance(names, dict) and not _allows_strings(names)):
        return _empty_only(out)
    if isinstance(names, dict) and set(names) - {"type"} == {NOT_PATTERN}:
        return _forbidden(out, list(names[NOT_PATTERN]))
    if not isinstance(names, dict) or not set(names) <= _STRING_KEYWORDS:
        raise reject("property-names-not-exact", here,
                     "`propertyNames` uses keywords with no key-level form (only enum/const/pattern/length)")
    if set(names) == {"type"}:
        return out  # every key is a string
    props: dict[str, Schema] = dict(out.get("properties", {}))
    pattern_props: dict[str, Schema] = dict(out.get("patternProperties", {}))
    additional: Schema = out.get("additionalProperties", True)
    if "enum" in names or "const" in names:
        members = [names["const"]] if "const" in names else list(names["enum"])
        keys = list(dict.fromkeys(m for m in members if isinstance(m, str)))
        ctx.budget.reserve("evaluations", len(keys), here)
        keys = [k for k in keys if _name_ok(k, names, here)]
        if not keys:
            return _empty_only(out)
        ctx.budget.reserve("entries", len(keys), here)
        closed: dict[str, Schema] = {}
        for k in keys:
            parts = [props[k]] if k in props else []
            matching = [s for p, s in pattern_props.items() if _search(p, k, here)]
            if k not in props and not matching:
                parts.append(additional)
            parts += matching
            closed[k] = all_of([p for p in parts if p != {}], keep_false=True)
        out.pop("patternProperties", None)
        out["properties"] = closed
        out["additionalProperties"] = False
        return out
    regex = _key_regex(names)
    if regex is None:
        raise reject("property-names-not-exact", here,
                     "a `pattern` together with a length bound on property names has no single-regex form")
    ctx.budget.reserve("evaluations", len(props), here)
    kept = {k: (s if _name_ok(k, names, here) else False) for k, s in props.items()}
    if pattern_props and set(pattern_props) != {regex}:
        raise reject("property-names-not-exact", here,
                     "`propertyNames` with `patternProperties` other than the name pattern itself "
                     "needs a regex intersection RE2 cannot express")
    out["properties"] = kept
    if pattern_props or additional is False:
        # every key matching the name pattern is covered by it already; others must not appear
        out["additionalProperties"] = False
        return out
    if additional is not True and any(s is not False for s in kept.values()):
        raise reject("property-names-not-exact", here,
                     "`propertyNames` with a pattern, listed properties and a non-trivial "
                     "additionalProperties has no exact disjoint-pattern form")
    out["patternProperties"] = {regex: additional}
    out["additionalProperties"] = False
    return out
