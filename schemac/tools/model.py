"""The types envelope modules share: a compiled function, a parsed call, the Envelope protocol.

An envelope module (hermes.py, dsml.py) provides `NAME`, `OPENER`, `check`, `rules` and
`parse` at module level; `schemac.tools.envelopes.ENVELOPES` lists them.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Protocol, Sequence

from schemac.budget import Budget
from schemac.emit import Emitted
from schemac.schema import Schema


@dataclass(frozen=True)
class Function:
    """A function the tool branch may call.

    strict: `schema` is the resolved parameters schema (final validation), `lowered` its
    lowered form and `written` how emit wrote it (the grammar: `Emitted.rules`). Not strict
    (`strict: false`): all three are None and the arguments are any JSON object; `names` are
    the declared property names (for envelopes that name parameters one by one).
    """

    index: int
    name: str
    strict: bool
    schema: Schema | None
    lowered: Schema | None
    names: tuple[str, ...]
    pointer: str
    written: Emitted | None = None

    @property
    def rule(self) -> str:
        """This function's Lark rule name (names are [A-Za-z0-9_-], not all valid rule names)."""
        return f"fn{self.index}"


@dataclass(frozen=True)
class ToolCall:
    """`arguments` is what the function's `parameters` admit: an object for any usual schema
    (always for DSML and for `strict: false`)."""

    name: str
    arguments: Any

    def arguments_json(self) -> str:
        """The arguments as the OpenAI APIs carry them: a JSON string."""
        return json.dumps(self.arguments, ensure_ascii=False)


class EnvelopeError(ValueError):
    """Text that is not a well-formed envelope of this format."""


class Envelope(Protocol):
    NAME: str
    #: every envelope text starts with this; an answer never does (JSON cannot start with '<')
    OPENER: str
    #: the property order the envelope writes arguments in, or None for the request's
    KEY_ORDER: str | None

    def check(self, fn: Function) -> None:
        """Raise CompileError (pointer under `fn.pointer`) if `fn` cannot be enforced exactly."""

    def rules(self, functions: Sequence[Function], parallel: bool, budget: Budget) -> str:
        """Lark rules defining `calls`: one call, or one or more when `parallel` (arguments
        written by the emit writer, on the request's `budget`)."""

    def parse(self, text: str) -> list[ToolCall]:
        """The calls in `text`; raises EnvelopeError when it is not exactly one envelope."""
