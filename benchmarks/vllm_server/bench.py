"""Send every artifact of a schema set through a real vLLM server and tally the verdicts.

Runs inside the benchmark's environment (env.py). Paths per server: `grammar` is
`structured_outputs={"grammar": artifact.lark}`, `json` is vLLM's own
`structured_outputs={"json": schema}` on the same schemas. Every answer gets schemac's final
validation (`Artifact.validate`): ok, invalid, truncated (cut at max_tokens), dead-end (the
server said `stop` on a proper prefix of an answer: the grammar allowed only EOS there), or an
HTTP error. Servers: guidance, guidance with n-gram drafts, and the default `auto` after one
plain `json` request has fixed its engine on xgrammar (the order in which a schemac export
could meet xgrammar's reader: it must fail loudly, never be served).
"""
from __future__ import annotations

import json
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.vllm_server.server import Server

VERDICTS = ["ok", "invalid", "truncated", "dead-end", "http-error"]
NGRAM = {"method": "ngram", "num_speculative_tokens": 3, "prompt_lookup_max": 3, "prompt_lookup_min": 1}
SERVERS: dict[str, list[str]] = {
    "guidance": ["--structured-outputs-config", json.dumps({"backend": "guidance"})],
    "guidance + ngram": ["--structured-outputs-config", json.dumps({"backend": "guidance"}),
                         "--speculative-config", json.dumps(NGRAM)],
    "auto (xgrammar first)": [],
}
PROMPT = 'Answer with one JSON value. Example: {"id": 1, "name": "a", "tags": ["x", "y"]}\nAnswer: '


@dataclass
class Case:
    name: str
    schema: Any
    artifact: Any


def curated(maskbench: Path, per_family: int, limit: int) -> tuple[list[Case], int]:
    """The first `per_family` schemas schemac compiles of each MaskBench family (name order),
    at most `limit`; and how many files were refused on the way."""
    import schemac

    families: dict[str, list[Path]] = {}
    for path in sorted(maskbench.glob("*.json")):
        family = path.stem.split("---")[0].rstrip("0123456789").rstrip("_")
        families.setdefault(family, []).append(path)
    cases: list[Case] = []
    refused = 0
    for family in sorted(families):
        taken = 0
        for path in families[family]:
            if taken == per_family or len(cases) == limit:
                break
            schema = json.loads(path.read_text(encoding="utf-8"))["schema"]
            try:
                cases.append(Case(path.stem, schema, schemac.compile(schema, upgrade_drafts=True)))
                taken += 1
            except schemac.CompileError:
                refused += 1
    return cases, refused


def auto_selection(cases: list[Case], model: Path) -> Counter[str]:
    """vLLM's own request validation with `backend: auto` (`SamplingParams._validate_structured_outputs`,
    the code that picks a request's backend) on every export: the backend it picks."""
    from types import SimpleNamespace

    from transformers import AutoTokenizer
    from vllm.config import StructuredOutputsConfig
    from vllm.sampling_params import SamplingParams, StructuredOutputsParams

    tokenizer = AutoTokenizer.from_pretrained(model)
    picked: Counter[str] = Counter()
    for case in cases:
        params = SamplingParams(structured_outputs=StructuredOutputsParams(grammar=case.artifact.lark))
        params._validate_structured_outputs(SimpleNamespace(is_diffusion=False),
                                            StructuredOutputsConfig(backend="auto"), tokenizer)
        picked[str(params.structured_outputs._backend)] += 1
    return picked


def verdict(case: Case, status: int, reply: dict[str, Any] | str) -> str:
    if status != 200 or not isinstance(reply, dict):
        return "http-error"
    choice = reply["choices"][0]
    answer = case.artifact.validate(choice["text"], finish_reason=choice["finish_reason"] or "stop")
    if answer.status == "truncated" and choice["finish_reason"] != "length":
        return "dead-end"
    return str(answer.status)


def send(server: Server, cases: list[Case], path: str, max_tokens: int, deadline: float,
         examples: dict[str, str]) -> Counter[str]:
    def one(i: int) -> str:
        case = cases[i]
        if time.monotonic() > deadline:
            return "http-error"
        spec = {"grammar": case.artifact.lark} if path == "grammar" else {"json": case.schema}
        body = {"prompt": PROMPT, "max_tokens": max_tokens, "temperature": 0.8, "seed": i,
                "structured_outputs": spec}
        status, reply = server.complete(body, timeout=max(1.0, min(300.0, deadline - time.monotonic())))
        v = verdict(case, status, reply)
        if v not in ("ok", "truncated"):
            examples.setdefault(f"{path} {v}", f"{case.name}: {str(reply)[:240]}")
        return v

    with ThreadPoolExecutor(4) as pool:
        return Counter(pool.map(one, range(len(cases))))


def run(cases: list[Case], model: Path, logs: Path, max_tokens: int, budget_s: float,
        servers: list[str]) -> list[tuple[str, str, Counter[str]]]:
    """Rows (server, path, verdict counts), printed as they come."""
    deadline = time.monotonic() + budget_s
    rows: list[tuple[str, str, Counter[str]]] = []
    for name in servers:
        examples: dict[str, str] = {}
        log = logs / ("server-" + name.split()[0] + ("-ngram" if "ngram" in name else "") + ".log")
        started = time.monotonic()
        with Server(model, SERVERS[name], log) as server:
            print(f"[{name}] up in {time.monotonic() - started:.0f} s (log {log})", flush=True)
            if name.startswith("auto"):
                first = send(server, cases[:1], "json", max_tokens, deadline, examples)
                print(f"[{name}] first request (json, fixes the engine's backend): {dict(first)}", flush=True)
            for path in ("grammar", "json"):
                t, before = time.monotonic(), server.drafts()
                counts = send(server, cases, path, max_tokens, deadline, examples)
                rows.append((name, path, counts))
                proposed, accepted = (a - b for a, b in zip(server.drafts(), before))
                print(f"[{name}] {path}: {dict(counts)} in {time.monotonic() - t:.0f} s; "
                      f"draft tokens proposed {proposed:.0f}, accepted {accepted:.0f}", flush=True)
        for key, text in sorted(examples.items()):
            print(f"  e.g. {key}: {text}")
    return rows


def table(rows: list[tuple[str, str, Counter[str]]]) -> str:
    lines = ["| server | path | " + " | ".join(VERDICTS) + " |", "| --- | --- |" + " --- |" * len(VERDICTS)]
    for name, path, counts in rows:
        label = "`grammar: artifact.lark`" if path == "grammar" else "vLLM `json` (schema)"
        lines.append(f"| {name} | {label} | " + " | ".join(str(counts.get(v, 0)) for v in VERDICTS) + " |")
    return "\n".join(lines)
