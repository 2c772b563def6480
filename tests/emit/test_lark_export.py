"""Lark export (`Artifact.lark`, `schemac.emit.lark_text`): the one text unmodified engines take.

vLLM 0.33 and SGLang pass a grammar text to `llguidance.grammar_from("grammar", text)`; the text
must load there and admit exactly the artifact's language, syntax policy included, and xgrammar
(which a server may route it to) must refuse it. Checked on every golden fixture's instances and on
the byte-level texts of the key and number tests.
"""
from __future__ import annotations

import json

import pytest

import schemac
from testkit.grammar_harness import FIXTURES, accepts, text_of
from tests.integrations.test_lark_xgrammar import xgrammar_refuses
from tests.emit.test_emit_keys import SCHEMAS as KEY_SCHEMAS, TEXTS as KEY_TEXTS
from tests.numbers.test_emit_numbers import SPELLINGS, grid

FIXTURE_FILES = sorted(FIXTURES.glob("*/*.json"))
#: texts a policy-blind grammar would admit: whitespace, escaped keys, exponents, negative zero
POLICY_TEXTS = ['{"a": 1}', '{"a":1}', '{"a" : 1}', '{ "a": 1}', '[1,  2]', '[1, 2]', '{"\\u0061": 1}', '1e0', '-0']


def _engine_grammar(text: str) -> str:
    """What vLLM's and SGLang's llguidance backends build from a grammar text."""
    import llguidance

    return llguidance.grammar_from("grammar", text)


def _same(art: schemac.Artifact, texts: list[str]) -> None:
    lark = art.lark
    exported = _engine_grammar(lark)
    assert exported == _engine_grammar(schemac.emit.lark_text(art.grammar))
    xgrammar_refuses(lark)
    for text in texts:
        assert accepts(exported, text) == accepts(art.grammar, text), (lark[:300], text)


@pytest.mark.parametrize("path", FIXTURE_FILES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_fixture_instances(path) -> None:
    fx = json.loads(path.read_text())
    art = schemac.compile(fx["schema"], use_cache=False)
    _same(art, [text_of(t["data"]) for t in fx["tests"]] + POLICY_TEXTS)


@pytest.mark.parametrize("schema", KEY_SCHEMAS, ids=lambda s: json.dumps(s, ensure_ascii=True)[:60])
def test_key_texts(schema) -> None:
    _same(schemac.compile(schema, use_cache=False), KEY_TEXTS[::3] + POLICY_TEXTS)


@pytest.mark.parametrize("schema", grid()[::4], ids=lambda s: json.dumps(s)[:60])
def test_number_texts(schema) -> None:
    try:
        art = schemac.compile(schema, use_cache=False)
    except schemac.CompileError:
        return
    _same(art, SPELLINGS + POLICY_TEXTS)


def test_json_form_keeps_the_policy() -> None:
    """A JSON-schema grammar exports as `start: %json {...}`; the embedded `x-guidance` holds the
    policy there too (llguidance reads it per embedding), so whitespace stays refused."""
    art = schemac.compile({"type": "array", "items": {"type": "integer"}}, use_cache=False)
    assert art.lark.startswith("%llguidance {}\nstart: %json ")
    exported = _engine_grammar(art.lark)
    assert accepts(exported, "[1, 2]") and accepts(exported, "[1,2]")
    assert not accepts(exported, "[1,  2]") and not accepts(exported, "[ 1]")


def test_lark_text_refuses_what_it_cannot_export() -> None:
    with pytest.raises(ValueError):
        schemac.emit.lark_text(json.dumps({"grammars": [{"json_schema": {"type": "string"}}]}))  # no policy
    with pytest.raises(ValueError):
        schemac.emit.lark_text(json.dumps({"grammars": [{"lark_grammar": "start: \"a\""}, {"lark_grammar": "x: \"b\""}]}))
