"""Artifact loader and bounded cache of compiled grammars.

Compiling a grammar for a tokenizer (building its lexer) can take 100 ms+ for large schemas,
so it runs in a background executor; admission gets a Future and polls it. The lock guards
only the cache dict, never a wait. A cached entry is a pristine matcher that each request
deep-copies (about a microsecond), so a request keeps working after its entry is evicted.

Copies share the pristine matcher's lexer, whose regex derivatives llguidance builds lazily,
and a lexer limit hit by one request ("too many expressions constructed") leaves that shared
lexer failing for good. A request whose matcher fails asks its `CompiledGrammar` to check; a
broken one is evicted, so later requests recompile instead of all failing on their first mask.
"""
from __future__ import annotations

import threading
from collections import OrderedDict
from concurrent.futures import Executor, Future
from typing import Any

from schemac.artifact import Artifact, ArtifactError, check_unicode_version
from schemac.llguidance_range import LLGuidanceVersionError, check_runtime
from schemac.native import CompileExecutor
from schemac.api import AdmissionError
from schemac.runtime.tokenizer import TokenizerAdapter


def load_artifact(source: "Artifact | str | bytes") -> Artifact:
    """An Artifact from an object or its JSON text, with format/llguidance/Unicode versions checked."""
    try:
        artifact = source if isinstance(source, Artifact) else Artifact.loads(
            source.decode("utf-8") if isinstance(source, bytes) else source
        )
        check_unicode_version(artifact.unicode_version)  # an object may come unpickled from another Python
    except (ArtifactError, UnicodeDecodeError) as exc:
        raise AdmissionError("artifact-invalid", str(exc)) from exc
    try:
        check_runtime(artifact.llguidance_version)  # enforced only on the release that compiled it
    except LLGuidanceVersionError as exc:
        raise AdmissionError("artifact-version", str(exc)) from exc
    return artifact


class GrammarLoader:
    """Compiles artifact grammars for one tokenizer; keeps at most `capacity` of them."""

    def __init__(
        self,
        tokenizer: TokenizerAdapter,
        capacity: int = 64,
        executor: Executor | None = None,
        limits: Any = None,
    ) -> None:
        """`limits`: an `llguidance.LLParserLimits` for every matcher (None: llguidance's defaults).
        An `executor` of one's own must give its threads a large stack (`schemac.native`)."""
        if capacity < 1:
            raise ValueError("capacity must be >= 1")
        self._tokenizer = tokenizer
        self._capacity = capacity
        self._executor = executor
        self._limits = limits
        self._lock = threading.Lock()
        self._cache: "OrderedDict[str, Future[CompiledGrammar]]" = OrderedDict()

    def submit(self, artifact: Artifact) -> "Future[CompiledGrammar]":
        """Future of the compiled grammar (pristine matcher) for `artifact`; never blocks."""
        with self._lock:
            future = self._cache.get(artifact.key)
            if future is not None:
                self._cache.move_to_end(artifact.key)
                return future
            if self._executor is None:
                self._executor = CompileExecutor(max_workers=2, thread_name_prefix="schemac-compile")
            future = self._executor.submit(self._build, artifact)
            self._cache[artifact.key] = future
            while len(self._cache) > self._capacity:
                self._cache.popitem(last=False)
            return future

    def evict(self, grammar: "CompiledGrammar") -> None:
        """Drop `grammar`'s cache entry, unless it already holds a newer compile."""
        key = grammar.artifact.key
        with self._lock:
            if _built(self._cache.get(key)) is grammar:
                del self._cache[key]

    def __contains__(self, key: str) -> bool:
        with self._lock:
            return key in self._cache

    def __len__(self) -> int:
        with self._lock:
            return len(self._cache)

    def shutdown(self) -> None:
        if self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)

    def _build(self, artifact: Artifact) -> "CompiledGrammar":
        import llguidance

        matcher = llguidance.LLMatcher(self._tokenizer.ll, artifact.grammar, log_level=0, limits=self._limits)
        if matcher.is_error():
            raise GrammarCompileError(matcher.get_error())
        return CompiledGrammar(artifact, matcher, self)


def _built(future: "Future[CompiledGrammar] | None") -> "CompiledGrammar | None":
    """A finished compile's grammar; None when absent, still compiling, failed or cancelled."""
    if future is None or not future.done() or future.cancelled() or future.exception() is not None:
        return None
    return future.result()


class CompiledGrammar:
    """An artifact's pristine matcher for one tokenizer; each request works on a deep copy."""

    def __init__(self, artifact: Artifact, matcher: Any, loader: GrammarLoader) -> None:
        self.artifact = artifact
        self.matcher = matcher
        self.broken = ""  # the shared lexer's error once `check_shared` found it
        # rows at the answer's start behind the reasoning gate, shared by this grammar's
        # requests (schemac.runtime.gaterows): (marker, gate position, words) -> row
        self.gate_rows: dict[tuple[Any, ...], Any] = {}
        self._loader = loader

    def copy(self) -> Any:
        """A request's matcher. The pristine one never consumes a token, so every copy starts
        with a valid mask cache (llguidance's cache outlives rollback: see request.py)."""
        return self.matcher.deep_copy()

    def check_shared(self) -> bool:
        """After a copy's matcher failed: whether the lexer it shares with us is broken (then
        this grammar leaves the cache). The probe, one mask from a fresh copy, runs only on
        failures: a broken shared lexer fails it at once, a request's own error does not."""
        if not self.broken:
            probe = self.matcher.deep_copy()
            probe.compute_bitmask()
            if probe.is_error():
                self.broken = probe.get_error()
                self._loader.evict(self)
        return bool(self.broken)

    def recompile(self) -> "Future[CompiledGrammar]":
        """A fresh compile when this one is broken (or the cache's newer one)."""
        return self._loader.submit(self.artifact)


class GrammarCompileError(RuntimeError):
    """llguidance refused the grammar for this tokenizer (limits, malformed grammar)."""
