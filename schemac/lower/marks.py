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


def marked(node: Any) -> bool:
    """Whether any schema object inside `node` (its `$defs` included) carries `MARK`."""
    stack = [node]
    while stack:
        cur = stack.pop()
        if isinstance(cur, dict):
            if MARK in cur:
                return True
            stack.extend(sub for _, sub in iter_subschemas(cur))
            if isinstance(cur.get("$defs"), dict):
                stack.extend(cur["$defs"].values())
    return False


#: Upper bound on the grammar states of one marked array (the writer keeps one per position class
#: and count); a pass that would need more rejects with `too-large` before marking.
MAX_ARRAY_STATES = 4096
