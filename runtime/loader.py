"""Artifact loader and bounded cache of compiled grammars.

Compiling a grammar for a tokenizer (building its lexer) can take 100 ms+ for large schemas,
so it runs in a background executor; admission gets a Future and polls it. The lock guards
only the cache dict, never a wait. A cached entry is a pristine matcher that each request
deep-copies (about a microsecond), so a request keeps working after its entry is evicted.
"""
from __future__ import annotations

import threading
from collections import OrderedDict
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from typing import Any

from schemac.artifact import LLGUIDANCE_VERSION, Artifact, ArtifactError
from schemac.runtime.errors import AdmissionError
from schemac.runtime.tokenizer import TokenizerAdapter


def load_artifact(source: "Artifact | str | bytes") -> Artifact:
    """An Artifact from an object or its JSON text, with format/llguidance versions checked."""
    import llguidance

    try:
        artifact = source if isinstance(source, Artifact) else Artifact.loads(
            source.decode("utf-8") if isinstance(source, bytes) else source
        )
    except (ArtifactError, UnicodeDecodeError) as exc:
        raise AdmissionError("artifact-invalid", str(exc)) from exc
    if artifact.llguidance_version != LLGUIDANCE_VERSION or llguidance.__version__ != LLGUIDANCE_VERSION:
        raise AdmissionError(
            "artifact-version",
            f"artifact built for llguidance {artifact.llguidance_version}, runtime has {llguidance.__version__}",
        )
    return artifact


class GrammarLoader:
    """Compiles artifact grammars for one tokenizer; keeps at most `capacity` of them."""

    def __init__(self, tokenizer: TokenizerAdapter, capacity: int = 64, executor: Executor | None = None) -> None:
        if capacity < 1:
            raise ValueError("capacity must be >= 1")
        self._tokenizer = tokenizer
        self._capacity = capacity
        self._executor = executor
        self._lock = threading.Lock()
        self._cache: "OrderedDict[str, Future[Any]]" = OrderedDict()

    def submit(self, artifact: Artifact) -> "Future[Any]":
        """Future of the compiled (pristine) matcher for `artifact`; never blocks."""
        with self._lock:
            future = self._cache.get(artifact.key)
            if future is not None:
                self._cache.move_to_end(artifact.key)
                return future
            if self._executor is None:
                self._executor = ThreadPoolExecutor(max_workers=2, thread_name_prefix="schemac-compile")
            future = self._executor.submit(_compile, self._tokenizer.ll, artifact.grammar)
            self._cache[artifact.key] = future
            while len(self._cache) > self._capacity:
                self._cache.popitem(last=False)
            return future

    def __contains__(self, key: str) -> bool:
        with self._lock:
            return key in self._cache

    def __len__(self) -> int:
        with self._lock:
            return len(self._cache)

    def shutdown(self) -> None:
        if self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)


def _compile(ll_tokenizer: Any, grammar: str) -> Any:
    import llguidance

    matcher = llguidance.LLMatcher(ll_tokenizer, grammar, log_level=0)
    if matcher.is_error():
        raise GrammarCompileError(matcher.get_error())
    return matcher


class GrammarCompileError(RuntimeError):
    """llguidance refused the grammar for this tokenizer (limits, malformed grammar)."""
