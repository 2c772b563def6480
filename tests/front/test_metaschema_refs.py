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
import json

import pytest
from jsonschema import Draft4Validator

import schemac
from testkit.grammar_harness import accepts, text_of
from schemac.diagnostics import CompileError
from schemac.validate.final import FinalValidator
from schemac.validate.formats import format_checker
from testkit.exactness import check, compiles_or_refused, dumps
from testkit.grammar_harness import valid_text

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
    oracle = Draft4Validator(schema, format_checker=format_checker())  # the final validator reads 2020-12 only
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


# ---- attacks on metaschema refs: every fragment kind, both ways, old dialects, name clashes (attack round 11)

M2020 = "https://json-schema.org/draft/2020-12/"


VALIDATION = M2020 + "meta/validation"


APPLICATOR = M2020 + "meta/applicator"


D07 = "http://json-schema.org/draft-07/schema"


D06 = "http://json-schema.org/draft-06/schema"


D04 = "http://json-schema.org/draft-04/schema"


D19_APPLICATOR = "https://json-schema.org/draft/2019-09/meta/applicator"


D19_VALIDATION = "https://json-schema.org/draft/2019-09/meta/validation"


TYPE_NAMES = dumps(["string", "integer", "x", "", "null"]) + ["1", "null", "[]"]


INTEGERS = ["0", "1", "-1", "1.0", "1.5", "1e2", "-0", "10", '"1"', "null"]


INTEGER_SPELLINGS = {"1.0", "1e2", "-0"}  # `type: integer` admits `-?(0|[1-9][0-9]*)` only


@pytest.mark.parametrize("ref,upgrade", [
    (VALIDATION + "#/$defs/simpleTypes", False), (VALIDATION + "#/%24defs/simpleTypes", False),
    (D07 + "#/definitions/simpleTypes", True), (D06 + "#/definitions/simpleTypes", True),
    (D04 + "#/definitions/simpleTypes", True), (D19_VALIDATION + "#/$defs/simpleTypes", True),
])
def test_metaschema_simple_types(ref: str, upgrade: bool) -> None:
    check({"$ref": ref}, TYPE_NAMES, upgrade_drafts=upgrade)
    check({"not": {"$ref": ref}}, TYPE_NAMES, upgrade_drafts=upgrade)
    check({"oneOf": [{"$ref": ref}, {"enum": ["x", "string"]}]}, TYPE_NAMES, upgrade_drafts=upgrade)


@pytest.mark.parametrize("ref,upgrade", [
    (VALIDATION + "#/$defs/nonNegativeInteger", False), (VALIDATION + "#/$defs/nonNegativeIntegerDefault0", False),
    (D07 + "#/definitions/nonNegativeInteger", True), (D07 + "#/definitions/nonNegativeIntegerDefault0", True),
    (D06 + "#/definitions/nonNegativeIntegerDefault0", True), (D04 + "#/definitions/positiveInteger", True),
    (D04 + "#/definitions/positiveIntegerDefault0", True), (VALIDATION + "#/properties/maxLength", False),
    (VALIDATION + "#/properties/minimum", False), (VALIDATION + "#/properties/multipleOf", False),
    (D04 + "#/properties/multipleOf", True), (D04 + "#/properties/exclusiveMinimum", True),
])
def test_metaschema_numbers(ref: str, upgrade: bool) -> None:
    for schema in ({"$ref": ref}, {"not": {"$ref": ref}}):
        check(schema, INTEGERS + ["0.5", "true"], refusable=INTEGER_SPELLINGS, upgrade_drafts=upgrade, oracle=_dialect_oracle(schema, ref))


def _dialect_oracle(schema: Any, ref: str) -> Any:
    """jsonschema keeps the validator of the referring document for a fragment of another
    dialect's metaschema (no `$schema` in the fragment): draft-04's boolean `exclusiveMinimum`
    would be compared as a number. The truth for an old draft's fragment is that draft's
    validator, which reads `$ref` the same way here (the schema holds nothing else that differs)."""
    import decimal

    import jsonschema

    for dialect, cls in ((D04, jsonschema.Draft4Validator), (D06, jsonschema.Draft6Validator), (D07, jsonschema.Draft7Validator)):
        if ref.startswith(dialect):
            validator = cls({"$schema": dialect + "#", **schema})
            return lambda text: validator.is_valid(json.loads(text, parse_float=decimal.Decimal))
    return None


def test_metaschema_old_draft_without_upgrade_is_refused() -> None:
    for ref in (D07 + "#/definitions/simpleTypes", D04 + "#/definitions/positiveInteger", D19_VALIDATION + "#/$defs/simpleTypes"):
        with pytest.raises(CompileError) as info:
            schemac.compile({"$ref": ref}, use_cache=False)
        assert info.value.codes == ["unsupported-dialect"], info.value
        with pytest.raises(CompileError):  # also when reached only through the user's own $defs
            schemac.compile({"$defs": {"a": {"$ref": ref}}, "$ref": "#/$defs/a"}, use_cache=False)


@pytest.mark.parametrize("ref", [VALIDATION + "#/$defs/nope", VALIDATION + "#nope", D07 + "#/definitions/nope",
                                 VALIDATION + "#/$defs/simpleTypes/enum", M2020 + "schema#/$defs/nonNegativeInteger",
                                 M2020 + "meta/nope#/$defs/x", "http://json-schema.org/draft-03/schema#",
                                 "https://json-schema.org/draft/2020-12/hyper-schema"])
def test_metaschema_missing_fragments_refused(ref: str) -> None:
    with pytest.raises(CompileError):
        schemac.compile({"$ref": ref}, use_cache=False, upgrade_drafts=True)


def test_metaschema_dynamic_ref_is_not_embedded() -> None:
    with pytest.raises(CompileError) as info:
        schemac.compile({"$dynamicRef": APPLICATOR + "#meta"}, use_cache=False)
    assert info.value.codes == ["remote-ref"]


def test_metaschema_small_vocabularies() -> None:
    check({"$ref": M2020 + "meta/meta-data"},
           ["{}", '{"title": "a"}', '{"title": 1}', '{"deprecated": true}', '{"deprecated": 1}', '{"examples": 1}',
            '{"examples": []}', "1", '{"x": 1}', '{"readOnly": false, "writeOnly": "a"}'])
    check({"$ref": M2020 + "meta/content"},
           ["{}", '{"contentMediaType": "a"}', '{"contentMediaType": 1}', '{"contentSchema": 1}', '{"contentSchema": {}}'])
    check({"$ref": M2020 + "meta/format-annotation"}, ["{}", '{"format": "a"}', '{"format": 1}', "true"])
    check({"$ref": M2020 + "meta/core#/$defs/anchorString"}, dumps(["a", "1", "a-b", "", "a b", "_", "a.b:c"]) + ["1"])
    check({"$ref": M2020 + "meta/core#/$defs/uriString"}, dumps(["a:b", "a", "a b"]) + ["1"])
    check({"$ref": M2020 + "meta/core#/$defs/uriReferenceString"}, dumps(["a:b", "a", "a b", ""]) + ["1"])


def test_metaschema_dynamic_anchor_of_the_user_root() -> None:
    """2020-12: the schemaArray's `$dynamicRef: "#meta"` lands on the user's root (outermost
    `$dynamicAnchor: meta` in the dynamic scope). `$id` on the root: jsonschema's dynamic scope
    leaves out a root without one."""
    schema = {"$id": "urn:user", "$dynamicAnchor": "meta",
              "anyOf": [{"type": "integer"}, {"$ref": APPLICATOR + "#/$defs/schemaArray"}]}
    check(schema, ["1", "[]", "[1]", "[[1]]", "[1, [2]]", '["a"]', "[{}]", '"a"', "[[]]"])


def test_metaschema_2019_recursive_ref_captured_by_user_dynamic_anchor() -> None:
    """A user's `$dynamicAnchor: meta` must not capture the translated 2019-09 recursion: an exact
    grammar, or (the whole applicator reached) a typed refusal."""
    import jsonschema

    core = {"anyOf": [{"type": "integer"}, {"$ref": D19_APPLICATOR + "#/$defs/schemaArray"}]}
    truth = jsonschema.Draft201909Validator({"$schema": "https://json-schema.org/draft/2019-09/schema", **core})
    assert not truth.is_valid([1]) and truth.is_valid([{}])  # the 2019-09 meaning
    schema = {"$dynamicAnchor": "meta", **core}
    try:
        art = schemac.compile(schema, use_cache=False, upgrade_drafts=True)
    except CompileError as exc:  # the whole 2019-09 applicator: `propertyNames: {format: regex}`
        assert exc.codes == ["property-names-not-exact"], exc
        return
    wrong = [t for t in ["1", "[]", "[1]", "[[1]]", "[{}]", '["a"]']
             if accepts(art.grammar, t) and not truth.is_valid(json.loads(t))]
    assert not wrong, wrong


def test_metaschema_wrapper_uri_is_not_user_addressable() -> None:
    wrapper = "https://schemac.invalid/metaschema/https/json-schema.org/draft/2020-12/meta/validation"
    schema = {"allOf": [{"$ref": VALIDATION + "#/$defs/simpleTypes"}, {"$ref": wrapper + "#/$defs/ref0"}]}
    try:
        art = schemac.compile(schema, use_cache=False)
    except CompileError as exc:
        assert exc.codes == ["remote-ref"]
        return
    oracle = FinalValidator(schema)
    assert not [t for t in TYPE_NAMES if accepts(art.grammar, t) and not valid_text(oracle, t)]


def test_metaschema_name_clashes() -> None:
    key = "schemac:metaschema:" + VALIDATION
    esc = key.replace("~", "~0").replace("/", "~1")
    check({"$defs": {key: {"const": "x"}}, "anyOf": [{"$ref": VALIDATION + "#/$defs/simpleTypes"}, {"$ref": "#/$defs/" + esc}]},
           TYPE_NAMES)
    check({"$defs": {key: {"const": "x"}, key + "_": {"const": "null"}, "meta": {"const": 1}, "ref0": {"const": 2}},
            "anyOf": [{"$ref": VALIDATION + "#/$defs/simpleTypes"}, {"$ref": "#/$defs/" + esc + "_"},
                      {"$ref": "#/$defs/meta"}, {"$ref": "#/$defs/ref0"}]}, TYPE_NAMES + ["2"])
    # the document's own resource at a metaschema URI wins over the shipped one
    check({"$id": VALIDATION, "$defs": {"simpleTypes": {"const": "x"}}, "$ref": VALIDATION + "#/$defs/simpleTypes"}, TYPE_NAMES)


def test_metaschema_relative_and_nested_resources() -> None:
    check({"$id": M2020 + "x", "$ref": "meta/validation#/$defs/simpleTypes"}, TYPE_NAMES)
    check({"$defs": {"n": {"$id": M2020 + "meta/", "$ref": "validation#/$defs/simpleTypes"}},
            "properties": {"a": {"$ref": "#/$defs/n"}, "b": {"$ref": VALIDATION + "#/$defs/nonNegativeInteger"}}},
           ['{"a": "string"}', '{"a": "x"}', '{"b": 1}', '{"b": -1}', '{"a": "null", "b": 0}', "{}"])
    check({"properties": {"a": {"$ref": VALIDATION + "#/$defs/simpleTypes"}, "b": {"$ref": VALIDATION + "#/$defs/simpleTypes"},
                           "c": {"$ref": D07 + "#/definitions/simpleTypes"}}},
           ['{"a": "string", "b": "x"}', '{"a": "null", "b": "array", "c": "integer"}', '{"c": "x"}'], upgrade_drafts=True)


def test_metaschema_both_dialects_side_by_side() -> None:
    schema = {"oneOf": [{"$ref": D04 + "#/definitions/positiveInteger"}, {"$ref": VALIDATION + "#/$defs/nonNegativeInteger"},
                        {"$ref": D07 + "#/definitions/nonNegativeInteger"}]}
    compiles_or_refused(schema, INTEGERS, {"unsatisfiable"}, upgrade_drafts=True)
    check({"anyOf": [{"$ref": D04 + "#/definitions/positiveInteger"}, {"$ref": D07 + "#/definitions/simpleTypes"}]},
           INTEGERS + TYPE_NAMES, refusable=INTEGER_SPELLINGS, upgrade_drafts=True)


def test_metaschema_whole_documents_compile_or_refuse() -> None:
    """Whole metaschemas: refused with a CompileError, or exact on small schemas-as-data."""
    texts = ["{}", "true", "false", "1", '{"type": "string"}', '{"type": "strin"}', '{"minLength": -1}', '{"$ref": 1}',
             '{"items": {}}', '{"items": 1}', '{"required": ["a", "a"]}', '{"enum": []}']
    for ref, upgrade in ((M2020 + "schema", False), (D07, True), (D06 + "#", True), (D04 + "#", True),
                         ("https://json-schema.org/draft/2019-09/schema", True), (M2020 + "meta/unevaluated", False),
                         (M2020 + "meta/core", False)):
        try:
            schemac.compile({"$ref": ref}, use_cache=False, upgrade_drafts=upgrade)
        except CompileError:
            continue
        check({"$ref": ref}, texts, upgrade_drafts=upgrade)


def test_metaschema_refs_in_data_positions_stay_data() -> None:
    ref = VALIDATION + "#/$defs/simpleTypes"
    texts = ['{"$ref": "' + ref + '"}', '"string"', "{}", '{"$ref": "x"}', '{"$ref": "#/$defs/ref0"}', "1"]
    for schema in ({"const": {"$ref": ref}}, {"enum": [{"$ref": ref}, 1]}, {"x-unknown": {"$ref": ref}, "type": "object"},
                   {"properties": {"$ref": {"const": ref}}}, {"default": {"$ref": ref}, "type": "string"},
                   {"anyOf": [{"const": {"$ref": ref}}, {"$ref": ref}]}, {"examples": [{"$ref": ref}], "not": {"$ref": ref}},
                   {"not": {"const": {"$ref": ref}}, "type": "object", "maxProperties": 1}):
        check(schema, texts)


def test_metaschema_dynamic_ref_lands_on_user_root_through_definitions() -> None:
    schema = {"$id": "urn:user", "$dynamicAnchor": "meta",
              "anyOf": [{"type": "integer"}, {"$ref": M2020 + "schema#/properties/definitions"}]}
    compiles_or_refused(schema, ["1", "{}", '{"a": 1}', '{"a": {}}', '{"a": "x"}', '{"a": {"b": 2}}', '{"a": {"b": []}}', '"x"'],
                         {"property-names-not-exact", "unique-items-unbounded"})


def test_metaschema_flattened_definition_names_clash() -> None:
    """The resolved bundle names embedded definitions `schemac_metaschema_<uri>.<path>`; a user's
    definition under that very name stays the user's."""
    base = "schemac_metaschema_https___json-schema.org_draft_2020-12_meta_validation."
    for name in (base + "meta.simpleTypes", base + "ref0", base + "meta", "schemac:metaschema:" + VALIDATION + "_"):
        esc = name.replace("~", "~0").replace("/", "~1")
        check({"$defs": {name: {"const": "x"}}, "anyOf": [{"$ref": VALIDATION + "#/$defs/simpleTypes"}, {"$ref": "#/$defs/" + esc}]},
               TYPE_NAMES + ['"y"'])
        check({"$defs": {name: {"const": "x"}}, "$ref": VALIDATION + "#/$defs/simpleTypes"}, TYPE_NAMES + ['"y"'])
