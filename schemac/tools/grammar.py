"""One request's grammar, `answer | calls` as tool_choice allows, and final validation of what
was generated: the envelope parsed back, every call's arguments validated against its
function's resolved schema, an answer against the answer schema.

`tool_choice` "none": the answer only; "auto": either; "required": calls only; a named function:
calls of that function only. `parallel_tool_calls: false` allows exactly one call. A tool-call
turn has no answer to validate; the next text turn of the conversation is a new request,
constrained again.
"""
from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any, Mapping

from schemac.api import Outcome, RequestError, StructuredOutputError
from schemac.budget import Budget, Limits
from schemac.diagnostics import CompileError, Diagnostic, reject
from schemac.native import on_big_stack
from schemac.tools.compile import Part, compile_part
from schemac.tools.envelopes import ENVELOPES
from schemac.tools.model import Envelope, EnvelopeError, Function, ToolCall
from schemac.tools.request import FunctionTool, ToolRequest, read_request

if TYPE_CHECKING:
    from schemac.artifact import Artifact


@dataclass(frozen=True)
class Result:
    """`kind` "answer" or "tool_calls"; `code` names the failure when `errors` is not empty:
    answer-not-json, answer-invalid, tool-calls-malformed or tool-calls-invalid."""

    kind: str
    calls: tuple[ToolCall, ...] = ()
    value: Any = None
    errors: tuple[str, ...] = ()
    code: str | None = None

    @property
    def ok(self) -> bool:
        return not self.errors


@dataclass
class ToolGrammar:
    """The compiled constraint of one tools request. `grammar` is llguidance grammar JSON (a
    Lark grammar, `lark` its text); `artifact()` wraps it for `Engine.admit`."""

    request: ToolRequest
    envelope: Envelope
    answer: Part | None
    functions: tuple[Function, ...]
    lark: str
    grammar: str
    key: str
    options: dict[str, Any]
    diagnostics: list[Diagnostic]
    budget: dict[str, dict[str, int]]
    compile_ms: float
    _validators: dict[str, Any] = field(default_factory=dict, repr=False)

    def _validator(self, name: str, schema: Any) -> Any:
        from schemac.validate.final import FinalValidator

        found = self._validators.get(name)
        if found is None:
            found = self._validators[name] = FinalValidator(schema)
        return found

    def validate(self, text: str) -> Result:
        """Check a finished output: a well-formed envelope of allowed, valid calls, or a valid
        answer. Text opening the envelope is read as calls, anything else as the answer."""
        if text.startswith(self.envelope.OPENER) or self.answer is None:
            return self._validate_calls(text)
        from schemac.validate.final import parse_answer

        try:
            value = parse_answer(text)
        except ValueError as exc:
            return Result("answer", errors=(f"answer is not strict JSON: {exc}",), code="answer-not-json")
        errors = self._validator("", self.answer.schema).errors(value)
        return Result("answer", value=value, errors=tuple(errors), code="answer-invalid" if errors else None)

    def _validate_calls(self, text: str) -> Result:
        if not self.functions:
            return Result("tool_calls", errors=("tool calls are not allowed: tool_choice is 'none'",), code="tool-calls-malformed")
        try:
            calls = self.envelope.parse(text)
        except EnvelopeError as exc:
            return Result("tool_calls", errors=(f"not a {self.envelope.NAME} tool-call envelope: {exc}",), code="tool-calls-malformed")
        errors: list[str] = []
        if len(calls) > 1 and not self.request.parallel:
            errors.append(f"{len(calls)} calls, but parallel_tool_calls is false")
        by_name = {fn.name: fn for fn in self.functions}
        for i, call in enumerate(calls):
            fn = by_name.get(call.name)
            if fn is None:
                errors.append(f"call {i}: function {call.name!r} may not be called here")
            elif fn.strict:
                errors += [f"call {i} ({call.name}) arguments {e}" for e in self._validator(fn.name, fn.schema).errors(call.arguments)]
            elif not isinstance(call.arguments, dict):
                errors.append(f"call {i} ({call.name}): arguments must be a JSON object")
        return Result("tool_calls", tuple(calls), errors=tuple(errors), code="tool-calls-invalid" if errors else None)

    def finalize(self, text: str, finish_reason: str) -> Outcome:
        """Like `schemac.runtime.final.finalize`: Outcome "ok" (answer value), "tool_calls"
        (value: the calls) or "length"; raises StructuredOutputError when the output is invalid."""
        if finish_reason == "length":
            return Outcome("length", text)
        if finish_reason != "stop":
            raise ValueError(f"unknown finish reason {finish_reason!r}")
        result = self.validate(text)
        if result.errors:
            assert result.code is not None
            raise StructuredOutputError(result.code, "; ".join(result.errors[:5]))
        if result.kind == "tool_calls":
            return Outcome("tool_calls", text, list(result.calls))
        return Outcome("ok", text, result.value)

    def artifact(self) -> "Artifact":
        """An Artifact carrying this grammar, for `Engine.admit`; its `schema` is the answer's
        (`false` when only calls are allowed), so answer validation keeps working unchanged."""
        from schemac.artifact import Artifact
        from schemac.front.dialect.gate import DIALECT_2020_12
        from schemac.regex.check import unicode_version_of

        answer = self.answer
        parts = [answer.schema, answer.lowered] if answer else []
        parts += [part for fn in self.functions for part in (fn.schema, fn.lowered) if part is not None]
        return Artifact(
            key=self.key,
            dialect=DIALECT_2020_12,
            source_dialect=answer.source_dialect if answer else DIALECT_2020_12,
            schema=answer.schema if answer else False,
            lowered=answer.lowered if answer else False,
            grammar=self.grammar,
            options=self.options,
            diagnostics=list(self.diagnostics),
            budget=self.budget,
            compile_ms=self.compile_ms,
            unicode_version=unicode_version_of(*parts),  # the calls' grammar has the same tables
        )


def build(
    request: Mapping[str, Any],
    *,
    api: str,
    parser: str,
    limits: Limits | None = None,
    upgrade_drafts: bool = False,
    strict_formats: bool = False,
    key_order: str = "schema",
    openapi_formats: bool = True,
) -> ToolGrammar:
    """The ToolGrammar of a Chat (`api="chat"`) or Responses (`api="responses"`) request body
    for the server's tool parser (`parser`: a key of ENVELOPES). The answer and every strict
    function's arguments are written by the same writer as a compiled answer, under
    `key_order` (`schemac.compile`'s; an envelope naming parameters one by one fixes its own);
    `openapi_formats` as for `schemac.compile`.

    Raises `schemac.api.RequestError` for malformed or unsupported requests,
    CompileError with every diagnostic, located in the request body, when the answer schema or
    any function's parameters cannot be enforced exactly. One Budget serves the whole request.
    """
    started = time.perf_counter()
    envelope = ENVELOPES.get(parser)
    if envelope is None:
        raise RequestError("unsupported-tool-parser", "tool_parser", f"no grammar for tool parser {parser!r}; supported: {', '.join(sorted(ENVELOPES))}")
    req = read_request(request, api)
    limits = limits or Limits()
    from schemac.pipeline import KEY_ORDERS

    if key_order not in KEY_ORDERS:
        raise ValueError(f"key_order must be one of {', '.join(KEY_ORDERS)}, not {key_order!r}")
    options = {"upgrade_drafts": upgrade_drafts, "strict_formats": strict_formats, "limits": asdict(limits),
               "key_order": key_order, "openapi_formats": openapi_formats}
    budget = Budget(limits)
    warnings: list[Diagnostic] = []
    errors: list[Diagnostic] = []
    answer = None
    if req.allows_answer:
        try:
            answer = compile_part(req.answer, req.answer_pointer, options, budget, warnings, key_order)
        except CompileError as exc:
            errors += exc.diagnostics
    functions: list[Function] = []
    called = req.called()
    for index, tool in enumerate(req.functions):
        if tool not in called:
            continue
        try:
            fn = _function(index, tool, options, budget, warnings, envelope.KEY_ORDER or key_order)
            envelope.check(fn)
        except CompileError as exc:
            errors += exc.diagnostics
            continue
        functions.append(fn)
    if errors:
        raise CompileError(warnings + errors)
    try:
        lark = _lark(req, envelope, answer, functions, budget)
    except CompileError as exc:
        raise CompileError(warnings + exc.diagnostics) from exc
    grammar = _checked(lark, limits)
    from schemac.pipeline import cache_key

    key = cache_key({"lark": lark, "answer": answer.schema if answer else False}, options)
    return ToolGrammar(
        req, envelope, answer, tuple(functions), lark, grammar, key, options, warnings,
        budget.report(), (time.perf_counter() - started) * 1000.0,
    )


def _function(index: int, tool: FunctionTool, options: dict[str, Any], budget: Budget, warnings: list[Diagnostic],
              key_order: str) -> Function:
    props = tool.parameters.get("properties") if isinstance(tool.parameters, dict) else None
    names = tuple(props) if isinstance(props, dict) else ()
    if not tool.strict:
        return Function(index, tool.name, False, None, None, names, tool.pointer)
    part = compile_part(tool.parameters, tool.pointer, options, budget, warnings, key_order)
    return Function(index, tool.name, True, part.schema, part.lowered, names, tool.pointer, part.written)


def _lark(req: ToolRequest, envelope: Envelope, answer: Part | None, functions: list[Function], budget: Budget) -> str:
    branches = (["answer"] if answer is not None else []) + (["calls"] if functions else [])
    lines = [f"start: {' | '.join(branches)}"]
    if answer is not None:
        top, rules = answer.written.rules("answer_", budget)  # the grammar a compiled answer gets
        lines += [f"answer: {top}", *rules]
    if functions:
        lines.append(envelope.rules(functions, req.parallel, budget))
    return "\n".join(lines) + "\n"


def _checked(lark: str, limits: Limits) -> str:
    import llguidance

    grammar = json.dumps({"grammars": [{"lark_grammar": lark}]}, ensure_ascii=False)
    if len(grammar) > limits.max_grammar_bytes:
        raise reject("too-large", "", f"the tools grammar is {len(grammar)} bytes; the limit is {limits.max_grammar_bytes}")
    is_error, messages = on_big_stack(llguidance.LLMatcher.validate_grammar_with_warnings, grammar, None)
    if is_error:
        raise reject("grammar-error", "", f"llguidance rejected the tools grammar: {messages[0] if messages else 'unknown error'}")
    return grammar
