"""Sampled soundness: random constrained completions of every compiled maskbench schema, validated.

    python3 -m benchmarks.sampled_soundness [DIR] [--walks N] [--max-tokens 512] [--jobs 2]
        [--limit K] [--seed 0] [--json PATH] [--checkpoint PATH.jsonl] [--schema-seconds S]
        [--upgrade-drafts]

For each schema in DIR (default /work/shared/conformance/maskbench) that compiles (with
`--upgrade-drafts`, as the conformance benchmark's MaskBench figure does), draw N walks
over the real 131k tekken vocabulary: at each step pick uniformly among the tokens the matcher's
bitmask allows, consume it, and stop at EOS (when the grammar allows it), with probability
`--stop` once the answer is accepting, or at `--max-tokens` (a *length-bound* walk: reported,
not validated, since it is no answer). Uniform choice rarely closes an unbounded string (few of
the ~100k allowed tokens hold a quote), so `--string-exit P` draws, with probability P inside a
string, among the allowed tokens holding a quote: a different distribution over the same
allowed sets, so every answer is still one the mask let through. Every finished answer goes through the runtime's final
check (`parse_answer` + `FinalValidator(artifact.schema)`); a rejected one is a soundness
failure of the lowering, printed with its schema file and text. Length-bound walks are split by
what the last 64 bytes were spent on (inside a string vs. structural/whitespace) to show whether
the syntax policy's whitespace bound holds.

Failures are counted by cause. One cause is a documented grammar gap, counted apart from the
lowering bugs: `duplicate-key` (llguidance does not enforce unique keys under
`additionalProperties`/`patternProperties`; `parse_answer` refuses such answers). Every other
cause (`invalid`: the final validator rejects; `dead-end`: no token allowed; `matcher`: a token
the mask allowed is refused; `unparsable`) is a lowering bug.

A walk whose matcher ends in an error that is no refusal of a token (a mask it could not
compute, or a refusal because the lexer broke) is an `engine-error`: an llguidance capacity limit
("too many expressions constructed"), for which the runtime fails the request and returns no
answer. Such walks are neither samples nor soundness failures; they are counted apart
(`engine_errors` in the totals). The lexer (lazily built regex derivatives) is shared by a
matcher and all its deep copies and stays broken once a limit is hit, so, as the runtime's
loader does, a walk that finds it broken rebuilds the pristine matcher for the walks after it.

Long runs: `--checkpoint` appends one JSON line per finished schema and, when the file exists,
skips the schemas it already holds (resume after an interruption). A schema whose walks raise is
recorded as a crash; a worker process that dies is restarted, and a schema that kills workers
three times is recorded as a crash too, so no single schema ends the run. `--schema-seconds`
caps the time spent walking one schema (its walk count is reported).
"""
from __future__ import annotations

import argparse
import json
import random
import sys
import time
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any, Callable

from schemac.verify.live import string_state

DEFAULT_DIR = Path("/work/shared/conformance/maskbench")

#: documented grammar gaps (README "Known gaps"): counted, never hidden, but not lowering bugs
KNOWN_GAPS = ("duplicate-key",)
#: llguidance capacity limits: the request errors, no answer is returned (not a soundness failure)
ENGINE_ERROR = "engine-error"
_WORKER_DEATHS = 3

_STATE: dict[str, Any] = {}


def _init() -> None:
    """Per worker: the 131k tokenizer adapter (built once; ~10 s)."""
    from schemac.runtime.tekken import tekken_tokenizer
    from schemac.runtime.tokenizer import adapt_tokenizer

    import numpy as np

    tok = adapt_tokenizer(tekken_tokenizer())
    _STATE["tok"] = tok
    _STATE["quotes"] = np.array([b'"' in tok.token_bytes(i) for i in range(tok.vocab_size)])


def _choose(words: Any, vocab: int, rng: random.Random, among: Any = None) -> int | None:
    """A token drawn uniformly from the bitmask row `words` (optionally intersected with the
    boolean array `among`), or None if none is allowed. Rejection sampling when the allowed set
    is large (inside strings), an exact scan of the non-zero words otherwise."""
    import numpy as np

    if among is None:
        for _ in range(24):
            t = rng.randrange(vocab)
            if (int(words[t >> 5]) >> (t & 31)) & 1:
                return t
    nz = np.flatnonzero(words)
    if len(nz) == 0:
        return None
    bits = np.unpackbits(words[nz].view(np.uint8), bitorder="little").reshape(len(nz), 32)
    rows, cols = np.nonzero(bits)
    ids = nz[rows] * 32 + cols
    ids = ids[ids < vocab]
    if among is not None:
        ids = ids[among[ids]]
    return int(ids[rng.randrange(len(ids))]) if len(ids) else None


def cause(why: str) -> str:
    """The failure class of a walk's `why` (see the module docstring)."""
    if "duplicate object key" in why:
        return "duplicate-key"
    if why == "no token allowed":
        return "dead-end"
    if why.startswith("matcher: "):
        return "matcher"
    if why.startswith("engine: "):
        return ENGINE_ERROR
    if why.startswith("invalid JSON answer") or why.startswith("utf-8: "):
        return "unparsable"
    return "invalid"


def _walks(job: tuple[str, int, int, int, float, float, float, bool]) -> dict[str, Any]:
    import llguidance
    import llguidance.numpy as lln
    import schemac
    from schemac.diagnostics import CompileError
    from schemac.validate.final import FinalValidator, parse_answer

    path, walks, max_tokens, seed, stop_p, exit_p, seconds, upgrade = job
    tok = _STATE["tok"]
    out: dict[str, Any] = {"file": path, "compiled": False, "walks": 0, "samples": 0, "failures": [],
                           "length_bound": 0, "length_bound_in_string": 0, "tokens": 0}
    try:
        schema = json.loads(Path(path).read_text())["schema"]
        artifact = schemac.compile(schema, use_cache=False, upgrade_drafts=upgrade)
    except CompileError:
        return out
    except Exception as exc:  # noqa: BLE001 - anything but CompileError is a compiler bug to report
        out["crash"] = f"{type(exc).__name__}: {exc}"
        return out
    out["compiled"] = True

    def build() -> Any:
        return llguidance.LLMatcher(tok.ll, artifact.grammar, log_level=0)

    pristine = build()
    if pristine.is_error():
        out["crash"] = f"matcher: {pristine.get_error()}"
        return out
    try:
        validator = FinalValidator(artifact.schema)
    except Exception as exc:  # noqa: BLE001 - a validator that cannot be built is a bug to report
        out["crash"] = f"FinalValidator: {type(exc).__name__}: {exc}"
        return out
    try:
        _walk_all(out, pristine, build, validator, parse_answer, lln, walks, max_tokens, seed, stop_p, exit_p, seconds)
    except Exception as exc:  # noqa: BLE001 - a walk that raises is a bug to report, not the end of the run
        out["crash"] = f"walk: {type(exc).__name__}: {exc}"
    for f in out["failures"]:
        f["cause"] = cause(f["why"])
    return out


def _lexer_broken(pristine: Any) -> bool:
    """Whether the lexer `pristine` shares with its copies hit an llguidance limit for good: a
    fresh copy then fails its first mask. Probed only after a walk's matcher erred."""
    probe = pristine.deep_copy()
    probe.compute_bitmask()
    return probe.is_error()


def _walk_all(out: dict[str, Any], pristine: Any, build: Callable[[], Any], validator: Any, parse_answer: Any,
              lln: Any, walks: int, max_tokens: int, seed: int, stop_p: float, exit_p: float, seconds: float) -> None:
    """`build` makes a new pristine matcher, for when a walk broke the shared lexer."""
    tok = _STATE["tok"]
    path = out["file"]
    eos = set(tok.eos_ids)
    rng = random.Random(f"{seed}:{path}")
    bitmask = lln.allocate_token_bitmask(1, tok.vocab_size)
    quotes = _STATE["quotes"]
    deadline = time.monotonic() + seconds
    for _ in range(walks):
        if time.monotonic() > deadline:
            break
        out["walks"] += 1
        matcher = pristine.deep_copy()
        answer = bytearray()
        state = (False, False)
        finished = bounded = refused = False
        for _step in range(max_tokens):
            if matcher.is_accepting() and rng.random() < stop_p:
                finished = True
                break
            lln.fill_next_token_bitmask(matcher, bitmask, 0)
            token = None
            if exit_p and state[0] and rng.random() < exit_p:
                token = _choose(bitmask[0], tok.vocab_size, rng, quotes)
            if token is None:
                token = _choose(bitmask[0], tok.vocab_size, rng)
            if token is None:
                out["failures"].append({"text": answer.decode("utf-8", "replace"), "why": "no token allowed"})
                break
            out["tokens"] += 1
            if token in eos:
                finished = True
                break
            if not matcher.consume_token(token):
                refused = True
                break
            piece = tok.token_bytes(token)
            answer += piece
            state = string_state(piece, *state)
            if matcher.is_stopped():
                finished = True
                break
        else:
            bounded = True
        if matcher.is_error():  # a stopped matcher may be one in error: its EOS is no answer
            broken = _lexer_broken(pristine)
            if broken:
                pristine = build()
            error = matcher.get_error()
            if refused and not broken:
                why = f"matcher: {error}"
            else:
                why = f"engine: {error.strip().splitlines()[0]}"
            out["failures"].append({"text": answer.decode("utf-8", "replace"), "why": why})
            continue
        if bounded:
            out["length_bound"] += 1
            out["length_bound_in_string"] += state[0]
        if not finished:
            continue
        out["samples"] += 1
        text = answer.decode("utf-8", "replace")
        try:
            value = parse_answer(answer.decode("utf-8"))
        except UnicodeDecodeError as exc:
            out["failures"].append({"text": text, "why": f"utf-8: {exc}"})
            continue
        except ValueError as exc:
            out["failures"].append({"text": text, "why": str(exc)})
            continue
        if not validator.is_valid(value):
            out["failures"].append({"text": text, "why": "; ".join(validator.errors(value))[:300]})


def _fold(totals: dict[str, Any], r: dict[str, Any]) -> None:
    totals["done"] += 1
    totals["compiled"] += r["compiled"]
    totals["crashes"] += "crash" in r
    for k in ("walks", "samples", "length_bound", "length_bound_in_string", "tokens"):
        totals[k] += r.get(k, 0)
    for f in r["failures"]:
        c = f.get("cause") or cause(f["why"])
        totals["by_cause"][c] = totals["by_cause"].get(c, 0) + 1
        totals["engine_errors" if c == ENGINE_ERROR else "known_gaps" if c in KNOWN_GAPS else "failures"] += 1


def _run(todo: list[tuple], jobs: int, record: Any) -> None:
    """Walk every job on `jobs` workers, at most 2 per worker in flight; survive dead workers."""
    deaths: dict[str, int] = {}
    pending = list(reversed(todo))
    while pending:
        with ProcessPoolExecutor(jobs, initializer=_init) as pool:
            running: dict[Future, tuple] = {}
            broken = False
            while (pending or running) and not broken:
                while pending and len(running) < 2 * jobs:
                    job = pending.pop()
                    running[pool.submit(_walks, job)] = job
                done, _ = wait(running, return_when=FIRST_COMPLETED)
                for fut in done:
                    job = running.pop(fut)
                    try:
                        record(fut.result())
                    except BrokenProcessPool:
                        broken = True
                        deaths[job[0]] = deaths.get(job[0], 0) + 1
                        if deaths[job[0]] >= _WORKER_DEATHS:
                            record({"file": job[0], "compiled": True, "failures": [],
                                    "crash": f"worker process died {_WORKER_DEATHS} times on this schema"})
                        else:
                            pending.append(job)
            if broken:
                for fut, job in running.items():
                    deaths[job[0]] = deaths.get(job[0], 0) + 1
                    pending.append(job)
                print(f"worker died; restarting the pool ({len(pending)} schemas left)", flush=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dir", nargs="?", default=str(DEFAULT_DIR))
    ap.add_argument("--walks", type=int, default=25, help="walks per compiled schema")
    ap.add_argument("--max-tokens", type=int, default=512)
    ap.add_argument("--stop", type=float, default=0.3, help="stop probability once accepting")
    ap.add_argument("--string-exit", type=float, default=0.0,
                    help="inside a string, with this probability draw only among allowed tokens holding a quote "
                         "(biases the walk towards closing strings; 0: uniform)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--limit", type=int, default=0, help="first K schema files only (0: all)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--upgrade-drafts", action="store_true", help="compile draft-04..2019-09 schemas as 2020-12")
    ap.add_argument("--schema-seconds", type=float, default=120.0, help="walking time cap per schema")
    ap.add_argument("--checkpoint", help="JSON lines, one per finished schema; resumes from it when present")
    ap.add_argument("--progress", type=int, default=100, help="print running totals every K schemas")
    ap.add_argument("--json", help="write the per-schema results here")
    args = ap.parse_args(argv)
    files = sorted(str(p) for p in Path(args.dir).glob("*.json"))
    if args.limit:
        files = files[: args.limit]
    started = time.perf_counter()
    totals: dict[str, Any] = {"schemas": len(files), "done": 0, "compiled": 0, "walks": 0, "samples": 0,
                              "failures": 0, "known_gaps": 0, "engine_errors": 0, "by_cause": {}, "length_bound": 0,
                              "length_bound_in_string": 0, "tokens": 0, "crashes": 0}
    results: list[dict[str, Any]] = []
    checkpoint = Path(args.checkpoint) if args.checkpoint else None
    if checkpoint and checkpoint.exists():
        for line in checkpoint.read_text().splitlines():
            if line.strip():
                results.append(json.loads(line))
                _fold(totals, results[-1])
        print(f"resuming: {totals['done']} schemas from {checkpoint}", flush=True)
    seen = {r["file"] for r in results}
    jobs = [(f, args.walks, args.max_tokens, args.seed, args.stop, args.string_exit, args.schema_seconds,
             args.upgrade_drafts)
            for f in files if f not in seen]
    sink = checkpoint.open("a") if checkpoint else None

    def record(r: dict[str, Any]) -> None:
        results.append(r)
        _fold(totals, r)
        if sink:
            sink.write(json.dumps(r) + "\n")
            sink.flush()
        for f in r["failures"][:2]:
            label = "ENGINE-ERROR" if f.get("cause") == ENGINE_ERROR else f"FAIL[{f.get('cause')}]"
            print(f"{label} {r['file']}: {f['why']}\n  {f['text'][:300]!r}", flush=True)
        if "crash" in r:
            print(f"CRASH {r['file']}: {r['crash']}", flush=True)
        if totals["done"] % args.progress == 0:
            print(f"[{totals['done']}/{len(files)}] {json.dumps(totals)} {time.perf_counter() - started:.0f}s",
                  flush=True)

    try:
        _run(jobs, args.jobs, record)
    finally:
        if sink:
            sink.close()
    totals["seconds"] = round(time.perf_counter() - started, 1)
    totals["length_bound_share"] = round(totals["length_bound"] / totals["walks"], 4) if totals["walks"] else 0.0
    print(json.dumps(totals))
    if args.json:
        Path(args.json).write_text(json.dumps({"totals": totals, "results": results}, indent=1))
    return 1 if totals["failures"] or totals["crashes"] else 0


if __name__ == "__main__":
    sys.exit(main())
