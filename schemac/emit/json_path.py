"""The JSON-schema form of a grammar: llguidance's own JSON compiler under schemac's syntax policy.

The policy is ours, never the schema's: strict mode, the JSON text that `json.dumps` writes
(`", "`/`": "` or compact `","`/`":"` separators, no other whitespace), so generated answers are
bounded and parse the same everywhere. llguidance reads it from the `x-guidance` key of a root
schema and of every `%json` embedding.
"""
from __future__ import annotations

import json
from functools import lru_cache
from typing import Any

from schemac.schema import Schema, rebuilt

#: llguidance JSON options applied as overrides; `lenient` stays False (strict) always.
SYNTAX_POLICY: dict[str, Any] = {
    "whitespace_flexible": False,
    "item_separator": ", ?",
    "key_separator": ": ?",
    "coerce_one_of": False,
    "lenient": False,
}


def translated(node: Schema) -> Schema:
    """A copy of `node` with every regex in the form that means the same to llguidance and RE2.

    Schemas keep ECMA-262 patterns (what the user wrote, what final validation reads);
    llguidance gets `schemac.regex.translate`'s explicit equivalent, so both engines agree.
    """
    from schemac.regex import translate

    def own(_: dict[str, Any], done: dict[str, Any]) -> Schema:
        pattern, keyed = done.get("pattern"), done.get("patternProperties")
        if not isinstance(pattern, str) and not isinstance(keyed, dict):
            return done
        out = dict(done)
        if isinstance(pattern, str):
            out["pattern"] = translate(pattern)
        if isinstance(keyed, dict):
            out["patternProperties"] = {translate(k): v for k, v in keyed.items()}
        return out

    return rebuilt(node, own)


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


def literal(text: str) -> str:
    """A Lark string literal matching exactly `text`. U+007F is written `\u007f`: llguidance's
    Lark lexer refuses it raw inside a literal (every other character loads raw)."""
    return json.dumps(text, ensure_ascii=False).replace("\x7f", "\\u007f")


@lru_cache(maxsize=8192)  # a pure function of the key; an object's rules spell each listed key many times
def key_literal(key: str) -> str:
    """A Lark string literal matching exactly the policy spelling of object key `key`
    (`json.dumps(key, ensure_ascii=False)`, quotes included)."""
    return literal(json.dumps(key, ensure_ascii=False))


def embed(body: Schema, defs: dict[str, Any]) -> str:
    """`%json {...}` for `body` (a lowered schema, never `false`: emit rejects unsatisfiable
    parts) with `defs` at its root; patterns translated for llguidance exactly as emit does,
    and the syntax policy as its `x-guidance` key (llguidance honours it per embedding).
    Refuses a schema holding a scalar marker: llguidance would skip it (a backstop: the Lark
    writer, which tool envelopes use too, never passes one)."""
    from schemac.lower.support.marks import SCALAR_MARKS, carries

    doc: dict[str, Any] = {} if body is True else dict(body)  # type: ignore[arg-type]
    if defs:
        doc["$defs"] = defs
    if carries(doc, SCALAR_MARKS):  # the whole document: a marker only in a definition is skipped as well
        from schemac.diagnostics import reject

        raise reject("grammar-error", "", "internal: a negated `pattern` or `multipleOf`, or a complement over an open key set, "
                     "reached a `%json` embedding (schemac's Lark writer must write it)")
    doc = translated(doc)  # type: ignore[assignment]
    doc["x-guidance"] = SYNTAX_POLICY
    return "%json " + json.dumps(doc, ensure_ascii=True, allow_nan=False)
