"""Tools grammar: each envelope for one and several calls, malformed envelopes, unknown names,
tool_choice modes, strict arguments, and final validation agreeing with the grammar."""
from __future__ import annotations

import json

import pytest

from testkit.grammar_harness import accepts
from testkit.tools_cases import ANSWER, WEATHER, chat, chat_tool, dsml, hermes
import schemac.tools as tools
from schemac.budget import Limits
from schemac.diagnostics import CompileError
from tests.lower.test_stated_orders import P_BA, _allof_pairs, _allof_text

W1 = ("get_weather", {"city": "Paris"})
W2 = ("get_weather", {"city": "Oslo", "days": 3, "unit": "c"})
N1 = ("note", {"text": "ab}c"})

D_W1 = ("get_weather", [("city", "Paris", True)])
D_W2 = ("get_weather", [("city", "Os\nlo <b>", True), ("days", 3, False), ("unit", "c", False)])
D_N1 = ("note", [("text", "ab}c", False)])

#: (text, valid): the grammar accepts exactly the valid texts and validate() agrees
HERMES_CASES = [
    ('{"ok": true}', True),
    ('{"ok":false}', True),
    (hermes(W1), True),
    (hermes(W2), True),
    (hermes(N1, W2, W1), True),
    (hermes(W1).replace(", ", ","), True),
    ('{"ok": 1}', False),
    (hermes(("get_weather", {"city": "Paris", "days": 8})), False),
    (hermes(("get_weather", {"days": 2})), False),
    (hermes(("get_weather", {"city": "P", "wind": 1})), False),
    (hermes(("get_weather", {"city": "P", "unit": "k"})), False),
    (hermes(("note", {"text": "abcdef"})), False),
    (hermes(("note", {"text": "A"})), False),
    (hermes(("delete_all", {})), False),
    (hermes(W1) + "\n", False),
    (hermes(W1) + "\n\n" + hermes(W1), False),
    (hermes(W1).replace("</tool_call>", ""), False),
    (hermes(W1).replace("<tool_call>\n", "<tool_call>"), False),
    ('<tool_call>\n{"name": "get_weather", "arguments": {"city": "P"}, "id": 1}\n</tool_call>', False),
    ('<tool_call>\n{"name": "get_weather"}\n</tool_call>', False),
    ('{"ok": true}' + hermes(W1), False),
    ("", False),
]
DSML_CASES = [
    ('{"ok": true}', True),
    (dsml(D_W1), True),
    (dsml(D_W2), True),
    (dsml(D_N1, D_W2, D_W1), True),
    (dsml(("get_weather", [("city", "", True)])), True),
    (dsml(("get_weather", [("city", "P", True), ("days", 9, False)])), False),
    (dsml(("get_weather", [("days", 2, False)])), False),
    (dsml(("get_weather", [("city", "P", True), ("unit", "k", False)])), False),
    (dsml(("get_weather", [("city", "P", True), ("city", "Q", True)])), False),
    (dsml(("note", [("text", "abcdef", False)])), False),
    (dsml(("delete_all", [])), False),
    (dsml(D_W1) + "\n", False),
    (dsml(D_W1).replace("</｜DSML｜invoke>\n", ""), False),
    (dsml(D_W1).replace("｜", "|"), False),
    (dsml(D_W1).replace("</｜DSML｜function_calls>", ""), False),
    ("<｜DSML｜function_calls>\n</｜DSML｜function_calls>", False),
]


def _agree(tg: tools.ToolGrammar, text: str, valid: bool) -> None:
    result = tg.validate(text)
    assert accepts(tg.grammar, text) is valid, (text, result)
    assert result.ok is valid, (text, result)


@pytest.mark.parametrize("text,valid", HERMES_CASES)
def test_hermes_envelope(text: str, valid: bool) -> None:
    _agree(tools.build(chat(), api="chat", parser="hermes"), text, valid)


@pytest.mark.parametrize("text,valid", DSML_CASES)
def test_dsml_envelope(text: str, valid: bool) -> None:
    _agree(tools.build(chat(), api="chat", parser="dsml"), text, valid)


def test_parsed_calls_and_kinds() -> None:
    tg = tools.build(chat(), api="chat", parser="dsml")
    result = tg.validate(dsml(D_N1, D_W2))
    assert result.kind == "tool_calls" and result.ok
    assert [(c.name, c.arguments) for c in result.calls] == [("note", {"text": "ab}c"}), ("get_weather", {"city": "Os\nlo <b>", "days": 3, "unit": "c"})]
    assert json.loads(result.calls[1].arguments_json()) == {"city": "Os\nlo <b>", "days": 3, "unit": "c"}
    answer = tg.validate('{"ok": true}')
    assert answer.kind == "answer" and answer.value == {"ok": True} and not answer.calls


def test_dsml_json_value_may_hold_the_closing_tag() -> None:
    tg = tools.build(chat([chat_tool("say", {"type": "object", "properties": {"t": {"type": "string", "minLength": 1}}, "required": ["t"]})]), api="chat", parser="dsml")
    text = dsml(("say", [("t", "a</｜DSML｜parameter>b", False)]))
    _agree(tg, text, True)
    assert tg.validate(text).calls[0].arguments == {"t": "a</｜DSML｜parameter>b"}


#: valid values in non-canonical envelopes: validate() accepts them, the grammar's syntax policy
#: does not (documented: DSML parameters in `properties` order, plain strings raw, other values
#: JSON; Hermes call objects name first, then arguments, as the schema orders properties).
DSML_POLICY = [
    dsml(("get_weather", [("days", 3, False), ("city", "P", True)])),
    dsml(("get_weather", [("city", "Paris", False)])),
    dsml(("note", [("text", "abc", True)])),
]


@pytest.mark.parametrize("text", DSML_POLICY)
def test_dsml_policy_excludes_non_canonical_texts(text: str) -> None:
    tg = tools.build(chat(), api="chat", parser="dsml")
    assert tg.validate(text).ok and not accepts(tg.grammar, text)


def test_hermes_policy_excludes_non_canonical_key_order() -> None:
    tg = tools.build(chat(), api="chat", parser="hermes")
    flipped = '<tool_call>\n{"arguments": {"city": "P"}, "name": "get_weather"}\n</tool_call>'
    assert tg.validate(flipped).ok and not accepts(tg.grammar, flipped)


@pytest.mark.parametrize("parser,call,other", [
    ("hermes", hermes(W1), hermes(N1)),
    ("dsml", dsml(D_W1), dsml(D_N1)),
])
def test_tool_choice_modes(parser: str, call: str, other: str) -> None:
    answer = '{"ok": true}'
    expect = {
        "none": (True, False, False),
        "auto": (True, True, True),
        "required": (False, True, True),
        "named": (False, True, False),
    }
    for mode, (ok_answer, ok_call, ok_other) in expect.items():
        choice = {"type": "function", "function": {"name": "get_weather"}} if mode == "named" else mode
        tg = tools.build(chat(tool_choice=choice), api="chat", parser=parser)
        for text, valid in ((answer, ok_answer), (call, ok_call), (other, ok_other)):
            _agree(tg, text, valid)


def test_required_needs_no_answer_format_and_parallel_false_allows_one_call() -> None:
    tg = tools.build(chat(answer=None, tool_choice="required", parallel_tool_calls=False), api="chat", parser="hermes")
    _agree(tg, hermes(W1), True)
    _agree(tg, hermes(W1, W1), False)
    _agree(tg, '{"ok": true}', False)
    assert tg.artifact().schema is False


def test_strict_false_keeps_free_form_arguments() -> None:
    free = [chat_tool("log", {"type": "object", "properties": {"level": {"enum": ["info"]}, "msg": {"type": "string"}}}, strict=False)]
    th = tools.build(chat(free), api="chat", parser="hermes")
    _agree(th, hermes(("log", {"level": "anything", "extra": [1, {"x": None}]})), True)
    _agree(th, '<tool_call>\n{"name": "log", "arguments": [1]}\n</tool_call>', False)
    _agree(th, '<tool_call>\n{"name": "log", "arguments": {"a": }}\n</tool_call>', False)
    td = tools.build(chat(free), api="chat", parser="dsml")
    swapped = dsml(("log", [("msg", "free text", True), ("level", 42, False)]))
    assert td.validate(swapped).ok and not accepts(td.grammar, swapped)  # declared order only
    _agree(td, dsml(("log", [("level", 42, False), ("msg", "free text", True)])), True)
    _agree(td, dsml(("log", [])), True)
    undeclared = dsml(("log", [("other", 1, False)]))
    assert td.validate(undeclared).ok and not accepts(td.grammar, undeclared)  # declared names only


def test_omitted_parameters_mean_no_arguments() -> None:
    for parser, ok, bad in (
        ("hermes", hermes(("ping", {})), hermes(("ping", {"x": 1}))),
        ("dsml", dsml(("ping", [])), dsml(("ping", [("x", 1, False)]))),
    ):
        tg = tools.build(chat([chat_tool("ping")]), api="chat", parser=parser)
        _agree(tg, ok, True)
        _agree(tg, bad, False)


def test_responses_api() -> None:
    body = {
        "input": [{"role": "user", "content": [{"type": "input_text", "text": "hi"}]}],
        "tools": [{"type": "function", "name": "get_weather", "parameters": WEATHER}],
        "text": {"format": {"type": "json_schema", "name": "answer", "schema": ANSWER}},
        "tool_choice": {"type": "function", "name": "get_weather"},
    }
    tg = tools.build(body, api="responses", parser="hermes")
    _agree(tg, hermes(W2), True)
    _agree(tg, '{"ok": true}', False)


def test_dsml_refuses_object_level_constraints_per_function() -> None:
    bad = {"type": "object", "properties": {"a": {"type": "string"}}, "minProperties": 1}
    body = chat([chat_tool("ok", WEATHER), chat_tool("bad", bad), chat_tool("any", True)])
    with pytest.raises(CompileError) as err:
        tools.build(body, api="chat", parser="dsml")
    found = {(d.code, d.pointer) for d in err.value.diagnostics}
    assert found == {
        ("tool-parameters-unsupported", "/tools/1/function/parameters/minProperties"),
        ("tool-parameters-unsupported", "/tools/2/function/parameters"),
    }
    tg = tools.build(body, api="chat", parser="hermes")  # the Hermes call object holds any schema
    _agree(tg, hermes(("bad", {"a": "x"})), True)
    _agree(tg, hermes(("bad", {})), False)
    _agree(tg, hermes(("any", [1, "x"])), True)


def test_unsupported_schemas_reported_per_function_with_request_pointers() -> None:
    body = chat([
        chat_tool("a", {"type": "object", "properties": {"x": {"pattern": "(a)\\1"}}}),
        chat_tool("b", WEATHER),
        chat_tool("c", {"type": "object", "properties": {"y": {"$ref": "https://example.com/s.json"}}}),
    ], answer={"x-guidance": {"lenient": True}})
    with pytest.raises(CompileError) as err:
        tools.build(body, api="chat", parser="hermes")
    found = {(d.code, d.pointer) for d in err.value.diagnostics}
    assert ("client-options", "/response_format/json_schema/schema/x-guidance") in found
    assert ("unsupported-regex", "/tools/0/function/parameters/properties/x/pattern") in found
    assert any(code == "remote-ref" and ptr.startswith("/tools/2/function/parameters") for code, ptr in found)
    assert not any(ptr.startswith("/tools/1/") for _, ptr in found)


def test_one_budget_shared_across_functions() -> None:
    dep = {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}, "dependentRequired": {"a": ["b"]}}
    limits = Limits(entries=3)
    tools.build(chat([chat_tool("f", dep)], answer=None, tool_choice="required"), api="chat", parser="hermes", limits=limits)
    with pytest.raises(CompileError) as err:
        tools.build(chat([chat_tool("f", dep), chat_tool("g", dep)], answer=None, tool_choice="required"), api="chat", parser="hermes", limits=limits)
    assert err.value.codes == ["budget-exhausted"]
    assert err.value.diagnostics[-1].pointer.startswith("/tools/1/function/parameters")


def test_embedded_json_survives_lark_special_text() -> None:
    odd = {"type": "object", "properties": {"s": {"const": "} %json { \"x\" /re/"}}, "required": ["s"]}
    tg = tools.build(chat([chat_tool("odd", odd)], answer=odd), api="chat", parser="dsml")
    _agree(tg, json.dumps({"s": "} %json { \"x\" /re/"}), True)
    _agree(tg, dsml(("odd", [("s", "} %json { \"x\" /re/", False)])), True)


def test_artifact_round_trip_and_finalize() -> None:
    from schemac.artifact import Artifact
    from schemac.api import StructuredOutputError

    tg = tools.build(chat(), api="chat", parser="hermes")
    art = Artifact.loads(tg.artifact().dumps())
    assert art.grammar == tg.grammar and art.schema == ANSWER and art.key == tg.key
    out = tg.finalize(hermes(W1), "stop")
    assert out.status == "tool_calls" and out.value[0].name == "get_weather"
    assert tg.finalize('{"ok": true}', "stop").value == {"ok": True}
    assert tg.finalize('{"ok": ', "length").status == "length"
    with pytest.raises(StructuredOutputError) as err:
        tg.finalize(hermes(("note", {"text": "TOO LONG"})), "stop")
    assert err.value.code == "tool-calls-invalid"
    with pytest.raises(StructuredOutputError) as err:
        tg.finalize("{oops", "stop")
    assert err.value.code == "answer-not-json"


@pytest.mark.parametrize("schema", [
    WEATHER,
    {"type": "object", "properties": {"a": {"type": "integer"}}, "dependencies": {"a": ["b"]}},
    {"type": "string", "format": "date", "not": {"const": "2020-01-01"}},
    {"oneOf": [{"type": "integer", "minimum": 0}, {"type": "integer", "maximum": 10}]},
])
def test_lowering_matches_the_pipeline(schema: object) -> None:
    """tools.compile lowers without the loader's census (one budget per request): the census
    fast paths of a plain compile must give the same result."""
    from schemac.budget import Budget
    from schemac.diagnostics import DiagnosticSink
    from schemac.pipeline import compile_schema, lower_schema

    artifact = compile_schema(schema, use_cache=False)
    bundle, lowered, _ = lower_schema(schema, {"upgrade_drafts": False, "strict_formats": False}, Budget(Limits()), DiagnosticSink())
    assert (bundle.as_schema(), lowered) == (artifact.schema, artifact.lowered)


# ---- tool arguments take the answer's key orders (attack round 12)

def test_tool_arguments_keep_properties_order() -> None:
    import schemac.tools as tools
    from testkit.tools_cases import chat, chat_tool, hermes

    cases = [(hermes(("f", {"a": 1, "b": 2})), True, True), (hermes(("f", {"b": 2, "a": 1})), False, True),
             (hermes(("f", {"a": 1, "b": 9})), False, False), ('{"a": 1, "b": 2}', True, True),
             ('{"b": 2, "a": 1}', False, True), ('{"b": 2}', False, False)]
    for key_order in ("properties", "schema"):  # under "schema" (the default) `required`'s order too
        tg = tools.build(chat([chat_tool("f", P_BA)], answer=P_BA), api="chat", parser="hermes", key_order=key_order)
        for text, admitted, valid in cases:
            assert accepts(tg.grammar, text) is (admitted or (valid and key_order == "schema")), (key_order, text)
            assert tg.validate(text).ok is valid, text


# was a finding (fixed): `tools.compile.compile_part` checks each part with `emit_schema(bundle,
# lowered, budget)`, whose key_order defaults to "schema", so the stated-orders rewrite (and its 2^k
# allOf growth) runs on tool parameters although the envelope embeds them in `properties` order: a
# tool whose parameters compile in 2 KB under `properties` order is rejected (grammar-error)
def test_tool_parameters_are_checked_in_the_order_they_are_written() -> None:
    import schemac.tools as tools
    from testkit.tools_cases import chat, chat_tool, hermes

    params = _allof_pairs(10)
    tg = tools.build(chat([chat_tool("f", params)]), api="chat", parser="hermes")
    call = hermes(("f", json.loads(_allof_text(10, False))))
    assert accepts(tg.grammar, call) and tg.validate(call).ok


def test_dsml_and_hermes_parameters_at_the_envelope_level() -> None:
    """DSML names parameters one tag each: a repeated, missing, extra or mistyped parameter,
    a number outside its bound or in a non-canonical spelling is refused, as in Hermes JSON."""
    import schemac.tools as tools
    from testkit.tools_cases import chat, chat_tool
    params = {"type": "object", "properties": {"p": {"type": "integer", "maximum": 5}, "q": {"type": "string"}},
              "required": ["p"], "additionalProperties": False}
    request = chat([chat_tool("f", params)], answer=None, tool_choice="required")
    dsml = tools.build(request, api="chat", parser="dsml").grammar

    def call(*given: tuple[str, str, str]) -> str:
        body = "".join(f'<｜DSML｜parameter name="{n}" string="{s}">{v}</｜DSML｜parameter>\n' for n, s, v in given)
        return '<｜DSML｜function_calls>\n<｜DSML｜invoke name="f">\n' + body + '</｜DSML｜invoke>\n</｜DSML｜function_calls>'

    assert accepts(dsml, call(("p", "false", "1"))) and accepts(dsml, call(("p", "false", "1"), ("q", "true", "x")))
    for refused in [(("p", "false", "1"), ("p", "false", "2")), (("p", "false", "9"),), (("q", "true", "x"),),
                    (("p", "false", "1"), ("q", "true", "x"), ("q", "true", "y")), (("p", "false", "1"), ("r", "true", "x")),
                    (("p", "true", "1"),), (("p", "false", "1.0"),), (("p", "false", "5e0"),)]:
        assert not accepts(dsml, call(*refused)), refused
    hermes = tools.build(request, api="chat", parser="hermes").grammar
    for args, want in [('{"p": 1}', True), ('{"p": 1, "p": 2}', False), ('{"p": 9}', False), ('{"q": "x"}', False),
                       ('{"p": 1, "\\u0070": 9}', False), ('{"p": 1, "q": "x", "q": "y"}', False)]:
        assert accepts(hermes, '<tool_call>\n{"name": "f", "arguments": ' + args + '}\n</tool_call>') == want, args
