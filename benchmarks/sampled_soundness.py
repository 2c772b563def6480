"""Sampled soundness: random constrained completions of every compiled maskbench schema, validated.

    python3 -m benchmarks.sampled_soundness [DIR] [--walks N] [--max-tokens 512] [--jobs 2]
        [--limit K] [--seed 0] [--json PATH]

For each schema in DIR (default /work/shared/conformance/maskbench) that compiles, draw N walks
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
"""
from __future__ import annotations

import argparse
import json
import random
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

DEFAULT_DIR = Path("/work/shared/conformance/maskbench")

_STATE: dict[str, Any] = {}


def _init() -> None:
    """Per worker: the 131k tokenizer adapter (built once; ~10 s)."""
    from schemac.runtime.tekken import tekken_tokenizer
    from schemac.runtime.tokenizer import adapt_tokenizer

    import numpy as np

    tok = adapt_tokenizer(tekken_tokenizer())
    _STATE["tok"] = tok
    _STATE["quotes"] = np.array([b'"' in tok.token_bytes(i) for i in range(tok.vocab_size)])


def _in_string(text: bytes, inside: bool = False, escaped: bool = False) -> tuple[bool, bool]:
    """(inside a string, after a backslash) once `text` follows a prefix in state (inside, escaped)."""
    for b in text:
        if escaped:
            escaped = False
        elif b == 0x5C and inside:
            escaped = True
        elif b == 0x22:
            inside = not inside
    return inside, escaped


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


def _walks(job: tuple[str, int, int, int, float, float]) -> dict[str, Any]:
    import llguidance
    import llguidance.numpy as lln
    import schemac
    from schemac.diagnostics import CompileError
    from schemac.validate import FinalValidator, parse_answer

    path, walks, max_tokens, seed, stop_p, exit_p = job
    tok = _STATE["tok"]
    out: dict[str, Any] = {"file": path, "compiled": False, "samples": 0, "failures": [], "length_bound": 0,
                           "length_bound_in_string": 0, "tokens": 0}
    try:
        schema = json.loads(Path(path).read_text())["schema"]
        artifact = schemac.compile(schema, use_cache=False)
    except CompileError:
        return out
    except Exception as exc:  # noqa: BLE001 - anything but CompileError is a compiler bug to report
        out["crash"] = f"{type(exc).__name__}: {exc}"
        return out
    out["compiled"] = True
    pristine = llguidance.LLMatcher(tok.ll, artifact.grammar, log_level=0)
    if pristine.is_error():
        out["crash"] = f"matcher: {pristine.get_error()}"
        return out
    try:
        validator = FinalValidator(artifact.schema)
    except Exception as exc:  # noqa: BLE001 - a validator that cannot be built is a bug to report
        out["crash"] = f"FinalValidator: {type(exc).__name__}: {exc}"
        return out
    eos = set(tok.eos_ids)
    rng = random.Random(f"{seed}:{path}")
    bitmask = lln.allocate_token_bitmask(1, tok.vocab_size)
    quotes = _STATE["quotes"]
    for _ in range(walks):
        matcher = pristine.deep_copy()
        answer = bytearray()
        state = (False, False)
        finished = False
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
                out["failures"].append({"text": answer.decode("utf-8", "replace"), "why": matcher.get_error()})
                break
            piece = tok.token_bytes(token)
            answer += piece
            state = _in_string(piece, *state)
            if matcher.is_stopped():
                finished = True
                break
        if not finished:
            if len(answer) and not out["failures"]:
                out["length_bound"] += 1
                out["length_bound_in_string"] += state[0]
            continue
        out["samples"] += 1
        text = answer.decode("utf-8", "replace")
        try:
            ok = validator.is_valid(parse_answer(answer.decode("utf-8")))
        except ValueError as exc:
            out["failures"].append({"text": text, "why": str(exc)})
            continue
        if not ok:
            out["failures"].append({"text": text, "why": "; ".join(validator.errors(parse_answer(text)))[:300]})
    return out


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
    ap.add_argument("--json", help="write the per-schema results here")
    args = ap.parse_args(argv)
    files = sorted(str(p) for p in Path(args.dir).glob("*.json"))
    if args.limit:
        files = files[: args.limit]
    started = time.perf_counter()
    totals = {"schemas": len(files), "compiled": 0, "samples": 0, "failures": 0, "length_bound": 0,
              "length_bound_in_string": 0, "tokens": 0, "crashes": 0}
    results = []
    jobs = [(f, args.walks, args.max_tokens, args.seed, args.stop, args.string_exit) for f in files]
    with ProcessPoolExecutor(args.jobs, initializer=_init) as pool:
        for i, r in enumerate(pool.map(_walks, jobs, chunksize=4)):
            results.append(r)
            totals["compiled"] += r["compiled"]
            totals["crashes"] += "crash" in r
            for k in ("samples", "length_bound", "length_bound_in_string", "tokens"):
                totals[k] += r[k]
            totals["failures"] += len(r["failures"])
            for f in r["failures"][:2]:
                print(f"FAIL {r['file']}: {f['why']}\n  {f['text'][:300]!r}", flush=True)
            if "crash" in r:
                print(f"CRASH {r['file']}: {r['crash']}", flush=True)
            if (i + 1) % 250 == 0:
                print(f"[{i + 1}/{len(files)}] {totals} {time.perf_counter() - started:.0f}s", flush=True)
    walks = totals["samples"] + totals["length_bound"]
    totals["seconds"] = round(time.perf_counter() - started, 1)
    totals["length_bound_share"] = round(totals["length_bound"] / walks, 4) if walks else 0.0
    print(json.dumps(totals))
    if args.json:
        Path(args.json).write_text(json.dumps({"totals": totals, "results": results}, indent=1))
    return 1 if totals["failures"] or totals["crashes"] else 0


if __name__ == "__main__":
    sys.exit(main())
