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


# ---- a witness in an envelope (attack round 8)

C0 = {"const": 0}


def test_tool_envelope_writes_witness_exactly() -> None:
    """A witness has no `%json` form: tool envelopes write the answer and the arguments with emit's
    Lark writer, so it is enforced there exactly as in an answer (issue 29)."""
    from testkit.grammar_harness import accepts
    from testkit.tools_cases import chat, chat_tool, hermes
    from schemac.tools.grammar import build
    from schemac.validate.final import FinalValidator

    witness = {"type": "object", "properties": {"q": {"type": "object", "not": {"patternProperties": {"^x": C0}}}}}
    oracle = FinalValidator(witness)
    values = [{}, {"q": {}}, {"q": {"x": 1}}, {"q": {"xa": "s"}}, {"q": {"y": 1}}, {"q": {"x": 1, "y": 2}}, {"q": 1}]
    answer = build(chat(answer=witness), api="chat", parser="hermes")
    calls = build(chat(tools=[chat_tool("f", witness, strict=True)], answer=None, tool_choice="required"),
                  api="chat", parser="hermes")
    for value in values:
        valid = not oracle.errors(value)
        assert accepts(answer.grammar, json.dumps(value)) is valid, value
        assert accepts(calls.grammar, hermes(("f", value))) is valid, value


def test_tool_envelopes_on_the_skipped_naming_schemas() -> None:
    """test_tools_exact walks NAMING[:5] + NAMING[7:12]; the rest hold as well."""
    from tests.emit.test_emit_keys import _walk
    for schema in (NAMING[5], NAMING[6], NAMING[13], NAMING[14]):
        hermes, _ = _grammars(schema)
        _walk(hermes, schema, HERMES)
