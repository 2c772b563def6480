"""Run hostile cases in a child process under RLIMIT_AS (1 GiB), with the hang verdict in steps.

A crash inside llguidance or RE2 kills only the child (the cases it had not finished report
it), and the address-space limit turns a memory blow-up into an error instead of a swapping
machine. A hang is a compile that does not end within its step budget: the child counts the
steps of every case (`testkit.step_watch`) and a case past them ends with a `hang:` outcome,
whatever the clock says; the compiler's own wall-clock guard is off in the child. The only
clock left is the last resort for work no step pays for, per case and generous, reported as an
infrastructure timeout, never a verdict. One child runs all cases (interpreter start and imports
are paid once).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from testkit.step_watch import INFRA_WALL_S, infrastructure_timeout

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
MEMORY_BYTES = 1 << 30

_CHILD = """
import json, resource, sys
resource.setrlimit(resource.RLIMIT_AS, ({mem}, {mem}))
sys.path[:0] = [{here!r}, {root!r}]
import schemac
schemac.compile({{"type": "string", "pattern": "a"}}, use_cache=False)  # lazy imports are not a case's cost
from testkit.step_watch import install
install()
from cases import run_case
for name in {names!r}:
    print(json.dumps(dict(run_case(name), name=name)), flush=True)
"""


def run_bounded(names: list[str], wall_s: float | None = None) -> dict[str, dict[str, Any]]:
    """name -> {"outcome", "diagnostics"}; cases the child never reported say why (`wall_s`:
    the infrastructure last resort for them all, `INFRA_WALL_S` a case by default)."""
    code = _CHILD.format(mem=MEMORY_BYTES, here=str(HERE), root=str(ROOT), names=list(names))
    env = dict(os.environ, SCHEMAC_CACHE_DIR=os.devnull)
    timeout_s = len(names) * INFRA_WALL_S if wall_s is None else wall_s
    try:
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=timeout_s, env=env)
        stdout, why = proc.stdout, f"child exited {proc.returncode}: {proc.stderr[-1500:]}"
    except subprocess.TimeoutExpired as exc:
        out = exc.stdout or b""
        stdout = out.decode() if isinstance(out, bytes) else out
        why = infrastructure_timeout(timeout_s, "no result for the cases left")
    results = {}
    for line in stdout.splitlines():
        if line.startswith("{"):
            item = json.loads(line)
            results[item.pop("name")] = item
    for name in names:
        results.setdefault(name, {"outcome": why, "diagnostics": []})
    return results
