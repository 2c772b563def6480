"""One SGLang request's schemac grammar: a `schemac.runtime.RequestState` behind SGLang 0.5.23's
`BaseGrammarObject`, following the call order of SGLang's scheduler and draft-tree walk.

What SGLang's code does with a grammar object, and what this one does in return:

- `is_terminated()` ends the request as a matched stop token whose last token the detokenizer
  drops (`Req.update_finish_state`, `DetokenizerManager.trim_matched_stop`), so it turns true
  only once EOS itself was accepted, as SGLang's own llguidance grammar does: never at the
  closing `}`, which would then be cut.
- Final validation gates EOS: a row whose answer is complete but fails `FinalValidator` (or is
  still inside the reasoning block) forbids EOS. SGLang checks a sampled EOS before the grammar
  sees it (`update_finish_state`, then `_accept_grammar_tokens`), so a forbidden EOS would
  already be a success: the mask is where the answer is judged. A "doomed" request (failed in
  the runtime, whose rows would be EOS-only, or whose grammar allows only EOS on an answer the
  schema refuses, possible only when a grammar is looser than its schema) raises ValueError
  at once without speculative decoding (SGLang's abort at its next step); with it, raising
  could reach the draft-tree walk (`traverse_tree` calls `accept_token` outside any try), so
  its rows allow one non-stop filler token and the request ends by length, never success.
- `copy()` (on the scheduler thread, per cache hit) shares the compiled grammar and creates the
  request state lazily: no compile, no wait, no matcher copy until the first token or mask.
- SGLang sets `finished` after every scheduler step (never inside the draft walk): False
  acknowledges the tokens accepted so far (no rollback reaches them any more), True releases
  the request. A grammar object dropped unfinished is released when collected.
"""
from __future__ import annotations

import weakref
from concurrent.futures import Future
from typing import TYPE_CHECKING, Any, Protocol, Sequence

from sglang.srt.constrained.base_grammar_backend import BaseGrammarObject, GrammarRow

if TYPE_CHECKING:
    import torch

    from schemac.runtime import ReasoningConfig, RequestState
    from schemac.runtime.loader import CompiledGrammar


class GrammarHost(Protocol):
    """What a grammar object asks of the backend that made it (`backend.SchemacGrammarBackend`,
    which imports this module)."""

    eos_ids: frozenset[int]
    speculative: bool
    reasoning: "ReasoningConfig | None"

    def new_state(self, compiled: "CompiledGrammar", reasoning_started: bool) -> "RequestState": ...


class SchemacGrammar(BaseGrammarObject):
    """One request (or a cache template, which never gets a state of its own)."""

    def __init__(self, backend: GrammarHost, compiled: "CompiledGrammar") -> None:
        super().__init__()
        self.backend, self.compiled = backend, compiled
        self.artifact = compiled.artifact
        self.reasoning_started = False
        self._state: "RequestState | None" = None
        self._unacked: list[int] = []  # tokens in the state since the last `finished` write
        self._acked_last: int | None = None
        self._absorbed = 0  # tokens taken after a doomed state (speculative mode only)
        self._eos = False  # EOS accepted: the grammar is terminated
        self._verdict: tuple[str, str | None] = ("\0", None)  # (answer, error) of the last check

    # -- lifecycle ---------------------------------------------------------------------------
    @property
    def state(self) -> "RequestState":
        """The request state, made on first use (never for cache templates)."""
        if self._state is None:
            self._state = self.backend.new_state(self.compiled, self.reasoning_started)
            weakref.finalize(self, self._state.release)
        return self._state

    def maybe_init_reasoning(self, reasoning: bool) -> None:
        """SGLang's per-request answer: generation starts inside the reasoning block."""
        if self._state is not None:
            raise RuntimeError("the reasoning state must be set before decoding starts")
        self.reasoning_started = bool(reasoning) and self.backend.reasoning is not None

    @property
    def finished(self) -> bool:
        return self._finished

    @finished.setter
    def finished(self, finished: bool) -> None:
        """Written by SGLang's scheduler after each step: acknowledge, or release when done."""
        self._finished = finished
        if self._state is None:
            return
        if finished:
            self._state.release()
        elif self._unacked:
            self._state.commit(self._unacked)
            self._acked_last = self._unacked[-1]
            self._unacked = []

    def copy(self) -> "SchemacGrammar":
        """A fresh request on the same compiled grammar: no compile, no wait, no matcher copy."""
        return SchemacGrammar(self.backend, self.compiled)

    # -- tokens ------------------------------------------------------------------------------
    def accept_token(self, token: int) -> None:
        """Consume a token SGLang sampled or drafted; a token the rows forbade raises ValueError."""
        if self._finished:
            return
        token = int(token)
        self.current_token = token
        state = self.state
        if self._absorbed or self._doomed():
            if not self.backend.speculative:
                self._raise(self._doomed() or "the request already failed")
            self._absorbed += 1  # never raise where the draft walk may be the caller
            return
        if token in self.backend.eos_ids:
            self._final_eos(state)
            self._eos = True
            return
        if not state.accept([token]):
            self._raise(_error_text(state) or "the grammar refused the token")
        self._unacked.append(token)
        if not self.backend.speculative and self._doomed():
            self._raise(self._doomed() or "")

    def rollback(self, k: int) -> None:
        """Undo the last `k` accepted tokens (SGLang's draft-tree walk)."""
        if k <= 0 or self._state is None:
            return
        if self._eos:
            self._eos, k = False, k - 1
        taken = min(k, self._absorbed)
        self._absorbed -= taken
        k -= taken
        if k:
            self._state.rollback(k)
            del self._unacked[-k:]
        self.current_token = self._unacked[-1] if self._unacked else self._acked_last

    def is_terminated(self) -> bool:
        """True only after EOS was accepted (then the detokenizer drops EOS, not the answer)."""
        return self._eos

    def _final_eos(self, state: "RequestState") -> None:
        """EOS ends the answer: it must be complete and pass final validation (the matcher
        never consumes it, so rollback undoes it here, as SGLang's llguidance grammar does)."""
        if not state.is_accepting():
            self._raise(_error_text(state) or (
                "EOS inside the reasoning block" if state.in_reasoning else "EOS before the answer is complete"))
        error = self._check_answer(state)
        if error:
            self._raise(error)

    def _doomed(self) -> str | None:
        """Why no valid answer can follow: the request failed (its rows would be EOS-only), or
        the grammar allows only EOS on an answer the schema refuses."""
        state = self.state
        if state.released:
            return None
        if state.error is not None:
            return str(state.error)
        if not state.terminated or not state.is_accepting():
            return None
        return self._check_answer(state)

    def _check_answer(self, state: "RequestState") -> str | None:
        """Final validation of the answer so far (the last verdict is cached)."""
        from schemac.runtime import StructuredOutputError, finalize_request

        answer = state.answer
        if self._verdict[0] != answer:
            try:
                finalize_request(state, "stop")
                self._verdict = (answer, None)
            except StructuredOutputError as exc:
                self._verdict = (answer, str(exc))
        return self._verdict[1]

    @staticmethod
    def _raise(message: str) -> None:
        raise ValueError(f"schemac: {message}")

    # -- masks -------------------------------------------------------------------------------
    def allocate_vocab_mask(self, vocab_size: int, batch_size: int, device: Any) -> "torch.Tensor":
        """All-allowed packed rows, pinned when CUDA is present (as SGLang's llguidance does)."""
        from llguidance.torch import allocate_token_bitmask

        return allocate_token_bitmask(batch_size, vocab_size)

    def fill_vocab_mask(self, vocab_mask: "torch.Tensor", idx: int) -> None:
        fill_rows([(self, idx)], vocab_mask)

    @staticmethod
    def fill_vocab_mask_batched(entries: list[GrammarRow], vocab_mask: "torch.Tensor") -> None:
        """schemac rows in one fill per backend; other grammars fill their own rows."""
        ours: list[tuple[SchemacGrammar, int]] = []
        for entry in entries:
            if isinstance(entry.grammar, SchemacGrammar):
                ours.append((entry.grammar, entry.row))
            else:
                entry.grammar.fill_vocab_mask(vocab_mask, entry.row)
        if ours:
            fill_rows(ours, vocab_mask)

    @staticmethod
    def reset_vocab_mask(vocab_mask: "torch.Tensor") -> None:
        vocab_mask.fill_(-1)

    @staticmethod
    def move_vocab_mask(vocab_mask: "torch.Tensor", device: Any) -> "torch.Tensor":
        return vocab_mask.to(device, non_blocking=True)

    @staticmethod
    def apply_vocab_mask(logits: "torch.Tensor", vocab_mask: "torch.Tensor") -> None:
        from schemac.runtime.masking import apply_token_bitmask

        apply_token_bitmask(logits, vocab_mask)

    def try_jump_forward(self, tokenizer: Any) -> None:
        """No jump-forward: every token goes through the mask."""
        return None


def fill_rows(rows: Sequence[tuple[SchemacGrammar, int]], vocab_mask: "torch.Tensor") -> None:
    """The runtime's rows (tokenizer-vocabulary wide) into `vocab_mask` (SGLang-vocabulary
    wide), grouped per backend; ids past the tokenizer's (a padded LM head) stay forbidden,
    and EOS is cleared where the answer is not a valid end (reasoning, final validation)."""
    groups: dict[int, list[tuple[SchemacGrammar, int]]] = {}
    for grammar, row in rows:
        groups.setdefault(id(grammar.backend), []).append((grammar, row))
    for group in groups.values():
        backend = group[0][0].backend
        engine = backend.engine
        words = (engine.tokenizer.vocab_size + 31) // 32
        if vocab_mask.shape[1] < words:
            raise ValueError(f"vocab mask has {vocab_mask.shape[1]} words, the tokenizer needs {words}")
        scratch = engine.allocate_bitmask(len(group))
        engine.fill(scratch, [(g.state, i, ()) for i, (g, _) in enumerate(group)])
        for i, (grammar, row) in enumerate(group):
            vocab_mask[row, :words] = scratch[i]
            vocab_mask[row, words:] = 0
            _gate_eos(grammar, vocab_mask, row)


def _gate_eos(grammar: SchemacGrammar, vocab_mask: "torch.Tensor", row: int) -> None:
    """EOS only on an answer final validation accepts; a doomed state's single token."""
    state = grammar.state
    if state.released:
        return
    backend = grammar.backend
    if grammar._absorbed or grammar._doomed():
        vocab_mask[row] = 0
        token = backend.filler_token
        vocab_mask[row, token // 32] = _bit(token)
        return
    if state.in_reasoning or (state.is_accepting() and grammar._check_answer(state)):
        for eos in backend.eos_ids:
            if eos // 32 < vocab_mask.shape[1]:
                vocab_mask[row, eos // 32] &= ~_bit(eos)


def _bit(token: int) -> int:
    """Token `token`'s bit in its int32 mask word."""
    b = 1 << (token % 32)
    return b - (1 << 32) if b >= 1 << 31 else b


def _error_text(state: "RequestState") -> str | None:
    try:
        state.check()
    except Exception as exc:  # StructuredOutputError
        return str(exc)
    return None


def done_future(value: Any) -> Future:
    """A Future already holding `value` (a request state's compiled grammar)."""
    future: Future = Future()
    future.set_result(value)
    return future
