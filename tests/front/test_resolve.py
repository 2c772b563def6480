"""Offline reference resolution into Bundles: suite agreement, rewriting, limits, diagnostics."""
from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest

from schemac.budget import Budget, Limits
from schemac.diagnostics import CompileError
from schemac.front.resolve.bundle import resolve
from schemac.schema import DEF_PREFIX, iter_subschemas
from schemac.validate.final import FinalValidator

SUITE = Path(__file__).resolve().parents[2] / "testdata" / "suite"
REF_FILES = ("ref.json", "refRemote.json", "anchor.json", "defs.json", "dynamicRef.json", "id.json",
             "infinite-loop-detection.json", "unevaluatedProperties.json")
REMOTE_MARKERS = ("localhost:1234", "json-schema.org/draft/2020-12/schema")
#: groups whose $dynamicRef target really depends on the dynamic scope: resolved by specialising
DYNAMIC = {
    "A $dynamicRef resolves to the first $dynamicAnchor still in scope that is encountered when the schema is evaluated",
    "A $dynamicRef with intermediate scopes that don't include a matching $dynamicAnchor does not affect dynamic scope resolution",
    "A $dynamicRef that initially resolves to a schema with a matching $dynamicAnchor resolves to the first $dynamicAnchor in the dynamic scope",
    "multiple dynamic paths to the $dynamicRef keyword",
    "after leaving a dynamic scope, it is not used by a $dynamicRef",
    "$dynamicRef skips over intermediate resources - direct reference",
    "$dynamicRef avoids the root of each schema, but scopes are still registered",
    "unevaluatedProperties with $dynamicRef",
}


def _codes(schema, budget: Budget | None = None) -> list[str]:
    with pytest.raises(CompileError) as info:
        resolve(schema, budget or Budget())
    return info.value.codes


def _all_refs(bundle) -> list[str]:
    out, stack = [], [bundle.root, *bundle.defs.values()]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            assert not {"$id", "$anchor", "$dynamicAnchor", "$schema", "$defs", "definitions", "$dynamicRef"} & set(node)
            if "$ref" in node:
                out.append(node["$ref"])
            stack.extend(sub for _, sub in iter_subschemas(node))
    return out


def test_suite_refs() -> None:
    resolved = rejected = dynamic = 0
    for name in REF_FILES:
        for group in json.loads((SUITE / name).read_text()):
            text = json.dumps(group["schema"])
            try:
                bundle = resolve(group["schema"], Budget())
            except CompileError as exc:
                assert exc.codes == ["remote-ref"], (name, group["description"])
                assert any(m in text for m in REMOTE_MARKERS) and group["description"] not in DYNAMIC
                rejected += 1
                continue
            dynamic += group["description"] in DYNAMIC
            for ref in _all_refs(bundle):
                assert ref.startswith(DEF_PREFIX) and ref[len(DEF_PREFIX):] in bundle.defs
            validator = FinalValidator(bundle.as_schema())
            for test in group["tests"]:
                assert validator.is_valid(test["data"]) is test["valid"], (name, group["description"], test["description"])
            resolved += 1
    assert resolved > 80 and rejected < 40 and dynamic == len(DYNAMIC)


def test_never_opens_a_socket(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args, **kwargs):
        raise AssertionError("a socket was opened")

    monkeypatch.setattr(socket, "socket", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    bundle = resolve({"$defs": {"a": {"type": "integer"}}, "items": {"$ref": "#/$defs/a"}}, Budget())
    assert bundle.root == {"items": {"$ref": "#/$defs/a"}}
    for ref in ["http://localhost:1234/x.json", "other.json#/a", "http://json-schema.org/draft-03/schema#"]:
        assert _codes({"properties": {"p": {"$ref": ref}}}) == ["remote-ref"]


def test_pointer_escapes_and_percent_encoding() -> None:
    schema = {
        "$defs": {"a/b": {"type": "integer"}, "t~d": {"type": "string"}, "sp ace%": {"type": "null"}},
        "properties": {
            "x": {"$ref": "#/$defs/a~1b"},
            "y": {"$ref": "#/$defs/t~0d"},
            "z": {"$ref": "#/$defs/sp%20ace%25"},
        },
    }
    bundle = resolve(schema, Budget())
    assert bundle.origin == {"a_b": "/$defs/a~1b", "sp_ace_": "/$defs/sp ace%", "t_d": "/$defs/t~0d"}
    assert bundle.defs["a_b"] == {"type": "integer"}
    validator = FinalValidator(bundle.as_schema())
    assert validator.is_valid({"x": 1, "y": "s", "z": None}) and not validator.is_valid({"z": 1})


def test_anchor_ids_and_arbitrary_locations() -> None:
    schema = {
        "$id": "https://example.com/root.json",
        "$defs": {
            "node": {"$id": "nested/node.json", "$anchor": "here", "type": "object",
                     "properties": {"up": {"$ref": "../root.json"}, "me": {"$ref": "#here"}}},
        },
        "properties": {
            "a": {"type": "string", "minLength": 2},
            "b": {"$ref": "#/properties/a", "maxLength": 3},
            "n": {"$ref": "https://example.com/nested/node.json#here"},
            "m": {"$ref": "nested/node.json"},
        },
    }
    bundle = resolve(schema, Budget())
    assert bundle.root == {"$ref": "#/$defs/root"}
    assert bundle.origin == {"node": "/$defs/node", "properties.a": "/properties/a", "root": ""}
    assert bundle.defs["root"]["properties"]["b"] == {"$ref": "#/$defs/properties.a", "maxLength": 3}
    assert bundle.defs["root"]["properties"]["a"] == {"$ref": "#/$defs/properties.a"}
    validator = FinalValidator(bundle.as_schema())
    assert validator.is_valid({"b": "abc", "n": {"up": {"a": "xy"}}})
    assert not validator.is_valid({"b": "abcd"}) and not validator.is_valid({"n": {"up": {"a": "x"}}})


def test_literal_values_are_data() -> None:
    schema = {"$defs": {"s": {"type": "string"}}, "enum": [{"$ref": "#/$defs/s"}], "const": {"$ref": "#/nope"}}
    bundle = resolve(schema, Budget())
    assert bundle.root == {"enum": [{"$ref": "#/$defs/s"}], "const": {"$ref": "#/nope"}} and bundle.defs == {}


def test_ref_into_a_const_value_reads_it_as_a_schema() -> None:
    schema = {"$defs": {"c": {"const": {"type": "string"}}}, "properties": {"p": {"$ref": "#/$defs/c/const"}}}
    bundle = resolve(schema, Budget())
    assert bundle.defs == {"c.const": {"type": "string"}} and bundle.origin["c.const"] == "/$defs/c/const"
    assert _codes({"$defs": {"c": {"const": 3}}, "$ref": "#/$defs/c/const"}) == ["unresolvable-ref"]


def test_recursion_stays_recursive() -> None:
    tree = {"type": "object", "properties": {"children": {"type": "array", "items": {"$ref": "#"}}}}
    bundle = resolve(tree, Budget())
    assert bundle.root == {"$ref": "#/$defs/root"}
    assert bundle.defs["root"]["properties"]["children"]["items"] == {"$ref": "#/$defs/root"}
    validator = FinalValidator(bundle.as_schema())
    assert validator.is_valid({"children": [{"children": []}]}) and not validator.is_valid({"children": [1]})


@pytest.mark.parametrize(
    "schema",
    [
        {"$ref": "#"},
        {"$defs": {"a": {"$ref": "#/$defs/a"}}, "properties": {"x": {"$ref": "#/$defs/a"}}},
        {"$defs": {"a": {"anyOf": [{"type": "null"}, {"$ref": "#/$defs/b"}]}, "b": {"not": {"$ref": "#/$defs/a"}}},
         "items": {"$ref": "#/$defs/a"}},
    ],
)
def test_ref_cycle_without_progress(schema) -> None:
    with pytest.raises(CompileError) as info:
        resolve(schema, Budget())
    assert info.value.codes == ["unresolvable-ref"] and "cycle without progress" in str(info.value)


def test_unresolvable_and_unused() -> None:
    assert _codes({"$ref": "#/$defs/missing"}) == ["unresolvable-ref"]
    assert _codes({"$ref": "#nowhere"}) == ["unresolvable-ref"]
    assert _codes({"items": [1], "$ref": "#/items/1"}) == ["unresolvable-ref"]
    # a broken ref in a definition nothing uses never runs, so it is not an error
    assert resolve({"$defs": {"x": {"$ref": "#/missing"}}, "type": "null"}, Budget()).defs == {}


def test_dynamic_ref() -> None:
    static = {"$dynamicAnchor": "node", "type": "object",
              "properties": {"next": {"$dynamicRef": "#node"}, "p": {"$dynamicRef": "#/$defs/x"}},
              "$defs": {"x": {"type": "integer"}}}
    bundle = resolve(static, Budget())
    assert bundle.defs["root"]["properties"] == {"next": {"$ref": "#/$defs/root"}, "p": {"$ref": "#/$defs/x"}}
    dynamic = {"$id": "https://e.com/a", "$dynamicAnchor": "n", "type": "array", "$defs": {
        "b": {"$id": "b", "$dynamicAnchor": "n", "items": {"$dynamicRef": "#n"}}}, "$ref": "b"}
    bundle = resolve(dynamic, Budget())  # the outermost anchor (the root) wins: arrays all the way down
    assert bundle.defs["b-a"] == {"items": {"$ref": "#/$defs/root"}}
    validator = FinalValidator(bundle.as_schema())
    assert validator.is_valid([[[]]]) and not validator.is_valid([[1]])
    both = {"$defs": {"a": {"type": "integer"}, "b": {"minimum": 1}}, "$ref": "#/$defs/a", "$dynamicRef": "#/$defs/b"}
    bundle = resolve(both, Budget())
    assert bundle.root == {"$ref": "#/$defs/a", "allOf": [{"$ref": "#/$defs/b"}]}


def test_names_are_deterministic_and_unique() -> None:
    schema = {"$defs": {"a.b": {"type": "null"}, "a": {"$defs": {"b": {"type": "string"}}}},
              "anyOf": [{"$ref": "#/$defs/a.b"}, {"$ref": "#/$defs/a/$defs/b"}]}
    first, second = resolve(schema, Budget()), resolve(schema, Budget())
    assert first == second and sorted(first.defs) == ["a.b", "a.b-2"]
    assert sorted(first.origin.values()) == ["/$defs/a.b", "/$defs/a/$defs/b"]


def test_fan_out_stays_linear() -> None:
    defs = {"d0": {"type": "integer"}}
    for i in range(1, 60):
        defs[f"d{i}"] = {"type": "array", "prefixItems": [{"$ref": f"#/$defs/d{i - 1}"}] * 2}
    bundle = resolve({"$defs": defs, "$ref": "#/$defs/d59"}, Budget())
    assert len(bundle.defs) == 60 and len(json.dumps(bundle.as_schema())) < 10_000


def test_fast_path_and_stripping() -> None:
    plain = {"type": "object", "properties": {"a": {"const": {"$id": "kept"}}}}
    assert resolve(plain, Budget()).root is plain
    stripped = resolve({"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": "https://e.com/s",
                        "$defs": {"unused": {}}, "$comment": "kept", "type": "null"}, Budget())
    assert stripped.root == {"$comment": "kept", "type": "null"} and stripped.defs == {}
    assert resolve(True, Budget()).root is True


def test_limits() -> None:
    deep: dict = {"type": "null"}
    for _ in range(20_000):
        deep = {"items": deep, "$ref": "#/$defs/x"}
    assert _codes(deep) == ["too-large"]
    wide = {"$ref": "#/$defs/a", "$defs": {f"k{i}": {} for i in range(500)}}
    assert _codes(wide, Budget(Limits(max_nodes=100))) == ["too-large"]
    assert _codes({"$ref": "#/$defs/a", "$defs": {"a": {}}}, Budget(Limits(steps=0))) == ["too-large"]


def test_invalid_identifiers() -> None:
    assert _codes({"$defs": {"a": {"$id": "x#frag"}}, "$ref": "#/$defs/a"}) == ["invalid-schema"]
    assert _codes({"$ref": 3}) == ["invalid-schema"]


GENERIC = {
    "$id": "https://e.test/main",
    "properties": {"n": {"$ref": "numbers"}, "s": {"$ref": "strings"}, "d": {"$ref": "generic"}},
    "$defs": {
        "generic": {"$id": "generic", "items": {"$dynamicRef": "#t"}, "$defs": {"default": {"$dynamicAnchor": "t"}}},
        "numbers": {"$id": "numbers", "$ref": "generic", "$defs": {"t": {"$dynamicAnchor": "t", "type": "number"}}},
        "strings": {"$id": "strings", "$ref": "generic", "$defs": {"t": {"$dynamicAnchor": "t", "type": "string"}}},
        "unused": {"$id": "unused", "minimum": 0},
    },
}


def test_dynamic_scope_specialises_one_copy_per_scope() -> None:
    bundle = resolve(GENERIC, Budget())
    generic = {name: body for name, body in bundle.defs.items() if name.startswith("generic")}
    assert bundle.root == {"properties": {"n": {"$ref": "#/$defs/numbers"}, "s": {"$ref": "#/$defs/strings"},
                                          "d": {"$ref": "#/$defs/generic"}}}
    assert sorted(generic) == ["generic", "generic-numbers", "generic-strings", "generic.default"]
    assert {bundle.origin[name] for name in generic} == {"/$defs/generic", "/$defs/generic/$defs/default"}
    assert generic["generic-numbers"] == {"items": {"$ref": "#/$defs/numbers.t"}}
    assert generic["generic"] == {"items": {"$ref": "#/$defs/generic.default"}}
    validator = FinalValidator(bundle.as_schema())
    original = FinalValidator(GENERIC)
    for data in ({"n": [1, 2.5]}, {"n": ["x"]}, {"s": ["x"]}, {"s": [1]}, {"d": [1, "x", None]}):
        assert validator.is_valid(data) is original.is_valid(data), data
    # definitions that reach no dynamic reference are not copied
    assert [n for n in bundle.defs if n.startswith("numbers")] == ["numbers", "numbers.t"]


def test_dynamic_copies_are_charged() -> None:
    assert _codes(GENERIC, Budget(Limits(entries=1))) == ["budget-exhausted"]
    resolve(GENERIC, Budget(Limits(entries=2)))  # two extra copies of `generic`, none of the rest


def test_duplicate_id_is_ambiguous_only_when_referenced() -> None:
    """Two `$id`s naming one URI (common in generated schemas) only matter to a reference that
    resolves against that URI: unreferenced they compile, referenced they are rejected."""
    import schemac

    twin = {"$id": "https://example.com/twin", "type": "string"}
    art = schemac.compile({"properties": {"a": twin, "b": {**twin, "maxLength": 2}}}, use_cache=False)
    from testkit.grammar_harness import accepts
    assert accepts(art.grammar, '{"a": "long", "b": "ab"}') and not accepts(art.grammar, '{"b": "abc"}')
    schema = {"properties": {"a": twin, "b": twin, "c": {"$ref": "https://example.com/twin"}}}
    with pytest.raises(CompileError) as err:
        schemac.compile(schema, use_cache=False)
    assert err.value.codes == ["invalid-schema"] and "ambiguous" in str(err.value)


@pytest.mark.parametrize("index", ["\u0661", "\u0663", "\uff11", "01", "00", "1 ", "+1"])
def test_array_indices_are_ascii_digits_without_leading_zero(index: str) -> None:
    """RFC 6901 array indices: `0` or ASCII digits not starting with `0`. `str.isdigit` takes
    other scripts' digits (`int("\u0663")` is 3), so an index spelled with them is no member: the
    reference is unresolvable, as jsonschema's `referencing` says, and no diagnostic points there."""
    from schemac.schema import pointer_child, pointer_exists

    doc = {"prefixItems": [{"type": "string"}, {"type": "integer"}, {"type": "null"}, {"const": 3}]}
    assert _codes({**doc, "items": {"$ref": f"#/prefixItems/{index}"}}) == ["unresolvable-ref"]
    assert not pointer_exists(doc, f"/prefixItems/{index}")
    assert pointer_child(doc["prefixItems"], index) == (False, None)
    assert pointer_child(doc["prefixItems"], "3") == (True, {"const": 3})
