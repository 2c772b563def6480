"""`python -m benchmarks.conformance PATHS... [--upgrade-drafts] [-j N] [--json PATH]`."""
from __future__ import annotations

import sys

from benchmarks.conformance.driver import main

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
