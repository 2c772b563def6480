"""DeepSeek DSML envelope (DeepSeek V3.2): XML-like tags with fullwidth bars (U+FF5C).

Canonical layout, one tag per line, all calls in one `function_calls` block:

    <｜DSML｜function_calls>
    <｜DSML｜invoke name="get_weather">
    <｜DSML｜parameter name="city" string="true">Paris</｜DSML｜parameter>
    <｜DSML｜parameter name="days" string="false">3</｜DSML｜parameter>
    </｜DSML｜invoke>
    </｜DSML｜function_calls>

The tags are literal text in the grammar (whatever the tokenizer makes of them). Arguments are
named one by one, so a strict function's `parameters` must lower to an object schema with
`properties` and nothing else that constrains the object as a whole (`required` and
`additionalProperties` are fine); other shapes are refused for this envelope. Parameters appear
in `properties` order, each at most once, required ones always. A parameter whose schema is a
plain `{"type": "string"}` is written raw (`string="true"`: the text up to the first closing
tag is the value, so a value holding `</｜DSML｜parameter>` cannot be written); one whose schema
admits anything may be raw or JSON; every other one is JSON for its schema (`string="false"`),
written by emit's Lark writer (one writer per function, over its definitions: canonical keys,
exact numbers, as an answer of that schema).
`strict: false` functions take any subset of their declared property names, raw or any JSON.
"""
from __future__ import annotations

import re
from typing import Any, Sequence

from schemac.budget import Budget
from schemac.diagnostics import reject
from schemac.schema import ANNOTATION_KEYWORDS, Schema, child_pointer, ref_name
from schemac.tools.lark import literal, split_defs
from schemac.tools.model import EnvelopeError, Function, ToolCall

NAME = "dsml"
#: parameters are named one by one in the order of `properties`
KEY_ORDER = "properties"
OPENER = "<｜DSML｜function_calls>\n"
CLOSER = "</｜DSML｜function_calls>"
INVOKE = '<｜DSML｜invoke name="'
INVOKE_END = "</｜DSML｜invoke>\n"
PARAM = '<｜DSML｜parameter name="'
PARAM_END = "</｜DSML｜parameter>"
NAME_END = '">\n'
STRING_ATTR = '" string="'
RAW_OPEN = 'true">'
JSON_OPEN = 'false">'
#: the raw text and its closing tag as ONE lexeme (the first closing tag ends it), because a
#: greedy lexer could not end a free-text lexeme where the closing tag begins
_RAW = r"RAW: /(?s:.*)<\/｜DSML｜parameter>/ & ~/(?s:.*<\/｜DSML｜parameter>.+)/"
_NAME_OK = re.compile(r'^[^"<>\\\x00-\x1f\x7f]+$')
_OBJECT_KEYWORDS = {"type", "properties", "required", "additionalProperties", "$schema"} | ANNOTATION_KEYWORDS

_RAW_ONLY, _JSON_ONLY, _EITHER = "raw", "json", "either"


def _deref(node: Schema, defs: dict[str, Any]) -> Schema:
    """Follow a node that is only a `$ref` (bounded: each definition at most once)."""
    for _ in range(len(defs) + 1):
        if not (isinstance(node, dict) and set(node) == {"$ref"}):
            return node
        name = ref_name(node)
        if name is None or name not in defs:
            return node
        node = defs[name]
    return node


def _check_name(fn: Function, name: str) -> None:
    if not _NAME_OK.match(name):
        raise reject("tool-parameters-unsupported", child_pointer(fn.pointer, "properties", name),
                     f"function {fn.name!r}: DSML cannot name parameter {name!r} "
                     "(quotes, angle brackets, backslashes or control characters)")


def _pointer_to(fn: Function) -> str:
    """The user's keyword behind a refusal where it is visible at the root of `parameters`
    (lowering may rewrite it, e.g. minProperties into allOf), else `parameters` itself."""
    root = fn.schema if isinstance(fn.schema, dict) else {}
    extra = sorted(set(root) - _OBJECT_KEYWORDS - {"$defs"}) or [k for k in ("type",) if k in root]
    return child_pointer(fn.pointer, extra[0]) if extra else fn.pointer


def _params(fn: Function) -> tuple[list[tuple[str, Schema | None, bool]], dict[str, Any]]:
    """([(name, lowered schema or None when free-form, required)], defs) or CompileError."""
    if not fn.strict:
        for name in fn.names:
            _check_name(fn, name)
        return [(name, None, False) for name in fn.names], {}
    root, defs = split_defs(fn.lowered)
    root = _deref(root, defs)
    hint = "use an object schema with `properties` (and `required`), or the Hermes envelope"
    if not isinstance(root, dict) or not isinstance(root.get("properties"), dict):
        raise reject("tool-parameters-unsupported", fn.pointer,
                     f"function {fn.name!r}: DSML names each argument, so `parameters` must be an object schema with `properties`", hint)
    extra = sorted(set(root) - _OBJECT_KEYWORDS)
    types = root.get("type", "object")
    if extra or not (types == "object" or (isinstance(types, list) and "object" in types)):
        raise reject("tool-parameters-unsupported", _pointer_to(fn),
                     f"function {fn.name!r}: DSML cannot enforce {', '.join(f'`{k}`' for k in extra or ['type'])} "
                     "on the arguments object as a whole", hint)
    required = root.get("required", [])
    props: dict[str, Schema] = root["properties"]
    for name in required:
        if name not in props or props[name] is False:
            raise reject("tool-parameters-unsupported", child_pointer(fn.pointer, "required"),
                         f"function {fn.name!r}: required parameter {name!r} has no schema under `properties` that a value can satisfy", hint)
    out: list[tuple[str, Schema | None, bool]] = []
    for name, sub in props.items():
        _check_name(fn, name)
        if sub is not False:  # an optional parameter no value satisfies is never written
            out.append((name, sub, name in required))
    return out, defs


def check(fn: Function) -> None:
    """Refuse (CompileError) parameters DSML cannot write exactly; see the module docstring."""
    _params(fn)


def _form(sub: Schema | None, defs: dict[str, Any]) -> str:
    if sub is None:
        return _EITHER
    node = _deref(sub, defs)
    if node is True or node == {}:
        return _EITHER
    return _RAW_ONLY if node == {"type": "string"} else _JSON_ONLY


_RAW_VALUE = f'{literal(RAW_OPEN)} RAW {literal(chr(10))}'
_JSON_OPEN = literal(JSON_OPEN)
_JSON_CLOSE = literal(PARAM_END + "\n")


def _param_rule(rule: str, name: str, form: str, value: str | None) -> str:
    json_value = f"{_JSON_OPEN} {value} {_JSON_CLOSE}"
    body = {_RAW_ONLY: _RAW_VALUE, _JSON_ONLY: json_value, _EITHER: f"({_RAW_VALUE} | {json_value})"}[form]
    return f"{rule}: {literal(PARAM + name + STRING_ATTR)} {body}"


def _invoke_rules(fn: Function, budget: Budget) -> list[str]:
    from schemac.emit import lark_rules_of

    params, defs = _params(fn)
    forms = [_form(sub, defs) for _, sub, _ in params]
    json_at = [i for i, form in enumerate(forms) if form != _RAW_ONLY]
    check_unsat = fn.written.check_unsat if fn.written is not None else False
    tops, value_rules = lark_rules_of([True if params[i][1] is None else params[i][1] for i in json_at], defs,
                                      f"{fn.rule}_v_", check_unsat, budget, KEY_ORDER)
    values = dict(zip(json_at, tops))
    seq = [literal(INVOKE + fn.name + NAME_END)]
    lines = []
    for i, ((name, _, required), form) in enumerate(zip(params, forms)):
        if form != _RAW_ONLY and values[i] is None:  # no JSON value satisfies it
            if required:
                raise reject("unsatisfiable", child_pointer(fn.pointer, "properties", name),
                             f"function {fn.name!r}: no value satisfies required parameter {name!r}")
            continue
        seq.append(f"{fn.rule}_p{i}" + ("" if required else "?"))
        lines.append(_param_rule(f"{fn.rule}_p{i}", name, form, values.get(i)))
    seq.append(literal(INVOKE_END))
    return [f"{fn.rule}: {' '.join(seq)}", *lines, *value_rules]


def rules(functions: Sequence[Function], parallel: bool, budget: Budget) -> str:
    lines = [
        f"calls: {literal(OPENER)} invoke{'+' if parallel else ''} {literal(CLOSER)}",
        f"invoke: {' | '.join(fn.rule for fn in functions)}",
        _RAW,
    ]
    for fn in functions:
        lines += _invoke_rules(fn, budget)
    return "\n".join(lines)


def _expect(text: str, pos: int, token: str) -> int:
    if not text.startswith(token, pos):
        raise EnvelopeError(f"expected {token!r} at offset {pos}")
    return pos + len(token)


def _until(text: str, pos: int, token: str) -> tuple[str, int]:
    end = text.find(token, pos)
    if end < 0:
        raise EnvelopeError(f"expected {token!r} after offset {pos}")
    return text[pos:end], end + len(token)


def _json_value(text: str, pos: int) -> tuple[Any, int]:
    """The JSON value at `pos` ended by the closing tag: the first closing tag after which the
    text parses (a JSON string may itself hold the tag; a complete JSON text cannot continue)."""
    from schemac.validate.final import parse_answer

    end = text.find(PARAM_END, pos)
    while end >= 0:
        try:
            return parse_answer(text[pos:end]), end + len(PARAM_END)
        except ValueError:
            end = text.find(PARAM_END, end + 1)
    raise EnvelopeError(f"parameter value at offset {pos} is not JSON followed by {PARAM_END!r}")


def parse(text: str) -> list[ToolCall]:
    calls: list[ToolCall] = []
    pos = _expect(text, 0, OPENER)
    while text.startswith(INVOKE, pos):
        name, pos = _until(text, pos + len(INVOKE), NAME_END)
        arguments: dict[str, Any] = {}
        while text.startswith(PARAM, pos):
            param, pos = _until(text, pos + len(PARAM), STRING_ATTR)
            if param in arguments:
                raise EnvelopeError(f"function {name!r}: parameter {param!r} is given twice")
            if text.startswith(RAW_OPEN, pos):
                arguments[param], pos = _until(text, pos + len(RAW_OPEN), PARAM_END)
            else:
                arguments[param], pos = _json_value(text, _expect(text, pos, JSON_OPEN))
            pos = _expect(text, pos, "\n")
        calls.append(ToolCall(name, arguments))
        pos = _expect(text, pos, INVOKE_END)
    if not calls:
        raise EnvelopeError(f"expected {INVOKE!r} at offset {pos}")
    pos = _expect(text, pos, CLOSER)
    if pos != len(text):
        raise EnvelopeError(f"unexpected text after the envelope at offset {pos}")
    return calls
