"""Mask-row helpers shared by the batch filler and the request: bit tests, stop rows."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

if TYPE_CHECKING:
    import torch


def allows(bitmask: Any, row: int, token: int) -> bool:
    """Whether mask row `row` allows `token` (bit token%32 of word token//32), as written now:
    never cached, since engines reuse one bitmask tensor across steps. `bitmask`: the int32
    tensor or its numpy view (indexing that is ~50x cheaper)."""
    return 0 <= token < 32 * bitmask.shape[1] and (int(bitmask[row, token // 32]) >> (token % 32)) & 1 == 1


def cut_at_masked_drafts(bitmask: Any, row: int, drafts: "Sequence[int]", stop: Any) -> None:
    """Make rows past the first draft its own row forbids stop rows.

    The matcher consumes any grammatical token, but its mask admits only canonical
    tokenisations; a draft outside the mask can never be verified, so its rows are stop rows,
    exactly as if the drafts had been fed one by one through the mask.
    """
    for j, token in enumerate(drafts):
        if not allows(bitmask, row + j, token):
            bitmask[row + j + 1 : row + len(drafts) + 1] = stop
            return


def stop_row(eos_ids: tuple[int, ...], words: int) -> "torch.Tensor":
    """The precomputed EOS-only row for terminated or unreachable positions."""
    import torch

    words_list = [0] * words
    for t in eos_ids:
        words_list[t // 32] |= 1 << (t % 32)
    return torch.tensor([w - (1 << 32) if w >= 1 << 31 else w for w in words_list], dtype=torch.int32)
