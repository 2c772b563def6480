"""Prepare what the GPU benchmarks need on a machine without network or ../shared.

Compiles the first N MaskBench schemas that schemac accepts into artifacts, and saves the 131k
tekken vocabulary as a transformers tokenizer folder:

    python benchmarks/prepare_device.py --maskbench ../shared/conformance/maskbench --out .bench
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

import schemac
from schemac.runtime.tekken import tekken_tokenizer


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--maskbench", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--count", type=int, default=32)
    args = p.parse_args()
    out = Path(args.out)
    (out / "artifacts").mkdir(parents=True, exist_ok=True)
    made = 0
    for path in sorted(Path(args.maskbench).glob("*.json")):
        doc = json.loads(path.read_text())
        try:
            art = schemac.compile(doc["schema"], upgrade_drafts=True)
        except schemac.CompileError:
            continue
        if len(art.grammar) > 20_000:
            continue
        art.save(out / "artifacts" / f"{path.stem}.json")
        made += 1
        if made == args.count:
            break
    tekken_tokenizer().save_pretrained(out / "tokenizer")
    print(f"{made} artifacts and the tokenizer in {out}")


if __name__ == "__main__":
    main()
