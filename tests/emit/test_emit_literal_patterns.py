"""`^name$` patterns: one key each, a key class of its own in the Lark object writer.

Generated schemas (protobuf, OpenAPI) spell optional fields as `patternProperties: {"^name$": S}`,
often a dozen per object with as many schemas; split by the subsets of patterns they match, such
keys needed 2^n classes and were refused past `MAX_PATTERNS`. `regex.literal_of` recognises them
(checked here against node's ECMA-262 RegExp), and the writer gives each its one-key class with
the conj of every pattern matching it; objects are walked against jsonschema both ways.
"""
from __future__ import annotations

import json
from typing import Any

import pytest

import schemac
from testkit.ecma_oracle import node_available, node_verdicts, strings
from schemac.regex import literal_of
from tests.lower.test_lower_object_witness import INT, _walk

_ALPHABET = ["a", "x", ".", "-", "\\", "$", "\n"]
_PATTERNS = [r"^a$", r"^ax$", r"^a\.x$", r"^a.x$", r"^a-x$", r"^\$$", r"^a\\$", r"^$", r"^a", r"a$", r"^(a)$",
             r"^a|x$", r"^a$|^x$", r"^a*$", r"^[a]$", r"^a\n$", "^a\n$", r"^\^$"]


@pytest.mark.skipif(not node_available(), reason="node is the independent ECMA-262 oracle")
def test_literal_of_matches_exactly_its_string() -> None:
    """A pattern `literal_of` names matches that string and no other (node's RegExp, u flag, every
    string over the alphabet up to 3 characters); a pattern it declines is left to the classes."""
    words = strings(_ALPHABET, 3)
    verdicts = node_verdicts(_PATTERNS, _ALPHABET, 3)
    named = 0
    for p in _PATTERNS:
        key = literal_of(p)
        if key is None or verdicts[p] is None:
            continue
        named += 1
        assert [w for w, hit in zip(words, verdicts[p]) if hit] == ([key] if key in words else []), p
    assert named >= 8


def test_literal_of_declines_what_is_not_one_string() -> None:
    for p in (r"^a.x$", r"^a", r"a$", r"^(a)$", r"^a|x$", r"^a*$", r"^[a]$"):
        assert literal_of(p) is None, p


CASES = [
    # more distinct schemas than MAX_PATTERNS groups, all but one of them literal; `x` and `xa`
    # also match the general `^x`, whose schema they must meet too
    {"type": "object", "patternProperties": {"^a$": {"const": 0}, "^x$": {"minimum": 1}, "^xa$": {"type": ["integer", "string"]},
                                             "^z$": {"type": "string"}, "^x": INT}, "additionalProperties": False},
    # a literal key that is also listed; a literal key a general pattern also matches
    {"type": "object", "properties": {"a": INT}, "patternProperties": {"^a$": {"const": 1}, "^xa$": {"type": ["integer", "string"]},
                                                                       "a$": {"type": "string"}}},
    {"type": "object", "minProperties": 2, "maxProperties": 2,
     "patternProperties": {"^a$": INT, "^z$": {"const": "s"}, "^x": {"const": 0}}, "additionalProperties": False},
    # beside a universal class from allOf: `a` is the other side's additional key
    {"type": "object", "allOf": [{"patternProperties": {"^a$": INT, "^x$": {"const": 0}}, "additionalProperties": {"const": 1}},
                                 {"patternProperties": {"^x": {}}, "additionalProperties": {"const": 0}}]},
    # under a witness
    {"type": "object", "patternProperties": {"^a$": INT, "^z$": INT}, "not": {"patternProperties": {"^x$": INT}}},
]


@pytest.mark.parametrize("schema", CASES, ids=lambda s: json.dumps(s)[:70])
def test_literal_classes_are_exact(schema: dict[str, Any]) -> None:
    _walk(schema)


def test_many_literal_patterns_compile() -> None:
    """The MaskBench shape (`strmprivacy` objects): a dozen `^field$` patterns, distinct schemas."""
    patterns = {f"^field_{i}$": {"type": "integer", "minimum": i} for i in range(12)}
    art = schemac.compile({"type": "object", "patternProperties": patterns, "additionalProperties": False}, use_cache=False)
    assert art.grammar
