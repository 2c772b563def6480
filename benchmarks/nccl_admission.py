"""Multi-rank admission on real GPUs over NCCL: one process per GPU, every rank masking its own
copy of the same batch (the replicated form of tensor parallelism's per-rank masks).

    python benchmarks/nccl_admission.py --tokenizer .bench/tokenizer --artifacts .bench/artifacts

Scenarios, each a collective that every rank runs in the same order:
- admission agreed by every rank, with the latency `DistributedAdmission` adds per request over
  a plain `Engine.admit` + `wait_ready` on the same rank;
- a compile failure (a corrupted artifact) on the last rank only, a fingerprint mismatch on the
  last rank only, and an exception injected into the last rank's engine: each rejects the request
  on every rank with that rank's code and message, and leaves no live state anywhere;
- a few hundred decode steps: rank 0 samples from its masked random logits and broadcasts the
  tokens, every rank fills and commits; the SHA-256 of every step's mask rows is all-gathered and
  must be bit-identical across ranks; a cancel seen on rank 0 only releases on all ranks.

`--backend gloo` runs the same on CPU processes (`--world N`). Prints one JSON summary; exits 1
on any disagreement. Keep NVLink multicast off (NCCL_NVLS_ENABLE=0): it is set here.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any


def _rank_main(rank: int, args: argparse.Namespace, rdv: str, out: str) -> None:
    import torch
    import torch.distributed as dist
    from transformers import AutoTokenizer

    from schemac.runtime import AdmissionError, Engine, RequestOptions, StructuredOutputError, finalize_request
    from schemac.runtime.distributed import DistributedAdmission

    cuda = args.backend == "nccl"
    if cuda:
        torch.cuda.set_device(rank)
    dist.init_process_group(args.backend, init_method=f"file://{rdv}", rank=rank, world_size=args.world)
    last = args.world - 1
    report: dict[str, Any] = {"rank": rank, "checks": {}}
    checks = report["checks"]
    hf = AutoTokenizer.from_pretrained(args.tokenizer)
    engine = Engine.from_hf(hf, lm_head_size=len(hf))
    fp = engine.tokenizer.fingerprint
    admission = DistributedAdmission(engine)
    texts = [p.read_text() for p in sorted(Path(args.artifacts).glob("*.json"))][: args.requests]
    artifacts = texts
    options = RequestOptions(fp)

    # plain admission on this rank alone, for the added latency: a first pass compiles and
    # caches every grammar, the second is timed, so both columns admit from a warm cache
    plain = []
    for timed in (False, True):
        for art in artifacts:
            start = time.perf_counter()
            state = engine.admit(art, options)
            state.wait_ready()
            if timed:
                plain.append(time.perf_counter() - start)
            state.release()
    # agreed admission
    dist.barrier()
    agreed, states = [], {}
    for i, art in enumerate(artifacts):
        start = time.perf_counter()
        states[f"r{i}"] = admission.admit(f"r{i}", art, options)
        agreed.append(time.perf_counter() - start)
    report["admit_ms_plain_median"] = statistics.median(plain) * 1000
    report["admit_ms_agreed_median"] = statistics.median(agreed) * 1000
    checks["all admitted"] = len(admission.states) == len(artifacts)

    def rejected(name: str, art: Any, opts: Any, expect_code: str) -> bool:
        try:
            admission.admit(name, art, opts)
        except AdmissionError as exc:
            return exc.code == expect_code and exc.message.startswith(f"rank {last}:") and name not in admission.states
        return False

    broken = texts[0].replace('"grammar"', '"grammar_"', 1)
    checks["compile failure on the last rank rejects everywhere"] = rejected(
        "bad-artifact", broken if rank == last else texts[0], options, _code_of(engine, broken, options))
    wrong_fp = RequestOptions("0" * len(fp))
    checks["fingerprint mismatch on the last rank rejects everywhere"] = rejected(
        "bad-fingerprint", artifacts[0], wrong_fp if rank == last else options, _code_of(engine, artifacts[0], wrong_fp))
    real_admit = engine.admit
    if rank == last:
        def failing(*a: Any, **k: Any) -> Any:
            raise RuntimeError("injected")
        engine.admit = failing  # type: ignore[method-assign]
    checks["an exception on the last rank rejects everywhere"] = rejected(
        "exception", artifacts[0], options, "rank-exception")
    engine.admit = real_admit  # type: ignore[method-assign]
    checks["duplicate id refused everywhere"] = rejected_any(admission, "r0", artifacts[0], options)

    # decode: same batch on every rank, tokens sampled on rank 0 and broadcast
    device = f"cuda:{rank}" if cuda else "cpu"
    vocab = engine.tokenizer.vocab_size
    bitmask = engine.allocate_bitmask(len(states))
    names = list(states)
    live = dict(states)
    gen = torch.Generator(device=device).manual_seed(7)
    eos = set(engine.tokenizer.eos_ids)
    outcomes = {"ok": 0, "invalid": 0, "length": 0, "cancelled": 0}
    identical = True
    steps = 0
    from schemac.runtime.masking import apply_token_bitmask
    for step in range(args.steps):
        if not live:
            break
        steps += 1
        order = [n for n in names if n in live]
        engine.fill(bitmask, [(live[n], i, []) for i, n in enumerate(order)])
        rows = bitmask[: len(order)]
        digest = hashlib.sha256(rows.numpy().tobytes() if hasattr(rows, "numpy") else bytes(rows)).digest()
        mine = torch.tensor(list(digest[:16]), dtype=torch.int64, device=device)
        every = [torch.empty_like(mine) for _ in range(args.world)]
        dist.all_gather(every, mine)
        identical &= all(torch.equal(every[0], e) for e in every)
        logits = torch.randn(len(order), engine.lm_head_size, generator=gen, device=device)
        apply_token_bitmask(logits, rows.to(device), rows=list(range(len(order))), vocab_size=vocab)
        tokens = logits.argmax(-1)
        dist.broadcast(tokens, src=0)
        batch = []
        for n, token in zip(order, tokens.tolist()):
            state = live[n]
            if token in eos and state.is_accepting():
                try:
                    finalize_request(state, "stop")
                    outcomes["ok"] += 1
                except StructuredOutputError:
                    outcomes["invalid"] += 1
                admission.release([n])
                del live[n]
            else:
                batch.append((n, state, [token]))
        for (n, state, _), ok in zip(batch, engine.commit([(s, t) for _, s, t in batch])):
            if not ok:
                outcomes["invalid"] += 1
                admission.release([n])
                del live[n]
        if step == args.steps // 2 and live:
            victim = sorted(live)[0]
            released = admission.release([victim] if rank == 0 else [])
            checks["a cancel on rank 0 releases on every rank"] = released == [victim]
            outcomes["cancelled"] += 1
            del live[victim]
    outcomes["length"] += len(live)
    admission.release(list(live))
    checks["mask rows bit-identical on every rank at every step"] = bool(identical)
    checks["no live request left"] = not admission.states and engine.active == 0
    report.update(steps=steps, outcomes=outcomes, requests=len(artifacts))
    Path(out, f"rank{rank}.json").write_text(json.dumps(report))
    dist.destroy_process_group()


def _code_of(engine: Any, art: Any, options: Any) -> str:
    """The code a single rank's own admission gives (the code the agreed rejection must carry)."""
    from schemac.runtime import AdmissionError

    try:
        state = engine.admit(art, options)
        state.wait_ready()
    except AdmissionError as exc:
        return exc.code
    code = state.error.code if state.error is not None else "admitted"
    state.release()
    return code


def rejected_any(admission: Any, name: str, art: Any, options: Any) -> bool:
    from schemac.runtime import AdmissionError

    try:
        admission.admit(name, art, options)
    except AdmissionError as exc:
        return exc.code == "duplicate-request-id"
    return False


def main(argv: list[str] | None = None) -> int:
    import torch
    import torch.multiprocessing as mp

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--tokenizer", required=True)
    p.add_argument("--artifacts", required=True)
    p.add_argument("--backend", choices=("nccl", "gloo"), default="nccl")
    p.add_argument("--world", type=int, default=0, help="ranks (default: every GPU for nccl, 2 for gloo)")
    p.add_argument("--requests", type=int, default=16)
    p.add_argument("--steps", type=int, default=300)
    args = p.parse_args(argv)
    os.environ.setdefault("NCCL_NVLS_ENABLE", "0")
    if not args.world:
        args.world = torch.cuda.device_count() if args.backend == "nccl" else 2
    if args.world < 1:
        print("no GPU for the nccl backend", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        mp.spawn(_rank_main, args=(args, str(Path(tmp) / "rdv"), tmp), nprocs=args.world, join=True)
        reports = [json.loads(Path(tmp, f"rank{r}.json").read_text()) for r in range(args.world)]
    summary = {
        "backend": args.backend, "world": args.world,
        "device": torch.cuda.get_device_name(0) if args.backend == "nccl" else "cpu",
        "checks": {k: all(r["checks"].get(k, False) for r in reports) for k in reports[0]["checks"]},
        "admit_ms_plain_median": [round(r["admit_ms_plain_median"], 3) for r in reports],
        "admit_ms_agreed_median": [round(r["admit_ms_agreed_median"], 3) for r in reports],
        "outcomes": reports[0]["outcomes"], "steps": reports[0]["steps"], "requests": reports[0]["requests"],
    }
    print(json.dumps(summary, indent=1))
    return 0 if all(summary["checks"].values()) and not summary["outcomes"]["invalid"] else 1


if __name__ == "__main__":
    sys.exit(main())
