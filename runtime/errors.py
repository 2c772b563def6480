"""The runtime's own error: a layout the engine passed that it cannot honour. Admission and
output errors, which the tool envelopes raise too, are `schemac.api`'s."""
from __future__ import annotations


class BoundaryError(ValueError):
    """The engine called the runtime with a layout it cannot honour (a row outside the
    bitmask, two requests or draft rows on one row, an argument of a foreign type); raised
    before anything is written. `argument` names what was wrong."""

    def __init__(self, code: str, argument: str, message: str) -> None:
        super().__init__(f"{code}: {argument}: {message}")
        self.code = code
        self.argument = argument
        self.message = message
