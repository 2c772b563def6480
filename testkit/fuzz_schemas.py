"""The whole-compiler fuzz strategy and its random walks, shared by tests/compiler/test_fuzz_compile.py
(derandomised, 150 examples) and benchmarks/fuzz_deep.py (seeded, many more).

`SCHEMAS` draws random combinations of the keywords schemac lowers and rejects; `random_walk`
walks a compiled grammar uniformly over the allowed bytes of a byte-level tokenizer.
"""
from __future__ import annotations

import random
from typing import Any

from hypothesis import strategies as st

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


def byte_tokenizer() -> Any:
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

    matcher = llguidance.LLMatcher(byte_tokenizer(), grammar, log_level=0)
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
