"""The CPU reference and the public entry point: semantics, validation and dispatch."""

from __future__ import annotations

import subprocess
import sys

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from schemac.runtime.maskcall import prepare
from schemac.runtime.masking import (
    apply_token_bitmask,
    apply_token_bitmask_reference,
    pack_bitmask,
)


def naive(logits: torch.Tensor, bitmask: torch.Tensor, rows: list[int] | None, vocab: int) -> torch.Tensor:
    """Element by element, straight from the mask contract."""
    out = logits.clone()
    targets = range(bitmask.shape[0]) if rows is None else rows
    words = bitmask.tolist()
    for j, r in enumerate(targets):
        for c in range(logits.shape[1]):
            allowed = c < vocab and (words[j][c // 32] >> (c % 32)) & 1
            if not allowed:
                out[r, c] = float("-inf")
    return out


@settings(max_examples=60, deadline=None)
@given(
    n_logit_rows=st.integers(1, 5),
    width=st.integers(1, 100),
    extra_words=st.integers(0, 2),
    vocab_cut=st.integers(0, 40),
    data=st.data(),
)
def test_reference_matches_naive(n_logit_rows: int, width: int, extra_words: int, vocab_cut: int, data: st.DataObject) -> None:
    n_words = -(-width // 32) + extra_words
    vocab = max(0, min(32 * n_words, width + 20) - vocab_cut)
    use_rows = data.draw(st.booleans())
    if use_rows:
        rows = data.draw(st.lists(st.integers(0, n_logit_rows - 1), max_size=4, unique=True))
        mask_rows = max(len(rows), 1)
    else:
        rows = None
        mask_rows = data.draw(st.integers(1, n_logit_rows))
    seed = data.draw(st.integers(0, 2**16))
    gen = torch.Generator().manual_seed(seed)
    bitmask = torch.randint(-(2**31), 2**31, (mask_rows, n_words), dtype=torch.int64, generator=gen).to(torch.int32)
    logits = torch.randn(n_logit_rows, width, generator=gen)
    want = naive(logits, bitmask, rows, vocab)
    apply_token_bitmask_reference(logits, bitmask, rows, vocab)
    assert torch.equal(logits, want)


def test_pack_bitmask_lsb_first() -> None:
    allowed = torch.zeros(2, 40, dtype=torch.bool)
    allowed[0, 0] = allowed[0, 31] = allowed[0, 33] = True
    allowed[1, :] = True
    packed = pack_bitmask(allowed)
    assert packed.dtype == torch.int32 and packed.shape == (2, 2)
    assert packed.tolist() == [[1 - 2**31, 2], [-1, 2**8 - 1]]


def test_minus_one_row_allows_all_but_padding() -> None:
    logits = torch.randn(2, 70)
    before = logits.clone()
    apply_token_bitmask(logits, torch.full((1, 3), -1, dtype=torch.int32), [1], vocab_size=64)
    assert torch.equal(logits[0], before[0])
    assert torch.equal(logits[1, :64], before[1, :64])
    assert torch.isneginf(logits[1, 64:]).all()


def test_public_entry_on_cpu_is_the_reference() -> None:
    gen = torch.Generator().manual_seed(1)
    logits = torch.randn(4, 200, dtype=torch.bfloat16, generator=gen)
    bitmask = pack_bitmask(torch.rand(2, 200, generator=gen) < 0.5)
    want = logits.clone()
    apply_token_bitmask_reference(want, bitmask, [3, 1])
    apply_token_bitmask(logits, bitmask, torch.tensor([3, 1]))
    assert torch.equal(logits, want)


def test_default_vocab_is_mask_width_clipped_to_logits() -> None:
    bitmask = torch.zeros(1, 4, dtype=torch.int32)
    assert prepare(torch.zeros(1, 100), bitmask).vocab_size == 100
    assert prepare(torch.zeros(1, 200), bitmask).vocab_size == 128


@pytest.mark.parametrize(
    "logits, bitmask, rows, vocab, message",
    [
        (torch.zeros(2, 64), torch.zeros(2, 2, dtype=torch.int64), None, None, "int32"),
        (torch.zeros(2, 64, dtype=torch.int32), torch.zeros(2, 2, dtype=torch.int32), None, None, "fp16"),
        (torch.zeros(2, 64, dtype=torch.float8_e4m3fn), torch.zeros(2, 2, dtype=torch.int32), None, None, "fp16"),
        (torch.zeros(64), torch.zeros(1, 2, dtype=torch.int32), None, None, "2-D"),
        (torch.zeros(2, 64), torch.zeros(2, 2, dtype=torch.int32), None, 65, "mask words"),
        (torch.zeros(2, 64), torch.zeros(2, 2, dtype=torch.int32), None, -1, "mask words"),
        (torch.zeros(2, 64), torch.zeros(3, 2, dtype=torch.int32), None, None, "pass rows"),
        (torch.zeros(2, 64), torch.zeros(2, 2, dtype=torch.int32), [0, 2], None, "outside"),
        (torch.zeros(2, 64), torch.zeros(2, 2, dtype=torch.int32), [-1], None, "outside"),
        (torch.zeros(2, 64), torch.zeros(2, 2, dtype=torch.int32), [1, 1], None, "distinct"),
        (torch.zeros(2, 64), torch.zeros(1, 2, dtype=torch.int32), [0, 1], None, "mask rows"),
        (torch.zeros(2, 64), torch.zeros(2, 2, dtype=torch.int32), torch.tensor([0.0]), None, "integer"),
        (torch.zeros(2, 64), torch.zeros(2, 2, dtype=torch.int32), torch.tensor([[0]]), None, "1-D"),
    ],
)
def test_contract_violations_raise(
    logits: torch.Tensor, bitmask: torch.Tensor, rows: object, vocab: int | None, message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        apply_token_bitmask(logits, bitmask, rows, vocab)


def test_cpu_path_and_empty_batches_import_no_kernel() -> None:
    code = (
        "import sys, torch\n"
        "from schemac.runtime.masking import apply_token_bitmask\n"
        "l = torch.randn(2, 64); m = torch.zeros(2, 2, dtype=torch.int32)\n"
        "apply_token_bitmask(l, m, [])\n"
        "assert not torch.isneginf(l).any()\n"
        "apply_token_bitmask(l, m, [1])\n"
        "assert torch.isneginf(l[1]).all() and not torch.isneginf(l[0]).any()\n"
        "bad = sorted(k for k in sys.modules if k == 'triton' or k.startswith(('triton.', 'schemac.runtime.triton')))\n"
        "assert not bad, bad\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
