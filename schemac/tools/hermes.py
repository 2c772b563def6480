"""Hermes-style envelope (Qwen, Hermes, many open models): JSON calls inside `<tool_call>` tags.

Canonical layout (the chat templates' own), calls separated by exactly one "\\n":

    <tool_call>
    {"name": "get_weather", "arguments": {"city": "Paris"}}
    </tool_call>
    <tool_call>
    {"name": "get_time", "arguments": {}}
    </tool_call>

The call object is written in Lark per function: `name` then `arguments`, the name that
function's JSON string, the arguments the rules emit writes for its lowered `parameters` (the
grammar an answer of that schema gets: canonical keys, exact numbers; any JSON object when
`strict: false`), under the syntax policy. The policy writes no newlines, so "\\n</tool_call>"
always ends the JSON.
"""
from __future__ import annotations

import json
from typing import Any, Sequence

from schemac.budget import Budget
from schemac.tools.lark import embed, literal
from schemac.tools.model import EnvelopeError, Function, ToolCall

NAME = "hermes"
OPENER = "<tool_call>\n"
CLOSER = "\n</tool_call>"
SEPARATOR = "\n"
#: arguments follow the request's key order
KEY_ORDER = None
_FREE_FORM: dict[str, Any] = {"type": "object"}
_NAME_KEY, _ARGUMENTS_KEY, _CLOSE = literal('{"name"'), literal('"arguments"'), literal("}")


def check(fn: Function) -> None:
    """Every compiled parameters schema fits inside the call object: nothing to refuse."""


def _call_rules(fn: Function, budget: Budget) -> list[str]:
    """`{"name": NAME, "arguments": ARGS}` as rule `fn.rule`, ARGS the arguments' own rules."""
    if fn.written is None:
        top, rules = f"{fn.rule}_free", [f"{fn.rule}_free: {embed(_FREE_FORM, {})}"]
    else:
        top, rules = fn.written.rules(f"{fn.rule}_a_", budget)
    name = literal(json.dumps(fn.name, ensure_ascii=False))
    call = " ".join([_NAME_KEY, "TOOL_KSEP", name, "TOOL_SEP", _ARGUMENTS_KEY, "TOOL_KSEP", top, _CLOSE])
    return [f"{fn.rule}: {call}", *rules]


def rules(functions: Sequence[Function], parallel: bool, budget: Budget) -> str:
    lines = [
        f"calls: call ({literal(SEPARATOR)} call)*" if parallel else "calls: call",
        f"call: {literal(OPENER)} ({' | '.join(fn.rule for fn in functions)}) {literal(CLOSER)}",
        "TOOL_SEP: /, ?/",
        "TOOL_KSEP: /: ?/",
    ]
    for fn in functions:
        lines += _call_rules(fn, budget)
    return "\n".join(lines)


def parse(text: str) -> list[ToolCall]:
    from schemac.validate.final import parse_answer

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
