"""Compile-time profile of MaskBench (issue 31): schemac vs llguidance, compile only.

Times each case exactly as `benchmarks.conformance` does (its `_schemac` / `_llguidance`, same
warm-up, same engine order per case), without feeding instances, so the whole set takes a couple
of minutes. `--stages` attributes schemac's time to pipeline stages (exclusive time: a stage
called inside another is not counted twice). `--cprofile N` profiles the cases ranked N around
the median and the slowest 1 %.

    python3 -m benchmarks.compile_profile ../shared/conformance/maskbench --stride 4 --json out.json
"""
from __future__ import annotations

import argparse
import collections
import functools
import json
import time
from typing import Any, Callable

from benchmarks.conformance.cases import load_cases, percentile
from benchmarks.conformance.engines import _llguidance, _schemac, init_worker, schemac_first

# ---- per-stage exclusive timers ----------------------------------------------------------------

#: process CPU time: the benchmark's compile_cpu_ms is the calling thread's, which misses every llguidance
#: call schemac makes on its big-stack threads (`schemac.native.on_big_stack`); wall time lies on a busy machine
_clock = time.process_time
_STACK: list[list[Any]] = []  # [stage, started, child time]
TIMES: dict[str, float] = collections.defaultdict(float)
COUNTS: dict[str, int] = collections.defaultdict(int)


def _timed(stage: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        frame = [stage, _clock(), 0.0]
        _STACK.append(frame)
        try:
            return fn(*args, **kwargs)
        finally:
            _STACK.pop()
            spent = _clock() - frame[1]
            TIMES[stage] += spent - frame[2]
            COUNTS[stage] += 1
            if _STACK:
                _STACK[-1][2] += spent
    wrapper.__wrapped_stage__ = stage  # type: ignore[attr-defined]
    return wrapper


def _patch(module: Any, name: str, stage: str) -> None:
    fn = getattr(module, name, None)  # stages that moved or are gone are skipped
    if fn is not None and not hasattr(fn, "__wrapped_stage__"):
        setattr(module, name, _timed(stage, fn))


def install_stage_timers() -> None:
    import schemac.emit as emit
    import schemac.emit.lark.arrays as arrays
    import schemac.emit.lark.listed as listed
    import schemac.emit.lark.numbers as numbers
    import schemac.emit.lark.probe as probe
    import schemac.emit.lark.writer as writer
    import schemac.lower as lower
    import schemac.lower.support.analysis as analysis
    import schemac.lower.support.scalar_marks as scalar_marks
    import schemac.lower.unique_items as unique_items
    import schemac.pipeline as pipeline
    import schemac.validate.final as final

    for name, stage in [
        ("load_with_census", "load"), ("_key", "key hash"), ("gather_documents", "resolve"),
        ("custom_dialect", "dialect"), ("upgrade_needed", "dialect"), ("apply_dialect", "dialect (upgrade)"),
        ("check_metaschema", "metaschema"), ("reject_client_options", "client options"),
        ("document_census", "load"), ("legacy_dependencies", "dialect"), ("_trivial_bundle", "resolve"),
        ("resolve", "resolve"), ("apply_formats", "formats"), ("split_lookahead_patterns", "regex"),
        ("check_patterns", "regex"), ("lower_bundle", "lower (walker)"), ("with_required_orders", "stated orders"),
        ("llguidance_pattern_errors", "regex"), ("in_source", "artifact"), ("Artifact", "artifact"),
    ]:
        _patch(pipeline, name, stage)
    _patch(pipeline.Bundle, "as_schema", "artifact")
    _patch(emit, "with_required_orders", "stated orders")
    _patch(emit, "_write", "emit: write")
    _patch(emit, "_validated", "emit: llguidance check (whole grammar)")
    _patch(emit, "parser_limit", "emit: parser probe")
    if hasattr(emit, "checked_parser_limit"):
        _patch(emit, "checked_parser_limit", "emit: check + parser probe (one matcher)")
    _patch(writer, "_schema_error", "emit: llguidance check (pieces/oneOf)")
    _patch(writer, "needs_lark", "emit: needs_lark")
    _patch(writer, "compile_depth", "emit: depth scan")
    _patch(writer, "lexer_limit", "emit: lexer limit probe")
    _patch(probe, "terminal_admits", "emit: terminal probes")
    _patch(probe, "terminal_strings", "emit: terminal probes")
    # the final validator is built inside passes and writers (one per listed / bounded node)
    _patch(final.FinalValidator, "__init__", "final validator: build")
    for mod in (numbers, arrays, listed, unique_items, analysis):
        if hasattr(mod, "lowered_validator"):
            _patch(mod, "lowered_validator", "final validator: standard()")
    _patch(scalar_marks, "standard", "final validator: standard()")
    # each lowering pass on its own
    lower._PLAN = tuple((union, tuple((_timed(f"lower: {name}", p), trig, name) for p, trig, name in steps))
                        for union, steps in lower._PLAN)
    _patch(lower, "finite_form", "lower: finite_form")


# ---- the run -----------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("paths", nargs="+")
    parser.add_argument("--stride", type=int, default=1, help="every Nth case (deterministic sample)")
    parser.add_argument("--offset", type=int, default=0)
    parser.add_argument("--files", default=None)
    parser.add_argument("--stages", action="store_true")
    parser.add_argument("--repeat", type=int, default=1, help="compile each case this many times, keep the minimum")
    parser.add_argument("--json", dest="json_path", default=None)
    parser.add_argument("--no-upgrade", action="store_true")
    parser.add_argument("--cases", default=None, help="a file listing the case locations to run (one a line)")
    args = parser.parse_args(argv)
    upgrade = not args.no_upgrade
    cases = load_cases(args.paths, files=args.files)[args.offset::args.stride]
    if args.cases:
        wanted = set(open(args.cases, encoding="utf-8").read().split())
        cases = [c for c in cases if c.location in wanted]
    init_worker("llama32k", upgrade, "schema", None)
    if args.stages:
        install_stage_timers()
    rows = []
    started = time.perf_counter()
    for case in cases:
        best: dict[str, Any] = {}
        for _ in range(args.repeat):
            TIMES.clear()
            COUNTS.clear()
            if schemac_first(case):
                t0 = _clock()
                ours, artifact = _schemac(case, upgrade)
                t1 = _clock()
                raw, _ = _llguidance(case)
                t2 = _clock()
                ours.compile_cpu_ms, raw.compile_cpu_ms = (t1 - t0) * 1000.0, (t2 - t1) * 1000.0
            else:
                t0 = _clock()
                raw, _ = _llguidance(case)
                t1 = _clock()
                ours, artifact = _schemac(case, upgrade)
                t2 = _clock()
                ours.compile_cpu_ms, raw.compile_cpu_ms = (t2 - t1) * 1000.0, (t1 - t0) * 1000.0
            if not best or ours.compile_cpu_ms < best["s_cpu"]:
                best = {"case": case.location, "s_status": ours.status, "s_code": ours.code,
                        "s_ms": ours.compile_ms, "s_cpu": ours.compile_cpu_ms,  # process CPU (see _clock)
                        "l_status": raw.status, "l_ms": raw.compile_ms, "l_cpu": raw.compile_cpu_ms,
                        "grammar_sha": (__import__("hashlib").sha256(artifact.grammar.encode()).hexdigest()[:16]
                                        if artifact is not None else None),
                        "stages": {k: v * 1000.0 for k, v in TIMES.items()}, "counts": dict(COUNTS)}
            if not best.get("l_cpu_min") or raw.compile_cpu_ms < best["l_cpu_min"]:
                best["l_cpu_min"] = raw.compile_cpu_ms
        rows.append(best)
    wall = time.perf_counter() - started
    summary = summarise(rows)
    summary["wall_s"] = wall
    summary["sample"] = f"{len(cases)} cases (stride {args.stride}, offset {args.offset})"
    print(json.dumps(summary, indent=1))
    if args.json_path:
        with open(args.json_path, "w", encoding="utf-8") as f:
            json.dump({"summary": summary, "rows": rows}, f, indent=0)
    return 0


def _dist(values: list[float]) -> dict[str, float]:
    return {f"p{q}": round(percentile(values, q), 3) for q in (50, 90, 99)} | {"max": round(max(values, default=0), 1),
                                                                                "mean": round(sum(values) / max(1, len(values)), 3)}


def summarise(rows: list[dict[str, Any]]) -> dict[str, Any]:
    compiled = collections.Counter(r["s_status"] for r in rows)
    both = [r for r in rows if r["s_status"] == "compiled" and r["l_status"] == "compiled"]
    out: dict[str, Any] = {
        "schemac_status": dict(compiled),
        "llguidance_compiled": sum(r["l_status"] == "compiled" for r in rows),
        "all: schemac wall ms": _dist([r["s_ms"] for r in rows]),
        "all: llguidance wall ms": _dist([r["l_ms"] for r in rows]),
        "all: schemac cpu ms": _dist([r["s_cpu"] for r in rows]),
        "all: llguidance cpu ms": _dist([r["l_cpu"] for r in rows]),
        "both: schemac wall ms": _dist([r["s_ms"] for r in both]),
        "both: llguidance wall ms": _dist([r["l_ms"] for r in both]),
        "both: schemac cpu ms": _dist([r["s_cpu"] for r in both]),
        "both: llguidance cpu ms": _dist([r["l_cpu"] for r in both]),
    }
    if any(r["stages"] for r in rows):
        out["stages"] = stage_shares(rows)
    return out


def stage_shares(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Each stage's share of schemac's time: summed over the middle band (ranks 40-60 %), over
    the slowest 1 % and over all cases."""
    ordered = sorted(rows, key=lambda r: r["s_cpu"])
    n = len(ordered)
    bands = {"p40-60": ordered[int(n * 0.4):int(n * 0.6)], "top 1%": ordered[int(n * 0.99):], "all": ordered}
    result = {}
    for band, members in bands.items():
        totals: dict[str, float] = collections.defaultdict(float)
        whole = sum(r["s_cpu"] for r in members)
        calls: dict[str, int] = collections.defaultdict(int)
        for r in members:
            for k, v in r["stages"].items():
                totals[k] += v
                calls[k] += r["counts"].get(k, 0)
            totals["(outside the stages)"] += r["s_cpu"] - sum(r["stages"].values())
        m = max(1, len(members))
        result[band] = {k: f"{100 * v / whole:.1f}% ({v / m:.3f} ms/case, {calls.get(k, 0) / m:.1f} calls/case)"
                        for k, v in sorted(totals.items(), key=lambda kv: -kv[1])}
    result["top 1% cases"] = [(r["case"], round(r["s_cpu"], 1)) for r in ordered[int(n * 0.99):]]
    return result


if __name__ == "__main__":
    raise SystemExit(main())
