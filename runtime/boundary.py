"""What crosses the engine boundary: integers as engines hold them, and mask-row layouts.

Engines hold counts, token ids and row indices as Python ints, numpy integers or 0-d integer
tensors; all three are the same integer here. Booleans, floats, strings, arrays and tensors
with more than one dimension are not integers. A batch's rows are checked as a whole before any
row is written: an index outside the bitmask (a `-1` "no slot" sentinel would wrap around onto
another request's row) or two entries on one row is one `BoundaryError`, the bitmask untouched.
"""
from __future__ import annotations

import operator
from typing import Any, Sequence, TypeVar

from schemac.runtime.errors import BoundaryError

#: a request state: checked entries hand it back as it came
State = TypeVar("State")

INTEGER = "an integer (int, numpy integer or 0-d integer tensor)"


def integer(value: object) -> int | None:
    """`value` as an int when it is one of the engines' integers; None for anything else."""
    if type(value) is int:  # the common case, per row and per token on the hot path (bool is not int here)
        return value
    if isinstance(value, bool) or getattr(value, "ndim", 0) != 0 or "bool" in str(getattr(value, "dtype", "")):
        return None
    try:
        return operator.index(value)  # type: ignore[arg-type]
    except TypeError:
        return None


def checked_entries(
    bitmask: Any, words: int, entries: Sequence[tuple[State, Any, Sequence[Any]]]
) -> list[tuple[State, int, Sequence[Any]]]:
    """The entries with int rows, once every row is inside `bitmask` and no two overlap."""
    check_bitmask(bitmask, words)
    out: list[tuple[State, int, Sequence[Any]]] = []
    spans: list[tuple[int, int, int]] = []
    for n, entry in enumerate(entries):
        if not isinstance(entry, (tuple, list)) or len(entry) != 3:
            raise BoundaryError("invalid-argument", f"entries[{n}]", "must be (state, row, drafts)")
        state, row, drafts = entry
        if isinstance(drafts, (str, bytes)) or not hasattr(drafts, "__len__"):
            raise BoundaryError("invalid-argument", f"entries[{n}] drafts", f"must be a sequence of token ids, got {drafts!r}")
        first = row_index(bitmask.shape[0], row, len(drafts), f"entries[{n}] row")
        spans.append((first, first + len(drafts), n))
        out.append((state, first, drafts))
    spans.sort()
    for (_, last, a), (first, _, b) in zip(spans, spans[1:]):
        if first <= last:
            raise BoundaryError(
                "overlapping-rows", f"entries[{b}] row",
                f"row {first} is also a row of entries[{a}] (each (request, draft position) needs its own row)",
            )
    return out


def row_index(n_rows: int, row: object, drafts: int, argument: str = "row") -> int:
    """`row` as an int when rows `row` .. `row + drafts` are inside a bitmask of `n_rows`."""
    first = integer(row)
    if first is None:
        raise BoundaryError("invalid-argument", argument, f"must be {INTEGER}, got {row!r}")
    if not 0 <= first or first + drafts >= n_rows:
        raise BoundaryError(
            "invalid-row", argument, f"rows {first}..{first + drafts} are outside the bitmask's rows [0, {n_rows})"
        )
    return first


def check_bitmask(bitmask: Any, words: int, exact: bool = True) -> None:
    """A 2-D int32 CPU tensor with `words` columns (at least, unless `exact`): what the
    fillers write into."""
    import torch

    if (
        not isinstance(bitmask, torch.Tensor) or bitmask.dim() != 2 or bitmask.dtype != torch.int32
        or bitmask.device.type != "cpu" or bitmask.shape[1] < words or (exact and bitmask.shape[1] != words)
        or not bitmask.is_contiguous()  # llguidance writes rows through the data pointer
    ):
        shape = tuple(bitmask.shape) if isinstance(bitmask, torch.Tensor) else type(bitmask).__name__
        raise BoundaryError("invalid-argument", "bitmask", f"must be a contiguous 2-D int32 CPU tensor with {words} columns, got {shape}")
