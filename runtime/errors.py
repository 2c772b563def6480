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
