"""Hostile schemas (issue 6): each compiles or is refused with a diagnostic, in bounded time and memory."""
