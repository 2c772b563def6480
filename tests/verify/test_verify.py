"""The verifier itself (issue 13): it must find planted mistakes, walk every admitted text within
its depth, and judge with the oracle independently. Grammars here are written directly (not by
schemac's emitter), so the verifier is tested apart from the compiler it checks."""
from __future__ import annotations

import math
import itertools
import json
from decimal import Decimal
from typing import Any

import pytest

import schemac
from schemac.verify.alphabet import candidate_values, number_neighbours, render, spell_number, tokens_for
from schemac.verify.check import VerifyReport, verify_grammar
from schemac.verify.oracle import Oracle, OracleUnsupported


def _grammar(schema: Any) -> str:
    from llguidance import LLMatcher

    return LLMatcher.grammar_from_json_schema(schema, defaults={"whitespace_flexible": False})


def _lark(body: str) -> str:
    return json.dumps({"grammars": [{"lark_grammar": body}]})


def test_unsound_grammar_is_caught() -> None:
    """A grammar for all integers checked against `maximum: 3` admits 4..9: unsound."""
    report = verify_grammar({"type": "integer", "maximum": 3}, _grammar({"type": "integer"}), depth=2, time_s=math.inf, live=False)
    assert not report.ok and report.unsound_count > 0
    unsound = {c.text for c in report.first("unsound", 1000)}
    assert {"4", "9", "10", "99"} <= unsound and all(int(t) > 3 for t in unsound)
    assert {"3", "0", "-1"} & unsound == set() and report.valid_texts > 0


def test_refused_valid_instance_is_caught() -> None:
    """A grammar for `const: 1` checked against `enum: [1, 2]` refuses the canonical `2`."""
    report = verify_grammar({"enum": [1, 2]}, _grammar({"const": 1}), depth=2, time_s=math.inf)
    assert report.unsound_count == 0 and [c.text for c in report.first("refused")] == ["2"]


def test_escaped_key_spelling_is_in_the_alphabet_and_reached() -> None:
    """`{"\\u0062": "y"}` is `{"b": "y"}`: a grammar matching keys on raw text is caught at depth 4."""
    schema = {"type": "object", "properties": {"b": {"const": "x"}}}
    assert '"\\u0062":' in tokens_for(schema)
    lax = _lark('start: "{" KEY ":" VALUE "}"\nKEY: /"(b|\\\\u0062)"/\nVALUE: /"[xy]"/')
    report = verify_grammar(schema, lax, depth=4, time_s=math.inf, canonical=0)
    assert {'{"\\u0062":"y"}', '{"b":"y"}'} <= {c.text for c in report.first("unsound")}
    assert report.valid_texts >= 2  # {"b":"x"} and {"\u0062":"x"}


def test_duplicate_keys_are_counted_apart() -> None:
    report = verify_grammar({"type": "object", "properties": {"a": {}}}, _lark('start: "{\\"a\\":1,\\"a\\":1}" | "{}"'),
                            depth=7, time_s=math.inf, canonical=0)
    assert (report.duplicate_key_texts, report.unsound_count, report.texts) == (1, 0, 2)


def test_dead_end_is_reported() -> None:
    """A prefix after which the matcher allows no token at all and cannot stop is a dead end
    (the matcher is wrapped to produce one where the grammar has `[1`; the walk forks matchers
    with `deep_copy`, so the wrapper forks itself with its token path)."""
    from schemac.verify.walk import Grammar

    grammar = Grammar(_lark('start: "[1]" | "[2]"'), ["[", "1", "2", "]"])

    class Stub:
        def __init__(self, real: Any, consumed: list[int]) -> None:
            self.real, self.consumed = real, consumed

        def compute_bitmask(self) -> bytes:
            mask = self.real.compute_bitmask()
            return bytes(len(mask)) if self.consumed == [ord("["), ord("1")] else mask

        def consume_token(self, t: int) -> bool:
            self.consumed.append(t)
            return bool(self.real.consume_token(t))

        def deep_copy(self) -> "Stub":
            return Stub(self.real.deep_copy(), list(self.consumed))

        def __getattr__(self, name: str) -> Any:
            return getattr(self.real, name)

    grammar.matcher = Stub(grammar.matcher, [])
    result = grammar.walk(4, 100, float("inf"))
    assert result.dead_ends == ["[1"] and result.texts == ["[2]"]


@pytest.mark.parametrize("pattern", ["(ab|b)(a|)", "a*b?", "[ab]{1,2}c?"])
def test_walk_finds_every_text_within_depth(pattern: str) -> None:
    """Against brute force: every token sequence of length ≤ depth over the alphabet whose text
    the grammar accepts is among the walked texts, and nothing else is."""
    import re

    from schemac.verify.walk import Grammar

    grammar = Grammar(_lark(f"start: /{pattern}/"), ["a", "b", "c", "ab", "ba"])
    depth = 3
    walked = set(grammar.walk(depth, 10_000, float("inf")).texts)
    tokens = ["a", "b", "c", "ab", "ba"]
    brute = {"".join(seq) for n in range(depth + 1) for seq in itertools.product(tokens, repeat=n)
             if re.fullmatch(pattern, "".join(seq))}
    assert walked == brute


def test_walk_budget_cut_is_reported() -> None:
    from schemac.verify.walk import Grammar

    result = Grammar(_lark("start: /[a-z]*/"), list("abcdefgh")).walk(6, 50, float("inf"))
    assert result.cut is not None and "node budget" in result.cut


def test_number_neighbours_and_spelling() -> None:
    assert spell_number(Decimal("0.10000000000000000001")) == "0.10000000000000000001"
    assert spell_number(1e16) == "10000000000000000" and spell_number(2.50) == "2.5"
    assert {spell_number(n) for n in number_neighbours(0.5)} >= {"0.5", "-0.5", "1.5", "0.4", "0.6", "0.49", "0.51"}
    assert {spell_number(n) for n in number_neighbours(9007199254740993)} >= {"9007199254740992", "9007199254740994"}


def test_canonical_instances_follow_schema_key_order() -> None:
    schema = {"type": "object", "properties": {"b": {}, "a": {}}}
    pairs = [v for v in candidate_values(schema) if isinstance(v, dict) and len(v) == 2]
    assert pairs and all(list(v) == ["b", "a"] for v in pairs)
    assert render({"b": [Decimal("1.50"), None]}) == '{"b": [1.5, null]}'
    assert render({"b": "é"}, ",", ":") == '{"b":"é"}'


def test_oracle_is_exact_and_ecma() -> None:
    oracle = Oracle({"type": "number", "multipleOf": 0.1, "maximum": 0.35})
    assert oracle.is_valid_text("0.3") and not oracle.is_valid_text("0.4") and not oracle.is_valid_text("0.35")
    big = Oracle({"type": "integer", "maximum": 9007199254740995})
    assert big.is_valid_text("9007199254740995") and not big.is_valid_text("9007199254740996")
    assert Oracle({"type": "integer"}).is_valid_text("1.0")
    assert not Oracle({"pattern": "^.$"}).is_valid_text('"\\r"')  # ECMA `.` excludes line terminators
    lines = Oracle({"patternProperties": {"^.$": False}})  # U+2028 is a line terminator: `.` skips it
    assert lines.is_valid_text('{"\\u2028": 1}') and not lines.is_valid_text('{"a": 1}')
    with pytest.raises(OracleUnsupported):
        Oracle({"unevaluatedProperties": False, "patternProperties": {"a": {}}})


def test_oracle_disagreement_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """A final validator that says "valid" to everything is contradicted by the oracle."""
    from schemac.verify import check

    class Lenient:
        def __init__(self, schema: Any) -> None:
            pass

        def errors(self, value: Any) -> list[str]:
            return []

    monkeypatch.setattr("schemac.validate.final.FinalValidator", Lenient)
    report = check.verify_grammar({"maximum": 3}, _grammar({"type": "integer"}), depth=1, time_s=math.inf, cross_check=True, canonical=0)
    assert report.disagreement_count > 0 and report.unsound_count == 0


def test_api_and_rejected_schema() -> None:
    report = schemac.verify({"type": "array", "uniqueItems": 1}, depth=2, time_s=math.inf)
    assert isinstance(report, VerifyReport) and report.status == "rejected" and report.ok
    assert [d.code for d in report.diagnostics] == ["invalid-schema"]
    assert "rejected by the compiler (invalid-schema)" in report.summary()


def test_cli_exit_codes(tmp_path: Any) -> None:
    from click.testing import CliRunner

    from schemac.cli.main import cli

    bad = tmp_path / "bad.json"
    bad.write_text('{"type": "array", "uniqueItems": 1}')
    result = CliRunner().invoke(cli, ["verify", str(bad), "--depth", "2"])
    # not a schema: nothing to verify, and a CI gate must not pass it
    assert result.exit_code == 2 and "invalid-schema" in result.output and ":1:" in result.output
    result = CliRunner().invoke(cli, ["verify", str(bad), "--json"])
    assert json.loads(result.output)["status"] == "rejected" and result.exit_code == 2
    bad.write_text('{"type": ')
    assert CliRunner().invoke(cli, ["verify", str(bad)]).exit_code == 2
    limit = tmp_path / "limit.json"  # a schema the compiler refuses to lower admits nothing: sound
    limit.write_text('{"type": "array", "items": {"type": "string"}, "uniqueItems": true}')
    result = CliRunner().invoke(cli, ["verify", str(limit), "--depth", "2"])
    assert result.exit_code == 0 and "unique-items-unbounded" in result.output


def test_cli_key_order_verifies_the_any_order_grammar(tmp_path: Any) -> None:
    """`--key-order any` compiles the any-order grammar and asks every key order of it."""
    from click.testing import CliRunner

    from schemac.cli.main import cli

    path = tmp_path / "s.json"
    path.write_text(json.dumps(TWO_REQUIRED))
    free = CliRunner().invoke(cli, ["verify", str(path), "--depth", "2", "--key-order", "any", "--json"])
    fixed = CliRunner().invoke(cli, ["verify", str(path), "--depth", "2", "--json"])
    assert free.exit_code == fixed.exit_code == 0
    free_report, fixed_report = json.loads(free.output), json.loads(fixed.output)
    assert free_report["every_order"] is True and free_report["refused_count"] == 0
    assert free_report["canonical_valid"] > 0
    assert fixed_report["every_order"] is False


TWO_REQUIRED = {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
                "required": ["a", "b"]}


def test_every_order_refuses_a_schema_order_grammar() -> None:
    """Under `key_order="any"` one refused key order is a refusal; under schema order it is not."""
    fixed = schemac.compile(TWO_REQUIRED, use_cache=False).grammar
    assert verify_grammar(TWO_REQUIRED, fixed, depth=0, time_s=math.inf, canonical=400).refused_count == 0
    report = verify_grammar(TWO_REQUIRED, fixed, depth=0, time_s=math.inf, canonical=400, every_order=True)
    refused = report.first("refused", 10_000)
    assert report.refused_count > 0 and refused and all(json.loads(c.text).keys() == {"a", "b"} for c in refused)
    assert all(c.text.startswith('{"b"') and "promises every order" in c.detail for c in refused)
    assert "in some key order" in report.summary()


@pytest.mark.parametrize("schema, promised", [
    (TWO_REQUIRED, True),
    ({"type": "object", "properties": {"a": {}}, "allOf": [{"properties": {k: {} for k in "bcdef"}}]}, True),
    # seven keys over the root and an allOf part: the emitter may merge them past MAX_FREE_KEYS
    ({"type": "object", "properties": {"a": {}}, "allOf": [{"properties": {k: {} for k in "bcdefg"}}]}, False),
    ({"$ref": "#/$defs/o", "$defs": {"o": {"type": "object", "properties": {k: {} for k in "abcdefg"}}}}, False),
    # keys of a nested object are not the root's
    ({"type": "object", "properties": {"a": {"type": "object", "properties": {k: {} for k in "bcdefgh"}}}}, True),
    ({"type": "object", "properties": {"a": {}, "b": {}}, "maxProperties": 1000}, False),
])
def test_every_order_promise_is_bounded(schema: Any, promised: bool) -> None:
    from schemac.verify.check import every_order_promised

    try:
        lowered = schemac.compile(schema, use_cache=False, key_order="any").lowered
    except schemac.CompileError:
        lowered = schema  # the bound itself is what is tested
    assert every_order_promised(lowered) is promised


def test_llguidance_mask_leaves_out_multi_byte_tokens() -> None:
    """Deviation (notes/deviations-verify.md): llguidance 1.9.1's mask leaves out a multi-byte
    token the grammar admits, which `validate_tokens` accepts; the walk asks `validate_tokens`.
    Fails when llguidance changes, so the workaround can be retired."""
    from schemac.verify.walk import Grammar

    g = Grammar(_lark('start: "a:"'), ["a", ":", "a:"])
    multi = g.walk_ids[-1]
    mask = g.matcher.compute_bitmask()
    assert not g._allowed(mask, multi) and g._allowed(mask, ord("a"))
    assert g.matcher.validate_tokens([multi]) == 1
    assert g.walk(1, 100, float("inf")).texts == ["a:"]


def test_refused_means_refused_in_every_key_order() -> None:
    """The syntax policy fixes one key order, which the checker does not recompute: a valid
    two-key object counts as refused only when no order of its keys is admitted."""
    schema = {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
              "additionalProperties": False}
    only_ba = _lark('start: "{" (PB ",")? PA "}"\nPB: /"b":[0-9]/\nPA: /"a":[0-9]/')
    report = verify_grammar(schema, only_ba, depth=0, time_s=math.inf, canonical=400)
    refused = {c.text for c in report.first("refused", 10_000)}
    assert '{"a": 0, "b": 1}' in refused  # spaced spellings are not in this grammar in any order
    assert '{"a":0,"b":1}' not in refused and report.canonical_valid > 0  # admitted as {"b":1,"a":0}


#: llguidance's stale mask cache after rollback (docs/llguidance-deviations.md, "Matcher behaviour" 4)
STALE_CACHE_LARK = 'start: "{" ("\\"a\\"" KSEP N | "\\"b\\"" KSEP S) "}"\nKSEP: /: ?/\nN: /1\\.50*/\nS: "\\"1.5\\""'
STALE_CACHE_SCHEMA = {"type": "object", "properties": {"a": {"const": 1.5, "minimum": 1},
                                                       "b": {"const": "1.5", "minLength": 1}}}


def _reference_texts(grammar: Any, depth: int) -> set[str]:
    """The walk's texts computed without forks: every node is a fresh copy of the pristine
    matcher that replays the node's whole token path, then computes one mask."""
    texts: set[str] = set()

    def visit(path: list[int], prefix: bytes) -> None:
        m = grammar.matcher.deep_copy()
        assert m.consume_tokens(path) or not path
        mask = m.compute_bitmask()
        if grammar._allowed(mask, grammar.eos):
            texts.add(prefix.decode())
        if len(path) == depth or m.is_stopped():
            return
        for t in grammar.walk_ids:
            first = grammar.token_bytes[t][0]
            admitted = grammar._allowed(mask, t) or (t >= 256 and grammar._allowed(mask, first)
                                                      and m.validate_tokens([t]) == 1)
            if admitted:
                visit(path + [t], prefix + grammar.token_bytes[t])

    visit([], b"")
    return texts


@pytest.mark.parametrize("alphabet,texts", [
    # a sibling reached after a rollback used to get the stale mask of `{"a":` and lose `{"b":"1.5"}`
    (['{', '"a":', '"b":', '"1.5"', '}'], ['{"b":"1.5"}']),
    (['{', '"a"', '"b"', ':', '"1.5"', '}'], ['{"b":"1.5"}']),
    # ... or the stale mask of `{"b":` and crash on `"1.5"` after `{"a":`
    (['{', '"b"', ':', '"a":', '"1.5"', '1.5', '}'], ['{"a":1.5}', '{"b":"1.5"}']),
])
def test_walk_is_exact_despite_the_stale_mask_cache(alphabet: list[str], texts: list[str]) -> None:
    from schemac.verify.walk import Grammar

    grammar = Grammar(_lark(STALE_CACHE_LARK), alphabet)
    assert sorted(grammar.walk(5, 10_000, float("inf")).texts) == texts == sorted(_reference_texts(grammar, 5))


def test_verify_survives_the_stale_mask_cache() -> None:
    """The schema that found the deviation: verify at depth 3 used to raise ("llguidance refused
    token ... its own mask allowed"); at depth 4 the walk finds both objects, exactly the texts a
    fork-free reference walk finds."""
    from schemac.verify.walk import Grammar

    report = schemac.verify(STALE_CACHE_SCHEMA, depth=3, time_s=math.inf, canonical=0)
    assert report.status == "verified" and report.unsound_count == 0 and report.texts == 1 and not report.cut
    artifact = schemac.compile(STALE_CACHE_SCHEMA, use_cache=False)
    grammar = Grammar(artifact.grammar, tokens_for(artifact.schema))
    for depth in (3, 4):
        walked = grammar.walk(depth, 100_000, float("inf")).texts
        assert len(walked) == len(set(walked)) and set(walked) == _reference_texts(grammar, depth)
    assert {'{"b":"1.5"}', '{"a":1.5}', '{"a": 1.5}', '{"b": "1.5"}'} <= set(walked)
    assert schemac.verify(STALE_CACHE_SCHEMA, depth=4, time_s=math.inf, canonical=0).unsound_count == 0
