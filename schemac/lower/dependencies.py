"""dependentRequired / dependentSchemas → anyOf over "key absent" and "key present and …".

For objects, `{dependentRequired: {a: [b]}}` holds iff `a` is absent or `a` and `b` are both
present; `properties: {a: false}` and `required` ignore non-objects, so the two-branch anyOf is
exact for every JSON value. Keys that are known present (required, or implied by a dependency of
a required key) need no branch: their dependencies join `required`/`allOf` directly. llguidance
distributes the allOf of these anyOfs, so n conditional dependencies cost up to 2^n object
alternatives there; each generated branch is charged to the budget.
"""
from __future__ import annotations

from typing import Any

from schemac.diagnostics import reject
from schemac.lower.context import LowerContext
from schemac.schema import Schema, child_pointer


def _string_list(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(x, str) for x in value)


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
                unconditional.append(dep_sch[key])
    conditional: list[Schema] = []
    for key in dict.fromkeys(list(dep_req) + list(dep_sch)):
        if key in done or props.get(key) is False:
            continue  # already applied, or the key can never be present
        needs = [d for d in dict.fromkeys(dep_req.get(key, [])) if d not in present and d != key]
        sub = dep_sch.get(key, True)
        if not needs and sub is True:
            continue
        if sub is False:
            conditional.append({"properties": {key: False}})
            continue
        ctx.budget.reserve("entries", 2, child_pointer(ctx.pointer, "dependentRequired" if needs else "dependentSchemas", key))
        then: dict[str, Any] = {"required": [key, *needs]}
        if sub is not True:
            then = {"allOf": [then, sub]}
        conditional.append({"anyOf": [{"properties": {key: False}}, then]})
    if required:
        out["required"] = required
    extra = unconditional + conditional
    if extra:
        out["allOf"] = list(out.get("allOf", [])) + extra
    return out
