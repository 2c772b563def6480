"""Is a refused valid answer refused only for its key order?

The grammar fixes one property order per object (the syntax policy), and a lowered schema's
order is not always the one a reader would guess from the schema text (distributed branches,
`$ref` targets, additional keys after listed ones). Rather than predict that order, the grammar
is asked: a depth-first search writes the same value with every key order the matcher admits,
one key at a time, and backtracks into nested objects when a later key is refused. A found text
is the same JSON value as the answer, so its acceptance proves the refusal was order alone. The
search is bounded; a search that runs out says "not order only", the conservative verdict.
Two passes: the first writes each nested object or array in its first admitted order only
(under `key_order="any"` its other orders reach the same state, and backtracking into them would
retry a failing sibling n! times); the second backtracks into every order, for answers where the
order of a nested value decides which anyOf branch stays alive.
"""
from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from benchmarks.conformance.cases import instance_text

#: Values written (across all backtracking) before a pass gives up on one answer.
SEARCH_BUDGET = 20_000


class _Search:
    """One bounded search over `data`'s key orders through forks of one matcher."""

    def __init__(self, tokenize: Callable[[str], list[int]], budget: int, first_only: bool) -> None:
        self.tokenize, self.left, self.first_only = tokenize, budget, first_only

    def feed(self, matcher: Any, piece: str) -> Any | None:
        """A fork of `matcher` after `piece`, or None when the grammar refuses it."""
        fork = matcher.deep_copy()
        ok = fork.consume_tokens(self.tokenize(piece))
        return fork if ok and not fork.is_error() else None

    def write(self, matcher: Any, value: Any) -> Iterator[tuple[Any, str]]:
        """Every (matcher, text) after writing `value` in an admitted key order, lazily."""
        self.left -= 1
        if self.left < 0:
            return
        if isinstance(value, (dict, list)):
            opened = self.feed(matcher, "{" if isinstance(value, dict) else "[")
            if opened is None:
                return
            inner = (self._members(opened, value, list(value), "{") if isinstance(value, dict)
                     else self._items(opened, value, 0, "["))
            if self.first_only:
                found = next(inner, None)
                if found is not None:
                    yield found
            else:
                yield from inner
        else:
            text = instance_text(value)
            done = self.feed(matcher, text)
            if done is not None:
                yield done, text

    def _members(self, matcher: Any, obj: dict[str, Any], rest: list[str], text: str) -> Iterator[tuple[Any, str]]:
        if not rest:
            closed = self.feed(matcher, "}")
            if closed is not None:
                yield closed, text + "}"
            return
        for key in rest:
            head = ("" if text == "{" else ", ") + instance_text(key) + ": "
            keyed = self.feed(matcher, head)
            if keyed is None:
                continue
            for after, value_text in self.write(keyed, obj[key]):
                yield from self._members(after, obj, [k for k in rest if k != key], text + head + value_text)

    def _items(self, matcher: Any, items: list[Any], i: int, text: str) -> Iterator[tuple[Any, str]]:
        if i == len(items):
            closed = self.feed(matcher, "]")
            if closed is not None:
                yield closed, text + "]"
            return
        sep = self.feed(matcher, ", ") if i else matcher
        if sep is None:
            return
        for after, item_text in self.write(sep, items[i]):
            yield from self._items(after, items, i + 1, text + (", " if i else "") + item_text)


def reordered_text(matcher: Any, tokenize: Callable[[str], list[int]], data: Any,
                   budget: int = SEARCH_BUDGET) -> str | None:
    """`data` as `json.dumps`-style text in a key order the grammar accepts whole, or None.

    `matcher` is a fresh llguidance matcher (only forks of it are fed); `tokenize` turns text
    into the tokens the matcher consumes."""
    for first_only in (True, False):
        for done, text in _Search(tokenize, budget, first_only).write(matcher, data):
            if done.is_accepting():
                return text
    return None
