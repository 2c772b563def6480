"""OpenAI-style API adapters: the schema out of Chat `response_format` / Responses
`text.format`, and an Outcome back into each API's finish reporting.

Malformed formats are 400-style errors naming the offending parameter; nothing is guessed.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Mapping

from schemac.runtime.errors import AdmissionError
from schemac.runtime.final import Outcome

_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_JSON_OBJECT_SCHEMA: dict[str, Any] = {"type": "object"}


class FormatError(AdmissionError):
    """A malformed structured-output format: HTTP 400, with the parameter path."""

    status = 400

    def __init__(self, param: str, message: str) -> None:
        super().__init__("invalid-response-format", f"{param}: {message}")
        self.param = param

    def to_json(self) -> dict[str, Any]:
        return {"error": {"type": "invalid_request_error", "code": self.code, "param": self.param, "message": self.message}}


@dataclass(frozen=True)
class ResponseFormat:
    """The schema to compile and enforce; `name`/`strict` as the client sent them."""

    schema: Any
    name: str | None = None
    strict: bool | None = None


def chat_response_format(response_format: Any) -> ResponseFormat | None:
    """Chat Completions `response_format` → ResponseFormat (None for plain text)."""
    param = "response_format"
    if response_format is None:
        return None
    kind = _kind(response_format, param)
    if kind == "text":
        _only(response_format, {"type"}, param)
        return None
    if kind == "json_object":
        _only(response_format, {"type"}, param)
        return ResponseFormat(_JSON_OBJECT_SCHEMA)
    _only(response_format, {"type", "json_schema"}, param)
    spec = response_format.get("json_schema")
    if not isinstance(spec, Mapping):
        raise FormatError(f"{param}.json_schema", "must be an object with name and schema")
    return _json_schema(spec, f"{param}.json_schema")


def responses_text_format(text: Any) -> ResponseFormat | None:
    """Responses API `text` (its `format` member) → ResponseFormat (None for plain text)."""
    if text is None:
        return None
    if not isinstance(text, Mapping):
        raise FormatError("text", "must be an object")
    fmt = text.get("format")
    if fmt is None:
        return None
    param = "text.format"
    kind = _kind(fmt, param)
    if kind == "text":
        _only(fmt, {"type"}, param)
        return None
    if kind == "json_object":
        _only(fmt, {"type"}, param)
        return ResponseFormat(_JSON_OBJECT_SCHEMA)
    return _json_schema({k: v for k, v in fmt.items() if k != "type"}, param)


def chat_finish_reason(outcome: Outcome) -> str:
    """Chat `finish_reason`: "stop", "length" (cut by the cap) or "tool_calls"."""
    return {"ok": "stop", "length": "length", "tool_calls": "tool_calls"}[outcome.status]


def responses_status(outcome: Outcome) -> dict[str, Any]:
    """Responses `status` (+ `incomplete_details` when cut by the output cap)."""
    if outcome.status == "length":
        return {"status": "incomplete", "incomplete_details": {"reason": "max_output_tokens"}}
    return {"status": "completed"}


def _kind(fmt: Any, param: str) -> str:
    if not isinstance(fmt, Mapping):
        raise FormatError(param, "must be an object")
    kind = fmt.get("type")
    if kind not in ("text", "json_object", "json_schema"):
        raise FormatError(f"{param}.type", f"must be 'text', 'json_object' or 'json_schema', got {kind!r}")
    return kind


def _only(obj: Mapping[str, Any], allowed: set[str], param: str) -> None:
    extra = sorted(set(obj) - allowed)
    if extra:
        raise FormatError(f"{param}.{extra[0]}", "unknown parameter")


def _json_schema(spec: Mapping[str, Any], param: str) -> ResponseFormat:
    _only(spec, {"name", "schema", "strict", "description"}, param)
    name = spec.get("name")
    if not isinstance(name, str) or not _NAME.match(name):
        raise FormatError(f"{param}.name", "required: 1-64 characters of a-z, A-Z, 0-9, '_' or '-'")
    if "schema" not in spec:
        raise FormatError(f"{param}.schema", "required")
    schema = spec["schema"]
    if not isinstance(schema, (Mapping, bool)):
        raise FormatError(f"{param}.schema", "must be a JSON Schema object or boolean")
    strict = spec.get("strict")
    if strict is not None and not isinstance(strict, bool):
        raise FormatError(f"{param}.strict", "must be a boolean or null")
    description = spec.get("description")
    if description is not None and not isinstance(description, str):
        raise FormatError(f"{param}.description", "must be a string")
    return ResponseFormat(dict(schema) if isinstance(schema, Mapping) else schema, name, strict)
