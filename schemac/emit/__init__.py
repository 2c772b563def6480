"""Emit: the lowered schema as an llguidance grammar under schemac's fixed syntax policy.

Two backends: llguidance's own JSON-schema form (`json_path`), where it is exact, and schemac's
Lark writer (`lark.writer`) for what it is not exact on (marked arrays, key constraints, number
bounds, listed numbers), which embeds the rest as `%json`. `lark_text` turns either into the one Lark text that
unmodified engines accept.

This module is emit's public surface: the pipeline, the tool envelopes and verify use these
names and never emit's submodules. `emit_written` is the one place a grammar is written again:
in the order of `properties` when the orders a policy adds pass llguidance's limits, and with
its unsatisfiable parts dropped when llguidance finds some.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from urllib.parse import unquote

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from schemac.budget import NATIVE_BYTES_PER_STEP, Budget, check_cost, within_cost_by_size
from schemac.diagnostics import CompileError, reject
from schemac.emit.json_path import SYNTAX_POLICY, embed, json_schema_grammar, literal, translated
from schemac.emit.lark.export import lark_text
from schemac.emit.lark.probe import PROBE_FROM, checked_parser_limit, parser_limit
from schemac.lower.stated_orders import with_required_orders
from schemac.lower.support.productive import drop_definitions
from schemac.native import on_big_stack
from schemac.schema import Schema

if TYPE_CHECKING:
    from schemac.diagnostics import DiagnosticSink

__all__ = ["SYNTAX_POLICY", "Emitted", "embed", "emit_written", "json_schema_grammar", "lark_rules_of", "lark_text",
           "literal", "translated", "within"]

#: names that load the Lark writer, which most schemas never need: read on first use
_LAZY = {"lark_rules_of": "schemac.emit.lark.writer", "within": "schemac.emit.lark.object_free"}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'schemac.emit' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)

#: the parser probe builds a matcher and computes ~530 masks: paid as this many grammar checks
PROBE_BYTES_PER_GRAMMAR_BYTE = 4

#: Texts whose presence in a lowered schema's JSON means a node may need the Lark writer (`"x-schemac-`:
#: every marker, array, scalar and object witness alike).
_SCREEN = ('"x-schemac-', '"properties"', '"patternProperties"', '"required"', '"minimum"', '"maximum"',
           '"exclusiveMinimum"', '"exclusiveMaximum"', '"multipleOf"', '"const"', '"enum"', '"pattern"')


def _validated(grammar: str) -> str | None:
    """llguidance's first error for `grammar`, or None when it loads."""
    import llguidance

    is_error, messages = on_big_stack(llguidance.LLMatcher.validate_grammar_with_warnings, grammar, None)
    return (messages[0] if messages else "unknown error") if is_error else None


def _checked(grammar: str, lark: bool, budget: Budget) -> str | None:
    """llguidance's grammar check, then (Lark grammars) the parser probe: each paid for by the
    grammar's size before it runs (both are uninterruptible native calls).

    Where both run and the budget holds both, the probe's matcher is built first and stands for
    the check when it builds (`checked_parser_limit`): one compile of the grammar, not two. Where
    it does not build, the check runs as before and the probe's payment is given back when the
    check fails, so every answer and every step count is the one check-then-probe gives."""
    budget.native("", len(grammar))
    probe = lark and len(grammar) >= PROBE_FROM
    cost = 1 + PROBE_BYTES_PER_GRAMMAR_BYTE * len(grammar) // NATIVE_BYTES_PER_STEP
    if probe and budget.fits("steps", cost):
        budget.native("", PROBE_BYTES_PER_GRAMMAR_BYTE * len(grammar))
        built, probed = checked_parser_limit(grammar)
        if built:
            return probed
        message = _validated(grammar)
        if message is not None:
            budget.used["steps"] -= cost  # check-then-probe stops at the check, unpaid for the probe
            return message
        return probed
    message = _validated(grammar)
    if message is None and probe:
        budget.native("", PROBE_BYTES_PER_GRAMMAR_BYTE * len(grammar))
        message = parser_limit(grammar)
    return message


@dataclass(frozen=True)
class Emitted:
    """A validated grammar and how it was written, so that the same schema can be written again
    as one part of a larger Lark grammar (a tool envelope) by the same writer with the same
    choices: `schema` is the lowered schema written (empty definitions dropped), `lark` whether
    the Lark writer wrote it, `check_unsat` whether its embeddings were checked one by one."""

    grammar: str
    schema: Schema
    lark: bool
    check_unsat: bool
    key_order: str

    def rules(self, prefix: str, budget: Budget) -> tuple[str, list[str]]:
        """(expression, rule lines) for this schema inside another Lark grammar, every name
        starting with `prefix` (lower case): the Lark writer's rules, or one `%json` rule."""
        from schemac.emit.lark.writer import lark_rules

        if self.lark:
            return lark_rules(self.schema, prefix, self.check_unsat, budget, self.key_order)
        body = {k: v for k, v in self.schema.items() if k != "$defs"} if isinstance(self.schema, dict) else self.schema
        defs = self.schema.get("$defs", {}) if isinstance(self.schema, dict) else {}
        return f"{prefix}json", [f"{prefix}json: {embed(body, defs)}"]


def _share(budget: Budget) -> Budget:
    """A budget for a first attempt that a fallback may follow: the same limits and counts, and
    half of the steps `budget` has left, so the fallback keeps the other half whatever the
    attempt spent (the attempt's other counts are its own: the fallback starts from what the
    attempt found)."""
    left = max(0, budget.limits.steps - budget.used["steps"])
    return Budget(replace(budget.limits, steps=budget.used["steps"] + left // 2), dict(budget.used), budget.started)


def emit_written(lowered: Schema, budget: Budget | None = None, key_order: str = "schema",
                 sink: DiagnosticSink | None = None) -> Emitted:
    """The grammar for `lowered`, validated by llguidance, and how it was written; rejects with
    `grammar-error`, or `too-large` when writing it passes the budget's steps or grammar size.

    `key_order` is the property-order policy. A policy that adds orders ("any"; "schema" where a
    `required` states another order than `properties`, `stated_orders`) is tried first, on half
    of the steps left (`_share`); a grammar past llguidance's limits (symbols, rule depth, rows,
    size), that half or Python's stack is written again in the order of `properties` on the
    other half, with a warning to `sink`: every order of every small object can cost ten times
    the rules of one. The result's `key_order` is the policy it was written under."""
    from schemac.emit.lark.object_free import MAX_FREE_KEYS

    budget = budget or Budget()
    if key_order != "properties":
        attempt: Budget | None = None
        try:
            # objects "any" writes in one order (past its bound) take the orders "schema" admits too
            wider = with_required_orders(lowered, MAX_FREE_KEYS if key_order == "any" else 0)
            if wider is not lowered or key_order == "any":
                attempt = _share(budget)
                written = _written(wider, attempt, key_order)
                budget.used.update(attempt.used)
                return written
        except (CompileError, RecursionError) as exc:
            if isinstance(exc, CompileError) and exc.codes not in (["grammar-error"], ["too-large"], ["budget-exhausted"]):
                raise
            if attempt is not None:  # the attempt's steps are spent: the fallback has the other half
                budget.used["steps"] = max(budget.used["steps"], attempt.used["steps"])
            if sink is not None:
                why = exc.diagnostics[0].message if isinstance(exc, CompileError) else "nesting too deep"
                sink.warn("key-order-fallback", "", f"written in the order of `properties`: in the orders "
                          f"key_order=\"{key_order}\" admits, {why}", hint="split the schema, or compile it with key_order=\"properties\"")
    return _written(lowered, budget, "properties")


def _written(lowered: Schema, budget: Budget, key_order: str) -> Emitted:
    """One attempt under one policy: written, checked, and written again with the parts that
    accept nothing dropped (Lark: each embedding checked; JSON form: the empty definitions
    llguidance names, one per round) when llguidance finds the schema unsatisfiable."""
    from schemac.emit.lark.writer import lark_grammar

    check_unsat = False
    if lowered is False:
        raise reject("unsatisfiable", "", "no JSON value satisfies this schema, so no answer can be generated")
    if lowered is True:
        lowered = {}
    grammar, lark = _write(lowered, budget, key_order)
    message = _checked(grammar, lark, budget)
    if message is not None and lark and "Unsatisfiable schema" in message:
        check_unsat = True
        grammar = lark_grammar(lowered, check_unsat=True, budget=budget, key_order=key_order)  # drop the parts that accept nothing
        message = _checked(grammar, True, budget)
    # each round removes the named definition, so a name never comes back: at most one per definition
    while message is not None and not lark and (name := _empty_definition(message, lowered)) is not None:
        lowered = drop_definitions(lowered, {name})
        if lowered is False:
            break
        grammar, lark = _write(lowered, budget, key_order)
        message = _checked(grammar, lark, budget)
    if message is not None:
        if "Unsatisfiable schema" in message:
            raise reject("unsatisfiable", "", f"no JSON value satisfies this schema ({message})")
        if "items; max is" in message:
            raise reject("too-large", "", f"llguidance's parser gives up at the start of an answer ({message})",
                         hint="fewer overlapping branches under allOf/anyOf/oneOf/not (each one is alive at the opening byte)")
        raise reject("grammar-error", "", f"llguidance rejected the grammar: {message}")
    return Emitted(grammar, lowered, lark, check_unsat, key_order)


def _write(lowered: Schema, budget: Budget, key_order: str) -> tuple[str, bool]:
    """(grammar, whether the Lark writer wrote it) for a lowered schema, unvalidated."""
    from schemac.emit.lark.writer import lark_grammar, needs_lark
    from schemac.regex import PatternError

    limits = budget.limits
    lark = False
    try:
        # One C-speed dump screens for the walks: no keyword text that may need Lark means no
        # walk, and no `"pattern` text means no regex to translate.
        text = json.dumps(lowered, ensure_ascii=False, allow_nan=False)
        if not within_cost_by_size(len(text), limits):  # lowering can merge objects past the
            check_cost(lowered, limits)  # loader's bounds; llguidance's check is uninterruptible
        if any(s in text for s in _SCREEN) and needs_lark(lowered, key_order):  # Lark writes it, embeds the rest
            lark = True
            grammar = lark_grammar(lowered, budget=budget, key_order=key_order)
        else:
            if '"pattern' in text:
                text = json.dumps(translated(lowered), ensure_ascii=False, allow_nan=False)
            grammar = json_schema_grammar(text)
    except PatternError as exc:
        raise reject(exc.code, "", f"a lowered pattern cannot be translated: {exc}") from exc
    except ValueError as exc:
        raise reject("grammar-error", "", f"llguidance could not read the lowered schema: {exc}") from exc
    if len(grammar) > limits.max_grammar_bytes:
        raise reject("too-large", "", f"grammar is {len(grammar)} bytes; the limit is {limits.max_grammar_bytes}")
    return grammar, lark


_DEFINITION_AT = "json-schema:///#/$defs/"


def _empty_definition(message: str, lowered: Schema) -> str | None:
    """The definition of `lowered` that llguidance's "Unsatisfiable schema ... while processing
    json-schema:///#/$defs/NAME" names, if any."""
    if "Unsatisfiable schema" not in message or _DEFINITION_AT not in message or not isinstance(lowered, dict):
        return None
    token = message.split(_DEFINITION_AT, 1)[1].split()[0]
    if "/" in token:  # a part of the definition: the definition itself may still have values
        return None
    name = unquote(token).replace("~1", "/").replace("~0", "~")
    return name if name in lowered.get("$defs", {}) else None
