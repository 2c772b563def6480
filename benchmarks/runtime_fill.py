"""Mask-fill cost of schemac.runtime vs raw llguidance parallel fill, same run, same batch.

64 constrained requests on the 131k tekken vocabulary, each following a valid answer from
shared/conformance/maskbench token by token. Per step we time Engine.fill (rows + bookkeeping)
and llguidance.torch.fill_next_token_bitmask_par on twin matchers, alternating which goes
first. Then shows that a batch without constrained requests allocates and calls nothing.

    python benchmarks/runtime_fill.py [--requests 64] [--steps 48] [--vocab N]
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
import tracemalloc
from pathlib import Path

MASKBENCH = Path(__file__).resolve().parents[2] / "shared" / "conformance" / "maskbench"


def workloads(tok, limit: int):
    """(artifact, token path) pairs whose valid instance the compiled grammar accepts."""
    import llguidance

    import schemac

    found = []
    for path in sorted(MASKBENCH.glob("*.json")):
        case = json.loads(path.read_text())
        try:
            art = schemac.compile(case["schema"])
        except Exception:  # noqa: BLE001 - rejected schemas are simply not part of the workload
            continue
        for test in case["tests"]:
            if not test["valid"]:
                continue
            ids = tok.hf.encode(json.dumps(test["data"], ensure_ascii=False), add_special_tokens=False)
            m = llguidance.LLMatcher(tok.ll, art.grammar, log_level=0)
            if len(ids) >= 8 and m.consume_tokens(ids) and m.is_accepting():
                found.append((art, ids))
                break
        if len(found) >= limit:
            break
    return found


class _Tok:
    def __init__(self, hf, adapter):
        self.hf, self.ll = hf, adapter.ll


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--requests", type=int, default=64)
    ap.add_argument("--steps", type=int, default=48)
    ap.add_argument("--vocab", type=int, default=None, help="truncate tekken (default: full 131k)")
    args = ap.parse_args()

    import llguidance
    import llguidance.torch as llt

    from schemac.runtime import Engine, RequestOptions, tekken_tokenizer

    t0 = time.perf_counter()
    hf = tekken_tokenizer(vocab_size=args.vocab)
    engine = Engine.from_hf(hf, lm_head_size=len(hf))
    print(f"tokenizer: tekken, vocab {engine.tokenizer.vocab_size}, adapter built in {time.perf_counter() - t0:.1f}s")
    work = workloads(_Tok(hf, engine.tokenizer), 32)
    if not work:
        sys.exit("no maskbench schema compiled; is shared/ beside the repo?")
    reqs = [work[i % len(work)] for i in range(args.requests)]
    print(f"workload: {args.requests} requests over {len(work)} maskbench schemas")

    states = [engine.admit(a, RequestOptions(engine.tokenizer.fingerprint)) for a, _ in reqs]
    for s in states:
        s.wait_ready()
    raw = [llguidance.LLMatcher(engine.tokenizer.ll, a.grammar, log_level=0) for a, _ in reqs]
    executor = llguidance.LLExecutor()
    bm_rt = engine.allocate_bitmask(len(states))
    bm_raw = llt.allocate_token_bitmask(len(raw), engine.tokenizer.vocab_size)

    t_rt: list[float] = []
    t_raw: list[float] = []
    for step in range(args.steps):
        live = [i for i, (_, ids) in enumerate(reqs) if step < len(ids)]
        if not live:
            break
        entries = [(states[i], i, ()) for i in live]
        pairs = [(raw[i], i) for i in live]
        for first in ((0, 1) if step % 2 else (1, 0)):
            t = time.perf_counter()
            if first:
                engine.fill(bm_rt, entries)
                t_rt.append(time.perf_counter() - t)
            else:
                llt.fill_next_token_bitmask_par(executor, pairs, bm_raw)
                t_raw.append(time.perf_counter() - t)
        for i in live:
            assert states[i].commit([reqs[i][1][step]])
            raw[i].consume_token(reqs[i][1][step])
        assert all(bool((bm_rt[i] == bm_raw[i]).all()) for i in live), "runtime and raw rows differ"

    rt, rw = statistics.median(t_rt), statistics.median(t_raw)
    print(f"steps: {len(t_rt)}   median fill per step: runtime {rt * 1e3:.3f} ms, raw llguidance {rw * 1e3:.3f} ms")
    print(f"ratio runtime/raw: {rt / rw:.3f}x (goal <= 1.1x); mean {statistics.mean(t_rt) / statistics.mean(t_raw):.3f}x")

    # A batch with no constrained requests: nothing allocated, nothing called.
    calls: list[str] = []

    def prof(frame, event, arg):  # noqa: ANN001
        if event in ("call", "c_call"):
            calls.append(getattr(arg, "__qualname__", None) or frame.f_code.co_qualname)

    tracemalloc.start()
    before = tracemalloc.take_snapshot()
    sys.setprofile(prof)
    engine.fill(bm_rt, [])
    sys.setprofile(None)
    after = tracemalloc.take_snapshot()
    tracemalloc.stop()
    grown = sum(d.size_diff for d in after.compare_to(before, "filename") if "schemac" in d.traceback[0].filename or "llguidance" in d.traceback[0].filename or "torch" in d.traceback[0].filename)
    inner = [c for c in calls if c not in ("Engine.fill", "setprofile")]
    print(f"unconstrained batch: calls beyond Engine.fill itself: {len(inner)} {inner[:5]}, bytes allocated by runtime/llguidance/torch: {grown}")
    for s in states:
        s.release()


if __name__ == "__main__":
    main()
