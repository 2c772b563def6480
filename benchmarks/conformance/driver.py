"""Run the benchmark: cases over worker processes into a `Report`; the command line."""
from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Iterable, Iterator

from benchmarks.conformance.cases import Case, CaseResult, load_cases
from benchmarks.conformance.engines import evaluate, init_worker
from benchmarks.conformance.render import render_text
from benchmarks.conformance.stats import Report
from benchmarks.conformance.tokenizers import TOKENIZERS, load_tokenizer
from schemac.cli.options import KEY_ORDERS


def _results(cases: list[Case], tokenizer: str, upgrade_drafts: bool, key_order: str, jobs: int) -> Iterator[CaseResult]:
    if jobs <= 1:
        init_worker(tokenizer, upgrade_drafts, key_order)
        yield from map(evaluate, cases)
        return
    import multiprocessing

    # spawn, not fork: the parent has Rust tokenizer threads running that a fork would copy mid-state
    context = multiprocessing.get_context("spawn")
    with context.Pool(jobs, initializer=init_worker, initargs=(tokenizer, upgrade_drafts, key_order)) as pool:
        yield from pool.imap(evaluate, cases, chunksize=4)


def run(
    paths: Iterable[str | os.PathLike[str]],
    *,
    upgrade_drafts: bool,
    key_order: str = "schema",
    tokenizer: str = "llama32k",
    limit: int | None = None,
    jobs: int = 1,
    files: str | None = None,
) -> Report:
    """Benchmark every case under `paths` (files or folders); `limit` keeps the first N schemas."""
    if tokenizer not in TOKENIZERS:
        raise ValueError(f"unknown tokenizer {tokenizer!r}; choose from {', '.join(TOKENIZERS)}")
    started = time.perf_counter()
    cases = load_cases(paths, files=files)
    if limit is not None:
        cases = cases[:limit]
    tok = load_tokenizer(tokenizer)  # builds the on-disk cache once, before any worker starts
    report = Report(tokenizer, tok.vocab_size, upgrade_drafts, jobs, key_order)
    for result in _results(cases, tokenizer, upgrade_drafts, key_order, jobs):
        report.add(result)
    report.wall_s = time.perf_counter() - started
    return report


def main(argv: list[str] | None = None) -> int:
    """`schemac conformance` / `python -m benchmarks.conformance`: print the report, exit 1 on
    any schemac invalidation error outside optional/format or any schemac bug."""
    import argparse

    parser = argparse.ArgumentParser(prog="schemac conformance", description="Conformance benchmark: schemac versus raw llguidance on Test Suite and MaskBench files.")
    parser.add_argument("paths", nargs="+", help="Test Suite / MaskBench JSON files or folders")
    parser.add_argument("--upgrade-drafts", action="store_true", help="translate draft-04/06/07/2019-09 schemas")
    parser.add_argument("--key-order", choices=KEY_ORDERS, default="schema",
                        help="schemac's property-order policy (schemac.compile's key_order)")
    parser.add_argument("--tokenizer", choices=sorted(TOKENIZERS), default="llama32k")
    parser.add_argument("--limit", type=int, default=None, help="only the first N schemas")
    parser.add_argument("--files", default=None, help="only files whose name matches this glob")
    parser.add_argument("--jobs", "-j", type=int, default=1)
    parser.add_argument("--json", dest="json_path", default=None, help="write all figures here")
    args = parser.parse_args(argv)
    report = run(
        args.paths, upgrade_drafts=args.upgrade_drafts, key_order=args.key_order, tokenizer=args.tokenizer,
        limit=args.limit, jobs=args.jobs, files=args.files,
    )
    print(render_text(report))
    if args.json_path:
        Path(args.json_path).write_text(json.dumps(report.to_json(), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return 1 if report.promise_broken() else 0

