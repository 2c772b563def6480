"""Final validation of the visible answer, API format extraction and output caps."""
from __future__ import annotations

import pytest

from schemac.runtime import (
    AdmissionError,
    FormatError,
    StructuredOutputError,
    chat_finish_reason,
    chat_response_format,
    finalize,
    output_cap,
    responses_status,
    responses_text_format,
)

SCHEMA = {"type": "object", "properties": {"n": {"type": "integer", "maximum": 5}}, "required": ["n"]}


def test_valid_answer_is_ok():
    out = finalize("k1", SCHEMA, '{"n": 3}', "stop")
    assert (out.status, out.value) == ("ok", {"n": 3})
    assert chat_finish_reason(out) == "stop" and responses_status(out) == {"status": "completed"}


@pytest.mark.parametrize(
    ("text", "code"),
    [('{"n": 9}', "answer-invalid"), ('{"m": 1}', "answer-invalid"), ('{"n": 1, "n": 2}', "answer-not-json"), ("{\"n\": NaN}", "answer-not-json"), ("", "answer-not-json")],
)
def test_invalid_answer_is_an_error(text, code):
    with pytest.raises(StructuredOutputError) as exc:
        finalize("k1", SCHEMA, text, "stop")
    assert exc.value.code == code


def test_cut_by_cap_reports_length_not_invalid():
    out = finalize("k1", SCHEMA, '{"n": ', "length")
    assert out.status == "length" and out.value is None
    assert chat_finish_reason(out) == "length"
    assert responses_status(out) == {"status": "incomplete", "incomplete_details": {"reason": "max_output_tokens"}}


def test_tool_only_results_skip_validation_but_visible_text_does_not():
    out = finalize("k1", SCHEMA, "  ", "stop", has_tool_calls=True)
    assert chat_finish_reason(out) == "tool_calls"
    with pytest.raises(StructuredOutputError):
        finalize("k1", SCHEMA, '{"n": 99}', "stop", has_tool_calls=True)
    assert finalize("k1", SCHEMA, '{"n": 1}', "stop", has_tool_calls=True).value == {"n": 1}


def test_chat_response_format_extraction():
    assert chat_response_format(None) is None
    assert chat_response_format({"type": "text"}) is None
    assert chat_response_format({"type": "json_object"}).schema == {"type": "object"}
    rf = chat_response_format({"type": "json_schema", "json_schema": {"name": "out_1", "schema": SCHEMA, "strict": True}})
    assert (rf.schema, rf.name, rf.strict) == (SCHEMA, "out_1", True)


@pytest.mark.parametrize(
    ("fmt", "param"),
    [
        ("json", "response_format"),
        ({"type": "yaml"}, "response_format.type"),
        ({"type": "json_schema"}, "response_format.json_schema"),
        ({"type": "json_schema", "json_schema": {"schema": SCHEMA}}, "response_format.json_schema.name"),
        ({"type": "json_schema", "json_schema": {"name": "bad name!", "schema": SCHEMA}}, "response_format.json_schema.name"),
        ({"type": "json_schema", "json_schema": {"name": "x"}}, "response_format.json_schema.schema"),
        ({"type": "json_schema", "json_schema": {"name": "x", "schema": "{}"}}, "response_format.json_schema.schema"),
        ({"type": "json_schema", "json_schema": {"name": "x", "schema": {}, "strict": "yes"}}, "response_format.json_schema.strict"),
        ({"type": "json_schema", "json_schema": {"name": "x", "schema": {}, "extra": 1}}, "response_format.json_schema.extra"),
        ({"type": "json_object", "schema": {}}, "response_format.schema"),
    ],
)
def test_chat_format_errors(fmt, param):
    with pytest.raises(FormatError) as exc:
        chat_response_format(fmt)
    assert exc.value.param == param and exc.value.status == 400
    assert exc.value.to_json()["error"]["param"] == param


def test_responses_text_format_extraction_and_errors():
    assert responses_text_format(None) is None and responses_text_format({}) is None
    assert responses_text_format({"format": {"type": "text"}}) is None
    assert responses_text_format({"format": {"type": "json_object"}}).schema == {"type": "object"}
    rf = responses_text_format({"format": {"type": "json_schema", "name": "r", "schema": SCHEMA, "strict": False}})
    assert (rf.schema, rf.name, rf.strict) == (SCHEMA, "r", False)
    for bad, param in [
        ([], "text"),
        ({"format": {"type": "json_schema", "schema": SCHEMA}}, "text.format.name"),
        ({"format": {"type": "json_schema", "name": "r"}}, "text.format.schema"),
        ({"format": {"type": "json_schema", "json_schema": {"name": "r", "schema": SCHEMA}}}, "text.format.json_schema"),
        ({"format": {"type": "xml"}}, "text.format.type"),
    ]:
        with pytest.raises(FormatError) as exc:
            responses_text_format(bad)
        assert exc.value.param == param


def test_output_caps():
    assert output_cap(None, prompt_tokens=100, context_window=1000, deployment_max=4096) == 900
    assert output_cap(None, prompt_tokens=100, context_window=10000, deployment_max=4096) == 4096
    assert output_cap(50, prompt_tokens=100, context_window=1000, deployment_max=4096) == 50
    for bad in (0, -1, 1.5, True, "10"):
        with pytest.raises(AdmissionError):
            output_cap(bad, 100, 1000, 4096)
    with pytest.raises(AdmissionError):  # explicit caps are never silently reduced
        output_cap(901, 100, 1000, 4096)
    with pytest.raises(AdmissionError):
        output_cap(5000, 100, 100000, 4096)
    with pytest.raises(AdmissionError) as exc:
        output_cap(None, 1000, 1000, 4096)
    assert exc.value.code == "prompt-too-long"
