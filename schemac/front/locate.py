"""JSON Pointer → line/column in the schema's own text, so every diagnostic points into the file.

Diagnostics carry RFC 6901 pointers into the user's document; editors, CI annotations and SARIF
want a line and a column. `Locator` scans the text once (iteratively: nesting depth costs no
stack) and records where each value, and each object member's key, starts. A member is located
at its key (where the keyword is written); the root and array elements at their value.
"""
from __future__ import annotations

import bisect
import json.decoder
import re
from dataclasses import dataclass

from schemac.schema import child_pointer

_WS = re.compile(r"[ \t\r\n]*")
_SCALAR = re.compile(r"[^,\]\}\s]*")


def _scan(text: str) -> dict[str, int]:
    """Offset of every pointer in `text`: the key's quote for members, else the value's start.

    Stops quietly at the first syntax error, keeping what it found: the loader reports the error
    itself (with its own position), and a partial map still locates everything before it.
    """
    found: dict[str, int] = {}
    # frame: [is_object, pointer of the container, index of the current element]
    stack: list[list[object]] = []
    pos = _WS.match(text, 1 if text.startswith("\ufeff") else 0).end()
    pointer = ""
    found[""] = pos
    try:
        while True:
            ch = text[pos]
            descended = False
            if ch == "{" or ch == "[":
                pos = _WS.match(text, pos + 1).end()
                close = "}" if ch == "{" else "]"
                if text[pos] != close:
                    stack.append([ch == "{", pointer, 0])
                    pointer, pos = _enter(text, pos, stack[-1], found)
                    descended = True
                else:
                    pos += 1
            elif ch == '"':
                pos = json.decoder.scanstring(text, pos + 1)[1]
            else:
                end = _SCALAR.match(text, pos).end()
                if end == pos:
                    return found
                pos = end
            if descended:
                continue
            # the value just ended: step to its next sibling, closing finished containers
            while True:
                pos = _WS.match(text, pos).end()
                if not stack:
                    return found
                frame = stack[-1]
                ch = text[pos]
                if ch == ",":
                    pos = _WS.match(text, pos + 1).end()
                    frame[2] = int(frame[2]) + 1  # type: ignore[call-overload]
                    pointer, pos = _enter(text, pos, frame, found)
                    break
                if ch == ("}" if frame[0] else "]"):
                    stack.pop()
                    pos += 1
                    continue
                return found
    except (IndexError, ValueError):
        return found


def _enter(text: str, pos: int, frame: list[object], found: dict[str, int]) -> tuple[str, int]:
    """Record the element starting at `pos` in container `frame`; return its pointer and value offset."""
    parent = str(frame[1])
    if frame[0]:
        if text[pos] != '"':
            raise ValueError("object key expected")
        key, end = json.decoder.scanstring(text, pos + 1)
        pointer = child_pointer(parent, key)
        found.setdefault(pointer, pos)
        end = _WS.match(text, end).end()
        if text[end] != ":":
            raise ValueError("':' expected")
        return pointer, _WS.match(text, end + 1).end()
    pointer = child_pointer(parent, int(frame[2]))  # type: ignore[call-overload]
    found.setdefault(pointer, pos)
    return pointer, pos


@dataclass
class Locator:
    """Maps pointers to 1-based (line, column); columns count Unicode code points."""

    positions: dict[str, tuple[int, int]]

    @classmethod
    def from_json_text(cls, text: str) -> "Locator":
        starts = [0] + [m.end() for m in re.finditer("\n", text)]
        out: dict[str, tuple[int, int]] = {}
        for pointer, offset in _scan(text).items():
            line = bisect.bisect_right(starts, offset)
            out[pointer] = (line, offset - starts[line - 1] + 1)
        return cls(out)

    def position(self, pointer: str) -> tuple[int, int] | None:
        """The node at `pointer`, else its nearest ancestor present in the text (generated nodes)."""
        while True:
            hit = self.positions.get(pointer)
            if hit is not None or not pointer:
                return hit
            pointer = pointer[: pointer.rfind("/")]
