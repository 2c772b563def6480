"""Tool envelopes are as exact as answers (issue 29): the object-key and number walks of
`test_emit_keys` and `test_emit_numbers`, run on the answer branch, on Hermes call arguments and
on DSML parameter values of one tools grammar, against jsonschema on the parsed values.

Keys: every spelling of every key (escapes, repeated keys) is refused wherever a keyword names
it; numbers: every spelling around bounds and steps, refused outside the policy or the value set.
"""
from __future__ import annotations

import json
from decimal import Decimal

import pytest
from testkit.grammar_harness import accepts
from tests.emit.test_emit_keys import NAMING, SCHEMAS, _walk
from tests.numbers.test_emit_numbers import _JSON, SPELLINGS, _oracle, grid, policy
from testkit.tools_cases import chat, chat_tool

import schemac.tools as tools
from schemac.diagnostics import CompileError

#: where a text goes in each envelope: the answer itself, a Hermes call's arguments, and the
#: JSON value of a DSML parameter `p` (its `{}` is where the text goes)
HERMES = '<tool_call>\n{"name": "f", "arguments": {}}\n</tool_call>'
DSML = ('<｜DSML｜function_calls>\n<｜DSML｜invoke name="f">\n<｜DSML｜parameter name="p" string="false">{}'
        '</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜function_calls>')


def _holding(schema: object) -> dict:
    """Parameters naming one parameter `p` of `schema` (DSML names parameters one by one)."""
    return {"type": "object", "properties": {"p": schema}, "required": ["p"], "additionalProperties": False}


def _grammars(schema: object) -> tuple[str, str]:
    """(Hermes grammar with `schema` as answer and as `f`'s parameters, DSML grammar with it as `p`)."""
    hermes = tools.build(chat([chat_tool("f", schema)], answer=schema), api="chat", parser="hermes").grammar
    dsml = tools.build(chat([chat_tool("f", _holding(schema))], answer=None, tool_choice="required"),
                       api="chat", parser="dsml").grammar
    return hermes, dsml


KEY_CASES = NAMING[:5] + NAMING[7:12] + [SCHEMAS[0], SCHEMAS[2], SCHEMAS[15]]


@pytest.mark.parametrize("schema", KEY_CASES, ids=lambda s: json.dumps(s, ensure_ascii=True)[:60])
def test_tool_keys_exact(schema: dict) -> None:
    hermes, dsml = _grammars(schema)
    _walk(hermes, schema)
    _walk(hermes, schema, HERMES)
    _walk(dsml, schema, DSML)


NUMBER_CASES = grid()[::7]


@pytest.mark.parametrize("schema", NUMBER_CASES, ids=lambda s: json.dumps(s)[:70])
def test_tool_numbers_exact(schema: dict) -> None:
    """Every spelling as the answer, as a Hermes argument `n` and as a DSML parameter value."""
    integer = schema.get("type") == "integer"
    in_object = {"type": "object", "properties": {"n": schema}, "required": ["n"]}
    oracle = _oracle(schema)
    try:
        hermes = tools.build(chat([chat_tool("f", in_object)], answer=schema), api="chat", parser="hermes").grammar
        dsml = tools.build(chat([chat_tool("f", _holding(schema))], answer=None, tool_choice="required"),
                           api="chat", parser="dsml").grammar
    except CompileError as exc:  # only an empty set may be refused, as unsatisfiable
        assert set(exc.codes) == {"unsatisfiable"}, exc
        assert not any(oracle.is_valid(Decimal(t)) for t in SPELLINGS if _JSON.fullmatch(t)), schema
        return
    for text in SPELLINGS:
        value = json.loads(text, parse_float=Decimal) if _JSON.fullmatch(text) else None
        want = value is not None and oracle.is_valid(value) and policy(text, integer)
        for grammar, placed in ((hermes, text), (hermes, HERMES.replace("{}", f'{{"n": {text}}}', 1)),
                                (dsml, DSML.replace("{}", text, 1))):
            assert accepts(grammar, placed) is want, (schema, placed)
