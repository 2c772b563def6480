"""Dead ends in MaskBench's compiled grammars: `schemac verify`'s liveness check on every schema.

`python -m benchmarks.dead_ends [DIR] [--limit N] [-j N] [--depth N] [--live-depth N]
[--max-nodes N] [--time S] [--bound N] [--search-nodes N] [--only SUBSTRING]`

For each MaskBench file in DIR (default /work/shared/conformance/maskbench; sorted, the first
`--limit`) that compiles with `--upgrade-drafts` (as the conformance figure does), the grammar is
walked to `--depth` alphabet tokens and every walked prefix of at most `--live-depth` tokens
(default: one short of the depth) is checked for liveness
(`schemac.verify.live`): a dead end is an admitted prefix no accepted text extends (llguidance
stuck there, or every way on gets stuck within `--bound` tokens). Prints each schema with a dead
end (its first prefixes) as it is done, running totals every 250 files, then the totals: files,
compiled, schemas with dead ends, dead-end prefixes, prefixes checked and undecided, walks cut
by their budget, unsound texts, crashes, seconds. Exit 1 when a dead end, an unsound text or a
crash was found.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path
from typing import Any

DEFAULT_DIR = Path("/work/shared/conformance/maskbench")


def check(job: tuple[str, int, int, float, int, int, int]) -> dict[str, Any]:
    """One file's figures (a dict, so a worker's result pickles cheaply)."""
    import schemac
    from schemac.diagnostics import CompileError
    from schemac.verify.check import verify_grammar

    path, depth, max_nodes, seconds, bound, search_nodes, live_depth = job
    out: dict[str, Any] = {"file": Path(path).stem, "compiled": False}
    try:
        artifact = schemac.compile(json.loads(Path(path).read_text(encoding="utf-8"))["schema"],
                                   use_cache=False, upgrade_drafts=True)
    except CompileError:
        return out
    except Exception as exc:  # noqa: BLE001 - anything but CompileError is a compiler bug to report
        return {**out, "crash": f"compile: {type(exc).__name__}: {exc}"}
    out["compiled"] = True
    try:
        report = verify_grammar(artifact.schema, artifact.grammar, depth=depth, max_nodes=max_nodes, time_s=seconds,
                                canonical=0, live_bound=bound, live_nodes=search_nodes, live_depth=live_depth)
    except Exception as exc:  # noqa: BLE001 - a verify that raises is a bug to report, not the end of the run
        return {**out, "crash": f"verify: {type(exc).__name__}: {exc}"}
    out.update(dead=report.dead_end_count, first=report.dead_ends[:3], checked=report.live_checked,
               undecided=report.undecided_count, cut=report.cut is not None, unsound=report.unsound_count,
               seconds=report.seconds)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dir", nargs="?", type=Path, default=DEFAULT_DIR)
    parser.add_argument("--limit", type=int, default=None, help="only the first N files (sorted)")
    parser.add_argument("-j", "--jobs", type=int, default=1)
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--max-nodes", type=int, default=3000)
    parser.add_argument("--time", type=float, default=20.0, help="walk time budget per schema (s)")
    parser.add_argument("--bound", type=int, default=24, help="tokens a liveness search may add")
    parser.add_argument("--search-nodes", type=int, default=400, help="nodes per liveness search")
    parser.add_argument("--live-depth", type=int, default=None,
                        help="check prefixes of at most this many tokens (default: depth - 1, as CI does)")
    parser.add_argument("--only", default="")
    args = parser.parse_args(argv)
    files = sorted(p for p in args.dir.glob("*.json") if args.only in p.name)[:args.limit]
    live_depth = args.depth - 1 if args.live_depth is None else args.live_depth
    jobs = [(str(p), args.depth, args.max_nodes, args.time, args.bound, args.search_nodes, live_depth) for p in files]
    totals = dict.fromkeys(("files", "compiled", "with dead ends", "dead ends", "checked", "undecided", "cut",
                            "unsound", "crashes"), 0)
    started = time.perf_counter()
    with ProcessPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        for done in as_completed([pool.submit(check, job) for job in jobs]):
            out = done.result()
            totals["files"] += 1
            if totals["files"] % 250 == 0:
                print(f"... {time.perf_counter() - started:.0f} s: " + ", ".join(f"{k} {v:,}" for k, v in totals.items()),
                      flush=True)
            totals["compiled"] += out["compiled"]
            if "crash" in out:
                totals["crashes"] += 1
                print(f"{out['file']}: CRASH {out['crash'][:300]}", flush=True)
            if not out["compiled"] or "crash" in out:
                continue
            for key, field in (("dead ends", "dead"), ("checked", "checked"), ("undecided", "undecided"),
                               ("cut", "cut"), ("unsound", "unsound")):
                totals[key] += out[field]
            if out["dead"]:
                totals["with dead ends"] += 1
                print(f"{out['file']}: {out['dead']} dead ends, first after "
                      + ", ".join(json.dumps(t, ensure_ascii=False) for t in out["first"]), flush=True)
    print(f"dead_ends depth={args.depth} live_depth={live_depth} max_nodes={args.max_nodes} bound={args.bound} "
          f"search_nodes={args.search_nodes}: " + ", ".join(f"{k} {v:,}" for k, v in totals.items())
          + f"; {time.perf_counter() - started:.1f} s")
    return 1 if totals["dead ends"] or totals["unsound"] or totals["crashes"] else 0


if __name__ == "__main__":
    sys.exit(main())
