"""Emit: the lowered schema as an llguidance grammar under schemac's fixed syntax policy.

The policy is ours, never the schema's: strict mode, the JSON text that `json.dumps` writes
(`", "`/`": "` or compact `","`/`":"` separators, no other whitespace), so generated answers are
bounded and parse the same everywhere.
"""
from __future__ import annotations

import json
from typing import Any

from schemac.budget import Limits, check_cost, within_cost_by_size
from schemac.diagnostics import reject
from schemac.schema import Schema, iter_subschemas

#: llguidance JSON options applied as overrides; `lenient` stays False (strict) always.
SYNTAX_POLICY: dict[str, Any] = {
    "whitespace_flexible": False,
    "item_separator": ", ?",
    "key_separator": ": ?",
    "coerce_one_of": False,
    "lenient": False,
}


def _translated(node: Schema) -> Schema:
    """A copy of `node` with every regex in the form that means the same to llguidance and RE2.

    Schemas keep ECMA-262 patterns (what the user wrote, what final validation reads);
    llguidance gets `schemac.regex.translate`'s explicit equivalent, so both engines agree.
    """
    from schemac.regex import translate

    if not isinstance(node, dict):
        return node
    out = dict(node)
    if isinstance(out.get("pattern"), str):
        out["pattern"] = translate(out["pattern"])
    for tokens, sub in iter_subschemas(node):
        kw = tokens[0]
        if len(tokens) == 1:
            out[kw] = _translated(sub)
        elif isinstance(node[kw], list):
            if out[kw] is node[kw]:
                out[kw] = list(node[kw])
            out[kw][tokens[1]] = _translated(sub)
        else:
            if out[kw] is node[kw]:
                out[kw] = {}
            key = translate(tokens[1]) if kw == "patternProperties" else tokens[1]
            out[kw][key] = _translated(sub)
    return out


#: the policy as llguidance reads it from the root schema's `x-guidance` key
_POLICY_MEMBER = '"x-guidance":' + json.dumps(SYNTAX_POLICY)


def json_schema_grammar(text: str) -> str:
    """llguidance's top-level grammar for the schema object whose JSON text is `text`, under
    SYNTAX_POLICY, written directly.

    `grammar_from_json_schema(text, overrides=...)` parses the text and writes it again (about
    30 µs on a typical schema, a tenth of a whole compile). The policy goes in the root's
    `x-guidance` key, where llguidance reads it; no lowered schema has one of its own (the
    front end refuses client `x-guidance`, and lowering drops unknown keywords).
    """
    inner = text[:-1].rstrip()
    separator = "" if inner.endswith("{") else ","
    return '{"grammars":[{"json_schema":' + inner + separator + _POLICY_MEMBER + "}}]}"


def emit(lowered: Schema, limits: Limits | None = None) -> str:
    """Grammar text for `lowered`, validated by llguidance; rejects with `grammar-error`."""
    import llguidance

    limits = limits or Limits()
    if lowered is False:
        raise reject("unsatisfiable", "", "no JSON value satisfies this schema, so no answer can be generated")
    if lowered is True:
        lowered = {}
    from schemac.lark import MARK, lark_grammar, marked
    from schemac.regex import PatternError

    try:
        # One C-speed dump screens for the two walks: no MARK text means no Lark arrays, and no
        # `"pattern` text means no regex to translate (a string value that merely contains either
        # only costs the walk).
        text = json.dumps(lowered, ensure_ascii=False, allow_nan=False)
        if not within_cost_by_size(len(text), limits):  # lowering can merge objects past the
            check_cost(lowered, limits)  # loader's bounds; llguidance's check is uninterruptible
        if f'"{MARK}"' in text and marked(lowered):  # arrays only Lark can write; it embeds the rest
            grammar = lark_grammar(lowered)
        else:
            if '"pattern' in text:
                text = json.dumps(_translated(lowered), ensure_ascii=False, allow_nan=False)
            grammar = json_schema_grammar(text)
    except PatternError as exc:
        raise reject(exc.code, "", f"a lowered pattern cannot be translated: {exc}") from exc
    except ValueError as exc:
        raise reject("grammar-error", "", f"llguidance could not read the lowered schema: {exc}") from exc
    if len(grammar) > limits.max_grammar_bytes:
        raise reject("too-large", "", f"grammar is {len(grammar)} bytes; the limit is {limits.max_grammar_bytes}")
    is_error, messages = llguidance.LLMatcher.validate_grammar_with_warnings(grammar, None)
    if is_error:
        message = messages[0] if messages else "unknown error"
        if "Unsatisfiable schema" in message:
            raise reject("unsatisfiable", "", f"no JSON value satisfies this schema ({message})")
        raise reject("grammar-error", "", f"llguidance rejected the grammar: {message}")
    return grammar
