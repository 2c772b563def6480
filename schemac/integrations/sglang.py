"""A native SGLang grammar backend: JSON-schema requests compiled and enforced by schemac.

Load it in the server process before the scheduler starts, then pick it by name:

    import schemac.integrations.sglang as s; s.register()   # e.g. in a launcher script
    python -m sglang.launch_server ... --grammar-backend schemac

`register()` calls SGLang's `register_grammar_backend("schemac", init)`. `json_schema` requests
are compiled by schemac (exact, or refused through SGLang's invalid-grammar path with schemac's
diagnostics, so the request fails instead of running unconstrained); every other kind (regex,
ebnf, structural tags) goes to SGLang's own llguidance backend. A schemac grammar object is a
`schemac.runtime` request state: tokens are consumed with `accept`, undone with `rollback`,
masks come from the runtime's fill path and are applied with `masking.apply_token_bitmask`;
when the grammar ends, the answer gets the runtime's final validation, and an invalid one
aborts the request (SGLang turns the `ValueError` into an error finish), never a success.

Masks are llguidance's packed int32 rows, one word per 32 ids of SGLang's `vocab_size`, so
schemac rows and delegated llguidance rows share one batch mask; ids at or past the
tokenizer's own vocabulary (a padded LM head) are forbidden in schemac rows.
"""
from __future__ import annotations

import logging
from functools import partial
from typing import TYPE_CHECKING, Any, Sequence

from sglang.srt.constrained.base_grammar_backend import (
    BaseGrammarBackend,
    BaseGrammarObject,
    GrammarRow,
    InvalidGrammarObject,
    register_grammar_backend,
)

if TYPE_CHECKING:
    import torch

    from schemac.artifact import Artifact
    from schemac.runtime import Engine, RequestState

logger = logging.getLogger(__name__)

NAME = "schemac"


def register(name: str = NAME, **compile_options: Any) -> None:
    """Make `--grammar-backend NAME` build a `SchemacGrammarBackend`. `compile_options` go to
    every compile (`key_order`, `upgrade_drafts`, `strict_formats`: `schemac.compile`'s own);
    SGLang's server arguments have no place for them, so they are bound here."""
    if compile_options:
        from schemac.pipeline import compile_schema

        compile_schema({}, use_cache=False, **compile_options)  # a bad option fails here, not per request
    register_grammar_backend(name, partial(init_backend, **compile_options) if compile_options else init_backend)


def init_backend(server_args: Any, tokenizer: Any, vocab_size: int, eos_token_ids: Any = None,
                 **compile_options: Any) -> "SchemacGrammarBackend":
    """SGLang's init_func signature: (server_args, tokenizer, vocab_size, eos_token_ids)."""
    if getattr(server_args, "reasoning_parser", None):
        raise ValueError(
            "--grammar-backend schemac does not run under --reasoning-parser: SGLang wraps only its "
            "built-in backends with the reasoning gate, so the grammar would constrain the reasoning text"
        )
    return SchemacGrammarBackend(
        tokenizer, vocab_size, eos_token_ids,
        any_whitespace=not getattr(server_args, "constrained_json_disable_any_whitespace", False),
        whitespace_pattern=getattr(server_args, "constrained_json_whitespace_pattern", None),
        compile_options=compile_options,
    )


class SchemacGrammarBackend(BaseGrammarBackend):
    """JSON schemas through schemac; every other request kind through SGLang's llguidance backend."""

    def __init__(self, tokenizer: Any, vocab_size: int, eos_token_ids: Any = None, *,
                 any_whitespace: bool = True, whitespace_pattern: str | None = None,
                 compile_options: dict[str, Any] | None = None) -> None:
        super().__init__()
        from sglang.srt.constrained.llguidance_backend import GuidanceBackend

        from schemac.runtime import Engine

        eos = sorted(eos_token_ids) if eos_token_ids is not None else []
        self.engine: Engine = Engine.from_hf(tokenizer, lm_head_size=vocab_size, stop_token_ids=eos)
        self.vocab_size = vocab_size
        self.compile_options = dict(compile_options or {})
        self.fallback = GuidanceBackend(tokenizer, any_whitespace=any_whitespace,
                                        whitespace_pattern=whitespace_pattern, n_vocab=vocab_size,
                                        eos_token_ids=eos_token_ids)

    def dispatch_json(self, key_string: str) -> BaseGrammarObject:
        """Compile with schemac, then for this tokenizer; any refusal is an invalid grammar."""
        from schemac.diagnostics import CompileError
        from schemac.pipeline import compile_schema

        try:
            artifact = compile_schema(key_string, **self.compile_options)
        except CompileError as exc:
            errors = [d for d in exc.diagnostics if d.severity.value == "error"] or exc.diagnostics
            message = "; ".join(f"{d.code} at {d.pointer or '/'}: {d.message}" for d in errors)
            return InvalidGrammarObject(f"schemac rejected the schema: {message}")
        try:
            self.engine.loader.submit(artifact).result()  # SGLang runs dispatch in its compile pool
        except Exception as exc:  # GrammarCompileError, or llguidance refusing this tokenizer
            return InvalidGrammarObject(f"schemac could not compile the grammar for this tokenizer: {exc}")
        return SchemacGrammar(self.engine, artifact, self.vocab_size)

    def dispatch_regex(self, key_string: str) -> BaseGrammarObject:
        return self.fallback.dispatch_regex(key_string)

    def dispatch_ebnf(self, key_string: str) -> BaseGrammarObject:
        return self.fallback.dispatch_ebnf(key_string)

    def dispatch_structural_tag(self, key_string: str) -> BaseGrammarObject:
        return self.fallback.dispatch_structural_tag(key_string)

    def initialize_vocab_mask_buffer(self, name: str, vocab_size: int, max_rows: int, device: Any) -> Any:
        return self.fallback.initialize_vocab_mask_buffer(name, vocab_size, max_rows, device)


class SchemacGrammar(BaseGrammarObject):
    """One request's grammar: a `schemac.runtime.RequestState` behind SGLang's interface."""

    def __init__(self, engine: "Engine", artifact: "Artifact", vocab_size: int) -> None:
        super().__init__()
        from schemac.runtime import RequestOptions

        self.engine, self.artifact, self.vocab_size = engine, artifact, vocab_size
        self.state: RequestState = engine.admit(artifact, RequestOptions(engine.tokenizer.fingerprint))
        self.state.wait_ready()  # the compiled grammar is cached: this is a deep copy
        self.validated = False

    # -- tokens ------------------------------------------------------------------------------
    def accept_token(self, token: int) -> None:
        """Consume a sampled token; a refused one, or an answer that fails final validation
        when the grammar ends, raises ValueError (SGLang aborts the request)."""
        if self.finished:
            return
        if not self.state.accept([token]):
            self._raise()
        if self.state.terminated:
            self._final()

    def rollback(self, k: int) -> None:
        """Undo the last `k` accepted tokens (speculative decoding)."""
        if k <= 0:
            return
        self.finished = False
        self.validated = False
        self.state.rollback(k)

    def is_terminated(self) -> bool:
        return self.state.terminated

    def _final(self) -> None:
        from schemac.runtime import StructuredOutputError, finalize_request

        if self.validated:
            return
        try:
            finalize_request(self.state, "stop")
        except StructuredOutputError as exc:
            raise ValueError(f"schemac: {exc}") from exc
        self.validated = True

    def _raise(self) -> None:
        try:
            self.state.check()
        except Exception as exc:
            raise ValueError(f"schemac: {exc}") from exc
        raise ValueError("schemac: the grammar refused the token")

    # -- masks -------------------------------------------------------------------------------
    def allocate_vocab_mask(self, vocab_size: int, batch_size: int, device: Any) -> "torch.Tensor":
        import torch

        return torch.full((batch_size, (vocab_size + 31) // 32), -1, dtype=torch.int32)

    def fill_vocab_mask(self, vocab_mask: "torch.Tensor", idx: int) -> None:
        _fill_rows(self.engine, [(self, idx)], vocab_mask)

    @staticmethod
    def fill_vocab_mask_batched(entries: list[GrammarRow], vocab_mask: "torch.Tensor") -> None:
        """schemac rows in one parallel fill per engine; delegated grammars fill their own."""
        ours: dict[int, tuple[Engine, list[tuple[SchemacGrammar, int]]]] = {}
        for entry in entries:
            grammar = entry.grammar
            if isinstance(grammar, SchemacGrammar):
                ours.setdefault(id(grammar.engine), (grammar.engine, []))[1].append((grammar, entry.row))
            else:
                grammar.fill_vocab_mask(vocab_mask, entry.row)
        for engine, rows in ours.values():
            _fill_rows(engine, rows, vocab_mask)

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

    def copy(self) -> "SchemacGrammar":
        """A fresh request on the same compiled grammar (SGLang copies pristine templates)."""
        return SchemacGrammar(self.engine, self.artifact, self.vocab_size)

    def try_jump_forward(self, tokenizer: Any) -> None:
        """No jump-forward: every token goes through the mask."""
        return None


def _fill_rows(engine: "Engine", rows: Sequence[tuple[SchemacGrammar, int]], vocab_mask: "torch.Tensor") -> None:
    """The runtime's rows (tokenizer-vocabulary wide) into `vocab_mask` (SGLang-vocabulary wide);
    words past the tokenizer's are zero: a padded LM head's extra ids are never allowed."""
    words = (engine.tokenizer.vocab_size + 31) // 32
    if vocab_mask.shape[1] < words:
        raise ValueError(f"vocab mask has {vocab_mask.shape[1]} words, the tokenizer needs {words}")
    scratch = engine.allocate_bitmask(len(rows))
    engine.fill(scratch, [(g.state, i, ()) for i, (g, _) in enumerate(rows)])
    for i, (_, row) in enumerate(rows):
        vocab_mask[row, :words] = scratch[i]
        vocab_mask[row, words:] = 0
