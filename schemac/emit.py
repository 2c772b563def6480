"""Emit: the lowered schema as an llguidance grammar under schemac's fixed syntax policy.

The policy is ours, never the schema's: strict mode, the JSON text that `json.dumps` writes
(`", "`/`": "` or compact `","`/`":"` separators, no other whitespace), so generated answers are
bounded and parse the same everywhere.
"""
from __future__ import annotations

import json
from typing import Any

from schemac.budget import Limits
from schemac.diagnostics import reject
from schemac.schema import Schema

#: llguidance JSON options applied as overrides; `lenient` stays False (strict) always.
SYNTAX_POLICY: dict[str, Any] = {
    "whitespace_flexible": False,
    "item_separator": ", ?",
    "key_separator": ": ?",
    "coerce_one_of": False,
    "lenient": False,
}


def emit(lowered: Schema, limits: Limits | None = None) -> str:
    """Grammar text for `lowered`, validated by llguidance; rejects with `grammar-error`."""
    import llguidance

    limits = limits or Limits()
    if lowered is False:
        raise reject("unsatisfiable", "", "no JSON value satisfies this schema, so no answer can be generated")
    if lowered is True:
        lowered = {}
    try:
        grammar = llguidance.LLMatcher.grammar_from_json_schema(
            json.dumps(lowered, ensure_ascii=False, allow_nan=False), overrides=SYNTAX_POLICY
        )
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
