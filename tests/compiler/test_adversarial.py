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
  within its step budget (every case's compile is held to it the same way: see the watchdog).
texts and fast cases may restrict the acceptable rejection codes with `"codes_ok": [...]`. An
`internal-error` diagnostic counts as a crash, and every diagnostic's pointer must name a place in
the schema as written (else an internal form leaked into the report). Cases still failing carry
`"open": "<area>"` and are strict xfails: a fix shows up as an XPASS, and the mark must go.

Cases run in child processes (two side by side), one case after another; a native crash ends
only that case, and a fresh child resumes after it. The hang verdict is counted in steps, never
in seconds (`testkit.step_watch`): the child counts every step of a case's compiles (on every
budget the compile makes) and ends the case as a hang at the first step past `STEP_CEILING`, a
compile that did not end within its step budget. Inside the child the compiler's own wall-clock guard is off
(`deadline_s` infinite), so no verdict rides on the clock or the machine's load. Only work no step
pays for (a native call that never returns) can outlast that; for it a generous wall-clock last
resort (`INFRA_WALL_S`) fails the case loudly as an infrastructure timeout, never as a verdict.
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

from testkit.step_watch import INFRA_WALL_S, STEP_CEILING, infrastructure_timeout

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "testdata" / "adversarial"
#: interpreter start and imports (llguidance, torch through the runtime) on a loaded machine
STARTUP_S = INFRA_WALL_S


def load_cases() -> dict[str, dict[str, Any]]:
    return {p.stem: json.loads(p.read_text(encoding="utf-8")) for p in sorted(CORPUS.glob("*.json"))}


#: Runs in the child: reads case names from argv, prints "start" and a result line per case.
_CHILD = r'''
import json, sys
from pathlib import Path
import schemac
from schemac.diagnostics import CompileError
from schemac.runtime.final import finalize
from schemac.api import StructuredOutputError
from testkit.grammar_harness import accepts
from testkit.step_watch import Hang, install, limits_with, start_case, steps

schemac.compile({"type": "string", "pattern": "a"}, use_cache=False)  # lazy imports: not a case's cost
install(int(sys.argv[2]))  # the hang verdict, in steps (testkit.step_watch)
# prelude

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
    start_case()
    try:
        schema = case["schema_text"] if "schema_text" in case else case["schema"]
        art = schemac.compile(schema, use_cache=False, **limits_with(case.get("options", {})))
        codes, messages = None, []
    except CompileError as exc:
        art, codes = None, list(dict.fromkeys(exc.codes))  # distinct codes, in order
        messages = [f"{d.code} {d.pointer}: {d.message}" for d in exc.diagnostics]
        pointers = [d.pointer for d in exc.diagnostics]
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
    return {"codes": codes, "steps": steps(), "problems": problems}

cases = {p.stem: p for p in Path(sys.argv[1]).glob("*.json")}
for name in sys.argv[3:]:
    print(json.dumps({"start": name}), flush=True)
    case = json.loads(cases[name].read_text(encoding="utf-8"))
    try:
        result = run(case)
    except Hang as exc:
        result = {"codes": None, "steps": steps(), "problems": [str(exc)]}
    except BaseException as exc:
        result = {"codes": None, "steps": steps(),
                  "problems": [f"crash: {type(exc).__name__}: {exc}"[:400]]}
    print(json.dumps(dict(result, name=name)), flush=True)
'''


def _pump(stream: Any, lines: "queue.Queue[str | None]") -> None:
    for line in stream:
        lines.put(line)
    lines.put(None)


def run_all(names: list[str], shards: int = 2) -> dict[str, dict[str, Any]]:
    """name -> {"codes", "steps", "problems"}: `shards` children side by side, each resuming in a
    fresh child after a crash or an infrastructure timeout."""
    results: dict[str, dict[str, Any]] = {}
    parts = [names[i::shards] for i in range(shards)]
    threads = [threading.Thread(target=lambda part=part: results.update(run_shard(part))) for part in parts]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results


def run_shard(names: list[str], corpus: Path = CORPUS, prelude: str = "", wall_s: float = INFRA_WALL_S,
              startup_s: float = STARTUP_S) -> dict[str, dict[str, Any]]:
    """`run_all` for one child at a time. A child that dies before its first case (an import
    error in the tree) fails every pending case with its reason instead of restarting per case.
    `prelude` runs in the child before its cases (the watchdog's own tests put faults there);
    `wall_s`/`startup_s` are the infrastructure last resorts, per case and for the start."""
    results: dict[str, dict[str, Any]] = {}
    pending = list(names)
    env = dict(os.environ, SCHEMAC_CACHE_DIR=os.devnull,  # the checkout first: testkit
               PYTHONPATH=os.pathsep.join([str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]))
    child = _CHILD.replace("# prelude\n", prelude, 1)
    while pending:
        with tempfile.TemporaryFile("w+") as err:  # a file, not a pipe: a chatty child never blocks
            proc = subprocess.Popen([sys.executable, "-c", child, str(corpus), str(STEP_CEILING), *pending],
                                    stdout=subprocess.PIPE, stderr=err, text=True, env=env)
            lines: "queue.Queue[str | None]" = queue.Queue()
            threading.Thread(target=_pump, args=(proc.stdout, lines), daemon=True).start()
            current, started, why = None, False, ""
            since = time.monotonic()
            while True:
                try:
                    line = lines.get(timeout=1.0)
                except queue.Empty:
                    wall = time.monotonic() - since
                    if wall < (wall_s if started else startup_s):
                        continue
                    proc.kill()
                    why = infrastructure_timeout(wall) if started else infrastructure_timeout(wall, "the child did not start")
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
                    since = time.monotonic()
                    continue
                results[item.pop("name")] = item
                pending.remove(current)
                current = None
            proc.wait()
        if not pending:
            break
        if not started:
            for name in pending:
                results[name] = {"codes": None, "steps": None, "problems": [why]}
            break
        failed = current if current is not None else pending[0]
        results[failed] = {"codes": None, "steps": None, "problems": [why]}
        pending.remove(failed)
    return results


CASES = load_cases()


@pytest.fixture(scope="module")
def results(request: pytest.FixtureRequest) -> dict[str, dict[str, Any]]:
    """Results of the selected cases only (so `-k` runs stay short)."""
    selected = {item.callspec.params["name"] for item in request.session.items
                if getattr(item, "callspec", None) is not None and "name" in item.callspec.params}
    return run_all(sorted(selected & set(CASES)))


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
    problems = result["problems"]
    if case.get("open"):
        print(f"OPEN [{case['open']}] {name}: {problems}")
    assert not problems, f"{name} ({case.get('why', case.get('expect'))}): {problems}"
