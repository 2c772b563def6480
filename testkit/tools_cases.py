"""Shared request fixtures and envelope writers for the tools tests."""
from __future__ import annotations

import json
from typing import Any

WEATHER = {
    "type": "object",
    "properties": {
        "city": {"type": "string", "description": "raw in DSML"},
        "days": {"type": "integer", "minimum": 1, "maximum": 7},
        "unit": {"$ref": "#/$defs/unit"},
    },
    "required": ["city"],
    "additionalProperties": False,
    "$defs": {"unit": {"enum": ["c", "f"]}},
}
NOTE = {
    "type": "object",
    "properties": {"text": {"type": "string", "maxLength": 5, "pattern": "^[a-z}]*$"}},
    "required": ["text"],
}
ANSWER = {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"], "additionalProperties": False}


def chat_tool(name: str, parameters: Any = None, strict: bool | None = None) -> dict[str, Any]:
    fn: dict[str, Any] = {"name": name}
    if parameters is not None:
        fn["parameters"] = parameters
    if strict is not None:
        fn["strict"] = strict
    return {"type": "function", "function": fn}


TOOLS = [chat_tool("get_weather", WEATHER), chat_tool("note", NOTE)]


def chat(tools: Any = None, answer: Any = ANSWER, **extra: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"messages": [{"role": "user", "content": "hi"}], "tools": TOOLS if tools is None else tools}
    if answer is not None:
        body["response_format"] = {"type": "json_schema", "json_schema": {"name": "answer", "schema": answer}}
    body.update(extra)
    return body


def hermes(*calls: tuple[str, Any]) -> str:
    return "\n".join(
        "<tool_call>\n" + json.dumps({"name": n, "arguments": a}, ensure_ascii=False) + "\n</tool_call>" for n, a in calls
    )


def dsml(*calls: tuple[str, list[tuple[str, Any, bool]]]) -> str:
    """`calls`: (function, [(parameter, value, raw)]); raw values are written as they are."""
    out = ["<｜DSML｜function_calls>\n"]
    for name, params in calls:
        out.append(f'<｜DSML｜invoke name="{name}">\n')
        for pname, value, raw in params:
            text = value if raw else json.dumps(value, ensure_ascii=False)
            out.append(f'<｜DSML｜parameter name="{pname}" string="{"true" if raw else "false"}">{text}</｜DSML｜parameter>\n')
        out.append("</｜DSML｜invoke>\n")
    out.append("</｜DSML｜function_calls>")
    return "".join(out)
