"""Hypothesis fuzzing of the whole compiler (issue 6), bounded for CI and derandomised
(tests/conftest.py): the same examples on every run; `benchmarks/fuzz_deep.py SEED` explores.

Random combinations of the keywords schemac lowers and rejects: compiling never raises anything
but CompileError, and random walks of every compiled grammar (uniform over the allowed bytes of
a byte-level tokenizer) produce answers the final validator accepts.
"""
from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import schemac
from schemac.diagnostics import CompileError
from schemac.validate.final import FinalValidator, parse_answer

NAMES = st.sampled_from(["a", "b", "c", "id", "x-y", ""])
SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-5, 5), st.sampled_from([0.5, -1.5, 1e300]), st.sampled_from(["", "a", "ab", "é"]))
PATTERNS = st.sampled_from(["^a", "b$", "^[a-c]{1,3}$", "(x|yy)+", "\\d", "^.$", "(?=a)", "a{2,}", "[", "\\w+@"])
FORMATS = st.sampled_from(["date", "email", "uuid", "ipv4", "color"])
TYPES = st.sampled_from(["null", "boolean", "integer", "number", "string", "array", "object"])


def _leaf() -> st.SearchStrategy[Any]:
    return st.one_of(
        st.booleans(),
        st.fixed_dictionaries({"type": TYPES}),
        st.fixed_dictionaries({"const": SCALARS}),
        st.fixed_dictionaries({"enum": st.lists(SCALARS, min_size=1, max_size=4)}),
        st.fixed_dictionaries({"type": st.just("string")}, optional={
            "minLength": st.integers(0, 4), "maxLength": st.integers(0, 6), "pattern": PATTERNS, "format": FORMATS}),
        st.fixed_dictionaries({"type": st.sampled_from(["integer", "number"])}, optional={
            "minimum": st.integers(-5, 5), "maximum": st.integers(-5, 5), "exclusiveMinimum": st.integers(-5, 5),
            "multipleOf": st.sampled_from([1, 2, 3, 0.5])}),
    )


def _extend(inner: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    lists = st.lists(inner, min_size=1, max_size=3)
    return st.one_of(
        st.fixed_dictionaries({"anyOf": lists}), st.fixed_dictionaries({"oneOf": lists}),
        st.fixed_dictionaries({"allOf": lists}), st.fixed_dictionaries({"not": inner}),
        st.fixed_dictionaries({"if": inner}, optional={"then": inner, "else": inner}),
        st.fixed_dictionaries({"type": st.just("array")}, optional={
            "items": inner, "prefixItems": lists, "contains": inner, "minItems": st.integers(0, 3),
            "maxItems": st.integers(0, 3), "uniqueItems": st.booleans(), "minContains": st.integers(0, 2),
            "maxContains": st.integers(0, 2), "unevaluatedItems": inner}),
        st.fixed_dictionaries({"type": st.just("object")}, optional={
            "properties": st.dictionaries(NAMES, inner, max_size=3), "required": st.lists(NAMES, max_size=3, unique=True),
            "additionalProperties": inner, "patternProperties": st.dictionaries(PATTERNS, inner, max_size=2),
            "propertyNames": inner, "minProperties": st.integers(0, 3), "maxProperties": st.integers(0, 3),
            "dependentRequired": st.dictionaries(NAMES, st.lists(NAMES, max_size=2), max_size=2),
            "dependentSchemas": st.dictionaries(NAMES, inner, max_size=2), "unevaluatedProperties": inner}),
        st.fixed_dictionaries({"$defs": st.fixed_dictionaries({"d": inner}), "$ref": st.just("#/$defs/d")}),
        st.fixed_dictionaries({"$ref": st.sampled_from(["#", "#/$defs/none", "http://127.0.0.1/x.json"])}),
    )


SCHEMAS = st.recursive(_leaf(), _extend, max_leaves=8)

_TOKENIZER: Any = None


def _byte_tokenizer() -> Any:
    """A 257-token vocabulary (the 256 bytes + EOS): walks see every byte-level choice."""
    global _TOKENIZER
    if _TOKENIZER is None:
        import llguidance

        class _Source:
            eos_token_id = 256
            bos_token_id = None
            special_token_ids = [256]
            tokens = [bytes([i]) for i in range(256)] + [b"</s>"]

            def __call__(self, text: str) -> list[int]:
                return list(text.encode())

        _TOKENIZER = llguidance.LLTokenizer(llguidance.TokenizerWrapper(_Source()), n_vocab=257)
    return _TOKENIZER


def random_walk(grammar: str, rng: random.Random, max_tokens: int = 200) -> str | None:
    """One uniform random walk; the answer, or None if it hit `max_tokens`."""
    import llguidance
    import llguidance.numpy as lln
    import numpy as np

    matcher = llguidance.LLMatcher(_byte_tokenizer(), grammar, log_level=0)
    assert not matcher.is_error(), matcher.get_error()
    mask = lln.allocate_token_bitmask(1, 257)
    out = bytearray()
    for _ in range(max_tokens):
        if matcher.is_accepting() and rng.random() < 0.2:
            return out.decode("utf-8")
        lln.fill_next_token_bitmask(matcher, mask, 0)
        allowed = np.flatnonzero(np.unpackbits(mask[0].view(np.uint8), bitorder="little")[:257])
        assert len(allowed), f"dead end after {bytes(out)!r}"
        token = int(allowed[rng.randrange(len(allowed))])
        if token == 256:
            return out.decode("utf-8")
        assert matcher.consume_token(token), matcher.get_error()
        out.append(token)
    return None


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(schema=SCHEMAS, seed=st.integers(0, 2**32 - 1))
def test_compile_raises_only_compile_error_and_walks_are_valid(schema: Any, seed: int) -> None:
    try:
        artifact = schemac.compile(schema, use_cache=False)
    except CompileError as exc:
        assert exc.codes, exc
        return
    validator = FinalValidator(artifact.schema)
    rng = random.Random(seed)
    for _ in range(4):
        answer = random_walk(artifact.grammar, rng)
        if answer is None:
            continue
        try:
            value = parse_answer(answer)
        except ValueError as exc:
            if "duplicate object key" in str(exc):
                continue  # documented grammar gap (README "Known gaps"), pinned below
            raise AssertionError(f"{schema!r} produced unparsable {answer!r}: {exc}") from None
        assert validator.is_valid(value), (schema, answer, validator.errors(value))


@pytest.mark.parametrize("text, valid", [("[0]", False), ("[null]", False), ("[0.5]", False), ("[0.0]", False),
                                         ("[-0]", False), ("[1]", True), ("[0.25]", True), ("[[]]", True)])
def test_negated_enum_items_regression(text: str, valid: bool) -> None:
    """What this fuzz test found on a fresh clone (issue 13): `not: {enum: [null, 0, 0.5]}` lowered
    to llguidance numeric ranges that are not exact and admitted `[0]`. Kept as an explicit example
    now that hypothesis runs derandomised (tests/conftest.py): the grammar and final validation
    must agree, or the schema must be rejected."""
    schema = {"type": "array", "items": {"not": {"enum": [None, 0, 0.5]}}}
    try:
        artifact = schemac.compile(schema, use_cache=False)
    except CompileError as exc:
        assert exc.codes, exc
        return
    assert FinalValidator(artifact.schema).is_valid(parse_answer(text)) is valid
    admitted = _accepts(artifact.grammar, text.encode())
    assert not admitted or valid, f"the grammar admits invalid {text}"


def _accepts(grammar: str, text: bytes) -> bool:
    import llguidance

    matcher = llguidance.LLMatcher(_byte_tokenizer(), grammar, log_level=0)
    return all(matcher.consume_token(b) for b in text) and matcher.is_accepting()


@pytest.mark.parametrize("schema", [{"type": "number"}, {}, {"type": "array", "items": {"type": "number"}}])
@pytest.mark.parametrize("number", ["1e400", "-1E+400", "1e-400", "0.30000000000000000001"])
def test_numbers_past_the_double_range_are_valid_answers(schema: Any, number: str) -> None:
    """The grammar admits any RFC 8259 number; the final check agrees (numbers are mathematical)."""
    artifact = schemac.compile(schema, use_cache=False)
    text = f"[{number}]" if schema.get("type") == "array" else number
    assert _accepts(artifact.grammar, text.encode())
    assert FinalValidator(artifact.schema).is_valid(parse_answer(text))


def test_duplicate_keys_are_the_documented_grammar_gap() -> None:
    """llguidance does not enforce unique keys in open objects; parse_answer refuses them, so
    such an answer is an error and never a success (README "Known gaps")."""
    artifact = schemac.compile({"type": "object", "additionalProperties": {"type": "integer"}}, use_cache=False)
    text = '{"a":1,"a":2}'
    assert _accepts(artifact.grammar, text.encode())
    with pytest.raises(ValueError, match="duplicate object key 'a'"):
        parse_answer(text)
