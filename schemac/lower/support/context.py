"""The state one lowering run shares: budget, bundle definitions, the pointer being lowered."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from schemac.budget import Budget
from schemac.diagnostics import CompileError, DiagnosticSink, reject
from schemac.schema import Bundle, Schema, child_pointer, ref_name

#: Rejections that a promised definition's build may meet and its owner can do without (see
#: `LowerContext.defer`): the owner is lowered again with the promise refused.
_RETRY_CODES = frozenset({"not-exact", "if-not-exact", "one-of-not-exact"})


@dataclass
class Promise:
    """A generated definition handed out by reference before it can be built (`LowerContext.defer`)."""

    base: str  #: the definition its body is built from
    owner: str  #: the definition being lowered at whose completion it is built
    build: Callable[["LowerContext"], Schema]
    pointer: str  #: where it was asked for (its diagnostics)


@dataclass
class Definitions:
    """Bundle definitions, lowered on demand and memoised; new ones may be added by passes."""

    source: Bundle
    lowered: dict[str, Schema] = field(default_factory=dict)
    in_progress: set[str] = field(default_factory=set)
    #: derived forms of a definition that passes inline instead of registering (e.g. a small
    #: complement), memoised so `$ref` fan-out does not recompute them exponentially
    derived: dict[str, Schema] = field(default_factory=dict)
    #: promised definitions not built yet (each is also `in_progress`, so nothing reads it)
    promised: dict[str, Promise] = field(default_factory=dict)
    #: promises whose build failed: asked again, they are refused
    refused: set[str] = field(default_factory=set)
    #: how many promises were made so far (a lowering that made none has nothing to undo)
    promises: int = 0
    #: generated names referred to while being built (in progress, not registered): such a
    #: one must be registered, never inlined (see `negation._negate_ref`)
    handed: set[str] = field(default_factory=set)

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
        """The lowered body of bundle definition `name`; None while it is being lowered (a cycle).

        Once the body is lowered, the promises it owns are built (`defer`); where one fails, every
        definition lowered since `name` began is forgotten and `name` is lowered again with that
        promise refused, so no reference to a definition that will never exist survives.
        """
        if name in self.defs.lowered:
            return self.defs.lowered[name]
        if name in self.defs.in_progress:
            return None
        if name not in self.defs.source.defs:
            raise reject("unresolvable-ref", self.pointer, f"no definition named {name!r}")
        while True:
            mark = self.mark()
            self.defs.in_progress.add(name)
            try:
                sub = LowerContext(self.budget, self.defs, self.sink, self.defs.origin(name), 0, self._lower, self.trace)
                body = sub.lower(self.defs.source.defs[name])
            except CompileError:
                if self.defs.promises != mark[2]:
                    self._forget(name, mark)
                raise
            finally:
                self.defs.in_progress.discard(name)
            self.defs.lowered[name] = body
            try:
                failed = self._keep_promises(name)
            except BaseException:
                self._forget(name, mark)
                raise
            if failed is None:
                return body
            self.defs.refused.add(failed)
            self._forget(name, mark)

    def defer(self, base: str, name: str, build: Callable[["LowerContext"], Schema]) -> bool:
        """Promise definition `name` (the caller may refer to it at once), built by `build` from
        definition `base`, which cannot be read yet (it, or a definition its bare references lead
        to, is being lowered: e.g. `base`'s complement needed inside its own recursion).

        The promise is owned by the definition being lowered that blocks `base`, and built when
        that one's body is done, before anything outside its lowering can see a reference to
        `name`. False where nothing can be promised: an earlier build of `name` failed, or what
        blocks `base` is not a definition being lowered.
        """
        if name in self.defs.refused:
            return False
        owner = self._owner(self._blocker(base))
        if owner is None:
            return False
        self.defs.promised[name] = Promise(base, owner, build, self.pointer)
        self.defs.in_progress.add(name)
        self.defs.promises += 1
        return True

    def _blocker(self, base: str) -> str | None:
        """The name in progress that `base`'s chain of bare references stops at; None when the
        chain reaches a lowered body (lowering definitions on the way)."""
        seen: set[str] = set()
        name: str | None = base
        while name is not None:
            if name in self.defs.in_progress or name in seen:
                return name
            seen.add(name)
            body = self.definition(name)
            name = ref_name(body) if isinstance(body, dict) and len(body) == 1 else None
        return None

    def _owner(self, blocker: str | None) -> str | None:
        """Who builds a promise blocked by `blocker`: the definition being lowered, or the owner
        of the promise it is; None for anything else (e.g. a complement being built inline)."""
        if blocker is None:
            return None
        if blocker in self.defs.promised:
            return self.defs.promised[blocker].owner
        return blocker if blocker in self.defs.source.defs and blocker in self.defs.in_progress else None

    def _keep_promises(self, owner: str) -> str | None:
        """Build the promises `owner` holds (its body is lowered); hand those still blocked to the
        enclosing definition that blocks them. Returns the name of one whose build failed."""
        progress = True
        while progress:
            progress = False
            for name in [n for n, p in self.defs.promised.items() if p.owner == owner]:
                promise = self.defs.promised[name]
                blocker = self._blocker(promise.base)
                if blocker is not None:
                    heir = self._owner(blocker)
                    if heir is None:
                        return name
                    promise.owner = heir  # an enclosing definition, or this one: a sibling is built first
                    continue
                del self.defs.promised[name]
                try:
                    sub = LowerContext(self.budget, self.defs, self.sink, promise.pointer, 0, self._lower, self.trace)
                    body = promise.build(sub)
                except CompileError as exc:
                    if _RETRY_CODES.isdisjoint(exc.codes):
                        raise
                    return name
                finally:
                    self.defs.in_progress.discard(name)
                self.defs.lowered[name] = body
                progress = True
        stuck = [n for n, p in self.defs.promised.items() if p.owner == owner]
        return stuck[0] if stuck else None

    def mark(self) -> tuple[int, int, int]:
        """Where the memo tables stand now (`drop_since`): definitions, derived forms, promises."""
        return (len(self.defs.lowered), len(self.defs.derived), self.defs.promises)

    def drop_since(self, mark: tuple[int, int, int]) -> None:
        """Drop every definition and derived form recorded since `mark`: a build that failed
        may have registered some that refer to what it was building, which will never exist.
        Whatever is needed again is rebuilt on demand."""
        for table, size in ((self.defs.lowered, mark[0]), (self.defs.derived, mark[1])):
            for key in list(table)[size:]:
                del table[key]

    def _forget(self, owner: str, mark: tuple[int, int, int]) -> None:
        """Undo a lowering of `owner` that will be redone or abandoned: drop every definition
        and derived form recorded since `mark`, and the promises `owner` still holds."""
        self.drop_since(mark)
        for name in [n for n, p in self.defs.promised.items() if p.owner == owner]:
            del self.defs.promised[name]
            self.defs.in_progress.discard(name)

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
