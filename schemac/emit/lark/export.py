"""One Lark text for an emitted grammar: what unmodified engines accept, and what others refuse.

vLLM (`structured_outputs={"grammar": TEXT}`) and SGLang (`ebnf`) pass the text to
`llguidance.grammar_from("grammar", TEXT)`, which reads Lark when the text has a `%llguidance`
or `start:` line. A JSON-schema grammar becomes `start: %json {...}` with the syntax policy in the
embedded schema's `x-guidance` key (llguidance honours it per `%json`, a test checks); a Lark
grammar is its own text.

Every text opens with `HEADER`, llguidance's options declaration with no option in it. A server
may hand the text to another backend: vLLM's default `auto` tries xgrammar's Lark reader first,
SGLang's default backend reads `ebnf` with xgrammar's EBNF reader. xgrammar implements only part
of llguidance's Lark (its `%json` keeps a fraction of the schema's meaning, escapes and look-ahead
conjunctions are lost), so a text it accepted would be enforced with another language. Both of
xgrammar's readers refuse the first line (`directive %llguidance is not supported`, an EBNF lexer
error at line 1, column 1), so such a server falls back to llguidance or fails the request
loudly; llguidance merges the empty declaration into its default options, changing nothing.
"""
from __future__ import annotations

import json

from schemac.emit.json_path import SYNTAX_POLICY

#: the first line of every exported text (see the module docstring)
HEADER = "%llguidance {}\n"


def lark_text(grammar: str) -> str:
    """The Lark text enforcing exactly the language of `grammar` (an emitted llguidance grammar)."""
    spec = json.loads(grammar)["grammars"]
    if len(spec) != 1:
        raise ValueError(f"an emitted grammar has one part, this one has {len(spec)}")
    part = spec[0]
    if set(part) == {"lark_grammar"}:
        return HEADER + str(part["lark_grammar"])
    if set(part) != {"json_schema"}:
        raise ValueError(f"a grammar part with keys {sorted(part)} has options a Lark text would drop")
    schema = part["json_schema"]
    if schema is True or schema is False:
        raise ValueError("an emitted grammar's schema is an object")
    if schema.get("x-guidance") != SYNTAX_POLICY:
        raise ValueError("an emitted JSON-schema grammar carries the syntax policy")
    return HEADER + "start: %json " + json.dumps(schema, ensure_ascii=True, allow_nan=False) + "\n"
