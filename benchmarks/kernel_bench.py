"""Masking-kernel benchmark and GPU correctness check (needs a CUDA GPU).

    python3 benchmarks/kernel_bench.py [--check] [--sweep] [--json OUT.json] [--quick]

Timings are medians of CUDA-event-timed CUDA-graph replays (32 launches per graph, per-launch
time reported), for the schemac kernel against (a) the plain torch path (unpack bits +
masked_fill_, i.e. ``apply_token_bitmask_reference``), (b) XGrammar's Triton kernel (its file
is loaded from the installed wheel by path; the package's native extension is not needed),
(c) the write roofline: ``fill_(-inf)`` of the same rows. ``hot`` replays one logits buffer
(it may stay in L2, like logits the LM head just wrote); ``cold`` rotates over buffers worth
3x the L2 so that writes reach HBM. Density = fraction of allowed tokens (random bits).

``--check`` runs the kernel against the CPU reference (whole storage compared, random logits)
and the CUDA event/stream protocol of ``MaskBuffers``/``TokenCopier``, with negative controls
that remove one protection to show the race is real. ``--sweep`` times (columns per program,
num_warps) choices and the run-1 store-only design.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import statistics
import sys
import time
from pathlib import Path
from typing import Any, Callable

import torch

ROOT = Path(__file__).resolve().parents[1]
LAUNCHES = 32
L2_BYTES = 60 * 2**20
DEVICE = "cuda"


def _import_runtime() -> Any:
    """Import schemac.runtime whether or not the repo is installed (runtime/ is its source)."""
    try:
        import schemac.runtime.masking  # noqa: F401
    except ImportError:
        sys.path.insert(0, str(ROOT))
        import schemac  # noqa: F401

        spec = importlib.util.spec_from_file_location(
            "schemac.runtime", ROOT / "runtime" / "__init__.py", submodule_search_locations=[str(ROOT / "runtime")]
        )
        assert spec and spec.loader
        module = importlib.util.module_from_spec(spec)
        sys.modules["schemac.runtime"] = module
        spec.loader.exec_module(module)
    import schemac.runtime.masking as masking

    return masking


def _load_xgrammar() -> Callable[..., None] | None:
    for entry in sys.path:
        path = Path(entry or ".") / "xgrammar" / "kernels" / "apply_token_bitmask_inplace_triton.py"
        if path.is_file():
            spec = importlib.util.spec_from_file_location("xgrammar_triton_kernel", path)
            assert spec and spec.loader
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            return module.apply_token_bitmask_inplace_triton
    return None


masking = _import_runtime()
from schemac.runtime.buffers import MaskBuffers, TokenCopier  # noqa: E402
from schemac.runtime.triton.bitmask import launch  # noqa: E402


def store_only_kernel() -> Any:
    """The run-1 design, kept for comparison: masked scalar stores of -inf, logits never read.

    Lanes of a warp cover the 32 bits of one word (col stride left unspecialised so that
    Triton does not give each thread 8 adjacent columns).
    """
    import triton
    import triton.language as tl

    @triton.jit(do_not_specialize=["col_stride"])
    def store_only(logits_ptr, mask_ptr, row_stride, col_stride, mask_stride, n_cols, vocab_size, n_words, BLOCK_WORDS: tl.constexpr):
        j = tl.program_id(0)
        words_idx = tl.program_id(1) * BLOCK_WORDS + tl.arange(0, BLOCK_WORDS)
        words = tl.load(mask_ptr + j * mask_stride + words_idx, mask=words_idx < n_words, other=0)
        bits = tl.arange(0, 32)
        cols = words_idx[None, :] * 32 + bits[:, None]
        forbidden = (((words[None, :] >> bits[:, None]) & 1) == 0) | (cols >= vocab_size)
        ptrs = logits_ptr + j.to(tl.int64) * row_stride + cols * col_stride
        tl.store(ptrs, float("-inf"), mask=forbidden & (cols < n_cols))

    return store_only


def time_graph(calls: list[Callable[[], None]], reps: int = 25) -> float:
    """Median microseconds per call of ``LAUNCHES`` calls (cycling ``calls``) replayed as one graph."""
    for call in calls:
        call()
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for call in calls:
            call()
    torch.cuda.current_stream().wait_stream(side)
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for i in range(LAUNCHES):
            calls[i % len(calls)]()
    graph.replay()
    torch.cuda.synchronize()
    events = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(reps)]
    for start, end in events:
        start.record()
        graph.replay()
        end.record()
    torch.cuda.synchronize()
    del graph
    return statistics.median(s.elapsed_time(e) for s, e in events) * 1000 / LAUNCHES


def random_mask(rows: int, vocab: int, density: float) -> torch.Tensor:
    return masking.pack_bitmask(torch.rand(rows, vocab, device=DEVICE) < density)


def bench_config(dtype: torch.dtype, vocab: int, batch: int, density: float, cold: bool, xgr: Any) -> dict[str, Any]:
    row_bytes = vocab * torch.finfo(dtype).bits // 8
    n_buf = min(LAUNCHES, max(1, math.ceil(3 * L2_BYTES / (batch * row_bytes)))) if cold else 1
    logits = [torch.randn(batch, vocab, device="cuda", dtype=dtype) for _ in range(n_buf)]
    bitmask = random_mask(batch, vocab, density)
    rows = torch.arange(batch, device="cuda", dtype=torch.int32)
    fns = {
        "schemac": lambda x: masking.apply_token_bitmask(x, bitmask, rows, vocab),
        "fill": lambda x: x.fill_(float("-inf")),
        "torch": lambda x: masking.apply_token_bitmask_reference(x, bitmask, None, vocab),
    }
    if xgr is not None:
        fns["xgrammar"] = lambda x: xgr(x, bitmask, vocab_size=vocab, indices=rows)
    out: dict[str, Any] = {"dtype": str(dtype).replace("torch.", ""), "V": vocab, "B": batch, "density": density, "cold": cold}
    for name, fn in fns.items():
        out[name] = time_graph([lambda x=x, fn=fn: fn(x) for x in logits])
    probe = torch.randn(batch, vocab, device="cuda", dtype=dtype)
    want = probe.clone()
    masking.apply_token_bitmask(probe, bitmask, rows, vocab)
    masking.apply_token_bitmask_reference(want, bitmask, None, vocab)
    out["equal_torch"] = bool(torch.equal(probe, want))
    if xgr is not None:
        other = want.clone()
        xgr(other, bitmask, vocab_size=vocab, indices=rows)
        out["equal_xgrammar"] = bool(torch.equal(other, want))
    return out


def print_table(results: list[dict[str, Any]]) -> None:
    head = f"{'dtype':8} {'V':>6} {'B':>3} {'dens':>4} {'L2':4} {'ours':>7} {'fill':>7} {'torch':>7} {'xgr':>7} {'/fill':>5} {'xgr/o':>5} {'tch/o':>5} ok"
    print(head)
    for r in results:
        xg = r.get("xgrammar", float("nan"))
        ok = r["equal_torch"] and r.get("equal_xgrammar", True)
        print(
            f"{r['dtype']:8} {r['V']:>6} {r['B']:>3} {r['density']:>4.2f} {'cold' if r['cold'] else 'hot':4} "
            f"{r['schemac']:7.2f} {r['fill']:7.2f} {r['torch']:7.2f} {xg:7.2f} "
            f"{r['schemac'] / r['fill']:5.2f} {xg / r['schemac']:5.2f} {r['torch'] / r['schemac']:5.2f} {'y' if ok else 'NO'}"
        )


def sweep(xgr: Any) -> list[dict[str, Any]]:
    rows_out = []
    store_only = store_only_kernel()
    for dtype in (torch.bfloat16, torch.float32):
        for batch in (1, 16, 64, 256):
            for density in (0.01, 0.5):
                vocab = 128256
                logits = torch.randn(batch, vocab, device="cuda", dtype=dtype)
                bitmask = random_mask(batch, vocab, density)
                rows = torch.arange(batch, device="cuda", dtype=torch.int32)
                entry: dict[str, Any] = {"dtype": str(dtype), "B": batch, "density": density, "cfg": {}}
                for block_cols in (1024, 2048, 4096, 8192, 16384):
                    for warps in (4, 8, 16):
                        if block_cols // (32 * warps) < 1:
                            continue
                        t = time_graph([lambda: launch(logits, bitmask, rows, batch, vocab, block_cols=block_cols, num_warps=warps)])
                        entry["cfg"][f"{block_cols}/{warps}"] = t
                grid = (batch, -(-vocab // 4096))
                entry["store_only_4096/8"] = time_graph(
                    [lambda: store_only[grid](logits, bitmask, logits.stride(0), 1, bitmask.stride(0), vocab, vocab, bitmask.shape[1], BLOCK_WORDS=128, num_warps=8)]
                )
                entry["auto"] = time_graph([lambda: masking.apply_token_bitmask(logits, bitmask, rows, vocab)])
                best = min(entry["cfg"], key=entry["cfg"].get)
                print(
                    f"sweep {dtype} B={batch} d={density}: auto {entry['auto']:.2f} best {best} {entry['cfg'][best]:.2f} "
                    f"store-only {entry['store_only_4096/8']:.2f} | " + " ".join(f"{k}:{v:.1f}" for k, v in entry["cfg"].items())
                )
                rows_out.append(entry)
    return rows_out


# ---------------------------------------------------------------- correctness on the GPU


def check_kernel() -> list[str]:
    failures = []
    gen = torch.Generator().manual_seed(7)
    shapes = [(100, 100), (32001, 32064), (131072, 131072), (151936, 152064), (262144, 262144), (32000, 32000)]
    for dtype in (torch.float32, torch.bfloat16, torch.float16):
        for vocab, width in shapes:
            for density in (0.0, 0.01, 0.5, 1.0):
                n_logit = 6
                storage = torch.randn(n_logit, width + 24, generator=gen).to(dtype)
                view = (slice(None), slice(8, 8 + width))
                if density in (0.0, 1.0):
                    words = -(-vocab // 32)
                    bitmask = torch.full((4, words), 0 if density == 0.0 else -1, dtype=torch.int32)
                else:
                    bitmask = masking.pack_bitmask(torch.rand(4, vocab, generator=gen) < density)
                for rows in (None, [5, 0, 3, 2], [], [3]):
                    mask_rows = bitmask if rows is not None else bitmask[:4]
                    want = storage.clone()
                    masking.apply_token_bitmask_reference(want[view], mask_rows, rows, vocab)
                    got = storage.to(DEVICE)
                    masking.apply_token_bitmask(got[view], mask_rows.to(DEVICE), rows, vocab)
                    if not torch.equal(got.cpu(), want):
                        failures.append(f"kernel {dtype} V={vocab}/{width} d={density} rows={rows}")
    # configs, device int64 rows with out-of-range entries skipped
    logits = torch.randn(8, 50000, device=DEVICE, dtype=torch.bfloat16)
    bitmask = random_mask(8, 50000, 0.3)
    want = logits.clone()
    masking.apply_token_bitmask_reference(want, bitmask, None, 49990)
    for block_cols in (1024, 2048, 4096, 8192, 16384):
        for warps in (1, 4, 8):
            got = logits.clone()
            launch(got, bitmask, None, 8, 49990, block_cols=block_cols, num_warps=warps)
            if not torch.equal(got, want):
                failures.append(f"config {block_cols}/{warps}")
    got = logits.clone()
    launch(got, bitmask[:3], torch.tensor([-1, 8, 2], device=DEVICE), 3, 49990)
    untouched = [r for r in range(8) if r != 2]
    if not (torch.equal(got[untouched], logits[untouched]) and torch.equal(got[2], want[2])):
        failures.append("out-of-range device rows")
    return failures


def check_buffers() -> list[str]:
    """MaskBuffers across two streams, with each protection removed once as a control.

    The buffers' upload stream sleeps before upload 1, and kernel 1 (on stream a) sleeps after
    waiting for it; the host then refills the host rows and applies on stream b. Without the
    host-side wait, the host overwrites rows upload 1 has not read yet; without the device-side
    wait, upload 2 overwrites rows kernel 1 has not read yet.
    """
    failures = []
    info = []
    vocab, batch = 262144, 256
    n_words = vocab // 32
    a, b = torch.cuda.Stream(), torch.cuda.Stream()
    rows = list(range(batch))[::-1]

    def reference(logits: torch.Tensor, masks: torch.Tensor) -> torch.Tensor:
        want = logits.cpu()
        masking.apply_token_bitmask_reference(want, masks, rows, vocab)
        return want

    for control in ("none", "host", "device"):
        buffers = MaskBuffers(n_words, "cuda", graphs=False)
        buffers.host(batch).fill_(-1)
        buffers.apply(torch.zeros(batch, vocab, device="cuda"), rows)  # creates the upload stream
        real_launch = buffers._launch

        def slow_launch(*args: Any, real: Any = real_launch) -> None:
            torch.cuda._sleep(50_000_000)  # ~25 ms between the upload and the kernel
            real(*args)

        m1 = torch.randint(-(2**31), 2**31, (batch, n_words), dtype=torch.int64).to(torch.int32)
        m2 = torch.randint(-(2**31), 2**31, (batch, n_words), dtype=torch.int64).to(torch.int32)
        l1 = torch.randn(batch, vocab, device="cuda")
        l2 = torch.randn(batch, vocab, device="cuda")
        r1, r2 = reference(l1, m1), reference(l2, m2)
        torch.cuda.synchronize()
        buffers.host(batch).copy_(m1)
        with torch.cuda.stream(buffers._upload):
            torch.cuda._sleep(50_000_000)  # upload 1 is still queued when host() runs
        buffers._launch = slow_launch  # type: ignore[method-assign]
        with torch.cuda.stream(a):
            buffers.apply(l1, rows)
        buffers._launch = real_launch  # type: ignore[method-assign]
        if control == "host":
            buffers._host_busy = False
        host = buffers.host(batch)
        host.copy_(m2)
        if control == "device":
            buffers._consumed = torch.cuda.Event()  # never recorded: waiting on it is a no-op
        with torch.cuda.stream(b):
            buffers.apply(l2, rows)
        torch.cuda.synchronize()
        ok = torch.equal(l1.cpu(), r1) and torch.equal(l2.cpu(), r2)
        info.append(f"{control}:{'ok' if ok else 'MISMATCH'}")
        if control == "none" and not ok:
            failures.append("MaskBuffers cross-stream reuse")
    print("buffers, protection removed ->", ", ".join(info), "(none must be ok; host/device show the race)")

    graphed = MaskBuffers(n_words, "cuda")
    # eager, eager + capture, then replays; fresh masks and logits values each step, and row sets
    # that shrink and reorder (rows past the ones given must stay untouched in a replay)
    row_sets = [rows[: batch // 2], rows[: batch // 2], rows[: batch // 4], rows[batch // 4 : batch // 2][::-1], [3], rows[: batch // 2]]
    for step, chosen in enumerate(row_sets):
        masks = torch.randint(-(2**31), 2**31, (len(chosen), n_words), dtype=torch.int64).to(torch.int32)
        logits = l1 if step == 0 else l1.normal_()
        want = logits.cpu()
        masking.apply_token_bitmask_reference(want, masks, chosen, vocab)
        graphed.host(len(chosen)).copy_(masks)
        graphed.apply(logits, chosen)
        torch.cuda.synchronize()
        if not torch.equal(logits.cpu(), want):
            failures.append(f"MaskBuffers graph replay, step {step}")
    print(f"buffers, captured launches: {len(graphed._captured)} (expected 1)")
    if len(graphed._captured) != 1:
        failures.append("MaskBuffers did not capture its launch")

    copier = TokenCopier("cuda")
    x = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
    x = (x @ x).clamp_(-1, 1)  # cuBLAS set-up stays out of the timing
    for step in range(3):
        torch.cuda._sleep(20_000_000)
        sampled = torch.randint(0, 1000, (64,), device="cuda")
        drafts = torch.randint(0, 1000, (64, 4), device="cuda", dtype=torch.int32)
        expect = (sampled.cpu().tolist(), drafts.cpu().tolist())
        pending = copier.start(sampled, drafts)
        del sampled, drafts
        for _ in range(40):  # "next forward": ~50 ms of matrix products queued after the copy
            x = (x @ x).clamp_(-1, 1)
        t0 = time.perf_counter()
        got = tuple(t.tolist() for t in pending.wait())
        t_wait = time.perf_counter() - t0
        torch.cuda.synchronize()
        t_all = time.perf_counter() - t0
        if got != expect:
            failures.append(f"TokenCopier values step {step}")
        if t_wait > 0.5 * t_all:
            failures.append(f"TokenCopier waited on the forward ({t_wait * 1e3:.1f} of {t_all * 1e3:.1f} ms)")
        print(f"token copy step {step}: wait() took {t_wait * 1e3:.2f} ms, the queued forward {t_all * 1e3:.2f} ms")
    return failures


def store_report() -> str:
    """Store instructions of the kernel as compiled for this GPU (bf16, 8192 columns/program)."""
    import re
    from collections import Counter

    logits = torch.randn(4, 32000, device="cuda", dtype=torch.bfloat16)
    handle = launch(logits, random_mask(4, 32000, 0.5), None, 4, 32000, block_cols=8192, num_warps=8)
    ops = Counter(m.group(1) for m in re.finditer(r"\b((?:st|ld)\.global[.\w]*)", handle.asm["ptx"]))
    return ", ".join(f"{k} x{v}" for k, v in sorted(ops.items()))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true")
    parser.add_argument("--sweep", action="store_true")
    parser.add_argument("--quick", action="store_true", help="bf16, V=128256 only")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    torch.manual_seed(0)
    xgr = _load_xgrammar()
    meta = {
        "device": torch.cuda.get_device_name(),
        "torch": torch.__version__,
        "triton": __import__("triton").__version__,
        "xgrammar_kernel": xgr is not None,
        "launches_per_graph": LAUNCHES,
    }
    print(json.dumps(meta))
    report: dict[str, Any] = {"meta": meta}
    status = 0
    if args.check:
        print("stores:", store_report())
        failures = check_kernel() + check_buffers()
        print("CHECK", "PASSED" if not failures else f"FAILED: {failures}")
        report["check_failures"] = failures
        status = 1 if failures else 0
    if args.sweep:
        report["sweep"] = sweep(xgr)
    dtypes = (torch.bfloat16,) if args.quick else (torch.bfloat16, torch.float32)
    vocabs = (128256,) if args.quick else (32000, 128256, 151936)
    results = []
    for cold in (False, True):
        for dtype in dtypes:
            for vocab in vocabs:
                for batch in (1, 16, 64, 256):
                    for density in (0.01, 0.5):
                        results.append(bench_config(dtype, vocab, batch, density, cold, xgr))
                        torch.cuda.empty_cache()
    report["results"] = results
    print_table(results)
    if args.json:
        args.json.write_text(json.dumps(report, indent=1))
    return status


if __name__ == "__main__":
    sys.exit(main())
