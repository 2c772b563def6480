"""Randomised deep fuzzing of the whole compiler: `python -m benchmarks.fuzz_deep SEED [EXAMPLES]`.

CI runs `tests/compiler/test_fuzz_compile.py` derandomised (the same 150 examples every run, so a red run
means a regression); this runs the same strategy with a chosen seed and many more examples, and
prints figures: schemas compiled and rejected, random walks, and every walk the final validator
refuses (an unsound grammar), with the schema to reproduce it.
"""
from __future__ import annotations

import random
import sys
import time
from typing import Any



def main(argv: list[str]) -> int:
    from hypothesis import HealthCheck, given, seed, settings
    from hypothesis import strategies as st
    from testkit.fuzz_schemas import SCHEMAS, random_walk

    import schemac
    from schemac.diagnostics import CompileError
    from schemac.validate.final import FinalValidator, parse_answer

    run_seed = int(argv[0]) if argv else 0
    examples = int(argv[1]) if len(argv) > 1 else 2000
    counts = {"compiled": 0, "rejected": 0, "walks": 0, "duplicate-key": 0, "unsound": 0}
    found: list[tuple[Any, str]] = []

    @seed(run_seed)
    @settings(max_examples=examples, deadline=None, derandomize=False, database=None,
              suppress_health_check=list(HealthCheck))
    @given(schema=SCHEMAS, walk_seed=st.integers(0, 2**32 - 1))
    def run(schema: Any, walk_seed: int) -> None:
        try:
            artifact = schemac.compile(schema, use_cache=False)
        except CompileError:
            counts["rejected"] += 1
            return
        counts["compiled"] += 1
        validator = FinalValidator(artifact.schema)
        rng = random.Random(walk_seed)
        for _ in range(8):
            answer = random_walk(artifact.grammar, rng)
            if answer is None:
                continue
            counts["walks"] += 1
            try:
                value = parse_answer(answer)
            except ValueError as exc:
                key = "duplicate-key" if "duplicate object key" in str(exc) else "unsound"
                counts[key] += 1
                if key == "unsound":
                    found.append((schema, answer))
                continue
            if not validator.is_valid(value):
                counts["unsound"] += 1
                found.append((schema, answer))

    started = time.perf_counter()
    run()
    elapsed = time.perf_counter() - started
    print(f"fuzz_deep seed={run_seed} examples={examples}: " + ", ".join(f"{k} {v}" for k, v in counts.items())
          + f"; {elapsed:.1f} s")
    for schema, answer in found[:20]:
        print(f"  unsound: {answer!r} admitted for {schema!r}")
    return 1 if found else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
