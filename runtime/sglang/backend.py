"""A native SGLang grammar backend: JSON-schema requests compiled and enforced by schemac.

Load it in the server process before the arguments are parsed, then pick it by name:

    import schemac.runtime.sglang.backend as s; s.register()   # e.g. in a launcher script
    python -m sglang.launch_server ... --grammar-backend schemac [--reasoning-parser NAME]

`register()` calls SGLang's `register_grammar_backend` and extends the `--grammar-backend`
choices through SGLang's own `add_grammar_backend_choices`. `json_schema` requests are compiled
by schemac (exact, or refused through SGLang's invalid-grammar path with schemac's
diagnostics, so the request fails instead of running unconstrained); every other kind (regex,
ebnf, structural tags) goes to SGLang's own llguidance backend. The grammar objects are in
`schemac.runtime.sglang.grammar` (termination, final validation, copies, release).

SGLang wraps only its built-in backends in its reasoning gate, so under `--reasoning-parser`
this backend gates itself: schemac requests through the runtime's own gate (free text until
the parser's end marker, matched on bytes), the delegated kinds through SGLang's
`ReasonerGrammarBackend` around its llguidance backend.

SGLang's grammar cache (templates, copied per cache hit) is bounded here (LRU, `cache_size`
entries, as schemac's loader); a template holds its compiled grammar, so a hit never compiles,
whatever the loader has evicted.

Masks are llguidance's packed int32 rows, one word per 32 ids of SGLang's `vocab_size`, so
schemac rows and delegated llguidance rows share one batch mask; ids at or past the
tokenizer's own vocabulary (a padded LM head) are forbidden in schemac rows.
"""
from __future__ import annotations

import logging
from collections import OrderedDict
from functools import partial
from typing import TYPE_CHECKING, Any

from sglang.srt.constrained.base_grammar_backend import (
    BaseGrammarBackend,
    BaseGrammarObject,
    InvalidGrammarObject,
    register_grammar_backend,
)

from schemac.runtime.sglang.grammar import SchemacGrammar, done_future

if TYPE_CHECKING:
    from schemac.runtime import Engine, ReasoningConfig, RequestState
    from schemac.runtime.loader import CompiledGrammar

logger = logging.getLogger(__name__)

NAME = "schemac"
CACHE_SIZE = 64


def register(name: str = NAME, *, cache_size: int = CACHE_SIZE, **compile_options: Any) -> None:
    """Make `--grammar-backend NAME` a valid choice that builds a `SchemacGrammarBackend`.
    `compile_options` go to every compile (`key_order`, `upgrade_drafts`, `strict_formats`:
    `schemac.compile`'s own); SGLang's server arguments have no place for them, so they are
    bound here. `cache_size` bounds SGLang's grammar cache for this backend."""
    from sglang.srt.server_args import GRAMMAR_BACKEND_CHOICES, add_grammar_backend_choices

    if cache_size < 1:
        raise ValueError("cache_size must be >= 1")
    if compile_options:
        from schemac.pipeline import compile_schema

        compile_schema({}, use_cache=False, **compile_options)  # a bad option fails here, not per request
    if name not in GRAMMAR_BACKEND_CHOICES:
        add_grammar_backend_choices([name])
    register_grammar_backend(name, partial(init_backend, cache_size=cache_size, **compile_options))


def init_backend(server_args: Any, tokenizer: Any, vocab_size: int, eos_token_ids: Any = None,
                 cache_size: int = CACHE_SIZE, **compile_options: Any) -> "SchemacGrammarBackend":
    """SGLang's init_func signature: (server_args, tokenizer, vocab_size, eos_token_ids)."""
    return SchemacGrammarBackend(
        tokenizer, vocab_size, eos_token_ids,
        any_whitespace=not getattr(server_args, "constrained_json_disable_any_whitespace", False),
        whitespace_pattern=getattr(server_args, "constrained_json_whitespace_pattern", None),
        reasoning_parser=getattr(server_args, "reasoning_parser", None),
        speculative=getattr(server_args, "speculative_algorithm", None) is not None,
        cache_size=cache_size,
        compile_options=compile_options,
    )


class SchemacGrammarBackend(BaseGrammarBackend):
    """JSON schemas through schemac; every other request kind through SGLang's llguidance backend."""

    def __init__(self, tokenizer: Any, vocab_size: int, eos_token_ids: Any = None, *,
                 any_whitespace: bool = True, whitespace_pattern: str | None = None,
                 reasoning_parser: str | None = None, speculative: bool = False,
                 cache_size: int = CACHE_SIZE, compile_options: dict[str, Any] | None = None) -> None:
        super().__init__()
        from schemac.runtime import Engine

        self.cache: OrderedDict[tuple[str, str], BaseGrammarObject] = OrderedDict()
        self.cache_size = cache_size
        eos = sorted(eos_token_ids) if eos_token_ids is not None else []
        self.engine: Engine = Engine.from_hf(tokenizer, lm_head_size=vocab_size, stop_token_ids=eos)
        if vocab_size < self.engine.tokenizer.vocab_size:
            raise ValueError(f"the model's vocabulary ({vocab_size}) is smaller than its tokenizer's "
                             f"({self.engine.tokenizer.vocab_size}): schemac's masks would not fit")
        self.eos_ids = frozenset(self.engine.tokenizer.eos_ids)
        self.filler_token = next(t for t in range(self.engine.tokenizer.vocab_size) if t not in self.eos_ids)
        self.vocab_size = vocab_size
        self.speculative = speculative
        self.compile_options = dict(compile_options or {})
        self.live = 0  # request states made and not yet released
        self.fallback: BaseGrammarBackend = _guidance_backend()(
            tokenizer, any_whitespace=any_whitespace, whitespace_pattern=whitespace_pattern,
            n_vocab=vocab_size, eos_token_ids=eos_token_ids)
        self.reasoning: ReasoningConfig | None = None
        if reasoning_parser:
            self.reasoning, self.fallback = _reasoning(reasoning_parser, tokenizer, self.fallback)

    # -- SGLang's cache, bounded -----------------------------------------------------------
    def get_cached_or_future_value(self, key: tuple[str, str], require_reasoning: bool) -> Any:
        if key in self.cache:
            self.cache.move_to_end(key)
        return super().get_cached_or_future_value(key, require_reasoning)

    def set_cache(self, key: tuple[str, str], value: BaseGrammarObject) -> None:
        super().set_cache(key, value)
        self.cache.move_to_end(key)
        while len(self.cache) > self.cache_size:
            self.cache.popitem(last=False)

    # -- dispatch ----------------------------------------------------------------------------
    def _init_value_dispatch(self, key: tuple[str, str], require_reasoning: bool) -> BaseGrammarObject:
        """JSON schemas here (with the request's reasoning start), the rest to the fallback."""
        if key[0] != "json":
            return self.fallback._init_value_dispatch(key, require_reasoning)
        grammar = super()._init_value_dispatch(key, require_reasoning)
        if isinstance(grammar, SchemacGrammar):
            grammar.maybe_init_reasoning(require_reasoning)
        return grammar

    def dispatch_json(self, key_string: str) -> BaseGrammarObject:
        """Compile with schemac, then for this tokenizer (in SGLang's compile pool); any
        refusal is an invalid grammar."""
        from schemac.diagnostics import CompileError
        from schemac.pipeline import compile_schema

        try:
            artifact = compile_schema(key_string, **self.compile_options)
        except CompileError as exc:
            errors = [d for d in exc.diagnostics if d.severity.value == "error"] or exc.diagnostics
            message = "; ".join(f"{d.code} at {d.pointer or '/'}: {d.message}" for d in errors)
            return InvalidGrammarObject(f"schemac rejected the schema: {message}")
        try:
            compiled = self.engine.loader.submit(artifact).result()
        except Exception as exc:  # GrammarCompileError, or llguidance refusing this tokenizer
            return InvalidGrammarObject(f"schemac could not compile the grammar for this tokenizer: {exc}")
        return SchemacGrammar(self, compiled)

    def new_state(self, compiled: "CompiledGrammar", reasoning_started: bool) -> "RequestState":
        """A request state on an already compiled grammar (no loader, no wait); a grammar whose
        shared lexer broke is recompiled by the state itself, off this thread."""
        from schemac.runtime import RequestState
        from schemac.runtime.reasoning import GateState

        marker = self.reasoning.end.encode() if self.reasoning is not None else b""
        gate = GateState(reasoning_started and self.reasoning is not None)
        self.live += 1
        return RequestState(compiled.artifact, self.engine.tokenizer, done_future(compiled), gate, marker,
                            self._released)

    def _released(self, state: "RequestState") -> None:
        self.live -= 1

    def initialize_vocab_mask_buffer(self, name: str, vocab_size: int, max_rows: int, device: Any) -> Any:
        return self.fallback.initialize_vocab_mask_buffer(name, vocab_size, max_rows, device)


def _guidance_backend() -> type:
    """SGLang's llguidance backend with the mask functions its `ReasonerGrammarBackend` reads
    from the backend it wraps (0.5.23's `GuidanceBackend` lacks them: `--grammar-backend
    llguidance --reasoning-parser` fails its first grammar request with an AttributeError)."""
    from llguidance.torch import allocate_token_bitmask
    from sglang.srt.constrained.llguidance_backend import GuidanceBackend, GuidanceGrammar

    class Fallback(GuidanceBackend):
        def allocate_vocab_mask(self, vocab_size: int, batch_size: int, device: Any) -> Any:
            return allocate_token_bitmask(batch_size, self.llguidance_tokenizer.vocab_size)

        move_vocab_mask = staticmethod(GuidanceGrammar.move_vocab_mask)
        apply_vocab_mask = staticmethod(GuidanceGrammar.apply_vocab_mask)

    return Fallback


def _reasoning(parser_name: str, tokenizer: Any, fallback: BaseGrammarBackend) -> tuple["ReasoningConfig", BaseGrammarBackend]:
    """The parser's inline markers for schemac's gate, and SGLang's own gate around the fallback."""
    from sglang.srt.constrained.reasoner_grammar_backend import ReasonerGrammarBackend
    from sglang.srt.parser.reasoning_parser import ReasoningParser

    from schemac.runtime import ReasoningConfig

    parser = ReasoningParser(model_type=parser_name, stream_reasoning=False, tokenizer=tokenizer)
    detector = parser.detector
    start = getattr(detector, "think_start_token", None) or ""
    end = getattr(detector, "think_end_token", None) or ""
    config = ReasoningConfig(start=start, end=end)
    problem = ""
    try:
        config.check()
    except Exception as exc:
        problem = str(exc)
    if not problem and (ReasoningParser(model_type=parser_name, stream_reasoning=False, tokenizer=tokenizer)
                        .parse_non_stream(f"{start}x{end}{{}}")[1] or "").strip() != "{}":
        problem = f"its parser does not read the text after {end!r} as the answer"
    if not problem and detector.get_answer_frame() is not None:
        problem = "its answer is framed by message kinds"
    if not problem and list(detector.get_think_end_token_ids(tokenizer)) != list(
            tokenizer.encode(end, add_special_tokens=False)):
        problem = f"its reasoning ends at other tokens than {end!r}"
    if problem:
        raise ValueError(f"--grammar-backend schemac cannot gate --reasoning-parser {parser_name}: it needs "
                         f"one inline start/end marker pair ({problem})")
    return config, ReasonerGrammarBackend(fallback, parser, tokenizer)


