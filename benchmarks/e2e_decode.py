"""End-to-end constrained decoding: a random Llama (CUDA-graph decode), the 131k tekken vocabulary, batch 64.

Half the requests are constrained by different compiled schemas, half are free. Each step:
the forward for step t is queued on the GPU; meanwhile the host waits only for step t-1's
sampled tokens (copied on a side stream), commits them to the matchers and fills step t's
masks, which are then uploaded and applied by the Triton kernel behind the forward. With
`--draft 3` every request also verifies a 3-token draft (k+1 mask rows per constrained
request; drafts are never accepted here, so the next step overwrites their cache positions:
the figure is the cost of the speculative mask path, not a speed-up). The model is
benchmarks/tiny_llama.py, whose decode step is replayed as a CUDA graph as serving engines do.

Reports tokens/s with constraints vs the same batch unconstrained, the host time per step
(waiting for the sampled tokens, committing them, filling the masks; commit and fill also
separately) and how much of it the forward hid, and validates every finished constrained answer with the
final validator (all must pass).

    python benchmarks/e2e_decode.py --artifacts DIR --tokenizer DIR [--steps 96] [--draft 3]
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any


def build_model(args: argparse.Namespace) -> Any:
    import torch

    from benchmarks.tiny_llama import TinyLlama

    torch.manual_seed(0)
    dtype = torch.bfloat16 if args.device == "cuda" else torch.float32
    max_len = args.steps + args.draft + 64
    model = TinyLlama(args.lm_head, args.hidden, args.layers, args.batch, max_len)
    return model.to(device=args.device, dtype=dtype).eval()


def run(args: argparse.Namespace, setup: dict[str, Any], constrained: bool, masks_only: bool = False) -> dict[str, Any]:
    """One timed decode. `masks_only`: the constrained batch's masks are uploaded and applied
    every step, but filled once and never committed to: the GPU side of constraining alone, so
    the rest of the overhead is the host's (attribution measured, not guessed)."""
    import torch

    from schemac.runtime import RequestOptions, StructuredOutputError, finalize_request
    from schemac.runtime.buffers import MaskBuffers, TokenCopier

    device = args.device
    hf, engine, model, artifacts = setup["hf"], setup["engine"], setup["model"], setup["artifacts"]
    tok = engine.tokenizer
    batch, k = args.batch, args.draft
    n_con = batch // 2 if constrained else 0
    states = []
    for i in range(n_con):
        state = engine.admit(artifacts[i % len(artifacts)], RequestOptions(tokenizer_fingerprint=tok.fingerprint))
        state.wait_ready()
        states.append(state)
    done = [False] * n_con
    outcomes: dict[str, int] = {"ok": 0, "invalid": 0, "length": 0}
    buffers = MaskBuffers((tok.vocab_size + 31) // 32, device, graphs=not args.no_mask_graphs)
    copier = TokenCopier(device)
    prompt = torch.tensor([hf.encode("Answer in JSON:", add_special_tokens=False)] * batch, device=device)
    gen = torch.Generator(device=device).manual_seed(1)
    decode = setup["decoders"][k + 1]
    with torch.inference_mode():
        logits = model(prompt, torch.zeros((), dtype=torch.long, device=device))[:, -1:, :]
        length = prompt.shape[1]
        pending = None
        host_times: list[float] = []
        commit_times: list[float] = []
        mask_events: list[tuple[Any, Any]] = []  # CUDA events around the mask upload + kernel
        fill_times: list[float] = []
        launch_times: list[float] = []  # mask apply, sampling, token copy and forward launch
        wait_times: list[float] = []  # blocked on the sampled tokens
        warmup = 8
        started = 0.0
        drafts_host = torch.empty((batch, 0), dtype=torch.int64)
        cpu_gen = torch.Generator().manual_seed(2)
        eos = set(tok.eos_ids)
        for step in range(args.steps):
            if step == warmup:
                if device == "cuda":
                    torch.cuda.synchronize()
                started = time.perf_counter()
            host_start = time.perf_counter()
            commit_start = host_start
            if pending is not None and masks_only:
                pending.wait()  # every engine needs the sampled tokens on the host
            elif pending is not None:
                (sampled,) = pending.wait()  # every engine needs the sampled tokens on the host
                commit_start = time.perf_counter()
                tokens = sampled[:, 0].tolist()
                deltas: list[tuple[int, Any, list[int]]] = []
                for j, state in enumerate(states):
                    if done[j]:
                        continue
                    if tokens[j] in eos and state.is_accepting():
                        done[j] = True
                        try:
                            finalize_request(state, "stop")
                            outcomes["ok"] += 1
                        except StructuredOutputError:
                            outcomes["invalid"] += 1
                        state.release()
                    else:
                        deltas.append((j, state, [tokens[j]]))
                if args.serial_commit:
                    results = [state.commit(delta) for _, state, delta in deltas]
                else:
                    results = engine.commit([(state, delta) for _, state, delta in deltas])
                for (j, _, _), ok in zip(deltas, results):
                    if not ok:
                        done[j] = True
                        outcomes["invalid"] += 1
            commit_done = time.perf_counter()
            rows_per = logits.shape[1]
            active = [(j, s) for j, s in enumerate(states) if not done[j]]
            if active and masks_only and step > 0:
                buffers.host(len(active) * rows_per)  # the rows filled at step 0, uploaded again
            elif active:
                host = buffers.host(len(active) * rows_per)
                drafts_list = drafts_host.tolist()  # engines hold proposals as lists
                engine.fill(host, [(s, n * rows_per, drafts_list[j][: rows_per - 1]) for n, (j, s) in enumerate(active)])
            host_done = time.perf_counter()
            flat = logits.reshape(-1, logits.shape[-1])
            if active:
                rows = [j * rows_per + i for j, _ in active for i in range(rows_per)]
                timed_mask = device == "cuda" and step >= warmup
                if timed_mask:
                    before, after = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                    before.record()
                buffers.apply(flat, rows, tok.vocab_size)
                if timed_mask:
                    after.record()
                    mask_events.append((before, after))
            noise = -torch.empty_like(flat, dtype=torch.float32).exponential_(generator=gen).log()
            sampled_all = (flat.float() + noise).argmax(-1).view(batch, rows_per)
            first = sampled_all[:, :1]
            pending = copier.start(first)
            if k:
                # a stand-in draft model: random proposals made on the host, as a drafter's would be
                drafts_host = torch.randint(0, tok.vocab_size, (batch, k), generator=cpu_gen)
                step_in = torch.cat([first, drafts_host.to(device, non_blocking=True)], dim=1)
            else:
                step_in = first
            # drafts are never accepted here: the next step starts one past `first` and
            # overwrites the draft positions of the static cache
            logits = decode.step(step_in, length)
            launched = time.perf_counter()
            length += 1
            if step >= warmup:
                host_times.append(host_done - host_start)
                commit_times.append(commit_done - commit_start)
                fill_times.append(host_done - commit_done)
                launch_times.append(launched - host_done)
                wait_times.append(commit_start - host_start)
        if device == "cuda":
            torch.cuda.synchronize()
        elapsed = time.perf_counter() - started
    for j, state in enumerate(states):
        if not done[j]:
            outcomes["length"] += 1
            state.release()
    timed = args.steps - warmup
    return {
        "constrained_requests": n_con,
        "steps": args.steps,
        "draft": k,
        "tokens_per_s": batch * timed / elapsed,
        "step_ms": elapsed / timed * 1000,
        "host_ms_median": statistics.median(host_times) * 1000,
        "host_ms_total": sum(host_times) * 1000,
        "commit_ms_median": statistics.median(commit_times) * 1000,
        "mask_gpu_ms_median": statistics.median([a.elapsed_time(b) for a, b in mask_events]) if mask_events else 0.0,
        "fill_ms_median": statistics.median(fill_times) * 1000,
        "launch_ms_median": statistics.median(launch_times) * 1000,
        "wait_ms_median": statistics.median(wait_times) * 1000,
        "outcomes": outcomes,
    }


def forward_time(decoder: Any, args: argparse.Namespace, reps: int = 50) -> float:
    """GPU time of one decode forward alone (CUDA events around graph replays): the time the
    host has per step to commit and fill before the masks are needed."""
    import torch

    width = decoder.tokens.shape[1]
    tokens = torch.zeros((args.batch, width), dtype=torch.long, device="cuda")
    decoder.step(tokens, 0)
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(reps):
        decoder.step(tokens, 0)
    end.record()
    end.synchronize()
    return start.elapsed_time(end) / reps


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--artifacts", required=True)
    p.add_argument("--tokenizer", required=True, help="folder with a transformers tokenizer (tokenizer.json)")
    p.add_argument("--device", default="cuda")
    p.add_argument("--batch", type=int, default=64)
    p.add_argument("--steps", type=int, default=256)
    p.add_argument("--draft", type=int, default=0)
    p.add_argument("--layers", type=int, default=8)
    p.add_argument("--hidden", type=int, default=1024)
    p.add_argument("--lm-head", type=int, default=131072)
    p.add_argument("--serial-commit", action="store_true", help="commit request by request (no parallel consume)")
    p.add_argument("--threads", type=int, help="llguidance's worker threads (default: its own, 80 %% of the cores)")
    p.add_argument("--attribute", action="store_true",
                   help="also time the masks alone (filled once, no commit or fill) to split GPU from host cost")
    p.add_argument("--no-mask-graphs", action="store_true",
                   help="launch the mask kernel directly every step (MaskBuffers(graphs=False)) instead of replaying a captured graph")
    p.add_argument("--json")
    args = p.parse_args(argv)
    import torch
    from transformers import AutoTokenizer

    from benchmarks.tiny_llama import GraphedDecoder
    from schemac.artifact import Artifact
    from schemac.runtime import Engine

    hf = AutoTokenizer.from_pretrained(args.tokenizer)
    model = build_model(args)
    with torch.inference_mode():
        decoders = {w: GraphedDecoder(model, args.batch, w, args.device) for w in sorted({1, args.draft + 1})}
        if args.device == "cuda":
            from schemac.runtime.triton.bitmask import warm_up

            scratch = torch.zeros((args.batch * (args.draft + 1), args.lm_head), dtype=torch.bfloat16, device="cuda")
            words = torch.zeros((scratch.shape[0], (args.lm_head + 31) // 32), dtype=torch.int32, device="cuda")
            warm_up(scratch, words, args.lm_head)
            del scratch, words
        forward_ms = {w: forward_time(d, args) for w, d in decoders.items()} if args.device == "cuda" else {}
    for w, ms in forward_ms.items():
        print(f"forward alone (graph replay, {w} token(s)/row): {ms:.3f} ms", flush=True)
    setup = {
        "hf": hf,
        "engine": Engine.from_hf(hf, lm_head_size=args.lm_head, threads=args.threads),
        "model": model,
        "decoders": decoders,
        "artifacts": [Artifact.load(p) for p in sorted(Path(args.artifacts).glob("*.json"))],
    }
    results = []
    for draft in sorted({0, args.draft}):
        args.draft = draft
        run(args, setup, constrained=True)  # warm-up: allocator, kernels, matchers
        free = run(args, setup, constrained=False)
        con = run(args, setup, constrained=True)
        gpu_only = run(args, setup, constrained=True, masks_only=True) if args.attribute else None
        again = run(args, setup, constrained=False)  # order effects: unconstrained before and after
        base = min(free["step_ms"], again["step_ms"])
        overhead = con["step_ms"] / base - 1
        exposed = max(0.0, con["step_ms"] - base)
        hidden = 1 - min(1.0, exposed / con["host_ms_median"]) if con["host_ms_median"] else 1.0
        results.append({"draft": draft, "forward_ms": forward_ms.get(draft + 1), "unconstrained": [free, again], "constrained": con,
                        "step_overhead": overhead, "host_time_hidden": hidden,
                        "masks_only": gpu_only, "masks_only_overhead": gpu_only and gpu_only["step_ms"] / base - 1})
        print(f"draft={draft}: unconstrained {free['tokens_per_s']:.0f}/{again['tokens_per_s']:.0f} tok/s "
              f"({free['step_ms']:.2f}/{again['step_ms']:.2f} ms/step, host {free['host_ms_median']:.2f} ms); "
              f"constrained {con['tokens_per_s']:.0f} tok/s ({con['step_ms']:.2f} ms/step, host wait+commit+fill "
              f"{con['host_ms_median']:.2f} ms/step: commit {con['commit_ms_median']:.2f}, fill "
              f"{con['fill_ms_median']:.2f}; then apply+sample+launch {con['launch_ms_median']:.2f} ms (unconstrained "
              f"{free['launch_ms_median']:.2f}), blocked on tokens {con['wait_ms_median']:.2f} ms (unconstrained "
              f"{free['wait_ms_median']:.2f}); {hidden * 100:.0f} % hidden; GPU mask upload+kernel "
              f"{con['mask_gpu_ms_median']:.3f} ms); overhead {overhead * 100:+.1f} %; "
              f"outcomes {con['outcomes']}", flush=True)
        if gpu_only is not None:
            print(f"draft={draft}: masks only (filled once, applied every step, no commit or fill): "
                  f"{gpu_only['step_ms']:.2f} ms/step, overhead {(gpu_only['step_ms'] / base - 1) * 100:+.1f} %: "
                  f"the rest of the constrained overhead is the host's", flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))
    invalid = sum(r["constrained"]["outcomes"]["invalid"] for r in results)
    return 1 if invalid else 0


if __name__ == "__main__":
    sys.exit(main())
