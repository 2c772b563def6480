"""Determinism benchmark: the same verdict for every schema, idle or under load, cold or warm.

Compiles testdata/adversarial and MaskBench twice, each time in a fresh process pinned to one
core (`os.sched_setaffinity`): once with that core idle, once with a CPU hog pinned to the same
core (so the compile gets about half of it). Prints each run's verdict tally (compiled, or the
first error code), the schemas whose verdict (status, codes, first pointer) differs between the
runs (must be 0), and the step use of the compiled schemas (how close the slowest are to
`Limits.steps`). Exit status 1 when any verdict differs.

    python3 -m benchmarks.determinism [--maskbench ../shared/conformance/maskbench] [--limit N] [--every N]
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any, Iterator

ROOT = Path(__file__).resolve().parent.parent
ADVERSARIAL = ROOT / "testdata" / "adversarial"
#: ../shared from the main checkout (or from a worktree's parent folder)
MASKBENCH = next((p / "shared" / "conformance" / "maskbench" for p in (ROOT.parent, ROOT.parent.parent)
                  if (p / "shared" / "conformance" / "maskbench").is_dir()), ROOT.parent / "shared" / "conformance" / "maskbench")


def cases(adversarial: Path, maskbench: Path | None, limit: int | None, every: int = 1) -> list[tuple[str, Any, dict[str, Any]]]:
    """(name, schema or {"schema_text": ...}, compile options) for every case, in file order."""
    out: list[tuple[str, Any, dict[str, Any]]] = []
    for path in sorted(adversarial.glob("*.json")):
        case = json.loads(path.read_text(encoding="utf-8"))
        schema = {"schema_text": case["schema_text"]} if "schema_text" in case else case.get("schema")
        out.append((f"adversarial/{path.stem}", schema, case.get("options", {})))
    if maskbench is not None:
        for path in sorted(maskbench.glob("*.json"))[:limit:every]:
            case = json.loads(path.read_text(encoding="utf-8"))
            out.append((f"maskbench/{path.stem}", case["schema"], {"upgrade_drafts": True}))
    return out


def _verdict(schema: Any, options: dict[str, Any]) -> dict[str, Any]:
    import schemac

    text = schema["schema_text"] if isinstance(schema, dict) and set(schema) == {"schema_text"} else schema
    cpu = time.thread_time()
    try:
        artifact = schemac.compile(text, use_cache=False, **options)
        out = {"verdict": "compiled", "codes": [], "pointer": "", "steps": artifact.budget["steps"]["used"]}
    except schemac.CompileError as exc:
        first = next((d for d in exc.diagnostics if d.severity.value == "error"), None)
        out = {"verdict": exc.codes[0] if exc.codes else "error", "codes": exc.codes,
               "pointer": first.pointer if first else "", "steps": None}
    except Exception as exc:  # noqa: BLE001 - a bug is a verdict too, and must not differ
        out = {"verdict": f"bug:{type(exc).__name__}", "codes": [], "pointer": "", "steps": None}
    out["cpu_s"] = round(time.thread_time() - cpu, 4)
    return out


def _child(core: int, start: int) -> None:
    """Read the case list on stdin; print one JSON line per case from `start` on."""
    os.sched_setaffinity(0, {core})
    all_cases = json.loads(sys.stdin.read())
    for name, schema, options in all_cases[start:]:
        print(json.dumps({"start": name}), flush=True)
        print(json.dumps({"name": name, **_verdict(schema, options)}), flush=True)


def _run(all_cases: list[Any], core: int) -> dict[str, dict[str, Any]]:
    """Every case's verdict from fresh child processes pinned to `core`; a child that dies (a
    native crash) records `crash` for its case and a new child resumes after it."""
    results: dict[str, dict[str, Any]] = {}
    payload = json.dumps(all_cases)
    start = 0
    while start < len(all_cases):
        proc = subprocess.Popen([sys.executable, "-m", "benchmarks.determinism", "--child", str(core), str(start)],
                                cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(payload)
        proc.stdin.close()
        current = None
        for line in proc.stdout:
            record = json.loads(line)
            if "start" in record:
                current = record["start"]
            else:
                results[record["name"]] = record
                current = None
                start += 1
        proc.wait()
        if current is not None:
            results[current] = {"name": current, "verdict": f"crash:{proc.returncode}", "codes": [], "pointer": "", "steps": None}
            start += 1
    return results


def _hog(core: int) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-c", f"import os; os.sched_setaffinity(0, {{{core}}})\nwhile True: pass"])


def _key(r: dict[str, Any]) -> tuple[Any, ...]:
    return r["verdict"], tuple(r["codes"]), r["pointer"]


def _tally(results: dict[str, dict[str, Any]], prefix: str) -> Iterator[tuple[str, int]]:
    return iter(Counter(r["verdict"] for n, r in results.items() if n.startswith(prefix)).most_common())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m benchmarks.determinism", description=__doc__.split("\n\n")[0])
    parser.add_argument("--child", nargs=2, type=int, help=argparse.SUPPRESS)
    parser.add_argument("--adversarial", type=Path, default=ADVERSARIAL)
    parser.add_argument("--maskbench", type=Path, default=MASKBENCH, help="MaskBench folder ('' to skip)")
    parser.add_argument("--limit", type=int, default=None, help="only the first N MaskBench schemas")
    parser.add_argument("--every", type=int, default=1, help="only every N-th MaskBench schema (a sample)")
    parser.add_argument("--core", type=int, default=None, help="the core to pin to (default: the last allowed)")
    parser.add_argument("--json", dest="json_path", default=None, help="write both runs' records here")
    args = parser.parse_args(argv)
    if args.child:
        _child(*args.child)
        return 0
    maskbench = args.maskbench if str(args.maskbench) not in ("", ".") and args.maskbench.is_dir() else None
    all_cases = cases(args.adversarial, maskbench, args.limit, args.every)
    core = args.core if args.core is not None else max(os.sched_getaffinity(0))
    print(f"{len(all_cases):,} schemas ({sum(n.startswith('maskbench/') for n, _, _ in all_cases):,} MaskBench), pinned to core {core}")
    runs: dict[str, dict[str, dict[str, Any]]] = {}
    for label, loaded in (("idle", False), ("loaded", True)):
        hog = _hog(core) if loaded else None
        began = time.monotonic()
        try:
            runs[label] = _run(all_cases, core)
        finally:
            if hog is not None:
                hog.kill()
                hog.wait()
        print(f"\n{label} run ({'a CPU hog on the same core' if loaded else 'core idle'}): {time.monotonic() - began:.0f} s wall")
        for prefix in ("adversarial/", "maskbench/"):
            tally = ", ".join(f"{v} {n:,}" for v, n in _tally(runs[label], prefix))
            print(f"  {prefix[:-1]}: {tally or '-'}")
    idle, loaded_run = runs["idle"], runs["loaded"]
    differing = sorted(n for n in idle if _key(idle[n]) != _key(loaded_run.get(n, {"verdict": "missing", "codes": [], "pointer": ""})))
    print(f"\ndiffering verdicts: {len(differing)}")
    for name in differing:
        print(f"  {name}: idle {_key(idle[name])} / loaded {_key(loaded_run[name])}")
    steps = sorted((r["steps"], n) for n, r in idle.items() if r["steps"] is not None)
    if steps:
        from schemac.budget import Limits

        print(f"\nsteps of the compiled schemas (limit {Limits().steps:,}): p50 {steps[len(steps) // 2][0]:,}, "
              f"p99 {steps[len(steps) * 99 // 100][0]:,}, max {steps[-1][0]:,} ({steps[-1][1]})")
        slow = sorted(((r["cpu_s"], n, r["verdict"], r["steps"]) for n, r in idle.items()), reverse=True)[:8]
        print("slowest compiles (idle, CPU s): " + "; ".join(f"{n} {c:.2f} s {v} {s if s is not None else ''}" for c, n, v, s in slow))
    if args.json_path:
        Path(args.json_path).write_text(json.dumps(runs, indent=1) + "\n", encoding="utf-8")
    return 1 if differing else 0


if __name__ == "__main__":
    raise SystemExit(main())
