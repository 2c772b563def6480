"""Limits benchmark: schemas at the loader's own limits, each compiled cold, with its time.

Every loop of the compiler draws on the step budget (`schemac.budget.Limits.steps`), so no
schema the loader admits may compile (or be refused) after much more than the budget's worth of
work. Walks the largest enum of numbers and of strings, const arrays, items under a long enum,
the most properties, overlapping pattern groups, the deepest nesting and the most subschemas;
prints each compile's verdict, steps used, CPU and wall seconds. Fails (exit 1) when a case
passes `--max-cpu` seconds of CPU (the budget is calibrated at about 3 s on the 2-core
development machine) or when a numeric enum of the loader's size does not compile.

    python3 -m benchmarks.limits [--only NAME] [--max-cpu 10]
"""
from __future__ import annotations

import argparse
import resource
import sys
import time
from typing import Any, Callable

from schemac.budget import Limits

L = Limits()
N = L.max_enum_values  # 50,000
#: cases that must compile (the issue's promise: numeric enums of the loader's size compile)
MUST_COMPILE = {"enum-50k-integers", "enum-50k-decimals", "enum-50k-strings", "const-array-50k-numbers",
                "items-enum-50k-integers"}


def _nest(depth: int, key: str) -> Any:
    node: Any = {"type": "integer"}
    for _ in range(depth):
        node = {"type": "object", "properties": {key: node}} if key else {"type": "array", "items": node}
    return node


def cases() -> dict[str, Callable[[], Any]]:
    """name -> a function building the schema (built only when run)."""
    props = int(L.max_property_pairs ** 0.5)
    return {
        "enum-50k-integers": lambda: {"enum": [i * 7 - 100_000 for i in range(N)]},
        "enum-50k-decimals": lambda: {"enum": [round(i / 8 - 3000, 3) for i in range(N)]},
        "enum-50k-mixed-numbers": lambda: {"enum": [i if i % 2 else i / 4 for i in range(N)]},
        "enum-50k-strings": lambda: {"enum": [f"value-{i}" for i in range(N)]},
        "enum-50k-numbers-with-minimum": lambda: {"enum": list(range(N)), "minimum": 100, "multipleOf": 3},
        "const-array-50k-numbers": lambda: {"const": list(range(N))},
        "const-array-50k-strings": lambda: {"const": [f"s{i}" for i in range(N)]},
        "items-enum-50k-integers": lambda: {"type": "array", "items": {"enum": list(range(N))}},
        "anyof-enum-50k-and-step": lambda: {"anyOf": [{"enum": list(range(N))}, {"type": "integer", "multipleOf": 7}]},
        f"properties-{props}": lambda: {"type": "object", "properties": {f"p{i}": {"type": "integer"} for i in range(props)}},
        f"required-{props}": lambda: {"type": "object", "required": [f"p{i}" for i in range(props)]},
        "pattern-groups-8-overlapping": lambda: {"type": "object", "patternProperties": {
            f"^{'a' * i}": {"type": "integer", "minimum": i} for i in range(1, 9)}},
        "pattern-groups-64": lambda: {"type": "object", "patternProperties": {
            f"^k{i}_": {"type": "integer", "maximum": i} for i in range(64)}},
        f"nesting-{L.max_depth - 2}-objects": lambda: _nest((L.max_depth - 2) // 2, "a"),
        f"nesting-{L.max_depth - 2}-arrays": lambda: _nest(L.max_depth - 2, ""),
        f"anyof-{L.max_subschemas - 2}-subschemas": lambda: {"anyOf": [{"const": f"c{i}"} for i in range(L.max_subschemas - 2)]},
        "allof-12-if-then-pairs": lambda: {"type": "object", "properties": {f"k{i}": {"type": ["integer", "null"]} for i in range(12)},
                                           "allOf": [{"if": {"required": [f"k{i}"]}, "then": {"properties": {f"k{i}": {"minimum": 1}}}}
                                                     for i in range(12)]},
        "oneof-40-objects": lambda: {"oneOf": [{"type": "object", "properties": {"t": {"const": i}, f"v{i}": {"type": "integer"}},
                                                "required": ["t"]} for i in range(40)]},
    }


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def main(argv: list[str] | None = None) -> int:
    import schemac

    parser = argparse.ArgumentParser(prog="python3 -m benchmarks.limits", description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", default=None, help="run only cases whose name contains this")
    parser.add_argument("--max-cpu", type=float, default=10.0, help="CPU seconds no case may pass")
    args = parser.parse_args(argv)
    schemac.compile({"type": "integer", "minimum": 1}, use_cache=False)  # imports and llguidance warm
    failed: list[str] = []
    print(f"{'case':34} {'verdict':16} {'steps':>9} {'cpu s':>7} {'wall s':>7}  grammar")
    for name, build in cases().items():
        if args.only and args.only not in name:
            continue
        schema = build()
        cpu, wall = _cpu(), time.monotonic()
        try:
            artifact = schemac.compile(schema, use_cache=False)
            verdict, steps, size = "compiled", artifact.budget["steps"]["used"], f"{len(artifact.grammar):,} B"
        except schemac.CompileError as exc:
            verdict, steps, size = (exc.codes or ["?"])[0], None, exc.diagnostics[0].message[:70]
        cpu, wall = _cpu() - cpu, time.monotonic() - wall
        bad = cpu > args.max_cpu or (name in MUST_COMPILE and verdict != "compiled")
        if bad:
            failed.append(name)
        print(f"{name:34} {verdict:16} {'' if steps is None else f'{steps:,}':>9} {cpu:7.2f} {wall:7.2f}  {size}"
              + ("  FAIL" if bad else ""), flush=True)
    print(f"\nstep limit {L.steps:,}; CPU bound {args.max_cpu:g} s; failed: {len(failed)}" + (f" ({', '.join(failed)})" if failed else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
