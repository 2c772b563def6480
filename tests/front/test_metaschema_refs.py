"""`$ref` into the official metaschemas resolves offline, each read in its own dialect.

The draft-04 to 2020-12 metaschemas ship with `jsonschema-specifications`; a reference into one
embeds it (and what it refers to) under `$defs`, translated as a user's document of its draft
would be (`upgrade_drafts`), or refused with `unsupported-dialect` without it. The oracle is
the final validator reading the schema as written: jsonschema resolves these references from
the same shipped documents, each with its own draft's semantics (draft-04's `integer` excludes
1.0, its `exclusiveMinimum` is a boolean). Any other remote reference stays `remote-ref`, and
nothing touches the network.
"""
from __future__ import annotations

import socket
from typing import Any

import pytest
from jsonschema import Draft4Validator

import schemac
from testkit.grammar_harness import accepts, text_of
from schemac.diagnostics import CompileError
from schemac.validate.final import FinalValidator
from schemac.validate.formats import _format_checker

D4, D6, D7 = (f"http://json-schema.org/draft-0{n}/schema#" for n in (4, 6, 7))
V2019, V2020 = (f"https://json-schema.org/draft/{d}/meta/validation#" for d in ("2019-09", "2020-12"))

#: (reference, whether its dialect needs the upgrade)
FRAGMENTS: list[tuple[str, bool]] = [
    (D4 + "/definitions/positiveInteger", True), (D4 + "/properties/type", True),
    (D4 + "/properties/minimum", True), (D4 + "/definitions/positiveIntegerDefault0", True),
    (D6 + "/definitions/nonNegativeInteger", True), (D6 + "/properties/type", True),
    (D7 + "/definitions/simpleTypes", True), (D7 + "/definitions/nonNegativeIntegerDefault0", True),
    (D7 + "/properties/type", True),
    (V2019 + "/$defs/simpleTypes", True), (V2019 + "/$defs/nonNegativeInteger", True),
    (V2019 + "/properties/type", True),
    (V2020 + "/$defs/simpleTypes", False), (V2020 + "/$defs/nonNegativeInteger", False),
    (V2020 + "/properties/type", False),
    (V2020 + "/properties/multipleOf", False),
]

#: instances about types, integers and type lists (duplicates, empty), in canonical spellings
INSTANCES: list[Any] = [
    None, True, 0, 1, 5, -1, 0.5, 2.5, "", "string", "integer", "int", [], ["string"], ["string", "null"],
    ["string", "string"], ["array", "boolean", "integer", "null", "number", "object", "string"], [1], {"a": 1},
]


def _schema(ref: str) -> dict[str, Any]:
    return {"type": "object", "properties": {"v": {"$ref": ref}}, "required": ["v"]}


@pytest.mark.parametrize("ref,old", FRAGMENTS, ids=[r.split("//")[1] for r, _ in FRAGMENTS])
def test_fragment_compiles_and_agrees_with_the_oracle(ref: str, old: bool) -> None:
    schema = _schema(ref)
    art = schemac.compile(schema, upgrade_drafts=True, use_cache=False)
    oracle = FinalValidator(schema)
    verdicts = [oracle.is_valid({"v": v}) for v in INSTANCES]
    assert True in verdicts and False in verdicts, ref  # the instances tell the fragment apart
    wrong = [v for v, ok in zip(INSTANCES, verdicts) if accepts(art.grammar, text_of({"v": v})) != ok]
    assert wrong == [], ref
    # 1.0 is no integer in draft-04: the translation keeps that, and the grammar (which may
    # refuse the spelling) never admits it where the oracle does not
    assert FinalValidator(art.schema).is_valid({"v": 1.0}) == oracle.is_valid({"v": 1.0}), ref
    assert not accepts(art.grammar, '{"v": 1.0}') or oracle.is_valid({"v": 1.0}), ref


@pytest.mark.parametrize("ref,old", FRAGMENTS, ids=[r.split("//")[1] for r, _ in FRAGMENTS])
def test_old_dialect_needs_the_upgrade(ref: str, old: bool) -> None:
    """Without `upgrade_drafts` an old draft's metaschema is refused where it is referred to,
    as an old draft's user schema is; a 2020-12 one compiles either way."""
    schema = _schema(ref)
    if not old:
        schemac.compile(schema, use_cache=False)
        return
    with pytest.raises(CompileError) as err:
        schemac.compile(schema, use_cache=False)
    assert err.value.codes == ["unsupported-dialect"]
    assert err.value.diagnostics[0].pointer == "/properties/v/$ref"


def test_draft04_user_schema_referring_to_its_metaschema() -> None:
    """JsonSchemaStore's swagger-2.0 shape: a draft-04 document referring to draft-04's `type`."""
    schema = {"$schema": D4, "type": "object", "additionalProperties": False,
              "properties": {"type": {"$ref": D4 + "/properties/type"}, "min": {"$ref": D4 + "/properties/minimum"},
                             "n": {"$ref": D4 + "/definitions/positiveInteger"}}}
    art = schemac.compile(schema, upgrade_drafts=True, use_cache=False)
    oracle = Draft4Validator(schema, format_checker=_format_checker())  # the final validator reads 2020-12 only
    for value in [{}, {"type": "string"}, {"type": ["null", "null"]}, {"type": "x"}, {"n": 0}, {"n": -1}, {"min": 2.5},
                  {"min": "1"}, {"other": 1}, {"type": []}]:
        assert accepts(art.grammar, text_of(value)) == oracle.is_valid(value), value


def test_references_inside_the_metaschema_follow_it() -> None:
    """2020-12's `meta/applicator` refers to the other vocabularies through `$dynamicRef`;
    2019-09's top schema to its vocabularies by relative URI: all of them come in, offline."""
    for ref in ("https://json-schema.org/draft/2019-09/schema", "https://json-schema.org/draft/2020-12/schema"):
        try:
            schemac.compile(_schema(ref), upgrade_drafts=True, use_cache=False)
        except CompileError as exc:  # the whole metaschema meets other limits, never a remote one
            assert "remote-ref" not in exc.codes and "unresolvable-ref" not in exc.codes, exc


def test_a_document_of_its_own_under_that_uri_wins() -> None:
    """A resource the document declares with a metaschema's URI is that URI's meaning here."""
    own = {"$id": "http://json-schema.org/draft-07/schema", "$defs": {"simpleTypes": {"const": "mine"}}}
    schema = {"$defs": {"own": own}, **_schema("http://json-schema.org/draft-07/schema#/$defs/simpleTypes")}
    art = schemac.compile(schema, use_cache=False)
    assert accepts(art.grammar, '{"v": "mine"}') and not accepts(art.grammar, '{"v": "string"}')


def test_unreached_reference_needs_nothing() -> None:
    """Like any unresolvable reference, one into an old draft's metaschema counts only where it
    is reached: an unused definition holding it compiles without the upgrade."""
    schema = {"$defs": {"unused": {"$ref": D4 + "/properties/type"}}, "type": "integer"}
    assert accepts(schemac.compile(schema, use_cache=False).grammar, "3")


def test_embedding_keeps_a_users_definition_of_the_same_name() -> None:
    key = "schemac:metaschema:http://json-schema.org/draft-07/schema"
    schema = {"$defs": {key: {"const": "mine"}}, "properties": {"own": {"$ref": "#/$defs/" + key.replace("/", "~1")},
                                                               "v": {"$ref": D7 + "/definitions/simpleTypes"}}}
    art = schemac.compile(schema, upgrade_drafts=True, use_cache=False)
    assert accepts(art.grammar, '{"own": "mine", "v": "null"}') and not accepts(art.grammar, '{"own": "null"}')


def test_dynamic_reference_into_a_metaschema_stays_remote() -> None:
    """A static copy would lose a `$dynamicRef`'s scope: refused, never approximated."""
    with pytest.raises(CompileError) as err:
        schemac.compile({"$dynamicRef": "https://json-schema.org/draft/2020-12/schema#meta"}, use_cache=False)
    assert err.value.codes == ["remote-ref"]


@pytest.mark.parametrize("ref", [
    "https://example.com/s.json", "http://json-schema.org/draft-03/schema#/properties/type",
    "http://json-schema.org/draft-07/links#", "https://json-schema.org/draft/2020-12/meta/nope",
])
def test_other_remote_references_stay_refused(ref: str) -> None:
    with pytest.raises(CompileError) as err:
        schemac.compile(_schema(ref), upgrade_drafts=True, use_cache=False)
    assert err.value.codes == ["remote-ref"]


def test_nothing_touches_the_network(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("network access")

    monkeypatch.setattr(socket, "socket", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    art = schemac.compile(_schema(D7 + "/definitions/simpleTypes"), upgrade_drafts=True, use_cache=False)
    assert accepts(art.grammar, '{"v": "null"}') and not accepts(art.grammar, '{"v": "nil"}')


# ---- names an embedded metaschema brings never meet the user's --------------------------------

D2019 = "https://json-schema.org/draft/2019-09/"
#: a 2019-09 location whose `$recursiveRef: "#"` (the translated `$dynamicRef`) means the core root
CORE_DEFS = D2019 + "meta/core#/properties/$defs"
RESERVED = "https://schemac.invalid/metaschema"


@pytest.mark.parametrize("anchor", ["meta", "meta-2", "meta-3"])
def test_user_dynamic_anchor_does_not_capture_an_old_drafts_recursion(anchor: str) -> None:
    """2019-09's `$recursiveRef` stops at a resource without `$recursiveAnchor` (the user's root):
    whatever `$dynamicAnchor` the user's root declares, the translated recursion stays in the
    metaschema, so `{"a": 1}` (1 is no schema) is refused although the user's root admits 1."""
    import jsonschema

    core = {"anyOf": [{"type": "integer"}, {"$ref": CORE_DEFS}]}
    truth = jsonschema.Draft201909Validator({"$schema": D2019 + "schema", **core})
    schema = {"$dynamicAnchor": anchor, "$defs": {"other": {"$dynamicAnchor": anchor + "-2"}}, **core}
    art = schemac.compile(schema, upgrade_drafts=True, use_cache=False)
    values = [1, {}, {"a": 1}, {"a": {}}, {"a": True}, {"a": {"$defs": {"b": 1}}}, {"a": {"$defs": {"b": {}}}}, []]
    verdicts = [truth.is_valid(v) for v in values]
    assert not truth.is_valid({"a": 1}) and truth.is_valid({"a": {}})  # the 2019-09 meaning
    assert [v for v, ok in zip(values, verdicts) if accepts(art.grammar, text_of(v)) != ok] == []


@pytest.mark.parametrize("ref", [
    RESERVED + "/https/json-schema.org/draft/2020-12/meta/validation#/$defs/ref0",
    RESERVED + "/https/json-schema.org/draft/2020-12/meta/validation#/$defs/simpleTypes",
    RESERVED + "/wrapper/https/json-schema.org/draft/2020-12/meta/validation#/$defs/ref0",
    RESERVED + "-2/https/json-schema.org/draft/2020-12/meta/validation#/$defs/simpleTypes",
])
def test_the_reserved_base_is_not_user_addressable(ref: str) -> None:
    """A user `$ref` under the base embedded metaschemas live at is remote, as without them."""
    for schema in ({"$ref": ref}, {"allOf": [{"$ref": V2020 + "/$defs/simpleTypes"}, {"$ref": ref}]},
                   {"$id": RESERVED + "/", "allOf": [{"$ref": V2020 + "/$defs/simpleTypes"},
                                                      {"$ref": ref[len(RESERVED) + 1:]}]}):
        with pytest.raises(CompileError) as err:
            schemac.compile(schema, use_cache=False)
        assert err.value.codes == ["remote-ref"], schema


@pytest.mark.parametrize("uri", [
    RESERVED + "/https/json-schema.org/draft/2020-12/meta/validation",
    RESERVED + "/wrapper/https/json-schema.org/draft/2020-12/meta/validation",
])
def test_a_users_resource_at_the_reserved_base_is_the_users(uri: str) -> None:
    """The user's `$id`, `$anchor` and `$defs` at that base mean the user's, and the metaschema
    its own: neither is ambiguous nor captures the other."""
    own = {"$id": uri, "$defs": {"simpleTypes": {"const": "mine"}, "ref0": {"const": "zero"},
                                 "meta": {"$anchor": "a", "const": "anchored"}}}
    schema = {"$defs": {"own": own}, "type": "object", "properties": {
        "v": {"$ref": V2020 + "/$defs/simpleTypes"}, "d": {"$ref": uri + "#/$defs/simpleTypes"},
        "r": {"$ref": uri + "#/$defs/ref0"}, "a": {"$ref": uri + "#a"}}}
    art = schemac.compile(schema, use_cache=False)
    oracle = FinalValidator(schema)
    values = [{"v": "null"}, {"v": "mine"}, {"d": "mine"}, {"d": "null"}, {"r": "zero"}, {"r": "null"},
              {"a": "anchored"}, {"a": "null"}, {"v": "string", "d": "mine", "r": "zero", "a": "anchored"}]
    verdicts = [oracle.is_valid(v) for v in values]
    assert True in verdicts and False in verdicts
    assert [v for v, ok in zip(values, verdicts) if accepts(art.grammar, text_of(v)) != ok] == []


def test_a_user_pointer_never_reaches_an_embedded_metaschema() -> None:
    """The wrapper's `$defs` key is schemac's: a user JSON Pointer to it finds nothing, as
    it would without the embedding (and as jsonschema finds nothing there)."""
    key = ("schemac:metaschema:" + V2020.rstrip("#")).replace("~", "~0").replace("/", "~1")
    for tail in ("", "/$defs/ref0", "/$defs/meta/$defs/simpleTypes"):
        pointer = "#/$defs/" + key + tail
        for schema in ({"$ref": pointer}, {"anyOf": [{"$ref": V2020 + "/$defs/simpleTypes"}, {"$ref": pointer}]}):
            with pytest.raises(CompileError) as err:
                schemac.compile(schema, use_cache=False)
            assert err.value.codes == ["unresolvable-ref"], schema
