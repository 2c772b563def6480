"""Conformance benchmark: `python -m benchmarks.conformance PATHS... [--upgrade-drafts] [--json PATH]`.

A thin command-line wrapper; the work is in `schemac.conformance` so that installed users get it
as `schemac conformance` too.
"""
from __future__ import annotations

import sys

from schemac.conformance import main

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
