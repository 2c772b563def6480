"""Lowering: rewrite what llguidance cannot enforce into exact forms it can, or reject.

The walker lowers children first (post-order), then runs `PASSES` on the node in order. Each pass
is one module with one `lower(node, ctx) -> Schema` function that handles its construct and
returns a node without it (lowering anything it generates through `ctx.lower`). The last pass,
`supported`, rejects any keyword still present that llguidance would not enforce, which is what
makes "no constraint is silently ignored" hold whatever the earlier passes do.
"""
from __future__ import annotations

from typing import Any

from schemac.budget import Budget
from schemac.diagnostics import DiagnosticSink, reject
from schemac.lower import (
    conditionals,
    contains,
    dependencies,
    format_patterns,
    intersection,
    negation,
    one_of,
    property_names,
    prune,
    supported,
    unevaluated,
    unique_items,
)
from schemac.lower.context import Definitions, LowerContext, Pass
from schemac.schema import SUBSCHEMA_KEYWORDS, Bundle, Schema, ref_name

#: Order matters: passes that generate `not` run before `negation`; `intersection` merges what
#: the others produced; `supported` is always last.
PASSES: tuple[Pass, ...] = (
    prune.lower,
    format_patterns.lower,
    unevaluated.lower,
    dependencies.lower,
    conditionals.lower,
    one_of.lower,
    negation.lower,
    property_names.lower,
    contains.lower,
    unique_items.lower,
    intersection.lower,
    supported.lower,
)


def lower_node(node: Schema, ctx: LowerContext) -> Schema:
    """Lower one schema node and everything below it."""
    if isinstance(node, bool):
        return node
    if not isinstance(node, dict):
        raise reject("invalid-schema", ctx.pointer, "a schema must be an object or a boolean")
    ctx.budget.check_deadline(ctx.pointer)
    out: dict[str, Any] = {}
    for kw, value in node.items():
        shape = SUBSCHEMA_KEYWORDS.get(kw)
        if shape == "one" and isinstance(value, (dict, bool)):
            out[kw] = lower_node(value, ctx.at(kw))
        elif shape == "list" and isinstance(value, list):
            out[kw] = [lower_node(v, ctx.at(kw, i)) for i, v in enumerate(value)]
        elif shape == "map" and isinstance(value, dict) and kw != "$defs":
            out[kw] = {k: lower_node(v, ctx.at(kw, k)) for k, v in value.items()}
        else:
            out[kw] = value
    result: Schema = out
    for p in PASSES:
        if isinstance(result, bool):
            break
        result = p(result, ctx)
    return result


def _referenced(node: Any, found: set[str]) -> None:
    stack = [node]
    while stack:
        cur = stack.pop()
        if isinstance(cur, dict):
            name = ref_name(cur)
            if name is not None:
                found.add(name)
            stack.extend(cur.values())
        elif isinstance(cur, list):
            stack.extend(cur)


def lower_bundle(bundle: Bundle, budget: Budget, sink: DiagnosticSink) -> Schema:
    """Lower a resolved bundle into one schema llguidance accepts (with `$defs` it references)."""
    ctx = LowerContext(budget, Definitions(bundle), sink, "", 0, lower_node)
    root = lower_node(bundle.root, ctx)
    pending: set[str] = set()
    _referenced(root, pending)
    done: set[str] = set()
    while pending - done:
        name = sorted(pending - done)[0]
        done.add(name)
        body = ctx.definition(name)
        _referenced(body, pending)
    defs = {name: ctx.defs.lowered[name] for name in sorted(done)}
    if not defs:
        return root
    if isinstance(root, bool):
        return {"allOf": [root], "$defs": defs}
    return {**root, "$defs": defs}
