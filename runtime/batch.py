"""Batch mask filling: llguidance writes the rows of every request in parallel, in place.

Rows belong to (request, speculative position) as the engine lays them out; nothing is
reordered. Requests in a reasoning block, failed or released take the small Python path
(all-allowed or stop rows). An empty batch returns before touching anything.

A matcher in error (an llguidance lexer limit, hit by this request or by another one sharing
its lexer) gets EOS-only rows from llguidance itself, drafts included (rows past the first are
stop rows before the call); its request records the error at its next commit or `terminated`,
so healthy rows pay for no per-row check here.
"""
from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, Any, Sequence

if TYPE_CHECKING:
    import torch

    from schemac.runtime.request import RequestState


@lru_cache(maxsize=8)
def allows(bitmask: "torch.Tensor", row: int, token: int) -> bool:
    """Whether mask row `row` allows `token` (bit token%32 of word token//32)."""
    return 0 <= token < 32 * bitmask.shape[1] and (int(bitmask[row, token // 32]) >> (token % 32)) & 1 == 1


def cut_at_masked_drafts(bitmask: "torch.Tensor", row: int, drafts: "Sequence[int]", stop: "torch.Tensor") -> None:
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


class MaskFiller:
    """Owns the llguidance executor (threads) and the stop row for one tokenizer."""

    def __init__(self, eos_ids: Sequence[int], vocab_size: int, threads: int | None = None) -> None:
        self.words = (vocab_size + 31) // 32
        self._eos = tuple(eos_ids)
        self._threads = threads
        self._executor: Any = None

    @property
    def stop(self) -> "torch.Tensor":
        return stop_row(self._eos, self.words)

    def allocate(self, rows: int) -> "torch.Tensor":
        """A reusable CPU int32 bitmask (all allowed), `words` columns per row."""
        import torch

        return torch.full((rows, self.words), -1, dtype=torch.int32)

    def fill(self, bitmask: "torch.Tensor", entries: "Sequence[tuple[RequestState, int, Sequence[int]]]") -> None:
        """Fill each entry's len(drafts)+1 rows from its first row."""
        if not entries:
            return
        import llguidance
        import llguidance.torch as llt

        if self._executor is None:
            self._executor = llguidance.LLExecutor(self._threads)
        plain: list[tuple[Any, int]] = []
        drafted: list[tuple[Any, int, list[int]]] = []
        slow: list[tuple[RequestState, int, Sequence[int]]] = []
        stop = self.stop
        for state, row, drafts in entries:
            matcher = state.parallel_matcher()
            if matcher is None:
                slow.append((state, row, drafts))
            elif not drafts:
                plain.append((matcher, row))
            else:
                draft_list = list(drafts)
                valid = matcher.validate_tokens(draft_list)
                # llguidance leaves rows past an invalid draft or a stop (EOS) unwritten
                bitmask[row + 1 : row + len(draft_list) + 1] = stop
                if valid:
                    drafted.append((matcher, row, draft_list[:valid]))
                else:
                    plain.append((matcher, row))
        # llguidance's draft call refuses empty draft lists, so plain rows go in their own call
        if drafted:
            llt.fill_next_token_bitmask_par_with_draft_tokens(self._executor, drafted, bitmask)
        if plain:
            llt.fill_next_token_bitmask_par(self._executor, plain, bitmask)
        for _, row, draft_list in drafted:
            cut_at_masked_drafts(bitmask, row, draft_list, stop)
        for state, row, drafts in slow:
            state.fill(bitmask, row, drafts, stop)
