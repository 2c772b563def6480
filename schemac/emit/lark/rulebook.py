"""The Lark writer's rule book: the rules written so far, fresh names, named terminals and what
they match, and the one operation the node writers call back (`value`).

The node writers (arrays, objects, numbers, listed values) take a `RuleBook`; `writer.Writer`
is the one there is. They import this module and not the writer, which imports them.
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

from schemac.budget import Budget
from schemac.emit.lark.prune import Screen
from schemac.schema import Schema, ref_name


class RuleBook(ABC):
    """The rules of one grammar being written, and the names and terminals they use."""

    def __init__(self, defs: dict[str, Any], prefix: str, budget: Budget | None, key_order: str) -> None:
        self.defs = defs
        #: "schema"/"properties" (listed keys in the order of `properties`, then extras: under
        #: "schema" `emit` has already written each node whose `required` states another order
        #: as an anyOf of both) or "any" (`lark_object_free`)
        self.key_order = key_order
        #: the schema's budget: its steps and grammar size are checked while rules are written
        self.budget = budget or Budget()
        self.spelled = 0  # listed members written as their own lexemes (`lark_listed.literal_value`)
        self.prefix = prefix
        #: the item and key separator terminals (the syntax policy), named for this writer
        self.sep, self.ksep = f"{prefix.upper()}SEP", f"{prefix.upper()}KSEP"
        self.rules: list[str] = []
        #: terminal name → its expression; expression → whether it matches some text (`admits`)
        self.bodies: dict[str, str] = {}
        self.admitted: dict[str, bool] = {}
        self.counted: dict[tuple[str, int], int | None] = {}
        self.memo: dict[str, str | None] = {}
        self.screen = Screen(defs, self.budget)
        self.count = 0

    @abstractmethod
    def value(self, node: Schema, pointer: str) -> str | None:
        """Rule name for `node`, or None when it accepts nothing."""

    def name(self, prefix: str) -> str:
        """A fresh rule name (a terminal name when `prefix` is upper case)."""
        self.count += 1
        own = self.prefix.upper() if prefix.isupper() else self.prefix
        return f"{own}{prefix}{self.count}"

    def alts(self, name: str, alts: list[str]) -> str | None:
        """Define rule `name` as the alternatives `alts`; None (and no rule) when there are none."""
        if not alts:
            return None
        self.rules.append(f"{name}: " + "\n    | ".join(alts))
        return name

    def terminal(self, prefix: str, body: str) -> str:
        """A named terminal for the Lark terminal expression `body` (one per distinct body)."""
        key = "t" + body
        if key not in self.memo:
            name = self.name(prefix)
            self.rules.append(f"{name}: {body}")
            self.memo[key] = name
            self.bodies[name] = body
        return str(self.memo[key])

    def admits(self, name: str) -> bool:
        """Whether terminal `name` matches some text (`lark_probe.terminal_admits`, memoised).

        A rule that reaches an empty terminal is a dead end: llguidance admits every byte up
        to it and then nothing (`NoExtensionBias`, only EOS allowed), so an engine returns the
        unfinished text. Only intersections and complements (`&`, `~`) can be empty where
        their parts are not, so only those are probed; the rest are non-empty by construction."""
        return self.admits_body(self.bodies[name])

    def admits_body(self, body: str) -> bool:
        """`admits` for a terminal expression over this writer's terminals (memoised by text)."""
        if body not in self.admitted:
            definitions = self.definitions(body)
            if not any("&" in text or "~" in text for text in [body, *definitions]):
                self.admitted[body] = True
            else:
                from schemac.emit.lark.probe import terminal_admits

                self.budget.step("")
                self.admitted[body] = terminal_admits(body, definitions)
        return self.admitted[body]

    def strings(self, name: str, limit: int) -> int | None:
        """How many texts terminal `name` matches (`lark_probe.terminal_strings`, memoised);
        None when unbounded or more than `limit`."""
        key = (name, limit)
        if key not in self.counted:
            from schemac.emit.lark.probe import terminal_strings

            self.budget.step("")
            self.counted[key] = terminal_strings(self.bodies[name], self.definitions(name), limit)
        return self.counted[key]

    def definitions(self, body: str) -> list[str]:
        """The `NAME: expr` lines of the terminals the expression `body` (or a terminal's name)
        names, at any depth (what a probe grammar holding that one expression needs)."""
        needed: list[str] = []
        todo = [self.bodies.get(body, body)]
        while todo:
            for word in identifiers(todo.pop()):
                if word in self.bodies and word not in needed:
                    needed.append(word)
                    todo.append(self.bodies[word])
        return [f"{n}: {self.bodies[n]}" for n in needed]

    def defs_of(self, node: Any) -> dict[str, Any]:
        """The definitions `node` reaches through `$ref`s, at any depth."""
        found: dict[str, Any] = {}
        stack = [node]
        while stack:
            cur = stack.pop()
            if isinstance(cur, dict):
                name = ref_name(cur)
                if name is not None and name in self.defs and name not in found:
                    found[name] = self.defs[name]
                    stack.append(self.defs[name])
                stack.extend(cur.values())
            elif isinstance(cur, list):
                stack.extend(cur)
        return found


_IDENTIFIER_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_$")


def identifiers(text: str) -> set[str]:
    """The identifier-like words of a Lark rule body (rule names among them; a quoted literal's
    words too, which can only make `_named` answer yes: the safe side)."""
    return set("".join(c if c in _IDENTIFIER_CHARS else " " for c in text).split())
