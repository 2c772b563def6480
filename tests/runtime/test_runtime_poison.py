"""A lexer limit in one request must not poison the compiled grammar for later ones.

llguidance builds regex derivatives lazily in a lexer that a pristine matcher shares with all
its deep copies; once a request exhausts the lexer's fuel ("too many expressions constructed")
that shared lexer fails for good. Here a low `step_lexer_fuel` makes the first mask inside the
string (pattern `^(?:\\S+\\s+){0,49}\\S+$`) exceed it on every compile, while the start state
needs a tenth of it: each request poisons its grammar at the same point, deterministically.
"""
from __future__ import annotations

from concurrent.futures import Future
from functools import lru_cache
from typing import Any, Callable, Sequence

import llguidance
import pytest
import torch

import schemac
from schemac.artifact import Artifact
from schemac.runtime import Engine, RequestOptions, StructuredOutputError, finalize_request, tekken_tokenizer
from schemac.runtime.loader import GrammarLoader
from schemac.runtime.request import RequestState

VOCAB = 1000 + 3000
SCHEMA = {
    "type": "object",
    "properties": {"s": {"type": "string", "pattern": r"^(?:\S+\s+){0,49}\S+$", "maxLength": 500}},
    "required": ["s"],
    "additionalProperties": False,
}
FUEL = 20_000  # the start mask fits in 2k; the first mask inside "s" needs more than 155k


@lru_cache(maxsize=None)
def tok() -> Any:
    return tekken_tokenizer(vocab_size=VOCAB)


# The grammar is fixed here rather than compiled: these tests are about the runtime's handling
# of a broken shared lexer, and must not depend on how the compiler spells the pattern.
_WS = r"\\x{9}-\\x{D}\\x{20}\\x{A0}\\x{1680}\\x{2000}-\\x{200A}\\x{2028}-\\x{2029}\\x{202F}\\x{205F}\\x{3000}\\x{FEFF}"
GRAMMAR = (
    '{"grammars":[{"json_schema":{"type": "object", "properties": {"s": {"type": "string", "pattern": '
    f'"^(?:[^{_WS}]+[{_WS}]+){{0,49}}[^{_WS}]+$", "maxLength": 500}}}}, "required": ["s"], '
    '"additionalProperties": false,"x-guidance":{"whitespace_flexible": false, "item_separator": ", ?", '
    '"key_separator": ": ?", "coerce_one_of": false, "lenient": false}}}]}'
)


@lru_cache(maxsize=None)
def art() -> Artifact:
    return Artifact(key="poison-fixed", dialect="2020-12", source_dialect="2020-12", schema=SCHEMA, lowered=SCHEMA,
                    grammar=GRAMMAR, options={})


def enc(text: str) -> list[int]:
    return tok().encode(text, add_special_tokens=False)


OPEN = enc('{"s": "')  # after these the next mask exceeds FUEL


def engine(executor: Any = None) -> Engine:
    """A fresh engine (own cache) whose matchers run under the low lexer fuel."""
    limits = llguidance.LLParserLimits(step_lexer_fuel=FUEL)
    eng = Engine.from_hf(tok(), lm_head_size=VOCAB, parser_limits=limits)
    if executor is not None:
        eng.loader = GrammarLoader(eng.tokenizer, executor=executor, limits=limits)
    return eng


def admit(eng: Engine, artifact: Artifact | None = None, wait: bool = True) -> RequestState:
    state = eng.admit(artifact or art(), RequestOptions(eng.tokenizer.fingerprint))
    if wait:
        state.wait_ready(30)
    return state


def row(eng: Engine, state: RequestState, drafts: Sequence[int] = (), batch: bool = True) -> torch.Tensor:
    bm = eng.allocate_bitmask(len(drafts) + 1)
    bm.fill_(0x5A5A)  # garbage: every row must be written
    if batch:
        eng.fill(bm, [(state, 0, list(drafts))])
    else:
        state.fill(bm, 0, list(drafts))
    return bm


def is_stop(eng: Engine, rows: torch.Tensor) -> bool:
    return all(torch.equal(r, eng.filler.stop) for r in rows)


def poison(eng: Engine, state: RequestState) -> None:
    """Drive `state` into the lexer limit: its mask inside the string is EOS-only."""
    assert not is_stop(eng, row(eng, state))
    assert state.commit(OPEN)
    assert is_stop(eng, row(eng, state))


def test_poisoned_request_fails_and_next_request_starts_healthy():
    eng = engine()
    a = admit(eng)
    poison(eng, a)
    assert a.terminated and a.error is not None and a.error.code == "grammar-too-complex"
    assert "too many expressions" in a.error.message
    assert art().key not in eng.loader  # the broken grammar left the cache
    b = admit(eng)
    assert b.error is None and not b.terminated
    start = row(eng, b)
    assert not is_stop(eng, start)
    poison(eng, b)  # this schema breaks every compile: each request still fails cleanly
    assert b.terminated and b.error.code == "grammar-too-complex"
    c = admit(eng)
    assert torch.equal(row(eng, c), start)


@pytest.mark.parametrize("notice", ["commit", "accept", "terminated", "finalize"])
def test_every_entry_point_records_the_error(notice: str):
    eng = engine()
    a = admit(eng)
    poison(eng, a)
    assert a.error is None  # not found yet: no per-token check
    eos = eng.tokenizer.eos_ids[0]
    if notice == "commit":
        assert not a.commit([eos])
    elif notice == "accept":
        assert not a.accept([eos])
    elif notice == "terminated":
        assert a.terminated
    else:
        with pytest.raises(StructuredOutputError) as exc:
            finalize_request(a, "stop")  # not "answer-not-json" for the cut answer
        assert exc.value.code == "grammar-too-complex"
    assert a.error is not None and a.error.code == "grammar-too-complex"
    assert art().key not in eng.loader
    assert is_stop(eng, row(eng, a, enc("ab")))


@pytest.mark.parametrize("batch", [True, False])
def test_lexer_limit_during_drafts_gives_stop_rows(batch: bool):
    eng = engine()
    a, inflight = admit(eng), admit(eng)
    got = row(eng, a, OPEN, batch)  # the drafts lead into the string: the last row breaks
    assert not any(is_stop(eng, got[i : i + 1]) for i in range(len(OPEN)))
    assert is_stop(eng, got[len(OPEN) :])
    assert a.terminated and a.error.code == "grammar-too-complex"
    assert is_stop(eng, row(eng, inflight))  # shares the broken lexer
    assert inflight.terminated and inflight.error.code == "grammar-too-complex"


def test_batch_neighbours_unaffected():
    eng = engine()
    a, other = admit(eng), admit(eng, schemac.compile({"type": "integer"}))
    before = row(eng, other)
    assert a.commit(OPEN)
    bm = eng.allocate_bitmask(2)
    eng.fill(bm, [(a, 0, []), (other, 1, [])])
    assert is_stop(eng, bm[:1]) and torch.equal(bm[1:], before)
    assert a.terminated and a.error.code == "grammar-too-complex"
    assert other.commit(enc("12")) and other.is_accepting()


def test_in_flight_copies_fail_and_pending_admissions_recompile():
    eng = engine()
    a = admit(eng)
    inflight = admit(eng)  # copied before the poisoning: shares the broken lexer
    pending = admit(eng, wait=False)  # admitted before, copies after: must not get the broken grammar
    poison(eng, a)
    assert a.terminated
    assert is_stop(eng, row(eng, inflight))
    assert inflight.terminated and inflight.error.code == "grammar-too-complex"
    pending.wait_ready(30)
    assert pending.error is None and not is_stop(eng, row(eng, pending))
    assert art().key in eng.loader  # the recompile is cached again


def test_own_errors_do_not_evict():
    eng = engine()
    a = admit(eng)
    assert not a.commit(enc("zz"))  # a token the grammar refuses: this request's own error
    assert a.error.code == "grammar-rejected"
    assert art().key in eng.loader
    b = admit(eng)
    assert not is_stop(eng, row(eng, b))


class _Manual:
    """An executor that runs its jobs only when told, to order compiles against requests."""

    def __init__(self) -> None:
        self._jobs: list[tuple[Future, Callable[..., Any], tuple[Any, ...]]] = []

    def submit(self, fn: Callable[..., Any], *args: Any) -> Future:
        future: Future = Future()
        self._jobs.append((future, fn, args))
        return future

    def run(self) -> None:
        jobs, self._jobs = self._jobs, []
        for future, fn, args in jobs:
            future.set_result(fn(*args))


def test_recompile_is_bounded():
    manual = _Manual()
    eng = engine(manual)
    a = admit(eng, wait=False)
    waiting = admit(eng, wait=False)
    manual.run()
    assert a.ready()
    poison(eng, a)
    assert a.terminated  # first grammar broken
    assert not waiting.ready()  # recompiling
    b = admit(eng, wait=False)
    manual.run()
    assert b.ready()
    poison(eng, b)
    assert b.terminated  # the recompile broke too, before `waiting` copied it
    assert waiting.ready() and waiting.error is not None and waiting.error.code == "grammar-too-complex"
    assert is_stop(eng, row(eng, waiting))
