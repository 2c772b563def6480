"""One Lark text for an emitted grammar: what unmodified engines accept.

vLLM (`structured_outputs={"grammar": TEXT}`) and SGLang (`ebnf`) pass the text to
`llguidance.grammar_from("grammar", TEXT)`, which reads Lark when the text has a line starting
with `start:`. A JSON-schema grammar becomes `start: %json {...}` with the syntax policy in the
embedded schema's `x-guidance` key (llguidance honours it per `%json`, a test checks); a Lark
grammar is its own text.
"""
from __future__ import annotations

import json

from schemac.emit.json_path import SYNTAX_POLICY


def lark_text(grammar: str) -> str:
    """The Lark text enforcing exactly the language of `grammar` (an emitted llguidance grammar)."""
    spec = json.loads(grammar)["grammars"]
    if len(spec) != 1:
        raise ValueError(f"an emitted grammar has one part, this one has {len(spec)}")
    part = spec[0]
    if part.get("lark_grammar") is not None:
        return str(part["lark_grammar"])
    schema = part["json_schema"]
    if schema is True or schema is False:
        raise ValueError("an emitted grammar's schema is an object")
    if schema.get("x-guidance") != SYNTAX_POLICY:
        raise ValueError("an emitted JSON-schema grammar carries the syntax policy")
    return "start: %json " + json.dumps(schema, ensure_ascii=True, allow_nan=False) + "\n"
