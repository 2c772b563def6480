"""Client-side final validation: an answer from any engine, judged exactly as the runtime judges it.

An OpenAI-compatible server enforcing `Artifact.lark` (or any other constraint) returns text;
`check_answer` gives it the runtime's final validation (`schemac.runtime.final`): strict JSON
with exact numbers (`parse_answer`), then the full validator on the artifact's resolved schema.
The result is typed: `ok` (with the value), `invalid` (with the instance pointer of each
violation) or `truncated` (the generation was cut: `finish_reason="length"`, or the text is a
proper prefix of a strict JSON text, so it ended before its value did).
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

#: `Answer.status` values
OK, INVALID, TRUNCATED = "ok", "invalid", "truncated"
_WS = " \t\n\r"
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
_NUMBER_PREFIX = re.compile(r"-?(?:0|[1-9][0-9]*)?(?:(?<=[0-9])\.[0-9]*)?(?:(?<=[0-9])[eE][+-]?[0-9]*)?")


@dataclass(frozen=True)
class Violation:
    """One reason an answer is invalid: where (RFC 6901 pointer into the answer, "" = root)."""

    pointer: str
    message: str


@dataclass(frozen=True)
class Answer:
    """The verdict on one answer. `code` is the runtime's error code for a non-ok answer
    (`answer-not-json`, `answer-invalid`, `answer-truncated`)."""

    status: str
    text: str
    value: Any = None
    violations: tuple[Violation, ...] = ()
    code: str = ""

    @property
    def ok(self) -> bool:
        return self.status == OK

    @property
    def pointer(self) -> str | None:
        """The first violation's pointer (invalid answers only)."""
        return self.violations[0].pointer if self.violations else None

    def to_json(self) -> dict[str, Any]:
        """A JSON report (the value itself is left out: it may hold numbers JSON cannot round-trip)."""
        return {"status": self.status, "code": self.code,
                "violations": [{"pointer": v.pointer, "message": v.message} for v in self.violations]}


def check_answer(key: str, schema: Any, text: str, finish_reason: str = "stop") -> Answer:
    """The final verdict on `text` for the resolved `schema` (cached validator under `key`)."""
    if finish_reason == "length":
        return Answer(TRUNCATED, text, code="answer-truncated",
                      violations=(Violation("", "generation stopped at the token limit"),))
    if finish_reason != "stop":
        raise ValueError(f"unknown finish reason {finish_reason!r}")
    from schemac.validate.cache import validator_for
    from schemac.validate.final import parse_answer

    try:
        value = parse_answer(text)
    except ValueError as exc:
        if continues_to_json(text):
            return Answer(TRUNCATED, text, code="answer-truncated",
                          violations=(Violation("", "the answer ends before its JSON value does"),))
        return Answer(INVALID, text, code="answer-not-json", violations=(Violation("", str(exc)),))
    found = validator_for(key, schema).violations(value)
    if found:
        return Answer(INVALID, text, code="answer-invalid",
                      violations=tuple(Violation(p, m) for p, m in found))
    return Answer(OK, text, value)


def continues_to_json(text: str) -> bool:
    """Whether `text` (holding more than whitespace) is a proper prefix of a text `parse_answer`
    accepts: some continuation completes it. The scanner builds the shortest-ish completion for
    RFC 8259 syntax, and `parse_answer` judges prefix + completion, so duplicate keys and lone
    surrogates that no continuation can repair make it False."""
    if not text.strip(_WS):
        return False
    completion = _completion(text)
    if completion is None:
        return False
    from schemac.validate.final import parse_answer

    try:
        parse_answer(text + completion)
    except ValueError:
        return False
    return True


def _completion(text: str) -> str | None:
    """A suffix that closes `text` into a JSON text, or None when `text` is no JSON prefix."""
    scan = _Scanner()
    for ch in text:
        if not scan.step(ch):
            return None
    return scan.close()


class _Scanner:
    """RFC 8259 syntax one character at a time: a stack of open containers, the expected token,
    and the partial token. `keys` holds each open object's decoded keys (for a fresh one)."""

    def __init__(self) -> None:
        self.stack: list[str] = []  # "{" / "["
        self.keys: list[set[str]] = []
        self.expect = "value"  # value, value_or_close, key, key_or_close, colon, after, done
        self.token = ""  # the partial token: string (with quote), number or literal
        self.kind = ""  # "string", "key", "number", "literal", ""

    # -- tokens ---------------------------------------------------------------------------
    def step(self, ch: str) -> bool:
        if self.kind:
            return self._in_token(ch)
        if ch in _WS:
            return True
        if self.expect in ("value", "value_or_close"):
            if ch == "]" and self.expect == "value_or_close":
                return self._close("[")
            return self._start_value(ch)
        if self.expect in ("key", "key_or_close"):
            if ch == "}" and self.expect == "key_or_close":
                return self._close("{")
            if ch == '"':
                self.kind, self.token = "key", ch
                return True
            return False
        if self.expect == "colon":
            if ch == ":":
                self.expect = "value"
                return True
            return False
        if self.expect == "after" and self.stack:
            if ch == ",":
                self.expect = "key" if self.stack[-1] == "{" else "value"
                return True
            return ch in "]}" and self._close("[" if ch == "]" else "{")
        return False

    def _start_value(self, ch: str) -> bool:
        if ch in "{[":
            self.stack.append(ch)
            if ch == "{":
                self.keys.append(set())
            self.expect = "key_or_close" if ch == "{" else "value_or_close"
            return True
        if ch == '"':
            self.kind, self.token = "string", ch
            return True
        if ch == "-" or ch.isdigit() and ch.isascii():
            self.kind, self.token = "number", ch
            return True
        if ch in "tfn":
            self.kind, self.token = "literal", ch
            return True
        return False

    def _close(self, opener: str) -> bool:
        if not self.stack or self.stack[-1] != opener:
            return False
        self.stack.pop()
        if opener == "{":
            self.keys.pop()
        self._value_done()
        return True

    def _value_done(self) -> None:
        self.expect = "after" if self.stack else "done"

    def _in_token(self, ch: str) -> bool:
        if self.kind in ("string", "key"):
            return self._in_string(ch)
        if self.kind == "literal":
            word = next((w for w in ("true", "false", "null") if w.startswith(self.token)), "")
            if len(self.token) < len(word) and word[len(self.token)] == ch:
                self.token += ch
                if self.token == word:
                    self.kind = ""
                    self._value_done()
                return True
            return False
        if _number_prefix(self.token + ch):
            self.token += ch
            return True
        if not _NUMBER.fullmatch(self.token):
            return False
        self.kind = ""
        self._value_done()
        return self.step(ch)

    def _in_string(self, ch: str) -> bool:
        body = self.token[1:]
        if _open_escape(body) is not None:  # inside `\` or `\uXXXX`
            pending = _open_escape(body)
            if pending == "":
                ok = ch in '"\\/bfnrtu'
            else:
                ok = ch in "0123456789abcdefABCDEF"
            if ok:
                self.token += ch
            return ok
        if ch == '"':
            self.token += ch
            if self.kind == "key":
                key = json.loads(self.token)
                if key in self.keys[-1]:
                    return False  # a duplicate key: no continuation is strict JSON
                self.keys[-1].add(key)
                self.expect = "colon"
            else:
                self._value_done()
            self.kind, self.token = "", ""
            return True
        if ord(ch) < 0x20:
            return False
        self.token += ch
        return True

    # -- completion -----------------------------------------------------------------------
    def close(self) -> str | None:
        if self.kind == "" and self.expect == "done":
            return None  # a whole value: nothing is missing (parse_answer refused it for another reason)
        out = ""
        if self.kind in ("string", "key"):
            out = _close_string(self.token[1:], self._fresh() if self.kind == "key" else "")
            out += ":0" if self.kind == "key" else ""
        elif self.kind == "literal":
            out = next(w for w in ("true", "false", "null") if w.startswith(self.token))[len(self.token):]
        elif self.kind == "number":
            out = "" if _NUMBER.fullmatch(self.token) else "0"
        elif self.expect == "value":
            out = "0"
        elif self.expect == "key":
            out = json.dumps(self._fresh()) + ":0"
        elif self.expect == "colon":
            out = ":0"
        # "after", "value_or_close", "key_or_close": only the open containers are left
        return out + "".join("}" if c == "{" else "]" for c in reversed(self.stack))

    def _fresh(self) -> str:
        """Text longer than every key of the innermost open object: appended, no duplicate."""
        return "k" * (1 + max((len(k) for k in self.keys[-1]), default=0))


def _open_escape(body: str) -> str | None:
    """In a string body: None when no escape is open, else the part of it after the backslash
    written so far ("" right after it, "u", "u1", ...)."""
    i, n = 0, len(body)
    while i < n:
        if body[i] == "\\":
            if i + 1 == n:
                return ""
            if body[i + 1] == "u":
                if n - i - 2 < 4:
                    return body[i + 1:]
                i += 6
            else:
                i += 2
        else:
            i += 1
    return None


def _close_string(body: str, tail: str) -> str:
    """What closes an open string body: finish an open escape (as the low half of a surrogate
    pair where a high half precedes it and its digits allow), pair a trailing high surrogate,
    then `tail` and the quote."""
    pending = _open_escape(body)
    out = ""
    if pending is not None:
        low = _low_half(pending) if _ends_high(body[: len(body) - len(pending) - 1]) else None
        out = low if low is not None else "n" if pending == "" else "0" * (5 - len(pending))
    if _ends_high(body + out):
        out += "\\udc00"
    return out + tail + '"'


def _ends_high(body: str) -> bool:
    """Whether a string body ends with a `\\uXXXX` escape of a high surrogate."""
    return len(body) >= 6 and body[-6:-4] == "\\u" and _open_escape(body[:-6]) is None \
        and 0xD800 <= int(body[-4:], 16) <= 0xDBFF


def _low_half(pending: str) -> str | None:
    """The rest of an open escape (`pending` follows the backslash) that makes it a low
    surrogate, or None when its digits rule that out."""
    digits = pending[1:]
    lo, hi = int(digits.ljust(4, "0"), 16), int(digits.ljust(4, "f"), 16)
    if hi < 0xDC00 or lo > 0xDFFF:
        return None
    return ("u" if not pending else "") + f"{max(lo, 0xDC00):04x}"[len(digits):]


def _number_prefix(token: str) -> bool:
    """Whether `token` can still grow into an RFC 8259 number."""
    return _NUMBER_PREFIX.fullmatch(token) is not None
