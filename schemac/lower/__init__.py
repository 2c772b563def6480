"""Lowering: rewrite what llguidance cannot enforce into exact forms it can, or reject.

The walker lowers children first (post-order), then runs `PASSES` on the node in order. Each pass
is one module with one `lower(node, ctx) -> Schema` function that handles its construct and
returns a node without it (lowering anything it generates through `ctx.lower`). The last pass,
`supported`, rejects any keyword still present that llguidance would not enforce, which is what
makes "no constraint is silently ignored" hold whatever the earlier passes do.

A node whose lowering as written finds no exact complement (`not-exact`, `if-not-exact`,
`one-of-not-exact`) gets a second chance in an equivalent shape (`_reshaped`): the enum of its
values when its domain is finite, negation normal form (`normal_form`), or its properties' bounds
copied into its guards (`guard_context`). Each is an equivalence, so exactness never depends on it.
"""
from __future__ import annotations

from typing import Any

from schemac.budget import Budget
from schemac.diagnostics import CompileError, DiagnosticSink, reject, relocate
from schemac.lower import (
    conditionals,
    contains,
    dependencies,
    format_patterns,
    intersection,
    one_of,
    property_names,
    prune,
    supported,
    unevaluated,
    unique_items,
)
from schemac.lower.negation import complement as negation
from schemac.lower.negation import domain as negation_domain
from schemac.lower.negation import normal_form
from schemac.lower.support import guard_context, productive
from schemac.lower.support.analysis import finite_form
from schemac.lower.support.context import Definitions, LowerContext, Pass, Trace
from schemac.lower.support.scalar_marks import stripped
from schemac.schema import DEF_PREFIX, SUBSCHEMA_KEYWORDS, Bundle, Schema

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


#: pass → the keywords it acts on: without any of them it returns its node unchanged (each
#: pass's own first test), so the walker skips it. A pass not listed here always runs.
TRIGGERS: dict[Pass, frozenset[str]] = {
    format_patterns.lower: frozenset({"format"}),
    unevaluated.lower: frozenset({"unevaluatedProperties", "unevaluatedItems"}),
    dependencies.lower: frozenset({"dependentRequired", "dependentSchemas"}),
    conditionals.lower: frozenset({"if"}),
    one_of.lower: frozenset({"oneOf"}),
    negation.lower: frozenset({"not"}),
    property_names.lower: frozenset({"propertyNames"}),
    contains.lower: frozenset({"contains"}),
    unique_items.lower: frozenset({"uniqueItems"}),
    intersection.lower: frozenset({"minProperties", "maxProperties", "minItems", "maxItems", "minLength", "maxLength"}),
}
_Step = tuple[Pass, "frozenset[str] | None", str]


def _segments(passes: tuple[Pass, ...]) -> tuple[tuple[frozenset[str] | None, tuple[_Step, ...]], ...]:
    """`passes` as runs of consecutive triggered passes (with the union of their triggers) and
    single untriggered ones: a node with none of a run's keywords skips the run in one test."""
    out: list[tuple[frozenset[str] | None, list[_Step]]] = []
    for p in passes:
        # a pass is named by its module below schemac.lower, or by its package there (`negation`)
        step = (p, TRIGGERS.get(p), p.__module__.removeprefix(__name__ + ".").split(".")[0])
        if step[1] is not None and out and out[-1][0] is not None:
            out[-1] = (out[-1][0] | step[1], out[-1][1] + [step])
        else:
            out.append((step[1], [step]))
    return tuple((union, tuple(steps)) for union, steps in out)


_PLAN = _segments(PASSES)

#: Keywords no pass acts on (they trigger none, and `supported` keeps them): a non-empty node
#: holding only these, and no empty `required` (`prune` drops it, and turns `{}` into `true`),
#: is a fixpoint of every pass, as tests/compiler/test_perf_fastpaths.py checks pass by pass.
_SETTLED: frozenset[str] = supported.SUPPORTED.difference(*TRIGGERS.values())


def lower_node(node: Schema, ctx: LowerContext) -> Schema:
    """Lower one schema node and everything below it."""
    if isinstance(node, bool):
        return node
    if not isinstance(node, dict):
        raise reject("invalid-schema", ctx.pointer, "a schema must be an object or a boolean")
    ctx.budget.step(ctx.pointer)
    if not _BOUNDED.isdisjoint(node):  # `finite_form`'s own first test, without the call
        short = finite_form(node, ctx)
        if short is not None:
            return short
    try:
        return _lower_written(node, ctx)
    except CompileError as exc:
        if _SHAPE_CODES.isdisjoint(exc.codes):
            raise
        return _reshaped(node, ctx, exc)


def _reshaped(node: dict[str, Any], ctx: LowerContext, exc: CompileError) -> Schema:
    """`node`, whose lowering as written found no exact complement, lowered in an equivalent
    shape: in negation normal form, as the enum of its finitely many values, or with its
    properties' bounds copied into the guards that test them; `exc` when none of them works
    (or the rewrite's own error when that is not about exactness, such as the budget)."""
    finite = negation_domain.enumerated(node, ctx)
    if finite is not None:
        return finite if isinstance(finite, bool) or not _REFERRING & finite.keys() else lower_node(finite, ctx)
    for rewrite in (normal_form.normalise, guard_context.contextualise):
        other = rewrite(node)
        if other is None:
            continue
        try:
            return lower_node(other, ctx)
        except CompileError as again:
            if _SHAPE_CODES.isdisjoint(again.codes):
                raise  # e.g. the budget: the rewrite would compile with more
    raise exc  # reported as written


_REFERRING = frozenset({"$ref", "allOf"})
#: Rejections a node may escape by a rewrite of its shape (`normal_form`).
_SHAPE_CODES = frozenset({"not-exact", "if-not-exact", "one-of-not-exact"})


def _lower_written(node: dict[str, Any], ctx: LowerContext) -> Schema:
    member = one_of.lone_member(node)
    if member is None:
        return _lower_object(node, ctx)
    try:  # lowered as the node's own `oneOf` (see `one_of.hoist`), reported where it was written
        return _lower_object(one_of.hoist(node, member), ctx)
    except CompileError as exc:
        raise CompileError(relocate(exc.diagnostics, ctx.pointer + "/oneOf", f"{ctx.pointer}/allOf/{member}/oneOf")) from exc


def _lower_object(node: dict[str, Any], ctx: LowerContext) -> Schema:
    """`lower_node` past its shortcuts: children first, then the passes."""
    trace = ctx.trace
    # `prune` runs first and drops every key outside KEPT: copying only those gives the same
    # result, except under `explain`, which shows `prune` doing it
    out: dict[str, Any] = {}
    for kw, value in node.items():
        shape = SUBSCHEMA_KEYWORDS.get(kw)
        if shape == "one" and isinstance(value, (dict, bool)):
            out[kw] = lower_node(value, ctx.at(kw))
        elif shape == "list" and isinstance(value, list):
            out[kw] = [lower_node(v, ctx.at(kw, i)) for i, v in enumerate(value)]
        elif shape == "map" and isinstance(value, dict) and kw != "$defs":
            out[kw] = {k: lower_node(v, ctx.at(kw, k)) for k, v in value.items()}
        elif kw in prune.KEPT or trace is not None:
            out[kw] = value
    result: Schema = out
    if trace is None and result and _SETTLED.issuperset(result) and result.get("required") != []:
        return result  # every pass would return it unchanged (see `_SETTLED`)
    for union, steps in _PLAN:
        if union is not None and union.isdisjoint(result):
            continue
        for p, triggers, name in steps:
            if triggers is not None and triggers.isdisjoint(result):
                continue
            before = result
            result = p(before, ctx)
            if trace is not None:
                trace(ctx.pointer, name, before, result)
            if isinstance(result, bool):
                return result
    return result


#: a node without these has no literal bound of its own or in an allOf member
_BOUNDED = frozenset({"const", "enum", "allOf"})
_SCHEMA_MAPS = frozenset({"properties", "patternProperties", "dependentSchemas", "$defs"})
_LITERALS = frozenset({"const", "enum"})


def _referenced(node: Any, found: set[str]) -> None:
    """Collect the bundle definitions `node` refers to; `const`/`enum` values are data, not
    schemas, so a "$ref" inside them is not a reference (maps of schemas keep every key)."""
    stack: list[tuple[Any, bool]] = [(node, False)]
    while stack:
        cur, is_map = stack.pop()
        if isinstance(cur, dict):
            if not is_map:
                ref = cur.get("$ref")  # `ref_name`, inlined: this visits every value
                if isinstance(ref, str) and ref.startswith(DEF_PREFIX):
                    found.add(ref[len(DEF_PREFIX):])
            stack.extend(
                (v, not is_map and k in _SCHEMA_MAPS) for k, v in cur.items() if is_map or k not in _LITERALS
            )
        elif isinstance(cur, list):
            stack.extend((v, False) for v in cur)


def lower_bundle(bundle: Bundle, budget: Budget, sink: DiagnosticSink, trace: Trace | None = None) -> Schema:
    """Lower a resolved bundle into one schema llguidance accepts (with `$defs` it references).

    `trace`, if given, sees every pass run on every node (see `LowerContext.trace`).
    """
    root, defs = stripped(bundle.root), {k: stripped(v) for k, v in bundle.defs.items()}
    if root is not bundle.root or any(defs[k] is not v for k, v in bundle.defs.items()):
        bundle = Bundle(root, defs, bundle.origin)  # a user's markers are annotations
    ctx = LowerContext(budget, Definitions(bundle), sink, "", 0, lower_node, trace)
    root = lower_node(bundle.root, ctx)
    if not bundle.defs and not ctx.defs.lowered:
        return root  # no definition exists, none was generated: nothing can be referenced
    pending: set[str] = set()
    _referenced(root, pending)
    done: set[str] = set()
    while pending - done:
        name = sorted(pending - done)[0]
        done.add(name)
        body = ctx.definition(name)
        _referenced(body, pending)
    defs = {name: ctx.defs.lowered[name] for name in sorted(done)}
    root, defs = productive.drop_unproductive(root, defs)
    if not defs:
        return root
    if isinstance(root, bool):
        return {"allOf": [root], "$defs": defs}
    return {**root, "$defs": defs}
