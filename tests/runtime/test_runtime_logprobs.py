"""Raw logprobs: taken before the masks, only for the rows that ask, equal to a reference."""
from __future__ import annotations

import pytest
import torch

from schemac.runtime.logprobs import capture
from schemac.runtime.masking import apply_token_bitmask, pack_bitmask


def test_logprobs_are_those_of_the_unmasked_distribution():
    torch.manual_seed(0)
    logits = torch.randn(5, 100, dtype=torch.bfloat16)
    original = logits.clone()
    got = capture(logits, [3, 1], vocab_size=90)
    allowed = torch.rand(5, 90) < 0.3
    apply_token_bitmask(logits, pack_bitmask(allowed), vocab_size=90)  # in place, after capture
    assert got is not None and got.rows == (3, 1)
    reference = torch.log_softmax(original[[3, 1], :90].double(), dim=-1)
    assert torch.allclose(got.values.double(), reference, atol=1e-5)
    assert torch.isfinite(got.values).all()  # masked tokens keep their raw probability
    tokens = [7, 42]
    assert torch.allclose(got.of(tokens).double(), reference[[0, 1], tokens], atol=1e-5)
    values, ids = got.top(3)
    assert torch.equal(ids, reference.topk(3, dim=1).indices)
    assert torch.allclose(got.values.exp().sum(1), torch.ones(2), atol=1e-4)


def test_nothing_is_copied_without_rows():
    logits = torch.randn(4, 10)
    assert capture(logits, []) is None


def test_capture_is_a_copy_and_rows_are_checked():
    logits = torch.zeros(2, 8)
    got = capture(logits, [0])
    logits.fill_(float("-inf"))
    assert torch.isfinite(got.values).all()
    with pytest.raises(ValueError):
        capture(logits, [2])
    with pytest.raises(ValueError):
        capture(logits, [0], vocab_size=9)
