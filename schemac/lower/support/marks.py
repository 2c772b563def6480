"""The marker a lowering pass leaves on an array node that only the Lark emit backend can write.

Neutral ground between the passes that set it (`contains`, `unique_items`), the passes that read
it (`supported`, `productive`) and `schemac.emit`, so no pass imports the emitter.

`MARK`'s value is a dict: `{"not-contains": schema}` (the complement of the contains schema, for
maxContains) and/or `{"domains": [[values of prefix position 0], ..., [values of later items]]}`
(uniqueItems over finite domains).
"""
from __future__ import annotations

from typing import Any

from schemac.schema import iter_subschemas

MARK = "x-schemac-array"

#: On a number node: a list of steps; the number is a multiple of none of them (`not multipleOf`,
#: and the non-integer numbers as `[1]`). Only the Lark emit backend writes it, through schemac's
#: exact number automaton; llguidance's JSON form never sees it.
NOT_MULTIPLE = "x-schemac-not-multipleOf"
#: On a string node: a list of ECMA-262 patterns none of which matches the string (`not pattern`).
#: Only the Lark emit backend writes it: a string terminal minus the terminals of the patterns.
NOT_PATTERN = "x-schemac-not-pattern"
#: On an object node: a list of witnesses, each `{"value": V}` plus the class of keys it is about,
#: `"pattern": p` (keys p matches) or `"other": {"keys": [...], "patterns": [...]}` (keys outside
#: both): the object has an entry whose key is in the class and whose value satisfies V (lowered).
#: "Some entry breaks additionalProperties/patternProperties" (their complements) has no standard
#: keyword but `not`; only the Lark object writer writes it (`schemac.emit.lark.objects`).
WITNESS = "x-schemac-witness"
#: Markers a lowering may leave as plain keywords of a node (every pass passes them on, `supported`
#: allows them, the validator reads them through `scalar_marks.standard`): the scalar ones and `WITNESS`.
SCALAR_MARKS = frozenset({NOT_MULTIPLE, NOT_PATTERN, WITNESS})


def carries(node: Any, marks: frozenset[str]) -> bool:
    """Whether any schema object inside `node` (its `$defs` included) holds one of `marks`."""
    stack = [node]
    while stack:
        cur = stack.pop()
        if isinstance(cur, dict):
            if not marks.isdisjoint(cur):
                return True
            stack.extend(sub for _, sub in iter_subschemas(cur))
    return False


def marked(node: Any) -> bool:
    """Whether any schema object inside `node` (its `$defs` included) carries `MARK`."""
    return carries(node, frozenset({MARK}))


#: Upper bound on the grammar states of one marked array (the writer keeps one per position class
#: and count); a pass that would need more rejects with `too-large` before marking.
MAX_ARRAY_STATES = 4096
