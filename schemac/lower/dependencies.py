"""dependentRequired / dependentSchemas → anyOf over "key absent" and "key present and …".

For objects, `{dependentRequired: {a: [b]}}` holds iff `a` is absent or `a` and `b` are both
present; `properties: {a: false}` and `required` ignore non-objects, so the two-branch anyOf is
exact for every JSON value. Keys that are known present (required, or implied by a dependency of
a required key) need no branch: their dependencies join `required`/`allOf` directly (a dependent
schema only for objects: "required" binds no other value, nor does dependentSchemas); a key that
depends on one known absent (`properties: {x: false}`) is itself forbidden.

llguidance distributes the allOf of these anyOfs, so n conditional dependencies cost up to 2^n
object alternatives there, and its parser rows (2000 items at most) overflow at generation time.
So triggers t1..tn with one requirement X (a key set S and a dependent schema) share one anyOf:
∧ᵢ (tᵢ absent ∨ X) ≡ (all tᵢ absent) ∨ X (if X holds every conjunct does, else each needs its tᵢ
absent). A trigger t with the dependency set N (itself and known-present keys left out) may take
S = N or S = N ∪ {t}, t being present in its second branch anyway: so `{a: [b], b: [a]}` shares
S = {a, b}. Each generated branch is charged to the budget.
"""
from __future__ import annotations

import json
from collections import Counter
from typing import Any

from schemac.diagnostics import reject
from schemac.lower.support.analysis import types_of
from schemac.lower.support.context import LowerContext
from schemac.lower.support.key_names import every_key_named, keys_named, named_everywhere
from schemac.schema import ANNOTATION_KEYWORDS, Schema, all_of, child_pointer

#: keywords that constrain objects only (or nothing): a schema of these binds no other value
_OBJECT_ONLY = ANNOTATION_KEYWORDS | {
    "required", "properties", "patternProperties", "additionalProperties", "minProperties", "maxProperties",
    "propertyNames",
}
_NOT_OBJECT = ["null", "boolean", "array", "number", "string"]
#: what a trigger needs when present: a set of keys, and a dependent schema as canonical JSON
_Requirement = tuple[frozenset[str], str]


def _string_list(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(x, str) for x in value)


def _on_objects(sub: Schema, ctx: LowerContext, key: str) -> Schema:
    """`sub`, the dependent schema of a key known present, for objects only: a required key is
    present in every object, but dependentSchemas never binds a non-object."""
    if sub is False:
        return {"type": _NOT_OBJECT}
    if isinstance(sub, dict) and _OBJECT_ONLY.issuperset(sub):
        return sub
    ctx.budget.reserve("entries", 2, child_pointer(ctx.pointer, "dependentSchemas", key))
    return {"anyOf": [{"type": _NOT_OBJECT}, sub]}


def _groups(triggers: list[tuple[str, list[str], Schema]]) -> dict[str, tuple[list[str], Schema]]:
    """First trigger → (the triggers sharing its requirement, that requirement's branch), for
    (trigger, N, dependent schema) in order. A requirement is a set S and a schema (equal JSON);
    each trigger takes, of S = N and S = N ∪ {t}, the one more triggers can take (N on a tie).
    A lone trigger keeps `[t, *N]` (its branch then excludes its "absent" one)."""
    options: dict[str, tuple[_Requirement, _Requirement]] = {}
    for t, n, sub in triggers:
        text = json.dumps(sub, sort_keys=True)
        options[t] = ((frozenset(n), text), (frozenset(n) | {t}, text))
    count = Counter(o for pair in options.values() for o in pair)
    members: dict[_Requirement, list[str]] = {}
    for t, (own, with_t) in options.items():
        members.setdefault(with_t if count[with_t] > count[own] else own, []).append(t)
    needs = {t: n for t, n, _ in triggers}
    subs = {t: sub for t, _, sub in triggers}
    out: dict[str, tuple[list[str], Schema]] = {}
    for (s, _), group in members.items():
        order = dict.fromkeys(k for t in group for k in (t, *needs[t]))
        required = [k for k in order if k in s or len(group) == 1]
        sub = subs[group[0]]
        # without a required key the branch names the triggers as the dependency did (`true`
        # values beside it: no constraint), so its keys are written canonically (`key_names`)
        named = [{"required": required}] if required else [] if named_everywhere(sub) else [
            {"properties": dict.fromkeys(group, True)}]
        parts: list[Schema] = named + ([] if sub is True else [sub])
        out[group[0]] = (group, all_of(parts, keep_false=True))
    return out


def lower(node: dict[str, Any], ctx: LowerContext) -> Schema:
    dep_req = node.get("dependentRequired", {})
    dep_sch = node.get("dependentSchemas", {})
    if "dependentRequired" not in node and "dependentSchemas" not in node:
        return node
    if not isinstance(dep_req, dict) or not all(_string_list(v) for v in dep_req.values()):
        raise reject("invalid-schema", child_pointer(ctx.pointer, "dependentRequired"),
                     "`dependentRequired` must map keys to arrays of strings")
    if not isinstance(dep_sch, dict):
        raise reject("invalid-schema", child_pointer(ctx.pointer, "dependentSchemas"),
                     "`dependentSchemas` must map keys to schemas")
    out = {k: v for k, v in node.items() if k not in ("dependentRequired", "dependentSchemas")}
    required = list(out.get("required", [])) if _string_list(out.get("required", [])) else None
    if required is None:
        raise reject("invalid-schema", child_pointer(ctx.pointer, "required"),
                     "`required` must be an array of strings")
    props = out.get("properties", {}) if isinstance(out.get("properties"), dict) else {}
    present = set(required)
    unconditional: list[Schema] = []
    done: set[str] = set()
    objects_only = types_of(out, ctx) <= {"object"}
    changed = True
    while changed:  # close `present` under the dependencies of keys that must be present
        changed = False
        for key in [k for k in list(dep_req) + list(dep_sch) if k in present and k not in done]:
            done.add(key)
            changed = True
            for dep in dep_req.get(key, []):
                if dep not in present:
                    present.add(dep)
                    required.append(dep)
            if key in dep_sch and dep_sch[key] is not True:
                sub = dep_sch[key]
                unconditional.append(sub if objects_only else _on_objects(sub, ctx, key))
    absent = {k for k, v in props.items() if v is False}
    triggers: list[tuple[str, list[str], Schema]] = []
    for key in dict.fromkeys(list(dep_req) + list(dep_sch)):
        if key in done or key in absent:
            continue  # already applied, or the key can never be present
        needs = [d for d in dict.fromkeys(dep_req.get(key, [])) if d not in present and d != key]
        sub = False if absent.intersection(needs) else dep_sch.get(key, True)
        if needs or sub is not True:
            triggers.append((key, needs, sub))
    lead = _groups([t for t in triggers if t[2] is not False])
    conditional: list[Schema] = []
    for key, needs, sub in triggers:
        if sub is False:
            conditional.append({"properties": {key: False}})
        elif key in lead:  # else emitted with its group's first trigger
            group, then = lead[key]
            ctx.budget.reserve("entries", 2, child_pointer(ctx.pointer, "dependentRequired" if needs else "dependentSchemas", key))
            conditional.append({"anyOf": [{"properties": dict.fromkeys(group, False)}, then]})
    if required:
        out["required"] = required
    extra = unconditional + conditional
    if extra:
        out["allOf"] = list(out.get("allOf", [])) + extra
    elif not keys_named(out) and (dep_req or dep_sch):  # only dependencies every object meets:
        return every_key_named(out)  # they still name keys, as `properties: {"a": true}` does
    return out
