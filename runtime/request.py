"""Per-request grammar state: committed by acknowledged tokens, drafts consumed temporarily.

Tokens an engine has sampled but not yet acknowledged (async scheduling, speculative
verification) are *pending* and may be rolled back; acknowledged tokens never are. Every
consumed token leaves an undo record (matcher tokens consumed, gate state, answer length), and
rollback is llguidance's own `rollback`: it never clones a matcher.

llguidance keeps one cached mask that rollback leaves in place; the request's matcher therefore
keeps a trail of the tokens it undid and is rebuilt where new tokens leave it (`MatcherTrail`,
`schemac.runtime.trail`). Drafts filled by llguidance (`MaskFiller.fill`) are rolled back inside
llguidance and recorded as the trail too (`drafting`).

A matcher in error fails the request: `grammar-rejected` (a token its grammar refuses),
`grammar-too-complex` (an llguidance lexer limit broke the lexer shared with the compiled
grammar, which the loader evicts), `llguidance-panic`. It is found by checks made anyway: after
each consumed token in accept/commit and in `terminated`/`check`; until then llguidance writes
EOS-only rows for it.

Misuse by the engine of one request never raises into the engine loop; it ends this request
with a `StructuredOutputError` (in `error`) or is a no-op (README, Runtime): after `release()`
every call is a no-op (fill writes stop rows); an id outside the vocabulary in accept/commit or
a non-integer draft: `invalid-token` (out-of-vocabulary drafts end the drafts); rolling back
more than is unacknowledged: `rollback-past-acknowledged` (a count that is not an integer:
`invalid-argument`); accept/commit before the grammar compiled: `request-not-ready`. A row
layout the bitmask cannot hold raises `BoundaryError` before anything is written
(`schemac.runtime.boundary`). accept/commit return True only when every token given was
consumed; `acknowledged` counts only tokens consumed.
"""
from __future__ import annotations

from concurrent.futures import Future
from typing import TYPE_CHECKING, Any, Callable, NamedTuple, Sequence

from schemac.api import StructuredOutputError
from schemac.runtime import reasoning
from schemac.runtime.boundary import INTEGER, check_bitmask, integer, row_index
from schemac.runtime.rows import allows
from schemac.runtime.rows import stop_row as make_stop_row
from schemac.runtime.trail import MatcherTrail

if TYPE_CHECKING:
    import torch

    from schemac.artifact import Artifact
    from schemac.runtime.loader import CompiledGrammar
    from schemac.runtime.tokenizer import TokenizerAdapter


class _Undo(NamedTuple):
    token: int
    matcher_tokens: int
    gate: reasoning.GateState
    answer_len: int


class RequestState:
    """One constrained request. Drive it with accept/commit/rollback/fill; end with release()."""

    def __init__(
        self,
        artifact: "Artifact",
        tokenizer: "TokenizerAdapter",
        compiled: "Future[CompiledGrammar]",
        gate: reasoning.GateState,
        end_marker: bytes,
        on_release: Callable[["RequestState"], None] | None = None,
    ) -> None:
        self.artifact = artifact
        self._tok = tokenizer
        self._compiled: "Future[CompiledGrammar] | None" = compiled
        self._recompiled = False
        self._m = MatcherTrail()
        self._gate = gate
        self._marker = end_marker
        self._pending: list[_Undo] = []
        self._answer = bytearray()
        self._on_release = [on_release] if on_release is not None else []
        self.acknowledged = 0
        self.error: StructuredOutputError | None = None
        self.released = False

    # -- lifecycle ---------------------------------------------------------------------------
    def ready(self) -> bool:
        """Poll the compile future (never waits); True once the request can be scheduled.

        A grammar whose shared lexer broke after this request was admitted would fail it on
        its first mask, so it is recompiled instead, once: a grammar that breaks again fails
        the request rather than retrying without end."""
        if self._m.matcher is not None or self.error is not None or self.released:
            return True
        assert self._compiled is not None
        if not self._compiled.done():
            return False
        exc = self._compiled.exception()
        if exc is not None:
            self._fail("grammar-compile", str(exc))
        else:
            grammar = self._compiled.result()
            if grammar.broken and not self._recompiled:
                self._recompiled = True
                self._compiled = grammar.recompile()
                return self.ready()
            if grammar.broken:
                self._fail("grammar-too-complex", grammar.broken)
            else:
                self._m.start(grammar)
        self._compiled = None
        return True

    def wait_ready(self, timeout: float | None = None) -> None:
        """Block until compiled: for offline use, never in a server."""
        while not self.ready():
            assert self._compiled is not None
            self._compiled.exception(timeout)

    @property
    def terminated(self) -> bool:
        """No more grammar work: failed, released, or the grammar has stopped (EOS only).
        A stopped matcher may be one in error: that fails the request here."""
        if self._m.matcher is not None and self._m.matcher.is_stopped():
            if self._m.matcher.is_error():
                self._matcher_failed()
            return True
        return self.error is not None or self.released

    @property
    def in_reasoning(self) -> bool:
        return self._gate.reasoning

    @property
    def pending(self) -> int:
        return len(self._pending)

    def is_accepting(self) -> bool:
        """The answer so far is a complete grammar match (EOS may follow)."""
        return self.error is None and self._m.matcher is not None and not self._gate.gated and self._m.matcher.is_accepting()

    @property
    def answer(self) -> str:
        """The visible answer so far (text the grammar consumed), for final validation."""
        return self._answer.decode("utf-8", errors="replace")

    def release(self) -> None:
        """Idempotent end for completion, cancellation and failed submission alike."""
        if self.released:
            return
        self.released = True
        self._compiled = None
        self._m.drop()
        self._pending.clear()
        hooks, self._on_release = self._on_release, []
        first: BaseException | None = None
        for hook in hooks:  # every hook runs, whichever raises; the first exception after
            try:
                hook(self)
            except Exception as exc:  # noqa: BLE001 - re-raised below
                first = first or exc
        if first is not None:
            raise first

    def add_release_hook(self, hook: Callable[["RequestState"], None]) -> None:
        """Call `hook(self)` once, when the request is released (whoever releases it; at
        once if it already was)."""
        if self.released:
            hook(self)
            return
        self._on_release.append(hook)

    def check(self) -> None:
        """Raise this request's structured-output error, if any (a matcher in error included)."""
        if self._m.matcher is not None and self._m.matcher.is_error():
            self._matcher_failed()
        if self.error is not None:
            raise self.error

    # -- token flow --------------------------------------------------------------------------
    def accept(self, tokens: Sequence[int]) -> bool:
        """Consume sampled tokens tentatively (pending until acknowledged); True iff all were."""
        tokens = self._usable(tokens)
        if tokens is None:
            return False
        for token in tokens:
            if not self._active():
                return False
            self._pending.append(self._advance(token))
        return self.error is None

    def commit(self, tokens: Sequence[int]) -> bool:
        """Acknowledge an output delta. Pending tokens that match it become committed; on the
        first mismatch the remaining pending tokens are rolled back and the delta replayed.
        True iff every token of the delta was consumed (`acknowledged` counts those only)."""
        tokens = self._usable(tokens)
        if tokens is None:
            return False
        same = 0
        while same < len(tokens) and same < len(self._pending) and self._pending[same].token == tokens[same]:
            same += 1
        if same < len(tokens) and self._pending[same:]:
            self.rollback(len(self._pending) - same)
        self._m.acked += sum(u.matcher_tokens for u in self._pending[:same])
        del self._pending[:same]
        consumed = same
        for token in tokens[same:]:
            if not self._active():
                break
            self._m.acked += self._advance(token).matcher_tokens
            consumed += self.error is None
        self.acknowledged += consumed
        return self.error is None and consumed == len(tokens)

    def rollback(self, n: Any = None) -> None:
        """Undo the last `n` pending tokens (all pending when None); acknowledged ones stay.
        More than are pending (or a negative `n`) fails the request: the engine and the
        grammar no longer agree on the output (`n` not an integer: `invalid-argument`).
        After release it does nothing."""
        if self.released:
            return
        count = len(self._pending) if n is None else integer(n)
        if count is None or not 0 <= count <= len(self._pending):
            code, message = "rollback-past-acknowledged", f"cannot roll back {n!r} tokens: only {len(self._pending)} are unacknowledged"
            if count is None:
                code, message = "invalid-argument", f"rollback: n must be {INTEGER} or None, got {n!r}"
            self._pending.clear()
            if self.error is None:
                self._fail(code, message)
            return
        n = count
        if n == 0:
            return
        undone = self._pending[-n:]
        del self._pending[-n:]
        if self.error is not None:
            return
        self._undo(sum(u.matcher_tokens for u in undone), undone[0].gate, undone[0].answer_len)

    # -- masks -------------------------------------------------------------------------------
    def fill(self, bitmask: "torch.Tensor", row: int, drafts: Sequence[int] = (), stop_row: "torch.Tensor | None" = None) -> None:
        """Write len(drafts)+1 rows from `row`: row i is the state after the first i drafts,
        consumed temporarily (rolled back in `finally`: they become the trail). Past EOS, an id
        outside the vocabulary or a draft its row forbids, rows are stop rows."""
        import llguidance.torch as llt

        check_bitmask(bitmask, (self._tok.vocab_size + 31) // 32, exact=False)
        row = row_index(bitmask.shape[0], row, len(drafts))
        stop = stop_row if stop_row is not None else make_stop_row(self._tok.eos_ids, bitmask.shape[1])
        last = row + len(drafts)
        self.draft_ids(drafts)
        if self._active() and self._m.matcher is None and not self.ready():
            self._fail("request-not-ready", "mask requested before the grammar was compiled (poll ready() first)")
        if not self._active() or self._m.matcher is None:
            bitmask[row : last + 1] = stop  # failed or released: EOS only
            return
        gate, answer_len, consumed = self._gate, len(self._answer), 0
        try:
            for j in range(len(drafts) + 1):
                if j:
                    draft = drafts[j - 1]
                    usable = self.in_vocab(draft) and int(draft) not in self._tok.eos_ids and allows(bitmask, row + j - 1, int(draft))
                    used = self._try_consume_draft(draft) if usable else None
                    if used is None:
                        bitmask[row + j : last + 1] = stop  # past EOS or a draft its mask forbids
                        break
                    consumed += used
                if self._gate.gated:
                    bitmask[row + j] = self._gate_row(bitmask.shape[1])
                else:
                    llt.fill_next_token_bitmask(self._m.matcher, bitmask, row + j)
        finally:
            self._undo(consumed, gate, answer_len)

    def parallel_matcher(self) -> Any:
        """The matcher when llguidance can fill this request's rows itself (answer phase);
        None when the request needs `fill` (reasoning phase, failed, released or compiling).
        Its mask at its own state is right even while it has a trail; for drafts, `drafting`."""
        if self._gate.gated or not self._active():
            return None
        return self._m.matcher

    def drafting(self, drafts: list[int]) -> Any:
        """The matcher on which llguidance may consume `drafts` (valid ones, in-vocabulary
        ints) and roll them back (`fill_next_token_bitmask_par_with_draft_tokens`); only after
        `parallel_matcher` gave one. Drafts that leave the trail get a rebuilt matcher first;
        the drafts become the trail (or stay inside it)."""
        trail, n = self._m.trail, 0
        while n < len(drafts) and n < len(trail) and drafts[n] == trail[-1 - n]:
            n += 1
        if n < len(drafts) and n < len(trail):
            self._m.rebuild()
        if len(drafts) > len(self._m.trail):
            self._m.trail = drafts[::-1]
        return self._m.matcher

    def settled(self, matcher: Any) -> None:
        """`matcher` just computed the mask at its current state, after this step's drafts:
        with no forced bytes there, llguidance's one-entry mask cache now holds that state
        (parser.rs `compute_bias`), which a later state hits only by being it, so the trail
        no longer matters. With forced bytes the cache was not touched and the trail stays."""
        if self._m.trail and matcher is self._m.matcher and not matcher.compute_ff_bytes():
            self._m.trail = []

    def parallel_commit(self, tokens: Sequence[int]) -> Any:
        """The matcher when `tokens` is one token that llguidance may consume in parallel with
        other requests' (answer phase, plain in-vocabulary int, nothing pending); else None
        and the delta goes through `commit`. Follow with `committed_in_parallel`."""
        if len(tokens) != 1 or self._pending or self._gate.gated or self._m.matcher is None or not self._active():
            return None
        token = tokens[0]
        if type(token) is not int or not 0 <= token < self._tok.vocab_size:
            return None
        if self._m.trail and self._m.trail[-1] != token:
            self._m.rebuild()  # the token leaves the trail
        return self._m.matcher

    def committed_in_parallel(self, token: int) -> bool:
        """Bookkeeping once llguidance consumed `token` for `parallel_commit`: as `commit`."""
        self._m.history.append(token)
        self._m.acked += 1
        if self._m.trail:
            self._m.trail.pop()  # `parallel_commit` checked that it follows
        self._answer += self._tok.token_bytes(token)
        if self._m.matcher.is_error():
            self._matcher_failed()
            return False
        self.acknowledged += 1
        return True

    def in_vocab(self, token: int) -> bool:
        """Whether `token` is an id of this tokenizer (placeholders such as -1 are not)."""
        i = integer(token)
        return i is not None and 0 <= i < self._tok.vocab_size

    # -- internals ---------------------------------------------------------------------------
    def _active(self) -> bool:
        return self.error is None and not self.released

    def _usable(self, tokens: Sequence[int]) -> list[int] | None:
        """`tokens` as ints when accept/commit may consume them; a misuse fails the request."""
        if not self._active():
            return None
        if self._m.matcher is None and not self.ready():
            self._fail("request-not-ready", "tokens arrived before the grammar was compiled (poll ready() first)")
            return None
        if self._m.matcher is None:
            return None
        ids = [integer(t) for t in tokens]
        bad = next((n for n, i in enumerate(ids) if i is None or not 0 <= i < self._tok.vocab_size), None)
        if bad is not None:
            self._fail("invalid-token", f"tokens[{bad}] = {tokens[bad]!r} is not a token id of the vocabulary [0, {self._tok.vocab_size})")
            return None
        return ids  # type: ignore[return-value]

    def draft_ids(self, drafts: Sequence[Any]) -> list[int] | None:
        """Drafts as ints, -1 for ids outside the vocabulary (placeholders: the rows end there);
        a draft that is not an integer at all fails the request (`invalid-token`): None."""
        ids = [integer(t) for t in drafts]
        if None in ids:
            bad = ids.index(None)
            if self._active():
                self._fail("invalid-token", f"drafts[{bad}] = {drafts[bad]!r} is not {INTEGER}")
            return None
        return [i if 0 <= i < self._tok.vocab_size else -1 for i in ids]  # type: ignore[operator]

    def _advance(self, token: int) -> _Undo:
        undo = _Undo(token, 0, self._gate, len(self._answer))
        if not self._active():
            return undo
        handed = reasoning.hand_over(self._gate, self._marker, self._tok, token)
        if handed is None:
            self._fail("grammar-rejected", reasoning.SEPARATOR_REFUSED)
            return undo
        self._gate, toks, answer = handed
        if toks:
            self._m.consume(toks)
            self._answer += answer
            undo = undo._replace(matcher_tokens=len(toks))
        if self._m.matcher.is_error():  # not consume's result: a matcher in error still takes EOS
            self._matcher_failed()
        return undo

    def _try_consume_draft(self, token: int) -> int | None:
        """Consume one draft token if the grammar allows it: matcher tokens used, or None."""
        if not self.in_vocab(token):
            return None
        handed = reasoning.hand_over(self._gate, self._marker, self._tok, int(token))
        if handed is None or self._m.matcher.validate_tokens(handed[1]) < len(handed[1]):
            return None
        self._gate, toks, _ = handed
        if toks:
            self._m.consume(toks)
        return len(toks)

    def _gate_row(self, words: int) -> "torch.Tensor":
        """The row while the gate is closed (`schemac.runtime.gaterows`): the matcher has
        consumed nothing of the answer yet, so it is built once per grammar and gate position."""
        assert self._m.grammar is not None
        key = (self._marker, self._gate.reasoning, len(self._gate.tail), self._gate.gap, words)
        found = self._m.grammar.gate_rows.get(key)
        if found is None:
            from schemac.runtime.gaterows import gate_row

            found = self._m.grammar.gate_rows[key] = gate_row(self._tok, self._m.matcher, self._marker, self._gate, words)
        return found

    def _undo(self, matcher_tokens: int, gate: reasoning.GateState, answer_len: int) -> None:
        """Roll the matcher back (`MatcherTrail.rollback`), the gate and the answer with it."""
        self._m.rollback(matcher_tokens)
        self._gate = gate
        del self._answer[answer_len:]

    def _matcher_failed(self) -> None:
        """The matcher is in error. If the lexer it shares with its compiled grammar broke (an
        llguidance limit or panic), that grammar has just been evicted; the code says which."""
        assert self._m.grammar is not None
        message = self._m.matcher.get_error()
        shared = self._m.grammar.check_shared()
        if message.lstrip().startswith("panic"):
            code = "llguidance-panic"
        else:
            code = "grammar-too-complex" if shared else "grammar-rejected"
        self._fail(code, message)

    def _fail(self, code: str, message: str) -> None:
        self.error = StructuredOutputError(code, message.strip().splitlines()[0] if message.strip() else code)
        self._m.drop()
