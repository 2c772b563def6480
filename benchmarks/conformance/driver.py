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


#: the URI the Test Suite's `refRemote` tests name its `remotes/` folder by
SUITE_REMOTES = "http://localhost:1234/"


def suite_remotes(paths: Iterable[str | os.PathLike[str]]) -> dict[str, str]:
    """`{SUITE_REMOTES: folder}` when a path lies in a Test Suite checkout with its `remotes/`
    folder (`<suite>/draft2020-12/...` beside `<suite>/remotes`), else `{}`."""
    for raw in paths:
        for folder in [Path(raw).resolve(), *Path(raw).resolve().parents]:
            if (folder / "remotes").is_dir() and (folder / "draft2020-12").is_dir():
                return {SUITE_REMOTES: str(folder / "remotes")}
    return {}


def _results(cases: list[Case], tokenizer: str, upgrade_drafts: bool, key_order: str, jobs: int,
             ref_map: dict[str, str]) -> Iterator[CaseResult]:
    if jobs <= 1:
        init_worker(tokenizer, upgrade_drafts, key_order, ref_map)
        yield from map(evaluate, cases)
        return
    import multiprocessing

    # spawn, not fork: the parent has Rust tokenizer threads running that a fork would copy mid-state
    context = multiprocessing.get_context("spawn")
    with context.Pool(jobs, initializer=init_worker, initargs=(tokenizer, upgrade_drafts, key_order, ref_map)) as pool:
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
    ref_map: dict[str, str] | None = None,
) -> Report:
    """Benchmark every case under `paths` (files or folders); `limit` keeps the first N schemas.
    `ref_map` (URI prefix -> folder) serves remote documents; None: the Test Suite's `remotes/`
    when the paths lie in a suite checkout (`suite_remotes`)."""
    if tokenizer not in TOKENIZERS:
        raise ValueError(f"unknown tokenizer {tokenizer!r}; choose from {', '.join(TOKENIZERS)}")
    started = time.perf_counter()
    paths = list(paths)
    ref_map = suite_remotes(paths) if ref_map is None else ref_map
    cases = load_cases(paths, files=files)
    if limit is not None:
        cases = cases[:limit]
    tok = load_tokenizer(tokenizer)  # builds the on-disk cache once, before any worker starts
    report = Report(tokenizer, tok.vocab_size, upgrade_drafts, jobs, key_order)
    report.ref_map = ref_map
    for result in _results(cases, tokenizer, upgrade_drafts, key_order, jobs, ref_map):
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
    parser.add_argument("--ref-map", action="append", default=None, metavar="URI=DIR",
                        help="serve remote documents under URI from DIR (repeatable; default: the Test Suite's "
                             f"remotes/ folder as {SUITE_REMOTES} when the paths lie in a suite checkout)")
    args = parser.parse_args(argv)
    ref_map = None
    if args.ref_map is not None:
        bad = [m for m in args.ref_map if "=" not in m]
        if bad:
            parser.error(f"--ref-map {bad[0]!r}: expected URI=DIR")
        ref_map = dict(m.split("=", 1) for m in args.ref_map)
    report = run(
        args.paths, upgrade_drafts=args.upgrade_drafts, key_order=args.key_order, tokenizer=args.tokenizer,
        limit=args.limit, jobs=args.jobs, files=args.files, ref_map=ref_map,
    )
    print(render_text(report))
    if args.json_path:
        Path(args.json_path).write_text(json.dumps(report.to_json(), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return 1 if report.promise_broken() else 0

