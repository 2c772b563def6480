"""Log-probabilities of the raw distribution, for constrained requests that ask for them.

Masks are applied to the logits in place, so what a client's `logprobs` must report (the
model's distribution, before grammar and reasoning masks) is gone once they run. `capture`
takes exactly the rows of the constrained requests that asked, before masking, as fp32
log-softmax; nothing is copied or allocated for anyone else (an empty row list returns None
at once), and unconstrained requests keep computing logprobs from the logits as usual.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Sequence

if TYPE_CHECKING:
    import torch


@dataclass(frozen=True)
class RawLogprobs:
    """`values[j]` is the log-distribution of logit row `rows[j]` before any mask."""

    rows: tuple[int, ...]
    values: "torch.Tensor"

    def of(self, tokens: "torch.Tensor | Sequence[int]") -> "torch.Tensor":
        """Log-probability of `tokens[j]` (the token sampled for row `rows[j]`)."""
        import torch

        index = torch.as_tensor(tokens, dtype=torch.long, device=self.values.device).view(-1, 1)
        return self.values.gather(1, index).view(-1)

    def top(self, k: int) -> "tuple[torch.Tensor, torch.Tensor]":
        """The k most likely tokens of each row: (log-probabilities, token ids)."""
        return self.values.topk(k, dim=1)


def capture(logits: "torch.Tensor", rows: Sequence[int], vocab_size: int | None = None) -> RawLogprobs | None:
    """Log-softmax of logit rows `rows` (host indices), normalised over the first `vocab_size`
    columns (the tokenizer's: a padded LM head's extra columns are no tokens; default all).
    Call it before the masks are applied."""
    if len(rows) == 0:
        return None
    import torch

    from schemac.runtime.maskcall import host_row_indices

    picked = host_row_indices(rows, logits.shape[0])
    width = logits.shape[1] if vocab_size is None else vocab_size
    if not 0 < width <= logits.shape[1]:
        raise ValueError(f"vocab_size {vocab_size} outside (0, {logits.shape[1]}]")
    index = torch.tensor(picked, dtype=torch.long).to(logits.device, non_blocking=True)
    values = torch.log_softmax(logits.index_select(0, index)[:, :width].float(), dim=-1)
    return RawLogprobs(tuple(picked), values)
