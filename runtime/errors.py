"""Typed runtime errors: admission rejections happen before generation, output errors after."""
from __future__ import annotations


class AdmissionError(ValueError):
    """A request the runtime cannot honour exactly; raised before any token is generated."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


class StructuredOutputError(RuntimeError):
    """One request's constrained output failed (grammar error, invalid answer); others go on."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


class BoundaryError(ValueError):
    """The engine called the runtime with a layout it cannot honour (a row outside the
    bitmask, two requests or draft rows on one row, an argument of a foreign type); raised
    before anything is written. `argument` names what was wrong."""

    def __init__(self, code: str, argument: str, message: str) -> None:
        super().__init__(f"{code}: {argument}: {message}")
        self.code = code
        self.argument = argument
        self.message = message
