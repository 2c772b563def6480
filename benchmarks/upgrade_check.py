"""Agreement check for `schemac.front.upgrade.translate`: old-draft maskbench schemas vs their 2020-12 upgrade.

For every maskbench schema that declares draft-04/06/07/2019-09, each test instance is validated
with jsonschema's validator for the ORIGINAL draft and with Draft202012Validator on the upgraded
schema (no retrieval, no format checking). Prints agreement figures and every disagreement.

    python benchmarks/upgrade_check.py [/work/shared/conformance/maskbench] [--verbose]
"""
from __future__ import annotations

import collections
import glob
import json
import os
import sys
import time

from schemac.diagnostics import CompileError
from schemac.front.upgrade.translate import dialect_of, upgrade

DEFAULT_DIR = os.path.join(os.path.dirname(__file__), "..", "..", "shared", "conformance", "maskbench")


def validators() -> dict[str, type]:
    import jsonschema

    return {
        "draft-04": jsonschema.Draft4Validator,
        "draft-06": jsonschema.Draft6Validator,
        "draft-07": jsonschema.Draft7Validator,
        "2019-09": jsonschema.Draft201909Validator,
        "2020-12": jsonschema.Draft202012Validator,
    }


def draft4_numeric_integer() -> type:
    """Draft4Validator whose "integer" is any integral number, as in draft-06 and later.

    draft-04 defines "integer" lexically (no fraction part), so 1.0 is not an integer there; the
    2020-12 data model cannot tell 1.0 from 1. A disagreement that vanishes under this validator
    is that lexical difference alone, counted apart (schemac's grammars never emit 1.0 for an
    integer anyway).
    """
    import jsonschema

    checker = jsonschema.Draft4Validator.TYPE_CHECKER.redefine(
        "integer", jsonschema.Draft6Validator.TYPE_CHECKER._type_checkers["integer"]
    )
    return jsonschema.validators.extend(jsonschema.Draft4Validator, type_checker=checker)


def verdict(cls: type, schema: object, instance: object) -> str:
    """'valid', 'invalid', or 'error:<Type>' when the validator itself fails (e.g. bad refs)."""
    from referencing import Registry

    try:
        return "valid" if cls(schema, registry=Registry()).is_valid(instance) else "invalid"
    except Exception as exc:  # the oracle's own failure is a figure, not a crash
        return f"error:{type(exc).__name__}"


def check(schema: object, dialect: str, instances: list[object]) -> tuple[list[tuple[int, str, str]], str | None]:
    """Per-instance disagreements (index, original verdict, upgraded verdict), or a rejection code.

    A draft-04 disagreement due only to lexical integers is reported with original verdict
    'lexical-integer'.
    """
    v = validators()
    try:
        upgraded = upgrade(schema, dialect)
    except CompileError as exc:
        return [], exc.codes[0]
    bad = []
    for i, inst in enumerate(instances):
        a, b = verdict(v[dialect], schema, inst), verdict(v["2020-12"], upgraded, inst)
        if a != b:
            if dialect == "draft-04" and verdict(draft4_numeric_integer(), schema, inst) == b:
                a = "lexical-integer"
            bad.append((i, a, b))
    return bad, None


def main(argv: list[str]) -> int:
    verbose = "--verbose" in argv
    args = [a for a in argv if not a.startswith("--")]
    root = args[0] if args else DEFAULT_DIR
    counts: collections.Counter[str] = collections.Counter()
    by_dialect: collections.Counter[str] = collections.Counter()
    rejected: collections.Counter[str] = collections.Counter()
    started = time.perf_counter()
    for path in sorted(glob.glob(os.path.join(root, "*.json"))):
        with open(path) as f:
            doc = json.load(f)
        schema = doc["schema"]
        dialect = dialect_of(schema.get("$schema", "")) if isinstance(schema, dict) else None
        if dialect in (None, "2020-12"):
            continue
        by_dialect[dialect] += 1
        instances = [t["data"] for t in doc.get("tests", [])]
        bad, code = check(schema, dialect, instances)
        if code is not None:
            rejected[code] += 1
            counts["rejected_instances"] += len(instances)
            if verbose:
                print(f"REJECTED {os.path.basename(path)}: {code}")
            continue
        counts["schemas"] += 1
        counts["agree"] += len(instances) - len(bad)
        for i, a, b in bad:
            kind = "lexical_integer" if a == "lexical-integer" else "disagree"
            counts[kind] += 1
            print(f"{kind.upper()} {os.path.basename(path)} test {i}: original={a} upgraded={b}")
    elapsed = time.perf_counter() - started
    print(f"old-draft schemas: {sum(by_dialect.values())} ({dict(sorted(by_dialect.items()))})")
    print(f"upgraded: {counts['schemas']}  rejected by upgrade: {sum(rejected.values())} {dict(rejected)}")
    print(f"instances: agree={counts['agree']} disagree={counts['disagree']} "
          f"draft-04 lexical-integer only={counts['lexical_integer']} "
          f"(on rejected schemas: {counts['rejected_instances']})")
    print(f"elapsed: {elapsed:.1f} s")
    return 1 if counts["disagree"] else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
