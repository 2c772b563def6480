"""How deep llguidance's Lark compiler recurses through a grammar schemac wrote.

llguidance compiles a rule at its first reference, depth first, on the native stack of the thread
that builds the matcher, so a long chain of rules (an object's listed-key sequence, a number's
residue automaton, values nested in values) overflows that stack: a segfault that takes the
serving process down, not an error. `compile_depth` replays that order over the rule text and the
writer rejects a grammar deeper than `MAX_RULE_DEPTH` before any engine loads it.
"""
from __future__ import annotations

import json
import re

from schemac.numbers.exact import MAX_RULE_DEPTH

__all__ = ["MAX_RULE_DEPTH", "compile_depth", "references"]

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_DECODER = json.JSONDecoder()


def _skip_quoted(body: str, i: int, close: str) -> int:
    """The index after the literal or regex opened at `i` (backslash escapes honoured)."""
    j = i + 1
    while j < len(body) and body[j] != close:
        j += 2 if body[j] == "\\" else 1
    return j + 1


#: one token of an ASCII rule body, in `_references_slow`'s order of tests: a literal or regex (to
#: its unescaped close, or the end), `%json`, a repetition count, a name (group 1), a run of
#: characters that start none of them
_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"?|/(?:[^/\\]|\\.)*/?|(%json)|[0-9][A-Za-z0-9]*|([A-Za-z_][A-Za-z0-9_]*)'
                    r'|[^"/%0-9A-Za-z_]+|%', re.S)
#: `_TOKEN` for a body without `%json` (`%` is then one more character that starts nothing)
_NAMES = re.compile(r'"(?:[^"\\]|\\.)*"?|/(?:[^/\\]|\\.)*/?|[0-9][A-Za-z0-9]*|([A-Za-z_][A-Za-z0-9_]*)'
                    r'|[^"/0-9A-Za-z_]+', re.S)


def references(body: str) -> list[str]:
    """The names a rule body refers to, in order of appearance (literals, regexes, `%json`
    documents and repetition counts skipped). ASCII bodies are tokenised by one regex (the
    writer's rules are ASCII outside their literals); others by `_references_slow`."""
    if not body.isascii():
        return _references_slow(body)
    if "%json" not in body:  # one C-speed pass: group 1 is the name, empty for every other token
        return [name for name in _NAMES.findall(body) if name]
    out: list[str] = []
    i = 0
    while True:
        for m in _TOKEN.finditer(body, i):
            if m.lastindex == 2:
                out.append(m.group(2))
            elif m.lastindex == 1:  # skip the document: scanning resumes after it
                _, i = _DECODER.raw_decode(body, body.index("{", m.start()))
                break
        else:
            return out


def _references_slow(body: str) -> list[str]:
    """`references`, character by character."""
    out: list[str] = []
    i = 0
    while i < len(body):
        ch = body[i]
        if ch in "\"/":
            i = _skip_quoted(body, i, ch)
        elif body.startswith("%json", i):
            start = body.index("{", i)
            _, end = _DECODER.raw_decode(body, start)
            i = end
        elif ch.isdigit():
            while i < len(body) and body[i].isalnum():
                i += 1
        else:
            m = _NAME.match(body, i)
            if m is None:
                i += 1
                continue
            out.append(m.group())
            i = m.end()
    return out


def compile_depth(start: str, rules: list[str]) -> int:
    """The deepest chain of first references from `start` (a rule body) through `rules` (lines
    `name: body`), counting the start rule as one level."""
    graph: dict[str, list[str]] = {}
    for line in rules:
        name, _, body = line.partition(":")
        graph[name.strip()] = references(body)
    seen: set[str] = set()
    stack = [iter(references(start))]
    deepest = 1
    while stack:
        for ref in stack[-1]:
            if ref in graph and ref not in seen:
                seen.add(ref)
                stack.append(iter(graph[ref]))
                deepest = max(deepest, len(stack))
                break
        else:
            stack.pop()
    return deepest
