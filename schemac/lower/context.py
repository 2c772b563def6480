"""The state one lowering run shares: budget, bundle definitions, the pointer being lowered."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from schemac.budget import Budget
from schemac.diagnostics import DiagnosticSink, reject
from schemac.schema import Bundle, Schema, child_pointer, ref_name


@dataclass
class Definitions:
    """Bundle definitions, lowered on demand and memoised; new ones may be added by passes."""

    source: Bundle
    lowered: dict[str, Schema] = field(default_factory=dict)
    in_progress: set[str] = field(default_factory=set)
    #: derived forms of a definition that passes inline instead of registering (e.g. a small
    #: complement), memoised so `$ref` fan-out does not recompute them exponentially
    derived: dict[str, Schema] = field(default_factory=dict)

    def origin(self, name: str) -> str:
        return self.source.origin.get(name, "")


#: called by the walker after each pass it runs: (pointer, pass name, node before, node after)
Trace = Callable[[str, str, Schema, Schema], None]


_new_context = object.__new__


class LowerContext:
    """Passed to every pass. `pointer` is the user's-document pointer of the node being lowered.

    One is made per lowered node, so it is slotted and its pointer is built only when read
    (diagnostics, generated names): most nodes never need theirs.
    """

    __slots__ = ("budget", "defs", "sink", "depth", "_lower", "trace", "_pointer", "_parent", "_tokens")

    def __init__(
        self,
        budget: Budget,
        defs: Definitions,
        sink: DiagnosticSink,
        pointer: str = "",
        depth: int = 0,
        _lower: Callable[[Schema, "LowerContext"], Schema] | None = None,
        trace: Trace | None = None,
    ) -> None:
        self.budget = budget
        self.defs = defs
        self.sink = sink
        self.depth = depth
        #: the walker, injected by schemac.lower so passes can lower what they generate
        self._lower = _lower
        #: an observer of every pass the walker runs (`schemac explain`); None in the pipeline
        self.trace = trace
        self._pointer: str | None = pointer
        self._parent: LowerContext | None = None
        self._tokens: tuple[str | int, ...] = ()

    @property
    def pointer(self) -> str:
        if self._pointer is None:
            assert self._parent is not None
            self._pointer = child_pointer(self._parent.pointer, *self._tokens)
            self._parent = None
        return self._pointer

    def at(self, *tokens: str | int) -> "LowerContext":
        """Context for a child node `tokens` below the current one."""
        if self.depth + 1 > self.budget.limits.max_depth:
            raise reject(
                "too-large",
                self.pointer,
                f"schema nesting exceeds {self.budget.limits.max_depth} levels",
            )
        child = _new_context(LowerContext)  # one per lowered node: skips __init__'s defaults
        child.budget, child.defs, child.sink, child._lower, child.trace = (
            self.budget, self.defs, self.sink, self._lower, self.trace)
        child.depth, child._pointer, child._parent, child._tokens = self.depth + 1, None, self, tokens
        return child

    def lower(self, node: Schema, *tokens: str | int) -> Schema:
        """Fully lower a subschema a pass generated (located at the current pointer + tokens)."""
        assert self._lower is not None
        return self._lower(node, self.at(*tokens) if tokens else self)

    def definition(self, name: str) -> Schema | None:
        """The lowered body of bundle definition `name`; None while it is being lowered (a cycle)."""
        if name in self.defs.lowered:
            return self.defs.lowered[name]
        if name in self.defs.in_progress:
            return None
        if name not in self.defs.source.defs:
            raise reject("unresolvable-ref", self.pointer, f"no definition named {name!r}")
        self.defs.in_progress.add(name)
        try:
            sub = LowerContext(self.budget, self.defs, self.sink, self.defs.origin(name), 0, self._lower, self.trace)
            body = sub.lower(self.defs.source.defs[name])
        finally:
            self.defs.in_progress.discard(name)
        self.defs.lowered[name] = body
        return body

    def deref(self, node: Schema) -> Schema | None:
        """Follow bundle `$ref`s from `node` to a lowered body without siblings.

        Returns `node` itself when it is not a bare reference, and None when the chain is cyclic
        (the target is still being lowered): callers must then keep the reference as it is.
        """
        seen: set[str] = set()
        while isinstance(node, dict):
            name = ref_name(node)
            if name is None or len(node) != 1:
                return node
            if name in seen:
                return None
            seen.add(name)
            target = self.definition(name)
            if target is None:
                return None
            node = target
        return node

    def add_definition(self, name: str, body: Schema) -> str:
        """Register an already-lowered generated definition; returns its `$ref` string."""
        self.defs.lowered[name] = body
        return "#/$defs/" + name


Pass = Callable[[dict[str, Any], LowerContext], Schema]
