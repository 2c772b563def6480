"""What a cache hit costs SGLang's scheduler thread with `--grammar-backend schemac`: SGLang
0.5.23 copies the cached template per request (`get_cached_or_future_value`); the copy shares
the compiled grammar and makes its request state on first use. Prints microseconds per hit,
the first mask (state + matcher copy + fill) and live request states after release.

    python -m benchmarks.sglang_copy        # needs sglang==0.5.23 (--no-deps) as in the tests
"""
from __future__ import annotations

import json
import time
from types import SimpleNamespace


def main(hits: int = 2000, masks: int = 200) -> None:
    from testkit import sglang_support

    sglang_support.load()
    from schemac.runtime.sglang import backend as integ
    from schemac.runtime import tekken_tokenizer

    tok = tekken_tokenizer()
    args = SimpleNamespace(reasoning_parser=None, constrained_json_disable_any_whitespace=False,
                           constrained_json_whitespace_pattern=None, speculative_algorithm=None)
    backend = integ.init_backend(args, tok, tok.vocab_size, {tok.eos_token_id})
    key = ("json", json.dumps({"type": "object", "required": ["n", "s"], "properties": {
        "n": {"type": "integer"}, "s": {"type": "string", "maxLength": 20}}}))
    future, _ = backend.get_cached_or_future_value(key, False)
    backend.set_cache(key, future.result().copy())
    start = time.perf_counter()
    copies = [backend.get_cached_or_future_value(key, False)[0] for _ in range(hits)]
    hit = time.perf_counter() - start
    mask = copies[0].allocate_vocab_mask(tok.vocab_size, 1, "cpu")
    start = time.perf_counter()
    for grammar in copies[:masks]:
        grammar.fill_vocab_mask(mask, 0)
    first = time.perf_counter() - start
    for grammar in copies[:masks]:
        grammar.finished = True
    print(f"vocabulary {tok.vocab_size}: cache hit {1e6 * hit / hits:.1f} us, "
          f"first mask {1e6 * first / masks:.0f} us, live states after release {backend.live}")


if __name__ == "__main__":
    main()
