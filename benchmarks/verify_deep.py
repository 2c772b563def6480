"""Deep `schemac.verify` run over the catalogue, the golden fixtures and the testdata schemas.

`python -m benchmarks.verify_deep [--depth N] [--max-nodes N] [--canonical N] [--only SUBSTRING]`

CI (tests/verify/test_verify_catalogue.py) walks depth 3-4 with small budgets; this walks deeper and
prints, per schema that is not clean, its summary and first counterexamples, then totals:
schemas, texts walked, unsound / refused / disagreements / dead ends, walks cut, seconds.
"""
from __future__ import annotations

import argparse
import json
import time
from decimal import Decimal
from pathlib import Path
from typing import Any, Iterator

ROOT = Path(__file__).resolve().parents[1]


def corpus() -> Iterator[tuple[str, Any, bool]]:
    """(name, schema source, cross-check?) for the catalogue, fixtures and testdata schemas."""
    from schemac.verify.alphabet import render

    for path in sorted((ROOT / "testdata" / "catalogue").glob("*.json")):
        for case in json.loads(path.read_text(encoding="utf-8"), parse_float=Decimal)["cases"]:
            yield f"{path.name}:{case['name']}", render(case["schema"], ",", ":"), True
    paths = sorted((ROOT / "testdata" / "lower").glob("**/*.json"))
    paths += sorted((ROOT / "testdata" / "schemas" / "supported").glob("*.json"))
    for path in paths:
        text = path.read_text(encoding="utf-8")
        data = json.loads(text)
        yield str(path.relative_to(ROOT)), data["schema"] if "tests" in data and "schema" in data else text, False


def main() -> int:
    import schemac

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depth", type=int, default=5)
    parser.add_argument("--max-nodes", type=int, default=200_000)
    parser.add_argument("--canonical", type=int, default=3000)
    parser.add_argument("--time", type=float, default=120.0)
    parser.add_argument("--only", default="")
    args = parser.parse_args()
    totals = {"schemas": 0, "rejected": 0, "texts": 0, "unsound": 0, "refused": 0, "disagreements": 0,
              "dead ends": 0, "cut": 0, "not clean": 0}
    started = time.perf_counter()
    for name, source, cross in corpus():
        if args.only not in name:
            continue
        report = schemac.verify(source, depth=args.depth, max_nodes=args.max_nodes, canonical=args.canonical,
                                time_s=args.time, cross_check=cross, upgrade_drafts=True)
        totals["schemas"] += 1
        totals["rejected"] += report.status == "rejected"
        totals["texts"] += report.texts
        totals["unsound"] += report.unsound_count
        totals["refused"] += report.refused_count
        totals["disagreements"] += report.disagreement_count
        totals["dead ends"] += report.dead_end_count
        totals["cut"] += report.cut is not None
        if not report.ok:
            totals["not clean"] += 1
            print(f"{name}: {report.summary()}")
            for c in [c for kind in ("unsound", "refused", "disagreement") for c in report.first(kind, 3)]:
                print(f"    {c.kind}: {c.text!r}  {c.detail[:160]}")
            for text in report.dead_ends[:2]:
                print(f"    dead end after {text!r}")
    print(f"verify_deep depth={args.depth} max_nodes={args.max_nodes}: "
          + ", ".join(f"{k} {v:,}" for k, v in totals.items()) + f"; {time.perf_counter() - started:.1f} s")
    return 1 if totals["not clean"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
