"""Adversarial corpus (testdata/adversarial): attacks on the exactness promise, one case per file.

A case gives its schema as `"schema"` (a JSON value) or `"schema_text"` (JSON text the loader reads
itself: number literals a JSON value cannot keep exactly, duplicate keys), may give `"options"` for
`schemac.compile` (e.g. `{"upgrade_drafts": true}`), and is one of
- texts: `{"invalid": [...], "valid": [...], "also_valid": [...], "why"}`: the schema compiles, or
  is refused with a diagnostic (unless `"must_compile": true`); when it compiles, the grammar
  (byte-level matcher) and the runtime's final validation both refuse every "invalid" text and
  both accept every "valid" text; "also_valid" texts are valid in a spelling the syntax policy
  need not admit, so only final validation must accept them. Texts are exact byte strings (as
  UTF-8), so escape and number spellings are tested as written.
- reject: `{"expect": "reject", "code"}`: compile raises CompileError with that code.
- fast: `{"expect": "fast"}`: compiles or is refused with a diagnostic, without crashing and
  within the step budget's worth of time (measured as the compile's CPU time against twice the
  budget's cost with a margin, so that a loaded machine cannot fail a case; every case's compile
  is measured the same way).
texts and fast cases may restrict the acceptable rejection codes with `"codes_ok": [...]`. An
`internal-error` diagnostic counts as a crash, and every diagnostic's pointer must name a place in
the schema as written (else an internal form leaked into the report). Cases still failing carry
`"open": "<area>"` and are strict xfails: a fix shows up as an XPASS, and the mark must go.

Cases run in child processes (two side by side), one case after another, with a watchdog per
case (CPU time, or wall time as a last resort): a hang or a native crash ends only that case, and
a fresh child resumes after it.
"""
from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import pytest

CORPUS = Path(__file__).resolve().parents[2] / "testdata" / "adversarial"
#: What the step budget (`Limits.steps`, 1,000,000 at 5-10 µs a step) costs in CPU, twice: a
#: schema refused in its stated key orders is written again in `properties` order on a budget of
#: its own (docs/budget.md).
DEADLINE_S = 10.0
#: A compile's own CPU time past this passed what the step budget is calibrated to on any
#: machine. CPU time, not wall time, so a loaded machine cannot fail a case (1.5x: noise margin).
CPU_LIMIT_S = 1.5 * DEADLINE_S
#: the watchdog ends a case whose child used this much CPU on it (or this much wall time)
WATCHDOG_CPU_S = CPU_LIMIT_S + 1.0
WATCHDOG_WALL_S = 120.0
#: interpreter start and imports (llguidance, torch through the runtime) on a loaded machine
STARTUP_S = 120.0


def load_cases() -> dict[str, dict[str, Any]]:
    return {p.stem: json.loads(p.read_text(encoding="utf-8")) for p in sorted(CORPUS.glob("*.json"))}


#: Runs in the child: reads case names from argv, prints "start" and a result line per case.
_CHILD = r'''
import json, sys, time
from pathlib import Path
import schemac
from schemac.diagnostics import CompileError
from schemac.runtime.final import finalize
from schemac.api import StructuredOutputError
sys.path.insert(0, str(Path(sys.argv[1]).parent.parent))  # the checkout: testkit
from testkit.grammar_harness import accepts

schemac.compile({"type": "string", "pattern": "a"}, use_cache=False)  # lazy imports: not a case's cost

def final_ok(art, text):
    try:
        finalize(art.key, art.schema, text, "stop")
        return True
    except StructuredOutputError:
        return False

def show(text):
    r = repr(text)
    return r if len(r) <= 90 else f"{r[:60]}...({len(text)} chars)"

def pointer_exists(doc, pointer):
    """Whether a diagnostic's JSON Pointer names a place in the document the user wrote."""
    if pointer == "":
        return True
    if not pointer.startswith("/"):
        return False
    for part in pointer[1:].split("/"):
        part = part.replace("~1", "/").replace("~0", "~")
        if isinstance(doc, dict) and part in doc:
            doc = doc[part]
        elif isinstance(doc, list) and part.isdigit() and int(part) < len(doc):
            doc = doc[int(part)]
        else:
            return False
    return True

def user_document(case):
    if "schema" in case:
        return case["schema"]
    try:
        return json.loads(case["schema_text"])
    except ValueError:
        return None

def run(case):
    problems = []
    started = time.process_time()
    try:
        schema = case["schema_text"] if "schema_text" in case else case["schema"]
        art = schemac.compile(schema, use_cache=False, **case.get("options", {}))
        codes, messages = None, []
    except CompileError as exc:
        art, codes = None, list(dict.fromkeys(exc.codes))  # distinct codes, in order
        messages = [f"{d.code} {d.pointer}: {d.message}" for d in exc.diagnostics]
        pointers = [d.pointer for d in exc.diagnostics]
    seconds = time.process_time() - started  # CPU seconds of this compile
    if codes is not None and "internal-error" in codes:
        problems.append(f"internal-error diagnostic: {messages[:2]}")
    doc = user_document(case)
    if codes is not None and doc is not None and not case.get("options"):
        lost = [p for p in pointers if not pointer_exists(doc, p)]
        if lost:
            problems.append(f"diagnostic pointers not in the schema (an internal form leaked): {lost[:3]} {messages[:2]}")
    expect = case.get("expect", "texts")
    if expect == "reject":
        if codes is None:
            problems.append(f"compiled; expected rejection with {case['code']!r}")
        elif case["code"] not in codes:
            problems.append(f"rejected with {messages[:3]}; expected {case['code']!r}")
    if expect != "reject" and codes is not None and case.get("codes_ok") and not set(codes) <= set(case["codes_ok"]):
        problems.append(f"rejected with {messages[:3]}; acceptable codes are {case['codes_ok']}")
    if expect == "texts":
        if art is None and case.get("must_compile"):
            problems.append(f"rejected with {messages[:3]}; the case must compile")
        if art is not None:
            for text in case.get("invalid", []):
                if accepts(art.grammar, text):
                    problems.append(f"grammar accepts invalid {show(text)}")
                if final_ok(art, text):
                    problems.append(f"final validation accepts invalid {show(text)}")
            for text in case.get("valid", []):
                if not accepts(art.grammar, text):
                    problems.append(f"grammar refuses valid {show(text)}")
                if not final_ok(art, text):
                    problems.append(f"final validation refuses valid {show(text)}")
            for text in case.get("also_valid", []):
                if not final_ok(art, text):
                    problems.append(f"final validation refuses valid {show(text)}")
    return {"codes": codes, "seconds": seconds, "problems": problems}

cases = {p.stem: p for p in Path(sys.argv[1]).glob("*.json")}
for name in sys.argv[2:]:
    print(json.dumps({"start": name}), flush=True)
    case = json.loads(cases[name].read_text(encoding="utf-8"))
    try:
        result = run(case)
    except BaseException as exc:
        result = {"codes": None, "seconds": None,
                  "problems": [f"crash: {type(exc).__name__}: {exc}"[:400]]}
    print(json.dumps(dict(result, name=name)), flush=True)
'''


def _cpu_seconds(pid: int) -> float:
    """CPU time (user + system) a running process has used; wall-clock time where /proc is
    missing, which makes the watchdog a plain timeout there."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return time.monotonic()


def _pump(stream: Any, lines: "queue.Queue[str | None]") -> None:
    for line in stream:
        lines.put(line)
    lines.put(None)


def run_all(names: list[str], shards: int = 2) -> dict[str, dict[str, Any]]:
    """name -> {"codes", "seconds", "problems"}: `shards` children side by side, each resuming in
    a fresh child after a hang or crash (a hang costs the watchdog's wall time, not the others')."""
    results: dict[str, dict[str, Any]] = {}
    parts = [names[i::shards] for i in range(shards)]
    threads = [threading.Thread(target=lambda part=part: results.update(run_shard(part))) for part in parts]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results


def run_shard(names: list[str]) -> dict[str, dict[str, Any]]:
    """`run_all` for one child at a time. A child that dies before its first case (an import
    error in the tree) fails every pending case with its reason instead of restarting per case."""
    results: dict[str, dict[str, Any]] = {}
    pending = list(names)
    env = dict(os.environ, SCHEMAC_CACHE_DIR=os.devnull)
    while pending:
        with tempfile.TemporaryFile("w+") as err:  # a file, not a pipe: a chatty child never blocks
            proc = subprocess.Popen([sys.executable, "-c", _CHILD, str(CORPUS), *pending], stdout=subprocess.PIPE,
                                    stderr=err, text=True, env=env)
            lines: "queue.Queue[str | None]" = queue.Queue()
            threading.Thread(target=_pump, args=(proc.stdout, lines), daemon=True).start()
            current, started, why = None, False, ""
            since, cpu0 = time.monotonic(), _cpu_seconds(proc.pid)
            while True:
                try:
                    line = lines.get(timeout=1.0)
                except queue.Empty:
                    wall, cpu = time.monotonic() - since, _cpu_seconds(proc.pid) - cpu0
                    if not started and wall < STARTUP_S:
                        continue
                    if started and cpu < WATCHDOG_CPU_S and wall < WATCHDOG_WALL_S:
                        continue
                    proc.kill()
                    why = (f"hang: no result after {cpu:.0f} s of CPU ({wall:.0f} s wall)" if started
                           else f"child did not start in {STARTUP_S} s")
                    break
                if line is None:
                    proc.wait()
                    err.seek(0)
                    why = f"crash: child exited {proc.returncode}: {err.read()[-600:]}"
                    break
                try:
                    item = json.loads(line)
                except ValueError:
                    continue  # not a result line (a library writing to stdout)
                if not isinstance(item, dict):
                    continue
                if "start" in item:
                    current, started = item["start"], True
                    since, cpu0 = time.monotonic(), _cpu_seconds(proc.pid)
                    continue
                results[item.pop("name")] = item
                pending.remove(current)
                current = None
            proc.wait()
        if not pending:
            break
        if not started:
            for name in pending:
                results[name] = {"codes": None, "seconds": None, "problems": [why]}
            break
        failed = current if current is not None else pending[0]
        results[failed] = {"codes": None, "seconds": None, "problems": [why]}
        pending.remove(failed)
    return results


CASES = load_cases()


@pytest.fixture(scope="module")
def results(request: pytest.FixtureRequest) -> dict[str, dict[str, Any]]:
    """Results of the selected cases only (so `-k` runs stay short)."""
    selected = {item.callspec.params["name"] for item in request.session.items
                if getattr(item, "callspec", None) is not None and "name" in item.callspec.params}
    return run_all(sorted(selected & set(CASES)))


def _problems(case: dict[str, Any], result: dict[str, Any]) -> list[str]:
    problems = list(result["problems"])
    if result["seconds"] is not None and result["seconds"] > CPU_LIMIT_S:
        problems.append(f"compile used {result['seconds']:.1f} s of CPU: past the step budget's {DEADLINE_S} s on any machine")
    return problems


def test_corpus_is_well_formed() -> None:
    assert len(CASES) >= 50
    for name, case in CASES.items():
        expect = case.get("expect", "texts")
        assert expect in ("texts", "reject", "fast"), name
        assert ("schema" in case) != ("schema_text" in case), name
        if expect == "texts":
            assert case.get("invalid") or case.get("valid"), name
            assert case.get("why"), name
        if expect == "reject":
            assert case.get("code"), name


@pytest.mark.parametrize(
    "name",
    [pytest.param(n, marks=pytest.mark.xfail(strict=True, reason=f"open: {c['open']}")) if c.get("open") else n
     for n, c in CASES.items()],
)
def test_adversarial_case(name: str, results: dict[str, dict[str, Any]]) -> None:
    case, result = CASES[name], results[name]
    problems = _problems(case, result)
    if case.get("open"):
        print(f"OPEN [{case['open']}] {name}: {problems}")
    assert not problems, f"{name} ({case.get('why', case.get('expect'))}): {problems}"
