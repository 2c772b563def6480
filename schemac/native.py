"""llguidance calls that compile a whole grammar, run on threads with a stack of known size.

llguidance compiles Lark rules (and JSON schemas) recursively, a few KiB of native stack a level,
and schemac admits grammars up to `MAX_RULE_DEPTH` rules deep. The calling thread's stack is
not ours to know: glibc gives new threads 2 MiB when the process stack limit is unlimited, which
such a grammar overflows, a segfault that takes the whole process down. So the compiler's
whole-grammar checks, the verifier's matchers and the runtime's loader build on threads that
ask for `COMPILE_STACK` (virtual memory; only the pages a compile touches are used).
"""
from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Callable, TypeVar

__all__ = ["COMPILE_STACK", "CompileExecutor", "on_big_stack"]

#: Native stack of the threads that build grammars (64 MiB: 16x what a 1,000-rule chain needs).
COMPILE_STACK = 64 << 20
_THREAD_PREFIX = "schemac-native"
_STACK_LOCK = threading.Lock()
_POOL: tuple[int, ThreadPoolExecutor] | None = None  # (the pid that made it, the pool)
_T = TypeVar("_T")


class CompileExecutor(ThreadPoolExecutor):
    """A thread pool whose threads get `COMPILE_STACK` whatever the process default is."""

    def _adjust_thread_count(self) -> None:  # where ThreadPoolExecutor starts a worker thread
        with _STACK_LOCK:
            previous = threading.stack_size(COMPILE_STACK)
            try:
                super()._adjust_thread_count()  # type: ignore[misc]
            finally:
                threading.stack_size(previous)


def on_big_stack(fn: Callable[..., _T], *args: object) -> _T:
    """`fn(*args)` on a `COMPILE_STACK` thread (directly when already on one); its exceptions
    propagate to the caller."""
    global _POOL
    if threading.current_thread().name.startswith(_THREAD_PREFIX):
        return fn(*args)
    with _STACK_LOCK:
        if _POOL is None or _POOL[0] != os.getpid():  # a forked child has the pool but not its threads
            _POOL = (os.getpid(), CompileExecutor(max_workers=4, thread_name_prefix=_THREAD_PREFIX))
        pool = _POOL[1]
    return pool.submit(fn, *args).result()
