"""Disk-cache stream: `python3 -m benchmarks.cache_stream [-n 100000] [--max-bytes B] [--dir D]`.

Writes N unique compiled artifacts through `DiskCache.put` (as `compile_schema` does: a new
DiskCache object per call) and reports entries kept, bytes on disk (checked against the bound
every `--check-every` puts), the largest excess seen, puts per second, and the process's
resident memory at the first check and at the end (flat memory: no per-entry state is kept).
"""
from __future__ import annotations

import argparse
import json
import tempfile
import time
from dataclasses import replace
from pathlib import Path


def _rss_mib() -> float:
    """Current resident set size (Linux /proc), in MiB; 0 where /proc is missing."""
    try:
        pages = int(Path("/proc/self/statm").read_text().split()[1])
    except OSError:
        return 0.0
    import os

    return round(pages * os.sysconf("SC_PAGE_SIZE") / 2**20, 1)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("-n", type=int, default=100_000)
    ap.add_argument("--max-bytes", type=int, default=8 * 1024 * 1024)
    ap.add_argument("--check-every", type=int, default=1000)
    ap.add_argument("--dir")
    args = ap.parse_args()

    import schemac
    from schemac.cache import DiskCache

    base = schemac.compile({"type": "object", "properties": {"id": {"type": "integer"}}}, use_cache=False)
    root = Path(args.dir or tempfile.mkdtemp(prefix="schemac-stream-"))
    worst = 0
    rss_first = 0.0
    started = time.perf_counter()
    for i in range(args.n):
        artifact = replace(base, key=f"{i:064x}"[::-1], compile_ms=float(i))  # unique key and content
        DiskCache(root, max_bytes=args.max_bytes).put(artifact)
        if (i + 1) % args.check_every == 0:
            worst = max(worst, DiskCache(root).usage() - args.max_bytes)
            rss_first = rss_first or _rss_mib()
    seconds = time.perf_counter() - started
    cache = DiskCache(root)
    print(json.dumps({"puts": args.n, "entries": len(list(root.glob("*/*.json"))), "bytes": cache.usage(),
                      "max_bytes": args.max_bytes, "worst_excess_bytes": max(worst, 0), "seconds": round(seconds, 1),
                      "puts_per_s": round(args.n / seconds),
                      "rss_mib_first_check": rss_first, "rss_mib_end": _rss_mib()}))
    return 0 if cache.usage() <= args.max_bytes else 1


if __name__ == "__main__":
    raise SystemExit(main())
