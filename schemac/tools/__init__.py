"""Function tools beside structured output: one grammar that admits the tool parser's
canonical call envelope (Hermes `<tool_call>`, DeepSeek DSML) or a schema-conforming answer,
as `tool_choice` allows, with strict function arguments compiled by schemac on one budget.

    tg = schemac.tools.build(request_body, api="chat", parser="hermes")
    tg.grammar              # llguidance grammar (tg.artifact() for Engine.admit)
    tg.validate(text)       # Result(kind="answer"|"tool_calls", calls, value, errors)
"""
from __future__ import annotations

from schemac.tools.grammar import Result, ToolGrammar, build
from schemac.tools.model import ToolCall
from schemac.api import RequestError

__all__ = ["Result", "ToolCall", "ToolGrammar", "RequestError", "build"]
