"""What negation knows about the instances a complement will be checked on (`Domain`).

The complement only has to be right inside the schema it will be intersected with; the domain
carries what that context tells: types, integers only, a finite value set, and the sub-domains
of properties and of each array position.

The finite value set comes from everything that bounds the value: the context's own or an
implied member's `const`/`enum` (allOf members and `$ref` targets hold too), or else its types
when they are all finite (null, boolean, integers between bounds some member sets). It only has
to contain every instance of the context: each candidate is then judged by the validator.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from schemac.diagnostics import reject
from schemac.lower.support.analysis import (
    BASE_TYPES,
    ENUMERATION_PAYS,
    MAX_DOMAIN_VALUES,
    accepted_values,
    evaluable,
    finite_of_types,
    finite_values,
    has_keyword,
    implied,
    integer_only,
    types_of,
)
from schemac.lower.support.context import LowerContext
from schemac.schema import Schema, ref_name



def not_exact(ctx: LowerContext, what: str, hint: str | None = None) -> Exception:
    return reject("not-exact", ctx.pointer, f"the complement of {what} has no exact llguidance form", hint)


@dataclass(frozen=True)
class Domain:
    """What is known about every instance the complement will be checked on."""

    types: frozenset[str] = BASE_TYPES
    integers: bool = False
    values: tuple[Any, ...] | None = None
    node: dict[str, Any] = field(default_factory=dict)
    #: the context node and what it implies (allOf members, reference targets): each one holds
    members: tuple[dict[str, Any], ...] = ()

    @staticmethod
    def of(within: Schema | None, ctx: LowerContext) -> "Domain":
        if not isinstance(within, dict) or not within:
            return Domain()
        members = tuple(implied(within, ctx))
        vals = finite_values(within)
        for member in members:
            if vals is None:
                vals = finite_values(member)
        types, integers = types_of(within, ctx), any(integer_only(m) for m in members)
        if vals is None:
            vals = finite_of_types(types, integers, members)
        return Domain(
            types,
            integers,
            tuple(vals) if vals is not None and len(vals) <= MAX_DOMAIN_VALUES else None,
            within,
            members,
        )

    @staticmethod
    def of_all(schemas: list[Schema], ctx: LowerContext) -> "Domain":
        if not schemas:
            return Domain()
        return Domain.of(schemas[0] if len(schemas) == 1 else {"allOf": schemas}, ctx)

    def prop(self, key: str, ctx: LowerContext) -> "Domain":
        found: list[Schema] = []
        for node in self.members:
            props = node.get("properties")
            if isinstance(props, dict) and key in props:
                found.append(props[key])
        return Domain.of_all(found, ctx)

    def item(self, index: int, ctx: LowerContext) -> "Domain":
        found: list[Schema] = []
        for node in self.members:
            prefix = node.get("prefixItems", [])
            if isinstance(prefix, list) and index < len(prefix):
                found.append(prefix[index])
            elif "items" in node:
                found.append(node["items"])
        return Domain.of_all(found, ctx)

    def prefix_length(self) -> int:
        """The positions with a sub-domain of their own: past them every position reads `items`."""
        return max((len(n["prefixItems"]) for n in self.members if isinstance(n.get("prefixItems"), list)), default=0)

    def keys(self) -> frozenset[str] | None:
        """The finite set of keys an object of the domain may have (None when unbounded):
        closed by `additionalProperties: false` without `patternProperties`."""
        out: frozenset[str] | None = None
        for node in self.members:
            props = node.get("properties", {})
            if node.get("additionalProperties") is False and not node.get("patternProperties") and isinstance(props, dict):
                out = frozenset(props) if out is None else out & frozenset(props)
        if out is None:
            return None
        return frozenset(k for k in out if not any(f is False for f in _props_of(self.members, k)))

    def max_items(self) -> int | None:
        """The most items an array of the domain may have (None when unbounded)."""
        limits = [n["maxItems"] for n in self.members if isinstance(n.get("maxItems"), int)]
        for n in self.members:
            if n.get("items") is False and isinstance(n.get("prefixItems", []), list):
                limits.append(len(n.get("prefixItems", [])))
        return min(limits) if limits else None


def enumerated(node: dict[str, Any], ctx: LowerContext) -> Schema | None:
    """`node` as the enum of the values it accepts (beside its `$ref`s, kept), when its
    domain (`Domain.of`: types, integer bounds, const/enum of it, its allOf members and its
    reference's target) is finite; None otherwise. Exact: the domain holds every instance of the
    node, and the validator judges each candidate on the node's own keywords."""
    dom = Domain.of(node, ctx)
    members = node.get("allOf") if isinstance(node.get("allOf"), list) else []
    refs = [m for m in members if isinstance(m, dict) and len(m) == 1 and ref_name(m) is not None]
    local = {k: v for k, v in node.items() if k not in ("$ref", "allOf")}
    if len(refs) < len(members):
        local["allOf"] = [m for m in members if m not in refs]
    if dom.values is None or not evaluable(local) or not has_keyword(local, ENUMERATION_PAYS):
        return None
    if "1e" in repr(dom.values).lower():
        return None  # huge floats: the validator and the grammar's number text may disagree
    kept = accepted_values(local, list(dom.values), ctx)
    if not kept:
        return False
    out: dict[str, Any] = {"const": kept[0]} if len(kept) == 1 else {"enum": kept}
    if refs:
        out["allOf"] = refs
    return out if ref_name(node) is None else {"$ref": node["$ref"], **out}


def _props_of(members: tuple[dict[str, Any], ...], key: str) -> list[Schema]:
    return [n["properties"][key] for n in members if isinstance(n.get("properties"), dict) and key in n["properties"]]
