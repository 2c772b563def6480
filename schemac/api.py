"""The OpenAI-style request surface below both the runtime and the tool envelopes.

A request is read (`response_format` / `text.format`), refused with one error type when it is
malformed (`RequestError`: HTTP 400, naming the parameter) or cannot be honoured exactly
(`AdmissionError`), and its finished answer reported as an `Outcome` or a
`StructuredOutputError`. `schemac.tools` and `schemac.runtime` both raise and return these, and
the core never imports the runtime, so they live here.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Mapping

#: an OpenAI function or `json_schema` format name
NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_JSON_OBJECT_SCHEMA: dict[str, Any] = {"type": "object"}


class AdmissionError(ValueError):
    """A request the runtime cannot honour exactly; raised before any token is generated."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


class StructuredOutputError(RuntimeError):
    """One request's constrained output failed (grammar error, invalid answer); others go on."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


class RequestError(AdmissionError):
    """A malformed or unsupported request parameter (a structured-output format, a tools
    request): HTTP 400, naming the offending parameter."""

    status = 400

    def __init__(self, code: str, param: str, message: str) -> None:
        super().__init__(code, f"{param}: {message}")
        self.param = param

    def to_json(self) -> dict[str, Any]:
        return {"error": {"type": "invalid_request_error", "code": self.code, "param": self.param, "message": self.message}}


@dataclass(frozen=True)
class Outcome:
    """`status`: "ok" (valid answer in `value`), "length" (cut by the cap) or "tool_calls"."""

    status: str
    text: str
    value: Any = None


@dataclass(frozen=True)
class ResponseFormat:
    """The schema to compile and enforce; `name`/`strict` as the client sent them."""

    schema: Any
    name: str | None = None
    strict: bool | None = None


def _format_error(param: str, message: str) -> RequestError:
    return RequestError("invalid-response-format", param, message)


def chat_response_format(response_format: Any) -> ResponseFormat | None:
    """Chat Completions `response_format` → ResponseFormat (None for plain text)."""
    param = "response_format"
    if response_format is None:
        return None
    kind = _kind(response_format, param)
    if kind != "json_schema":
        return _schemaless(response_format, kind, param)
    _only(response_format, {"type", "json_schema"}, param)
    spec = response_format.get("json_schema")
    if not isinstance(spec, Mapping):
        raise _format_error(f"{param}.json_schema", "must be an object with name and schema")
    return _json_schema(spec, f"{param}.json_schema")


def responses_text_format(text: Any) -> ResponseFormat | None:
    """Responses API `text` (its `format` member) → ResponseFormat (None for plain text)."""
    if text is None:
        return None
    if not isinstance(text, Mapping):
        raise _format_error("text", "must be an object")
    fmt = text.get("format")
    if fmt is None:
        return None
    param = "text.format"
    kind = _kind(fmt, param)
    if kind != "json_schema":
        return _schemaless(fmt, kind, param)
    return _json_schema({k: v for k, v in fmt.items() if k != "type"}, param)


def _kind(fmt: Any, param: str) -> str:
    if not isinstance(fmt, Mapping):
        raise _format_error(param, "must be an object")
    kind = fmt.get("type")
    if kind not in ("text", "json_object", "json_schema"):
        raise _format_error(f"{param}.type", f"must be 'text', 'json_object' or 'json_schema', got {kind!r}")
    return kind


def _schemaless(fmt: Mapping[str, Any], kind: str, param: str) -> ResponseFormat | None:
    """A `text` format (None: plain text) or `json_object` (any object), neither with members."""
    _only(fmt, {"type"}, param)
    return None if kind == "text" else ResponseFormat(_JSON_OBJECT_SCHEMA)


def _only(obj: Mapping[str, Any], allowed: set[str], param: str) -> None:
    extra = sorted(set(obj) - allowed)
    if extra:
        raise _format_error(f"{param}.{extra[0]}", "unknown parameter")


def _json_schema(spec: Mapping[str, Any], param: str) -> ResponseFormat:
    _only(spec, {"name", "schema", "strict", "description"}, param)
    name = spec.get("name")
    if not isinstance(name, str) or not NAME.match(name):
        raise _format_error(f"{param}.name", "required: 1-64 characters of a-z, A-Z, 0-9, '_' or '-'")
    if "schema" not in spec:
        raise _format_error(f"{param}.schema", "required")
    schema = spec["schema"]
    if not isinstance(schema, (Mapping, bool)):
        raise _format_error(f"{param}.schema", "must be a JSON Schema object or boolean")
    strict = spec.get("strict")
    if strict is not None and not isinstance(strict, bool):
        raise _format_error(f"{param}.strict", "must be a boolean or null")
    description = spec.get("description")
    if description is not None and not isinstance(description, str):
        raise _format_error(f"{param}.description", "must be a string")
    return ResponseFormat(dict(schema) if isinstance(schema, Mapping) else schema, name, strict)
