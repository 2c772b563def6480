"""Exactness of a compiled grammar on given texts, against an oracle: the one check the subject
files share (found first in the attack rounds, now beside the subjects they attacked).

Each text goes to the grammar (`grammar_harness.accepts`, a byte tokenizer) and to the oracle,
by default schemac's FinalValidator on the ORIGINAL schema (jsonschema 2020-12, exact numbers
via `parse_answer`, asserted formats, ECMA regexes). An invalid text admitted is always a failure;
a valid text refused is a failure unless the caller lists it as refusable (a spelling or key
order the README's syntax policy excludes).
"""
from __future__ import annotations

import itertools
import json
from typing import Any

import schemac
from schemac.diagnostics import CompileError
from schemac.validate.final import FinalValidator
from testkit.grammar_harness import _tokenizer, accepts, valid_text


def check(schema: Any, texts: list[str], must_admit: list[str] | tuple[str, ...] = (), refusable: set[str] = frozenset(),
           oracle: Any = None, art: Any = None, **options: Any) -> Any:
    """No invalid text admitted; every valid text admitted unless listed in `refusable` (its
    spelling or order is one the syntax policy excludes); every `must_admit` text valid and admitted.
    `oracle` (text -> bool) replaces FinalValidator on the original schema; `art` is the artifact
    already compiled from `schema` with `options` (else it is compiled here)."""
    art = art if art is not None else schemac.compile(schema, use_cache=False, **options)
    if oracle is None:
        final = FinalValidator(schema)
        oracle = lambda text: valid_text(final, text)  # noqa: E731
    wrong = []
    for text in list(texts) + list(must_admit):
        valid, got = oracle(text), accepts(art.grammar, text)
        if got and not valid:
            wrong.append(("invalid admitted", text))
        elif valid and not got and text not in refusable:
            wrong.append(("valid refused", text))
        elif text in must_admit and not valid:
            wrong.append(("expected valid", text))
    assert not wrong, wrong
    return art


def jsonschema_oracle(schema: Any) -> Any:
    """text -> whether jsonschema's 2020-12 validator accepts the parsed text (Python `re` for
    patterns: for schemas whose patterns mean the same in ECMA-262)."""
    import jsonschema

    validator = jsonschema.Draft202012Validator(schema)
    return lambda text: validator.is_valid(json.loads(text))


def compiles_or_refused(schema: Any, texts: list[str], codes: set[str], **options: Any) -> None:
    """Either refused with one of `codes`, or sound and complete on `texts` (json.dumps spellings)."""
    try:
        schemac.compile(schema, use_cache=False, **options)
    except CompileError as exc:
        assert set(exc.codes) <= codes, exc
        if exc.codes == ["unsatisfiable"]:  # then no sample may be valid
            oracle = FinalValidator(schema)
            assert not [t for t in texts if valid_text(oracle, t)], exc
        return
    check(schema, texts, **options)


def dumps(values: list[Any]) -> list[str]:
    return [json.dumps(v, ensure_ascii=False) for v in values]


def spelled(value: Any, order: tuple[str, ...] | None = None) -> str:
    if isinstance(value, dict) and order is not None:
        return "{" + ", ".join(f"{json.dumps(k)}: {json.dumps(value[k])}" for k in order) + "}"
    return json.dumps(value)


def check_every_order(schema: Any, values: list[Any], codes: set[str] = frozenset()) -> Any:
    """No invalid value admitted in any key order; a valid value admitted in at least one."""
    try:
        art = schemac.compile(schema, use_cache=False)
    except CompileError as exc:
        assert set(exc.codes) <= set(codes), exc
        if exc.codes == ["unsatisfiable"]:
            final = FinalValidator(schema)
            assert not [v for v in values if final.is_valid(v)], exc
        return None
    oracle = FinalValidator(schema)
    wrong = []
    for value in values:
        valid = oracle.is_valid(value)
        texts = [spelled(value, order) for order in itertools.permutations(value)] if isinstance(value, dict) else [spelled(value)]
        got = [t for t in texts if accepts(art.grammar, t)]
        if got and not valid:
            wrong.append(("invalid admitted", got[0]))
        elif valid and not got:
            wrong.append(("valid refused in every order", texts[0]))
    assert not wrong, wrong
    return art


def generates(grammar: str, text: str) -> str:
    """Walk `text` as a generator does: a mask before every byte (the byte must be allowed), then
    the byte. "ok" when accepted at the end, else what stopped it. `accepts` only consumes, which
    builds far fewer lexer derivatives than a mask over all bytes."""
    import llguidance


    matcher = llguidance.LLMatcher(_tokenizer(), grammar, log_level=0)
    for i, byte in enumerate(text.encode()):
        mask = matcher.compute_bitmask()
        if matcher.is_error():
            return f"error at byte {i}: {(matcher.get_error() or '').splitlines()[0]}"
        if not mask[byte // 8] >> (byte % 8) & 1:
            return f"masked at byte {i}"
        if not matcher.consume_tokens([byte]):
            return f"consume failed at byte {i}: {(matcher.get_error() or '').splitlines()[0]}"
    return "ok" if matcher.is_accepting() else "not accepting"


def generates_or_refused(schema: Any, text: str) -> None:
    """`text` is generated mask by mask, or the schema is refused at compile time (a lexer
    limit found there), never a grammar that stops partway."""
    try:
        art = schemac.compile(schema, use_cache=False)
    except CompileError as exc:
        assert exc.codes in (["grammar-error"], ["too-large"]), exc
        return
    assert generates(art.grammar, text) == "ok"


def unsound(schema: Any, texts: list[str], **options: Any) -> tuple[Any, list[str]]:
    """(artifact, the texts its grammar admits that final validation of `schema` refuses)."""
    art = schemac.compile(schema, use_cache=False, **options)
    oracle = FinalValidator(schema)
    return art, [t for t in texts if accepts(art.grammar, t) and not valid_text(oracle, t)]
