"""Exactness against node's ECMA-262 verdicts, for schemas whose patterns need them.

The oracle is the ORIGINAL schema under schemac's FinalValidator with node's `RegExp(p, "u")`
verdicts (`TABLE`, filled by `learn`) as its regex matcher, never Python `re`. Instances are
every string over `LETTERS` up to 3 characters (`STRINGS`), non-strings, small objects in every
key order and arrays: nothing invalid admitted in any order, every valid string admitted, every
valid object in some order. llguidance's shared lexer may give up on `&`/`~` terminals (fails
closed, documented in `emit/lark_strings.py`): those verdicts are redone on a fresh matcher and
counted in `LIMITED`, never passed. Tests take the `node` fixture (skipped without node).
"""
from __future__ import annotations

import itertools
import json
from typing import Any

import pytest

import schemac
import schemac.validate.final
from schemac.diagnostics import CompileError
from schemac.validate.final import FinalValidator
from testkit import grammar_harness as harness
from testkit.ecma_oracle import node_available, node_verdicts, strings


LETTERS = ["a", "b", "\n", "\r", "\u2028", "\u00a0", "\U0001f600"]


STRINGS = strings(LETTERS, 3)


OTHER: list[Any] = [0, 1.5, None, True, [], {}, ["a"], {"a": "b"}]


KEYS = ["a", "b", "ab", "\n"]


VALUES: list[Any] = ["a", "b", "ba", "\n", 0]


LOOKALIKES: list[Any] = [{"pattern": "^(?=a)b"}, {"pattern": "^b", "allOf": [{"pattern": "^a"}]}]  # data, not schemas


OBJECTS = [dict(zip(ks, vs)) for n in range(3) for ks in itertools.combinations(KEYS, n)
           for vs in itertools.product(VALUES, repeat=n)] + LOOKALIKES


ARRAYS = [list(t) for n in range(3) for t in itertools.product(["a", "b", "ba", 0], repeat=n)]


TABLE: dict[tuple[str, str], bool] = {}  # (pattern, string) → node's verdict, read by the oracle


LIMITED: list[str] = []  # texts llguidance's lexer gave up on (fail closed), since the last reset


def _patterns(node: Any) -> set[str]:
    """Every `pattern` and `patternProperties` key in `node` (const/enum values are data)."""
    if isinstance(node, list):
        return set().union(*map(_patterns, node))
    if not isinstance(node, dict):
        return set()
    found = {node["pattern"]} if isinstance(node.get("pattern"), str) else set()
    found |= set(node["patternProperties"]) if isinstance(node.get("patternProperties"), dict) else set()
    return found.union(*[_patterns(v) for k, v in node.items() if k not in ("const", "enum")])


def learn(schemas: list[Any], words: list[str] | None = None) -> None:
    """TABLE += node's verdicts for `schemas`' patterns on STRINGS, or on `words` (one letter each)."""
    pats = sorted(_patterns(schemas))
    if not pats:
        return
    if words is None:
        found, grid = node_verdicts(pats, LETTERS, 3), STRINGS
    else:
        letters = sorted(set(words) - {""})
        found, grid = node_verdicts(pats, letters, 1), [""] + letters
    for p in pats:
        assert found[p] is not None, f"node refuses {p!r}: not a u-mode ECMA pattern"
        TABLE.update({(p, w): ok for w, ok in zip(grid, found[p])})


def node_valid(checker: Any) -> Any:
    """`checker` with node's verdicts as its regex matcher while it runs (a missing one is a
    KeyError); the compiler, which validates enum candidates, keeps schemac's own matcher."""
    def valid(value: Any) -> bool:
        own = schemac.validate.final._search
        schemac.validate.final._search = lambda pattern, text: TABLE[(pattern, text)]
        try:
            return bool(checker.is_valid(value))
        finally:
            schemac.validate.final._search = own
    return valid


@pytest.fixture
def node() -> None:
    if not node_available():
        pytest.skip("node (the independent ECMA-262 oracle) is not installed")


def _fresh_verdict(grammar: str, text: str) -> bool | None:
    """`text` on a matcher of its own; None when llguidance's lexer gives up on it."""
    from llguidance import LLMatcher

    matcher = LLMatcher(harness._tokenizer(), grammar, log_level=0)
    tokens = list(text.encode())
    if matcher.try_consume_tokens(tokens) == len(tokens) and matcher.is_accepting():
        return True
    matcher.compute_bitmask()
    LIMITED.extend([text] if matcher.is_error() else [])
    return None if matcher.is_error() else False


def _verdicts(grammar: str, texts: list[str]) -> dict[str, bool | None]:
    """Whether `grammar` admits each text, on copies of one pristine matcher. Copies share a lexer
    llguidance may break for good ("too many expressions constructed": every later copy refuses
    everything), so a chunk's refusals after a break are decided again on matchers of their own."""
    out: dict[str, bool | None] = {}
    for i in range(0, len(texts), 64):
        got: dict[str, bool | None] = {t: harness.accepts(grammar, t) for t in texts[i:i + 64]}
        probe = harness._pristine(grammar).deep_copy()
        probe.compute_bitmask()
        if probe.is_error():
            harness._pristine.cache_clear()
            got = {t: True if ok else _fresh_verdict(grammar, t) for t, ok in got.items()}
        out.update(got)
    return out


def spelling(value: Any, order: Any = None) -> str:
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json.dumps(k, ensure_ascii=False)}: {json.dumps(value[k], ensure_ascii=False)}"
                               for k in (value if order is None else order)) + "}"
    return json.dumps(value, ensure_ascii=False)


def mistakes(grammar: str, valid: Any, instances: list[Any]) -> list[tuple[str, Any]]:
    """Instances the grammar gets wrong: an invalid one admitted in some key order, or a valid
    one admitted in none (lexer give-ups are counted in LIMITED, not judged)."""
    spelled = [[spelling(value, o) for o in (itertools.permutations(value) if isinstance(value, dict) else [None])]
               for value in instances]
    verdict = _verdicts(grammar, [t for texts in spelled for t in texts])
    wrong: list[tuple[str, Any]] = []
    for value, texts in zip(instances, spelled):
        want, got = valid(value), [verdict[t] for t in texts]
        if not want and True in got:
            wrong.append(("invalid admitted", value))
        elif want and True not in got and None not in got:
            wrong.append(("valid refused", value))
    return wrong


def exact_or_refused(schema: Any, instances: list[Any], codes: set[str], valid: Any = None, **options: Any) -> None:
    """`schema` compiles to a grammar right on every instance, or is refused with one of `codes`
    (`unsatisfiable` only when no instance is valid); never anything but a CompileError."""
    valid = valid or node_valid(FinalValidator(schema))
    try:
        art = schemac.compile(schema, use_cache=False, **options)
    except CompileError as exc:
        assert set(exc.codes) <= codes, exc
        if "unsatisfiable" in exc.codes:
            assert not any(valid(v) for v in instances), "refused as unsatisfiable, yet valid instances exist"
        return
    assert mistakes(art.grammar, valid, instances) == []
