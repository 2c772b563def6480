"""Tools requests refused at admission: unsupported combinations and malformed tool fields."""
from __future__ import annotations

from typing import Any

import pytest
from testkit.tools_cases import ANSWER, WEATHER, chat, chat_tool

import schemac.tools as tools
from schemac.api import RequestError
from schemac.api import AdmissionError


def _refused(body: dict[str, Any], code: str, param: str, api: str = "chat", parser: str = "hermes") -> None:
    with pytest.raises(tools.RequestError) as err:
        tools.build(body, api=api, parser=parser)
    assert isinstance(err.value, AdmissionError)
    assert (err.value.code, err.value.param) == (code, param)
    assert err.value.to_json()["error"]["code"] == code


def test_unsupported_combinations() -> None:
    _refused(chat(), "unsupported-tool-parser", "tool_parser", parser="mistral")
    _refused(chat(stop=["\n"]), "unsupported-stop-strings", "stop")
    _refused(chat(stop="END"), "unsupported-stop-strings", "stop")
    _refused(chat(ignore_eos=True), "unsupported-ignore-eos", "ignore_eos")
    _refused(chat(modalities=["text", "audio"]), "unsupported-multimodal", "modalities")
    image = chat(messages=[{"role": "user", "content": [{"type": "text", "text": "?"}, {"type": "image_url", "image_url": {"url": "x"}}]}])
    _refused(image, "unsupported-multimodal", "messages[0].content[1]")
    responses = {
        "input": [{"role": "user", "content": [{"type": "input_image", "image_url": "x"}]}],
        "tools": [{"type": "function", "name": "f"}],
        "text": {"format": {"type": "json_object"}},
    }
    _refused(responses, "unsupported-multimodal", "input[0].content[0]", api="responses")
    _refused({**responses, "input": "hi", "tools": [{"type": "web_search"}]}, "unsupported-tool-type", "tools[0].type", api="responses")
    allowed = {"type": "allowed_tools", "mode": "auto", "tools": [{"type": "function", "name": "f"}]}
    _refused({**responses, "input": "hi", "tool_choice": allowed}, "unsupported-tool-choice", "tool_choice", api="responses")
    _refused(chat([{"type": "custom", "custom": {"name": "x"}}]), "unsupported-tool-type", "tools[0].type")


def test_malformed_tools() -> None:
    _refused(chat([chat_tool("a b", WEATHER)]), "invalid-tools", "tools[0].function.name")
    _refused(chat([chat_tool("f", WEATHER), chat_tool("f", WEATHER)]), "invalid-tools", "tools[1].function.name")
    _refused(chat([chat_tool("f", [1])]), "invalid-tools", "tools[0].function.parameters")
    _refused(chat([{"type": "function", "function": {"name": "f", "strict": "yes"}}]), "invalid-tools", "tools[0].function.strict")
    _refused(chat([{"type": "function", "function": {"name": "f", "extra": 1}}]), "invalid-tools", "tools[0].function.extra")
    _refused(chat({"type": "function"}), "invalid-tools", "tools")
    _refused(chat(tool_choice={"type": "function", "function": {"name": "nope"}}), "invalid-tool-choice", "tool_choice")
    _refused(chat([], tool_choice="required"), "invalid-tool-choice", "tool_choice")
    _refused(chat(tool_choice="sometimes"), "unsupported-tool-choice", "tool_choice")
    _refused(chat(parallel_tool_calls="no"), "invalid-request", "parallel_tool_calls")


def test_nothing_to_constrain_without_a_format_unless_calls_are_forced() -> None:
    _refused(chat(answer=None), "nothing-to-constrain", "response_format")
    _refused(chat(answer=None, tool_choice="none"), "nothing-to-constrain", "response_format")
    assert tools.build(chat(answer=None, tool_choice="required"), api="chat", parser="dsml").answer is None


def test_malformed_format_is_the_adapters_error() -> None:
    body = chat()
    body["response_format"] = {"type": "json_schema", "json_schema": {"schema": ANSWER}}
    with pytest.raises(RequestError) as err:
        tools.build(body, api="chat", parser="hermes")
    assert err.value.param == "response_format.json_schema.name"


def test_defaults() -> None:
    tg = tools.build(chat(), api="chat", parser="hermes")
    assert (tg.request.choice, tg.request.parallel) == ("auto", True)
    assert [f.strict for f in tg.functions] == [True, True]  # strict unless `strict: false`
    assert tools.build(chat(tools=[]), api="chat", parser="hermes").request.choice == "none"


def test_turn_after_tool_results_is_constrained_again() -> None:
    history = [
        {"role": "user", "content": "weather?"},
        {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\": \"P\"}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "sunny"},
    ]
    tg = tools.build(chat(messages=history, tool_choice="none"), api="chat", parser="hermes")
    assert tg.validate('{"ok": true}').ok
    assert not tg.validate('{"ok": "sunny"}').ok
    assert tg.validate('<tool_call>\n{"name": "get_weather", "arguments": {"city": "P"}}\n</tool_call>').code == "tool-calls-malformed"
