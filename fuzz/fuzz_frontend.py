"""Local fuzz harness for the loader and the regex checker (issue 6).

    python3 fuzz/fuzz_frontend.py [--target load|regex] [--examples N]   # hypothesis, bounded
    python3 fuzz/fuzz_frontend.py --atheris [--target ...] [atheris args] # coverage-guided, forever

The property: on any bytes, `schemac.front.load.load` and `schemac.regex.check_patterns` either return
or raise CompileError; anything else (UnicodeError, ValueError, RecursionError, a crash in RE2 or
llguidance) is a bug. atheris is optional (`pip install atheris`); hypothesis is always there.
"""
from __future__ import annotations

import argparse
import sys

from schemac.budget import Budget
from schemac.diagnostics import CompileError


def one_input(target: str, data: bytes) -> None:
    """The property under test, for one input."""
    from schemac.front.load import load
    from schemac.regex import check_patterns

    try:
        if target == "load":
            load(data)
        else:
            pattern = data.decode("utf-8", "surrogatepass")
            check_patterns({"pattern": pattern}, Budget())
    except CompileError as exc:
        assert exc.codes, "a CompileError without an error diagnostic"


def _hypothesis(target: str, examples: int) -> None:
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    regex_alphabet = st.sampled_from(list("ab()[]{}|*+?.^$\\-,:=!<>0123456789dwsuxpkc") + ["\ud800", "é"])
    if target == "load":
        inputs = st.one_of(st.binary(max_size=200), st.text(st.sampled_from(list('{}[]":,0123456789.eE-+ truefalsnNIy\\u')), max_size=200).map(str.encode))
    else:
        inputs = st.text(regex_alphabet, max_size=40).map(lambda s: s.encode("utf-8", "surrogatepass"))

    @settings(max_examples=examples, deadline=None, suppress_health_check=list(HealthCheck))
    @given(inputs)
    def run(data: bytes) -> None:
        one_input(target, data)

    run()
    print(f"{target}: {examples} examples, no failure")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--target", choices=("load", "regex"), default="load")
    ap.add_argument("--examples", type=int, default=2000)
    ap.add_argument("--atheris", action="store_true")
    args, rest = ap.parse_known_args()
    if args.atheris:
        import atheris

        atheris.Setup([sys.argv[0], *rest], lambda data: one_input(args.target, data))
        atheris.Fuzz()
        return 0
    _hypothesis(args.target, args.examples)
    return 0


if __name__ == "__main__":
    sys.exit(main())
