"""A tools request (Chat Completions or Responses) read into what the grammar needs, with
admission checks: anything that cannot be honoured exactly is refused before generation.

Refused beside constraints: tool parsers we have no envelope for, custom stop strings and
`ignore_eos` (either could cut or extend an envelope or answer), multimodal input or audio
output (the grammar constrains text only), non-function tools and `allowed_tools` choices.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from schemac.api import NAME, RequestError, chat_response_format, responses_text_format

#: OpenAI's meaning of an omitted `parameters`: a function that takes no arguments.
NO_PARAMETERS: dict[str, Any] = {"type": "object", "properties": {}, "additionalProperties": False}
_TEXT_PARTS = {"chat": {"text", "refusal"}, "responses": {"input_text", "output_text", "refusal"}}


@dataclass(frozen=True)
class FunctionTool:
    """One function as the client declared it; `pointer` locates `parameters` in the request."""

    name: str
    parameters: Any
    strict: bool
    pointer: str


@dataclass(frozen=True)
class ToolRequest:
    """`choice` is "none", "auto" or "required"; `named` is the forced function, if any.

    `answer` is the answer schema (None: the request has no JSON format) and `answer_pointer`
    where it sits in the request.
    """

    api: str
    answer: Any
    answer_pointer: str
    functions: tuple[FunctionTool, ...]
    choice: str
    named: str | None
    parallel: bool

    @property
    def allows_answer(self) -> bool:
        return self.choice in ("none", "auto")

    @property
    def allows_calls(self) -> bool:
        return self.choice in ("auto", "required")

    def called(self) -> tuple[FunctionTool, ...]:
        """The functions the tool branch may call (all, or the named one)."""
        if not self.allows_calls:
            return ()
        return tuple(f for f in self.functions if self.named is None or f.name == self.named)


def read_request(request: Mapping[str, Any], api: str) -> ToolRequest:
    """Read and check a Chat (`api="chat"`) or Responses (`api="responses"`) request body."""
    if api not in ("chat", "responses"):
        raise ValueError(f"api must be 'chat' or 'responses', got {api!r}")
    if not isinstance(request, Mapping):
        raise RequestError("invalid-request", "body", "must be a JSON object")
    _check_unsupported(request, api)
    answer, answer_pointer = _answer(request, api)
    functions = _functions(request.get("tools"), api)
    choice, named = _choice(request.get("tool_choice"), api, functions)
    parallel = request.get("parallel_tool_calls", True)
    if parallel is None:
        parallel = True
    if not isinstance(parallel, bool):
        raise RequestError("invalid-request", "parallel_tool_calls", "must be a boolean")
    if answer is None and choice != "required":
        raise RequestError(
            "nothing-to-constrain", "response_format" if api == "chat" else "text.format",
            "tools with tool_choice 'auto' or 'none' need a JSON response format to constrain the answer; "
            "without one the request is not a constrained request",
        )
    return ToolRequest(api, answer, answer_pointer, functions, choice, named, parallel)


def _check_unsupported(request: Mapping[str, Any], api: str) -> None:
    stop = request.get("stop")
    if stop not in (None, [], ""):
        raise RequestError("unsupported-stop-strings", "stop", "custom stop strings could cut a tool call or a structured answer")
    if request.get("ignore_eos"):
        raise RequestError("unsupported-ignore-eos", "ignore_eos", "ignore_eos would continue past the end of the tool call or answer")
    modalities = request.get("modalities")
    if (isinstance(modalities, list) and any(m != "text" for m in modalities)) or request.get("audio") is not None:
        raise RequestError("unsupported-multimodal", "modalities", "only text output can be constrained")
    items = request.get("messages") if api == "chat" else request.get("input")
    if not isinstance(items, list):
        return
    for i, item in enumerate(items):
        content = item.get("content") if isinstance(item, Mapping) else None
        if not isinstance(content, list):
            continue
        for j, part in enumerate(content):
            kind = part.get("type") if isinstance(part, Mapping) else None
            if kind not in _TEXT_PARTS[api]:
                where = f"{'messages' if api == 'chat' else 'input'}[{i}].content[{j}]"
                raise RequestError("unsupported-multimodal", where, f"content of type {kind!r} is not supported with constraints; send text only")


def _answer(request: Mapping[str, Any], api: str) -> tuple[Any, str]:
    if api == "chat":
        fmt = chat_response_format(request.get("response_format"))
        pointer = "/response_format" + ("/json_schema/schema" if _is_json_schema(request.get("response_format")) else "")
    else:
        fmt = responses_text_format(request.get("text"))
        pointer = "/text/format" + ("/schema" if _is_json_schema((request.get("text") or {}).get("format")) else "")
    return (None, "") if fmt is None else (fmt.schema, pointer)


def _is_json_schema(fmt: Any) -> bool:
    return isinstance(fmt, Mapping) and fmt.get("type") == "json_schema"


def _functions(tools: Any, api: str) -> tuple[FunctionTool, ...]:
    if tools is None:
        return ()
    if not isinstance(tools, list):
        raise RequestError("invalid-tools", "tools", "must be an array")
    out: list[FunctionTool] = []
    for i, tool in enumerate(tools):
        param = f"tools[{i}]"
        if not isinstance(tool, Mapping):
            raise RequestError("invalid-tools", param, "must be an object")
        if tool.get("type") != "function":
            raise RequestError("unsupported-tool-type", f"{param}.type", f"only function tools can be constrained, got {tool.get('type')!r}")
        if api == "chat":
            _only(tool, {"type", "function"}, param)
            spec, param, pointer = tool.get("function"), f"{param}.function", f"/tools/{i}/function"
            if not isinstance(spec, Mapping):
                raise RequestError("invalid-tools", param, "must be an object with a name")
        else:
            spec, pointer = tool, f"/tools/{i}"
        _only(spec, {"type", "name", "description", "parameters", "strict"} if api == "responses" else {"name", "description", "parameters", "strict"}, param)
        name = spec.get("name")
        if not isinstance(name, str) or not NAME.match(name):
            raise RequestError("invalid-tools", f"{param}.name", "required: 1-64 characters of a-z, A-Z, 0-9, '_' or '-'")
        if any(f.name == name for f in out):
            raise RequestError("invalid-tools", f"{param}.name", f"function {name!r} is declared twice")
        strict = spec.get("strict")
        if strict is not None and not isinstance(strict, bool):
            raise RequestError("invalid-tools", f"{param}.strict", "must be a boolean or null")
        parameters = spec.get("parameters", NO_PARAMETERS)
        if not isinstance(parameters, (Mapping, bool)):
            raise RequestError("invalid-tools", f"{param}.parameters", "must be a JSON Schema object or boolean")
        parameters = dict(parameters) if isinstance(parameters, Mapping) else parameters
        out.append(FunctionTool(name, parameters, strict is not False, pointer + "/parameters"))
    return tuple(out)


def _choice(choice: Any, api: str, functions: tuple[FunctionTool, ...]) -> tuple[str, str | None]:
    if choice is None:
        return ("auto" if functions else "none"), None
    if choice in ("none", "auto", "required"):
        if choice != "none" and not functions:
            raise RequestError("invalid-tool-choice", "tool_choice", f"{choice!r} needs at least one function tool")
        return choice, None
    if not isinstance(choice, Mapping) or choice.get("type") != "function":
        kind = choice.get("type") if isinstance(choice, Mapping) else choice
        raise RequestError("unsupported-tool-choice", "tool_choice", f"must be 'none', 'auto', 'required' or a named function, got {kind!r}")
    spec = choice.get("function") if api == "chat" else choice
    name = spec.get("name") if isinstance(spec, Mapping) else None
    if not any(f.name == name for f in functions):
        raise RequestError("invalid-tool-choice", "tool_choice", f"names function {name!r}, which is not among the tools")
    return "required", name


def _only(obj: Mapping[str, Any], allowed: set[str], param: str) -> None:
    extra = sorted(set(obj) - allowed)
    if extra:
        raise RequestError("invalid-tools", f"{param}.{extra[0]}", "unknown parameter")
