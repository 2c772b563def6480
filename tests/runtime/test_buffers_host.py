"""Mask buffers and token copies on the CPU device: reuse, growth, validation, zero cost when idle.

The CUDA event/stream paths are exercised on the GPU by ``benchmarks/kernel_bench.py --check``.
"""

from __future__ import annotations

import subprocess
import sys

import pytest
import torch

from schemac.runtime.buffers import MaskBuffers, TokenCopier
from schemac.runtime.masking import apply_token_bitmask_reference, pack_bitmask


def test_apply_matches_reference_and_reuses_storage() -> None:
    gen = torch.Generator().manual_seed(3)
    buffers = MaskBuffers(n_words=4, device="cpu")
    for step, rows in enumerate([[2, 0], [1], [3, 2, 1, 0, 4], [0, 3]]):
        logits = torch.randn(5, 120, generator=gen)
        masks = pack_bitmask(torch.rand(len(rows), 128, generator=gen) < 0.5)
        host = buffers.host(len(rows))
        host.copy_(masks)
        want = logits.clone()
        apply_token_bitmask_reference(want, masks, rows, 120)
        buffers.apply(logits, rows, 120)
        assert torch.equal(logits, want), step
    assert buffers.capacity == 5  # grew 2 -> max(5, 4); the last step reused it


def test_growth_doubles_and_shrinking_reuses() -> None:
    buffers = MaskBuffers(n_words=2, device="cpu")
    first = buffers.host(3)
    assert buffers.host(2).data_ptr() == first.data_ptr()
    buffers.host(4)
    assert buffers.capacity == 6


def test_apply_validates_rows_on_the_host() -> None:
    buffers = MaskBuffers(n_words=2, device="cpu")
    buffers.host(2).fill_(-1)
    with pytest.raises(ValueError, match="outside"):
        buffers.apply(torch.zeros(2, 64), [0, 2])
    with pytest.raises(ValueError, match="handed out"):
        buffers.apply(torch.zeros(4, 64), [0, 1, 2])
    with pytest.raises(ValueError, match="positive"):
        MaskBuffers(n_words=0, device="cpu")


def test_token_copier_snapshots_tokens() -> None:
    copier = TokenCopier("cpu")
    sampled = torch.tensor([5, 7])
    drafts = torch.tensor([[1, 2], [3, 4]])
    pending = copier.start(sampled, drafts)
    sampled.fill_(0)
    assert pending.ready()
    got = pending.wait()
    assert [t.tolist() for t in got] == [[5, 7], [[1, 2], [3, 4]]]
    assert all(t.dtype == torch.int64 and t.device.type == "cpu" for t in got)


def test_idle_batches_import_and_allocate_nothing() -> None:
    code = (
        "import sys\n"
        "from schemac.runtime.buffers import MaskBuffers, TokenCopier\n"
        "b = MaskBuffers(n_words=8, device='cuda'); c = TokenCopier('cuda')\n"
        "assert 'torch' not in sys.modules\n"
        "import torch\n"
        "logits = torch.randn(3, 64)\n"
        "b.apply(logits, [])\n"
        "assert b.capacity == 0 and b._dev is None and b._copied is None\n"
        "loaded = sorted(k for k in sys.modules if k.startswith(('schemac.runtime.masking', 'schemac.runtime.triton', 'triton')))\n"
        "assert not loaded, loaded\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
