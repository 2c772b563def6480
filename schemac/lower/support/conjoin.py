"""Replacing some of a node's keywords by one schema that means the same, in their place.

The passes that turn a keyword into standard ones (`not`, `if`/`then`/`else`, `oneOf`) all keep
the rest of the node and put the result where the replaced keyword stood, so the property order
llguidance gives the node (the syntax policy) does not move.
"""
from __future__ import annotations

from typing import Any

from schemac.schema import Schema


def conjoin(rest: dict[str, Any], extra: Schema, node: dict[str, Any]) -> Schema:
    """`rest` ∧ `extra` as one node (the intersection pass merges the allOf), where `rest` is
    `node` without the keywords `extra` replaces.

    `extra` takes the place of the first of them: llguidance lists an object's properties in
    the order its keywords are written (each applicator, `allOf`/`anyOf`/`oneOf`/`$ref`, in
    turn with the plain keywords between them), so answers keep the property order it gives the
    original schema (the syntax policy). Beside an `allOf` of its own, `extra` joins it on the
    side where the replaced keyword stood (a `properties` written between the two then no longer
    sits between them). Key order and allOf member order never change what a schema accepts.
    """
    decided = decided_alone(rest, extra)
    if decided is not None:
        return decided
    keys = list(node)
    place = next(i for i, k in enumerate(keys) if k not in rest)
    if "allOf" in rest:
        before = keys.index("allOf") > place
        return {**rest, "allOf": [extra, *rest["allOf"]] if before else [*rest["allOf"], extra]}
    out: dict[str, Any] = {}
    for i, k in enumerate(keys):
        if i == place:
            out["allOf"] = [extra]
        if k in rest:
            out[k] = rest[k]
    return out


def decided_alone(rest: dict[str, Any], extra: Schema) -> Schema | None:
    """`rest` ∧ `extra` where one side decides it (`extra` false or true, or `rest` empty);
    None when both count and the caller places `extra` among `rest`'s keywords."""
    if extra is False:
        return False
    if extra is True:
        return rest or True
    if not rest:
        return extra
    return None
