"""Run hostile cases in a child process under RLIMIT_AS (1 GiB) and a wall-clock limit.

A crash inside llguidance or RE2 kills only the child (the cases it had not finished report
it), a hang shows as a timeout, and the address-space limit turns a memory blow-up into an
error instead of a swapping machine. One child runs all cases (interpreter start and imports
are paid once); each case's own time is measured inside it.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
MEMORY_BYTES = 1 << 30
DEADLINE_S = 5.0

_CHILD = """
import json, resource, sys
resource.setrlimit(resource.RLIMIT_AS, ({mem}, {mem}))
sys.path.insert(0, {here!r})
import schemac
schemac.compile({{"type": "string", "pattern": "a"}}, use_cache=False)  # lazy imports are not a case's cost
from cases import run_case
for name in {names!r}:
    print(json.dumps(dict(run_case(name), name=name)), flush=True)
"""


def run_bounded(names: list[str], timeout_s: float) -> dict[str, dict[str, Any]]:
    """name -> {"outcome", "diagnostics", "seconds"}; cases the child never reported say why."""
    code = _CHILD.format(mem=MEMORY_BYTES, here=str(HERE), names=list(names))
    env = dict(os.environ, SCHEMAC_CACHE_DIR=os.devnull)
    try:
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=timeout_s, env=env)
        stdout, why = proc.stdout, f"child exited {proc.returncode}: {proc.stderr[-1500:]}"
    except subprocess.TimeoutExpired as exc:
        out = exc.stdout or b""
        stdout = out.decode() if isinstance(out, bytes) else out
        why = f"child timed out after {timeout_s} s"
    results = {}
    for line in stdout.splitlines():
        if line.startswith("{"):
            item = json.loads(line)
            results[item.pop("name")] = item
    for name in names:
        results.setdefault(name, {"outcome": why, "diagnostics": [], "seconds": None})
    return results
