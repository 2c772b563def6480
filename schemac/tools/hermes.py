"""Hermes-style envelope (Qwen, Hermes, many open models): JSON calls inside `<tool_call>` tags.

Canonical layout (the chat templates' own), calls separated by exactly one "\\n":

    <tool_call>
    {"name": "get_weather", "arguments": {"city": "Paris"}}
    </tool_call>
    <tool_call>
    {"name": "get_time", "arguments": {}}
    </tool_call>

The call object is one `%json` per function: `name` is that function's `const`, `arguments` its
lowered `parameters` (any JSON object when `strict: false`), keys in that order, written under
the syntax policy. The policy writes no newlines, so "\\n</tool_call>" always ends the JSON.
"""
from __future__ import annotations

from typing import Any, Sequence

from schemac.tools.lark import embed, literal, split_defs
from schemac.tools.model import EnvelopeError, Function, ToolCall

NAME = "hermes"
OPENER = "<tool_call>\n"
CLOSER = "\n</tool_call>"
SEPARATOR = "\n"
_FREE_FORM: dict[str, Any] = {"type": "object"}


def check(fn: Function) -> None:
    """Every compiled parameters schema fits inside the call object: nothing to refuse."""


def _call_schema(fn: Function) -> str:
    root, defs = split_defs(fn.lowered if fn.strict else _FREE_FORM)
    body = {
        "type": "object",
        "properties": {"name": {"const": fn.name}, "arguments": root},
        "required": ["name", "arguments"],
        "additionalProperties": False,
    }
    return embed(body, defs)


def rules(functions: Sequence[Function], parallel: bool) -> str:
    lines = [
        f"calls: call ({literal(SEPARATOR)} call)*" if parallel else "calls: call",
        f"call: {literal(OPENER)} ({' | '.join(fn.rule for fn in functions)}) {literal(CLOSER)}",
    ]
    lines += [f"{fn.rule}: {_call_schema(fn)}" for fn in functions]
    return "\n".join(lines)


def parse(text: str) -> list[ToolCall]:
    from schemac.validate import parse_answer

    calls: list[ToolCall] = []
    pos = 0
    while True:
        if not text.startswith(OPENER, pos):
            raise EnvelopeError(f"expected {OPENER!r} at offset {pos}")
        end = text.find(CLOSER, pos + len(OPENER))
        if end < 0:
            raise EnvelopeError(f"call at offset {pos} has no closing {CLOSER!r}")
        try:
            obj = parse_answer(text[pos + len(OPENER) : end])
        except ValueError as exc:
            raise EnvelopeError(f"call at offset {pos}: {exc}") from None
        if not isinstance(obj, dict) or set(obj) != {"name", "arguments"}:
            raise EnvelopeError(f"call at offset {pos} must be an object with exactly 'name' and 'arguments'")
        if not isinstance(obj["name"], str):
            raise EnvelopeError(f"call at offset {pos}: 'name' must be a string")
        calls.append(ToolCall(obj["name"], obj["arguments"]))
        pos = end + len(CLOSER)
        if pos == len(text):
            return calls
        if not text.startswith(SEPARATOR, pos):
            raise EnvelopeError(f"expected {SEPARATOR!r} or the end after the call ending at offset {pos}")
        pos += len(SEPARATOR)
