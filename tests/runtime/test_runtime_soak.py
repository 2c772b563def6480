"""Runtime soak (CI slice): requests admitted, cancelled at random points (mid-draft too) and
completed across threads; no matcher leaks and memory stays flat. CI runs 600 requests; the
full soak is `SCHEMAC_SOAK_REQUESTS=10000 python3 -m pytest -s tests/runtime/test_runtime_soak.py` (`-s` shows
its figures: requests, completions, traced-memory growth, live states, seconds)."""
from __future__ import annotations

import gc
import json
import os
import random
import threading
import time
import tracemalloc
import weakref
from functools import lru_cache
from typing import Any

import schemac
from schemac.runtime import Engine, RequestOptions, tekken_tokenizer

VOCAB = 1000 + 3000
SCHEMAS = [
    {"type": "object", "properties": {"n": {"type": "integer"}, "t": {"enum": ["a", "b"]}}, "required": ["n", "t"],
     "additionalProperties": False},
    {"type": "array", "items": {"type": "boolean"}, "maxItems": 4},
    {"type": "string", "maxLength": 8},
]


@lru_cache(maxsize=None)
def engine() -> Engine:
    return Engine.from_hf(tekken_tokenizer(vocab_size=VOCAB), lm_head_size=VOCAB)


def _drive(eng: Engine, artifacts: list[Any], n: int, seed: int, refs: list[Any]) -> int:
    import numpy as np

    rng = random.Random(seed)
    done = 0
    for _ in range(n):
        state = eng.admit(rng.choice(artifacts), RequestOptions(eng.tokenizer.fingerprint))
        state.wait_ready(30)
        refs.append(weakref.ref(state))
        cancel_at = rng.randrange(12)
        bm = eng.allocate_bitmask(3)
        for step in range(40):
            if step == cancel_at and rng.random() < 0.5:
                break  # cancelled between steps
            if state.terminated or state.is_accepting() and rng.random() < 0.3:
                done += 1
                break
            drafts = [rng.randrange(VOCAB) for _ in range(rng.randrange(3))]
            state.fill(bm, 0, drafts)
            if step == cancel_at:
                break  # cancelled right after a mid-draft fill
            row = np.unpackbits(bm[0].numpy().view(np.uint8), bitorder="little")[:VOCAB]
            allowed = np.flatnonzero(row)
            if not len(allowed):
                break
            token = int(allowed[rng.randrange(len(allowed))])
            state.accept([token])
            if rng.random() < 0.2:
                state.rollback(1)
            else:
                state.commit([token])
        state.release()
        state.release()  # idempotent
    return done


def _soak(n_per_thread: int, threads: int) -> tuple[int, list[Any]]:
    eng = engine()
    artifacts = [schemac.compile(s) for s in SCHEMAS]
    refs: list[Any] = []
    done = [0] * threads

    def work(i: int) -> None:
        done[i] = _drive(eng, artifacts, n_per_thread, i, refs)

    ts = [threading.Thread(target=work, args=(i,)) for i in range(threads)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    return sum(done), refs


def test_soak_no_leaks_and_flat_memory() -> None:
    eng = engine()
    _soak(30, 2)  # warm caches and allocators
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    started = time.perf_counter()
    requests = int(os.environ.get("SCHEMAC_SOAK_REQUESTS", "600")) // 4 * 4
    completed, refs = _soak(requests // 4, 4)
    gc.collect()
    live = sum(r() is not None for r in refs)
    del refs  # the weakrefs themselves (~80 B a request) are the probe, not the runtime's memory
    gc.collect()
    after, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(json.dumps({"requests": requests, "completed": completed, "traced_growth_bytes": after - before,
                      "traced_peak_bytes": peak - before, "live_states": live, "active": eng.active,
                      "seconds": round(time.perf_counter() - started, 1)}))
    assert eng.active == 0
    assert live == 0  # every RequestState (and its matcher) freed
    assert after - before < 2 * 1024 * 1024, after - before
