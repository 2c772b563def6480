"""The Triton masking kernel, run by Triton's interpreter on CPU tensors, against the reference.

TRITON_INTERPRET must be set before the kernel is built, and must not leak into other tests,
so this file re-runs itself as a script in a child process with the variable set; the child
checks every case and reports JSON, and each pytest case asserts its own result.
Every comparison covers the whole storage behind the logits view (writes outside it fail),
on random logits (zeros would hide unwritten entries).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zlib
from typing import Any, Callable

import pytest

# name -> (dtype, logit rows, storage cols, view, vocab_size, mask rows, density, rows, launch)
# view: "plain" | "strided" (row stride > width, offset) | "colstride" (column stride 2)
# density: fraction of allowed tokens, or "all" (-1 words) / "none" (0 words)
# launch: None = public entry with automatic config, else explicit columns per program.
CASES: dict[str, tuple[Any, ...]] = {
    "v100_fp32_identity": ("float32", 3, 100, "plain", None, 3, 0.5, None, None),
    "v200_fp64_sparse": ("float64", 2, 200, "plain", 190, 2, 0.05, [1, 0], None),
    "v100_fp16_rows_list": ("float16", 5, 100, "plain", 100, 2, 0.5, [4, 1], None),
    "v32001_bf16_padded_strided": ("bfloat16", 5, 32064, "strided", 32001, 3, 0.5, [3, 0, 4], 8192),
    "v32001_fp32_block1024": ("float32", 2, 32001, "plain", 32001, 2, 0.3, None, 1024),
    "v131072_fp16": ("float16", 1, 131072, "plain", None, 1, 0.5, [0], 8192),
    "v151936_bf16_padded": ("bfloat16", 2, 152064, "plain", 151936, 2, 0.01, None, 8192),
    "v262144_fp32": ("float32", 1, 262144, "strided", None, 1, 0.5, None, 16384),
    "empty_rows": ("float32", 3, 1000, "plain", 1000, 3, 0.5, [], None),
    "all_allowed": ("bfloat16", 3, 1000, "plain", 990, 3, "all", [2, 0], None),
    "none_allowed": ("float16", 3, 1000, "strided", 1000, 3, "none", [1], None),
    "colstride2": ("float32", 4, 300, "colstride", 290, 2, 0.5, [3, 1], None),
    "logits_narrower_than_vocab": ("float32", 2, 100, "plain", 160, 2, 0.5, None, None),
    "int64_rows_tensor": ("bfloat16", 4, 500, "plain", None, 2, 0.5, "tensor64:[2,3]", None),
    "mask_buffer_bigger_than_batch": ("float32", 4, 257, "plain", 257, 8, 0.5, [0, 3], None),
    "vocab_zero": ("float32", 2, 64, "plain", 0, 2, 0.5, None, None),
}


def _build(case: tuple[Any, ...], seed: int) -> tuple[Any, Callable[[Any], Any], Any, Any, Any]:
    import torch

    from schemac.runtime.masking import pack_bitmask

    dtype_name, n_rows, width, view, vocab, mask_rows, density, rows, _ = case
    gen = torch.Generator().manual_seed(seed)
    dtype = getattr(torch, dtype_name)
    storage_cols = {"plain": width, "strided": width + 37, "colstride": 2 * width}[view]
    base = torch.randn(n_rows, storage_cols, generator=gen).to(dtype)

    def as_view(t: Any) -> Any:
        if view == "strided":
            return t[:, 5 : 5 + width]
        if view == "colstride":
            return t[:, ::2]
        return t

    mask_vocab = vocab if vocab is not None else width
    n_words = -(-max(mask_vocab, 1) // 32)
    if density == "all":
        bitmask = torch.full((mask_rows, n_words), -1, dtype=torch.int32)
    elif density == "none":
        bitmask = torch.zeros((mask_rows, n_words), dtype=torch.int32)
    else:
        allowed = torch.rand(mask_rows, 32 * n_words, generator=gen) < density
        bitmask = pack_bitmask(allowed)
    if isinstance(rows, str):
        rows = torch.tensor(json.loads(rows.split(":", 1)[1]), dtype=torch.int64)
    return base, as_view, bitmask, rows, vocab


def _run_case(name: str) -> dict[str, Any]:
    import torch

    from schemac.runtime.maskcall import prepare
    from schemac.runtime.masking import apply_token_bitmask_reference
    from schemac.runtime.triton.bitmask import apply_token_bitmask_triton, launch

    case = CASES[name]
    base, as_view, bitmask, rows, vocab = _build(case, seed=zlib.crc32(name.encode()))
    got, want = base.clone(), base.clone()
    block_cols = case[-1]
    if block_cols is None:
        apply_token_bitmask_triton(as_view(got), bitmask, rows, vocab)
    else:
        call = prepare(as_view(got), bitmask, rows, vocab)
        launch(as_view(got), bitmask, call.rows, call.n_rows, call.vocab_size, block_cols=block_cols, num_warps=4)
    apply_token_bitmask_reference(as_view(want), bitmask, rows, vocab)
    return {
        "equal": bool(torch.equal(got, want)),
        "mismatches": int((got != want).sum()),
        "neg_inf": int(torch.isneginf(want).sum()),
        "changed": int((want != base).sum()),
    }


def _run_skipped_rows() -> dict[str, Any]:
    """A device index tensor is not validated on the host: out-of-range rows must be skipped."""
    import torch

    from schemac.runtime.triton.bitmask import launch

    logits = torch.randn(3, 96)
    before = logits.clone()
    bitmask = torch.zeros(3, 3, dtype=torch.int32)
    launch(logits, bitmask, torch.tensor([-1, 3, 1], dtype=torch.int64), 3, 96)
    untouched = bool(torch.equal(logits[[0, 2]], before[[0, 2]]))
    return {"equal": untouched and bool(torch.isneginf(logits[1]).all()), "mismatches": 0, "neg_inf": 96, "changed": 96}


def _child() -> None:
    results = {name: _run_case(name) for name in CASES}
    results["skipped_rows"] = _run_skipped_rows()
    print(json.dumps(results))


@pytest.fixture(scope="module")
def interpreted() -> dict[str, Any]:
    env = dict(os.environ, TRITON_INTERPRET="1")
    proc = subprocess.run(
        [sys.executable, __file__], env=env, capture_output=True, text=True, timeout=240, check=False
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


EXPECT_UNCHANGED = {"empty_rows"}


@pytest.mark.parametrize("name", [*CASES, "skipped_rows"])
def test_kernel_matches_reference(interpreted: dict[str, Any], name: str) -> None:
    result = interpreted[name]
    assert result["equal"], result
    if name in EXPECT_UNCHANGED:
        assert result["changed"] == 0
    else:
        assert result["changed"] > 0


def test_all_allowed_touches_only_padding(interpreted: dict[str, Any]) -> None:
    # 2 masked rows x 10 columns at/after vocab_size 990.
    assert interpreted["all_allowed"]["changed"] == 20


def test_none_allowed_masks_the_whole_rows(interpreted: dict[str, Any]) -> None:
    assert interpreted["none_allowed"]["changed"] == 1000


if __name__ == "__main__":
    _child()
