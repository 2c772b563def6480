"""Check grammar acceptance of whole texts with a byte-level tokenizer (one token per byte).

Tests use this to compare a compiled grammar with the jsonschema oracle: a byte vocabulary makes
every text tokenizable, so acceptance depends on the grammar alone. The lowering tests also share
the fixture loader and the schema-biased instance strategy below.
"""
from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any


class _ByteTokenizer:
    """The minimal tokenizer object llguidance's TokenizerWrapper expects: 256 bytes + EOS."""

    def __init__(self) -> None:
        self.tokens = [bytes([i]) for i in range(256)] + [b"<eos>"]
        self.eos_token_id = 256
        self.bos_token_id = None
        self.special_token_ids = [256]

    def __call__(self, s: str | bytes) -> list[int]:
        return list(s if isinstance(s, bytes) else s.encode())


@lru_cache(maxsize=1)
def _tokenizer() -> Any:
    from llguidance import LLTokenizer, TokenizerWrapper

    return LLTokenizer(TokenizerWrapper(_ByteTokenizer()))


@lru_cache(maxsize=8)
def _pristine(grammar: str) -> Any:
    """One matcher per grammar (built once: building is the expensive part), never fed itself."""
    from llguidance import LLMatcher

    matcher = LLMatcher(_tokenizer(), grammar, log_level=0)
    if matcher.is_error():
        raise ValueError(matcher.get_error())
    return matcher


def accepts(grammar: str, text: str) -> bool:
    """True iff `grammar` accepts exactly `text` (UTF-8) and may stop there; raises on a bad grammar.

    Each text is fed to a fresh copy of the grammar's matcher, never to a rolled-back one
    (llguidance's mask cache survives rollback: docs/llguidance-deviations.md)."""
    matcher = _pristine(grammar).deep_copy()
    tokens = list(text.encode())
    return matcher.try_consume_tokens(tokens) == len(tokens) and matcher.is_accepting()


def accepted_texts(grammar: Any, alphabet: str, max_len: int) -> set[str]:
    """Every text over `alphabet` of at most `max_len` characters that `grammar` (grammar text,
    or a matcher at its start, which is left untouched) accepts, by a depth-first walk that forks
    the matcher (`deep_copy`) instead of rolling it back: llguidance's mask cache goes stale after
    a rollback (docs/llguidance-deviations.md), a fork's does not. Equal to
    `{t for t in all texts if accepts(grammar, t)}`, at a fraction of the cost."""
    from llguidance import LLMatcher

    root = LLMatcher(_tokenizer(), grammar, log_level=0) if isinstance(grammar, str) else grammar.deep_copy()
    if root.is_error():
        raise ValueError(root.get_error())
    found: set[str] = set()
    stack = [("", root)]
    while stack:
        text, matcher = stack.pop()
        if text and matcher.is_accepting():
            found.add(text)
        if len(text) == max_len:
            continue
        mask = matcher.compute_bitmask()  # the matcher only went forward: its mask cache is valid
        for ch in alphabet:
            first = ch.encode()[0]
            if not mask[first // 8] >> (first % 8) & 1:
                continue
            child = matcher.deep_copy()
            if child.consume_tokens(list(ch.encode())):
                stack.append((text + ch, child))
    return found


# ---- shared checks for the lowering tests (fixtures and random instances) -----------------

FIXTURES = Path(__file__).resolve().parents[1] / "testdata" / "lower"


def load_fixtures(area: str) -> list[tuple[str, dict[str, Any]]]:
    """(name, {"schema", "lowered", "tests"}) for every golden fixture of one lowering pass."""
    return [(p.stem, json.loads(p.read_text())) for p in sorted((FIXTURES / area).glob("*.json"))]


def values_in(schema: Any) -> list[Any]:
    """Interesting instance parts for `schema`: its consts/enums, numeric bounds ±1 and 0.5
    around them, property names and short strings from its literals."""
    found: list[Any] = [None, True, False, 0, "", "a"]
    stack = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            for k, v in node.items():
                if k == "const":
                    found.append(v)
                elif k == "enum" and isinstance(v, list):
                    found.extend(v)
                elif k in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf") and isinstance(v, (int, float)):
                    found.extend([v, v - 1, v + 1, v + 0.5])
                elif k in ("minLength", "maxLength") and isinstance(v, int):
                    found.extend(["a" * v, "b" * (v + 1)])
                elif k in ("properties", "patternProperties") and isinstance(v, dict):
                    found.extend(v.keys())
                    stack.extend(v.values())
                elif k == "required" and isinstance(v, list):
                    found.extend(v)
                elif isinstance(v, (dict, list)):
                    stack.append(v)
        elif isinstance(node, list):
            stack.extend(node)
    return found


def instances(schema: Any) -> Any:
    """A hypothesis strategy of JSON values biased towards `schema`'s own literals and keys."""
    from hypothesis import strategies as st

    atoms = values_in(schema)
    keys = sorted({a for a in atoms if isinstance(a, str)} | {"a", "b"})
    leaf = st.sampled_from(atoms) | st.integers(-3, 12) | st.text("ab.", max_size=3)
    return st.recursive(
        leaf,
        lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.sampled_from(keys), inner, max_size=3),
        max_leaves=6,
    )


def text_of(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def order_free(value: Any) -> bool:
    """True when no object in `value` has two keys, so the property-order policy cannot matter."""
    if isinstance(value, dict):
        return len(value) <= 1 and all(order_free(v) for v in value.values())
    if isinstance(value, list):
        return all(order_free(v) for v in value)
    return True


def check_exact_or_rejected(schema: Any, data: Any, allowed_codes: set[str], draws: int = 12) -> None:
    """Compile `schema`: either it is rejected with one of `allowed_codes`, or random instances
    validate the same against the original and the lowered schema, and the grammar never
    accepts an invalid one (nor refuses a valid one whose text no property order constrains)."""
    import schemac
    from schemac.diagnostics import CompileError
    from schemac.lower.support.scalar_marks import lowered_validator
    from schemac.validate.final import FinalValidator

    try:
        art = schemac.compile(schema, use_cache=False)
    except CompileError as exc:
        assert set(exc.codes) <= allowed_codes, exc
        return
    original, lowered = FinalValidator(schema), lowered_validator(art.lowered)  # markers honoured
    for _ in range(draws):
        value = data.draw(instances(schema))
        valid = original.is_valid(value)
        assert lowered.is_valid(value) == valid, value
        got = accepts(art.grammar, text_of(value))
        assert not got or valid, ("invalid instance accepted", value)
        if order_free(value):
            assert got == valid, value


#: What other passes or llguidance may refuse in random combinations (never an unsound grammar).
OTHER_REJECTIONS = {"unsatisfiable", "grammar-error"}


def check_golden(fx: dict[str, Any]) -> Any:
    """A golden fixture: the expected lowering, and oracle and grammar agreeing on its tests.
    Returns the artifact for further checks."""
    import schemac
    from schemac.validate.final import FinalValidator

    art = schemac.compile(fx["schema"], use_cache=False)
    assert art.lowered == fx["lowered"]
    oracle = FinalValidator(fx["schema"])
    for t in fx["tests"]:
        assert oracle.is_valid(t["data"]) == t["valid"], t
        assert accepts(art.grammar, text_of(t["data"])) == t["valid"], t
    return art


def valid_text(oracle: Any, text: str) -> bool:
    """Whether final validation (`oracle`, a `FinalValidator`) accepts the answer `text`; a text
    that is not strict JSON (a lone surrogate, say) is invalid."""
    from schemac.validate.final import parse_answer

    try:
        value = parse_answer(text)
    except ValueError:
        return False
    return bool(oracle.is_valid(value))
