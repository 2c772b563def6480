"""Plot masking-kernel time against batch size from ``kernel_bench.py --json`` output.

    python3 benchmarks/plot_kernel.py RESULTS.json OUT.png [--cold]

One panel per (dtype, V): the schemac kernel at each mask density, the write roofline
(``fill_`` of the same rows), XGrammar's Triton kernel and the torch path. Needs matplotlib;
without it the script says so and exits with status 1.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("results", type=Path)
    parser.add_argument("png", type=Path)
    parser.add_argument("--cold", action="store_true", help="plot the L2-cold (rotating buffers) runs")
    args = parser.parse_args()
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed; no plot written", file=sys.stderr)
        return 1
    report = json.loads(args.results.read_text())
    results: list[dict[str, Any]] = [r for r in report["results"] if r["cold"] == args.cold]
    dtypes = sorted({r["dtype"] for r in results})
    vocabs = sorted({r["V"] for r in results})
    densities = sorted({r["density"] for r in results})
    fig, axes = plt.subplots(len(dtypes), len(vocabs), figsize=(4.2 * len(vocabs), 3.4 * len(dtypes)), squeeze=False)
    for i, dtype in enumerate(dtypes):
        for k, vocab in enumerate(vocabs):
            ax = axes[i][k]
            cell = [r for r in results if r["dtype"] == dtype and r["V"] == vocab]

            def series(key: str, density: float) -> tuple[list[int], list[float]]:
                pts = sorted((r["B"], r[key]) for r in cell if r["density"] == density and key in r)
                return [b for b, _ in pts], [t for _, t in pts]

            for density in densities:
                ax.plot(*series("schemac", density), "o-", label=f"schemac, {density:.0%} allowed")
            high = densities[-1]
            ax.plot(*series("fill", high), "k--", label="write roofline (fill_)")
            ax.plot(*series("xgrammar", high), "s:", label=f"XGrammar Triton, {high:.0%}")
            ax.plot(*series("torch", high), "^:", label=f"torch unpack+masked_fill_, {high:.0%}")
            ax.set_xscale("log", base=2)
            batches = sorted({r["B"] for r in cell})
            ax.set_xticks(batches, [str(b) for b in batches])
            ax.set_yscale("log")
            ax.set_title(f"{dtype}, V={vocab}")
            ax.set_xlabel("batch (masked rows)")
            ax.set_ylabel("us per launch")
            ax.grid(True, which="both", alpha=0.3)
    axes[0][0].legend(fontsize=7)
    meta = report.get("meta", {})
    fig.suptitle(f"token-bitmask kernel, {meta.get('device', '?')}, {'L2-cold' if args.cold else 'L2-hot'} graph replay")
    fig.tight_layout()
    fig.savefig(args.png, dpi=110)
    print(f"wrote {args.png}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
