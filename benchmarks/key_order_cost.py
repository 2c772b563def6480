"""What one key-order policy costs next to another (by default `key_order="any"` next to the
default "schema"; `--policies properties,schema` prices the `required` orders), same run, same
answers.

For MaskBench schemas that both policies compile, every valid answer both grammars accept is
walked token by token (llama32k vocabulary) with llguidance computing the mask before each token;
alternating which policy goes first. Prints, per policy, grammar bytes, compile milliseconds and
per-token mask microseconds (p50 / p99 / mean), and the any/schema ratios.

    python3 -m benchmarks.key_order_cost [--schemas 600] [--policies schema,any] [--maskbench ../shared/conformance/maskbench]
"""
from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path
from typing import Any

from benchmarks.conformance.cases import instance_text
from benchmarks.conformance.tokenizers import load_tokenizer

def _masks(tokenizer: Any, grammar: str, tokens: list[int]) -> list[float] | None:
    """Microseconds per mask along `tokens`, or None when the grammar refuses them."""
    import llguidance

    matcher = llguidance.LLMatcher(tokenizer, grammar, log_level=0)
    times = []
    for token in tokens:
        started = time.perf_counter()
        matcher.compute_logit_bias()
        times.append((time.perf_counter() - started) * 1e6)
        if not matcher.consume_token(token):
            return None
    return times if matcher.is_accepting() else None


def _quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * (len(ordered) - 1) + 0.5))]


def main(argv: list[str] | None = None) -> int:
    import schemac

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--schemas", type=int, default=600, help="N MaskBench files, evenly spaced in name order")
    parser.add_argument("--maskbench", default="../shared/conformance/maskbench")
    parser.add_argument("--policies", default="schema,any", help="BASE,OTHER: two key_order values; ratios are OTHER/BASE")
    args = parser.parse_args(argv)
    base, other = args.policies.split(",")
    policies = (base, other)
    tokenizer = load_tokenizer("llama32k")
    figures: dict[str, dict[str, list[float]]] = {p: {"bytes": [], "compile_ms": [], "mask_us": []} for p in policies}
    schemas = answers = 0
    files = sorted(Path(args.maskbench).glob("*.json"))
    for n, path in enumerate(files[::max(1, len(files) // args.schemas)][:args.schemas]):
        case = json.loads(path.read_text())
        order = policies if n % 2 == 0 else policies[::-1]
        grammars: dict[str, str] = {}
        for policy in order:
            started = time.perf_counter()
            try:
                art = schemac.compile(case["schema"], upgrade_drafts=True, use_cache=False, key_order=policy)
            except schemac.CompileError:
                break
            figures[policy]["compile_ms"].append((time.perf_counter() - started) * 1000)
            figures[policy]["bytes"].append(len(art.grammar))
            grammars[policy] = art.grammar
        if len(grammars) < 2:
            continue
        schemas += 1
        for test in case.get("tests", []):
            if not test["valid"]:
                continue
            tokens = tokenizer.tokenize_str(instance_text(test["data"]))
            walked = {p: _masks(tokenizer, grammars[p], tokens) for p in order}
            if all(walked.values()):
                answers += 1
                for p in policies:
                    figures[p]["mask_us"].extend(walked[p] or [])
    print(f"key_order cost: {schemas} schemas compiled by both policies, {answers} answers accepted by both, "
          f"{len(figures[other]['mask_us'])} masks each")
    print(f"{'':24}{base:>12}{other:>12}{other + '/' + base:>20}")
    for label, key, q in (("grammar bytes p50", "bytes", 0.5), ("grammar bytes p99", "bytes", 0.99),
                          ("compile ms p50", "compile_ms", 0.5), ("compile ms p99", "compile_ms", 0.99),
                          ("mask us p50", "mask_us", 0.5), ("mask us p99", "mask_us", 0.99)):
        a, b = _quantile(figures[base][key], q), _quantile(figures[other][key], q)
        print(f"{label:24}{a:12.1f}{b:12.1f}{b / a:20.2f}")
    a, b = statistics.fmean(figures[base]["mask_us"]), statistics.fmean(figures[other]["mask_us"])
    print(f"{'mask us mean':24}{a:12.1f}{b:12.1f}{b / a:20.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
