"""Engine-level runtime object: one per worker and tokenizer.

It holds the tokenizer adapter (fingerprint), the grammar loader with its cache, and the mask
filler. Nothing here runs for a request without constraints: the engine is touched only by
`admit` and by `fill` with a non-empty batch.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

from schemac.runtime import reasoning
from schemac.runtime.admission import RequestOptions, check_options
from schemac.runtime.batch import MaskFiller
from schemac.runtime.boundary import checked_entries
from schemac.api import AdmissionError
from schemac.runtime.loader import GrammarLoader, load_artifact
from schemac.runtime.request import RequestState
from schemac.runtime.tokenizer import TokenizerAdapter, adapt_tokenizer

if TYPE_CHECKING:
    import torch

    from schemac.artifact import Artifact


class Engine:
    """Tokenizer adapter + fingerprint + loader + compiled-grammar cache + mask filler.

    `lm_head_size` is the model's output width (may be padded past the tokenizer vocabulary);
    `config_vocab_size` is the vocabulary the deployment is configured with; `parser_limits`
    (an `llguidance.LLParserLimits`) raises llguidance's lexer/parser limits for every matcher.
    """

    def __init__(
        self,
        tokenizer: TokenizerAdapter,
        lm_head_size: int,
        config_vocab_size: int | None = None,
        cache_size: int = 64,
        threads: int | None = None,
        parser_limits: Any = None,
    ) -> None:
        self.tokenizer = tokenizer
        self.lm_head_size = lm_head_size
        self.config_vocab_size = lm_head_size if config_vocab_size is None else config_vocab_size
        self.loader = GrammarLoader(tokenizer, cache_size, limits=parser_limits)
        self.filler = MaskFiller(tokenizer.eos_ids, tokenizer.vocab_size, threads)
        self.active = 0

    @classmethod
    def from_hf(cls, hf_tokenizer: Any, lm_head_size: int, stop_token_ids: Sequence[int] = (), **kw: Any) -> "Engine":
        return cls(adapt_tokenizer(hf_tokenizer, stop_token_ids), lm_head_size, **kw)

    def admit(self, artifact: "Artifact | str | bytes", options: RequestOptions) -> RequestState:
        """Check everything that can be checked before generation, start the compile, return
        the request's state (poll `ready()` before scheduling it)."""
        self._check_vocab(options.tokenizer_fingerprint)
        check_options(options)
        loaded = load_artifact(artifact)
        gate = reasoning.GateState(False)
        if options.reasoning is not None:
            need = max(len(options.reasoning.start.encode()), len(options.reasoning.end.encode()))
            tail = self._prompt_tail(options.prompt_token_ids, need)
            gate = reasoning.initial_state(options.reasoning, tail, options.reasoning_started)
        marker = options.reasoning.end.encode() if options.reasoning else b""
        state = RequestState(loaded, self.tokenizer, self.loader.submit(loaded), gate, marker, self._released)
        self.active += 1
        return state

    def allocate_bitmask(self, rows: int) -> "torch.Tensor":
        return self.filler.allocate(rows)

    def fill(self, bitmask: "torch.Tensor", entries: "Sequence[tuple[RequestState, int, Sequence[int]]]") -> None:
        """Fill the mask rows of constrained requests; an empty batch does nothing at all.
        Rows are checked first (`schemac.runtime.boundary`): a row outside `bitmask` or two
        entries on one row raise `BoundaryError` with the bitmask untouched."""
        if entries:
            self.filler.fill(bitmask, checked_entries(bitmask, self.filler.words, entries))

    def commit(self, entries: "Sequence[tuple[RequestState, Sequence[int]]]") -> list[bool]:
        """Commit each constrained request's output delta (what `state.commit` returns, in
        order); single tokens are consumed in parallel across cores. Empty: does nothing."""
        return self.filler.commit(entries) if entries else []

    def _check_vocab(self, fingerprint: str) -> None:
        tok = self.tokenizer
        if fingerprint != tok.fingerprint:
            raise AdmissionError(
                "tokenizer-mismatch",
                f"request was prepared for tokenizer {fingerprint[:19]}…, this worker has {tok.fingerprint[:19]}…",
            )
        if self.config_vocab_size != self.lm_head_size:
            raise AdmissionError(
                "vocab-mismatch",
                f"configured vocabulary {self.config_vocab_size} differs from the LM head width {self.lm_head_size}",
            )
        if self.lm_head_size < tok.vocab_size:
            raise AdmissionError(
                "vocab-mismatch",
                f"LM head width {self.lm_head_size} is smaller than the tokenizer vocabulary {tok.vocab_size}",
            )

    def _prompt_tail(self, prompt_ids: Sequence[int], need: int) -> bytes:
        """The prompt's last bytes, enough to hold `need` bytes past trailing whitespace
        (the generation prefix decides the reasoning state; the rest of the prompt never does)."""
        tail = b""
        for token in reversed(prompt_ids):
            tail = self.tokenizer.marker_bytes(token) + tail
            if len(tail.rstrip(reasoning.JSON_WHITESPACE)) >= need:
                break
        return tail

    def _released(self, state: RequestState) -> None:
        self.active -= 1
