"""Issue 31's compile-speed shortcuts, each against the slow path or oracle it replaces: a
shortcut that answers differently fails here, not silently in a grammar."""
from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import schemac
from schemac.emit import _validated
from schemac.emit.json_path import key_literal
from schemac.emit.lark import probe
from schemac.emit.lark.depth import _references_slow, references
from schemac.emit.lark.writer import Writer, _refs, lark_grammar, needs_lark
from schemac.regex.strings import canonical_string_terminal
from schemac.schema import iter_subschemas

# ---- depth.references: one regex for ASCII bodies, the character loop for the rest --------------

_PIECES = ['"', '\\', '/', '%json {"a": {"b": "%json x"}}', "%", "%json", " ", "|", "(", ")", "{2,3}", "0",
           "9x", "_", "a", "Zb_9", "KEY", "o1_2", "\n", "~", "&", '"q\\"/"', "/[a/]+/", "é"]


@settings(max_examples=3000, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=24))
def test_references_equals_the_character_loop(parts: list[str]) -> None:
    body = "".join(parts)
    try:
        slow = _references_slow(body)
    except ValueError:  # a `%json` the slow loop cannot decode: the fast path must not answer either
        with pytest.raises(ValueError):
            references(body)
        return
    assert references(body) == slow


def test_references_equals_the_character_loop_on_written_rules() -> None:
    schema = {"type": "object", "properties": {"a": {"type": "integer", "minimum": 3}, "b\"/%json": {"enum": [1.5, "x"]}},
              "required": ["b\"/%json", "a"], "patternProperties": {"^z": {"type": "string", "pattern": "^[a/]+$"}}}
    rules = json.loads(lark_grammar(schema))["grammars"][0]["lark_grammar"].splitlines()
    assert len(rules) > 5
    for rule in rules:
        body = rule.split(":", 1)[1] if ":" in rule else rule
        assert references(body) == _references_slow(body)


# ---- object_classes: canonical keys less finitely many listed keys are never empty -------------


@pytest.mark.parametrize("keys", [[], ["a"], ["", "a", "b\"c", "é", "\\u0061", "x" * 40], [f"k{i}" for i in range(60)]])
def test_canonical_keys_less_listed_keys_are_never_empty(keys: list[str]) -> None:
    """The class `extras` and `class_terminal` take as non-empty without a probe: llguidance's own
    emptiness probe (the oracle the shortcut replaces) agrees."""
    excluded = " | ".join(key_literal(k) for k in keys)
    body = canonical_string_terminal() + (f" & ~({excluded})" if keys else "")
    assert probe.terminal_admits(body, [])


def test_listed_keys_only_objects_need_no_terminal_probe(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    real = probe.terminal_admits
    monkeypatch.setattr(probe, "terminal_admits", lambda body, defs: calls.append(body) or real(body, defs))
    schema = {"type": "object", "properties": {"b": {"type": "string"}, "a": {"type": "integer"}}, "required": ["a", "b"]}
    schemac.compile(schema, use_cache=False)
    assert calls == []
    # a class that patterns cut may be empty: that one is still probed
    schemac.compile({"type": "object", "patternProperties": {"^a": {"type": "integer"}}, "additionalProperties": {"type": "string"},
                     "properties": {"b": {"type": "string"}}}, use_cache=False)
    assert calls


# ---- writer.needs: memoised bottom-up, equal to the walks it replaced ---------------------------

_SCHEMAS: list[Any] = [
    {"$defs": {"n": {"type": "number", "minimum": 1.5}, "s": {"type": "string"}, "r": {"$ref": "#/$defs/n"}},
     "anyOf": [{"$ref": "#/$defs/s"}, {"type": "array", "items": {"$ref": "#/$defs/r"}}, {"enum": [1, "a"]}],
     "properties": {"x": {"const": {"$ref": "#/$defs/n"}}}},
    {"type": "object", "additionalProperties": {"type": "array", "prefixItems": [{"type": "string"}, {"const": 2}]}},
    {"oneOf": [{"type": "integer"}, {"type": "string", "maxLength": 3}], "$defs": {"u": {"type": "object", "required": ["q"]}}},
]


@pytest.mark.parametrize("schema", _SCHEMAS)
@pytest.mark.parametrize("key_order", ["schema", "any"])
def test_writer_needs_equals_the_walks(schema: dict[str, Any], key_order: str) -> None:
    defs = schema.get("$defs", {})
    writer = Writer(defs, False, key_order=key_order)
    nodes: list[Any] = []
    stack: list[Any] = [schema, *defs.values()]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            nodes.append(node)
            stack.extend(sub for _, sub in iter_subschemas(node))
    for _ in range(2):  # asked again: the memo answers as the first walk did
        for node in nodes:
            expected = needs_lark(node, key_order) or any(writer.def_needs.get(r, False) for r in _refs(node))
            assert writer.needs(node) == expected


# ---- emit: one matcher stands for the grammar check and the parser probe ----------------------


def _lark(text: str) -> str:
    return json.dumps({"grammars": [{"lark_grammar": text}]})


@pytest.mark.parametrize("text", ['start: "a" | b\nb: /[0-9]+/\n', 'start: undefined_rule\n', 'start: /(?<=a)b/\n',
                                  'start: %json {"type": "string"}\n', 'start: %json {"type": "strin"}\n'])
def test_one_matcher_is_built_iff_the_check_passes(text: str) -> None:
    built, probed = probe.checked_parser_limit(_lark(text))
    assert built == (_validated(_lark(text)) is None)
    if built:
        assert probed == probe.parser_limit(_lark(text))


# ---- writer._schema_error: a `%json` document checked in llguidance's JSON form, not through Lark --


@pytest.mark.parametrize("doc", [
    {"type": "string"}, {"oneOf": [{"type": "string"}, {"type": "integer"}]},
    {"oneOf": [{"type": "string"}, {"type": "string", "minLength": 2}]}, {"type": "strin"},
    {"allOf": [{"type": "string"}, {"type": "integer"}]}, {"type": "string", "pattern": "(?<=a)"},
    {"$ref": "#/$defs/nope"}, {"type": "object", "properties": {"a": False}, "required": ["a"]},
    {"type": "string", "format": "foo"}, {"type": "integer", "minimum": 5, "maximum": 1},
    {"anyOf": [{"$ref": "#/$defs/a"}], "$defs": {"a": {"type": "array", "items": {"$ref": "#/$defs/a"}, "minItems": 1}}},
])
def test_schema_error_is_the_lark_forms_error(doc: dict[str, Any]) -> None:
    """The Lark form `start: %json doc` (what the writer used to check) is the oracle: the same
    verdict, and its message is the JSON form's behind a position prefix and an excerpt."""
    from schemac.emit.json_path import SYNTAX_POLICY
    from schemac.emit.lark.writer import _schema_error

    text = json.dumps({**doc, "x-guidance": SYNTAX_POLICY}, ensure_ascii=True)
    lark = _validated(_lark("start: %json " + text))
    mine = _schema_error(text)
    assert (mine is None) == (lark is None)
    if lark is not None:
        assert mine is not None and lark.split("\n   1 | start:")[0] == "at 1(8): failed to compile JSON schema: " + mine
