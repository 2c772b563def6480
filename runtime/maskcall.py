"""Validation of one masking request against the mask contract (docs/design.md), shared by the
CPU reference (`schemac.runtime.masking`) and the Triton launcher
(`schemac.runtime.triton.bitmask`), so that neither imports the other.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Sequence, Union

if TYPE_CHECKING:
    import torch

Rows = Union["torch.Tensor", Sequence[int], None]


@dataclass(frozen=True)
class MaskCall:
    """A validated masking request: what the kernel or the reference needs to run."""

    n_rows: int
    vocab_size: int
    rows: torch.Tensor | None  # row indices on the logits' device (None: identity)
    host_rows: list[int] | None  # the same indices on the host, when the caller gave them there


def _check_tensors(logits: torch.Tensor, bitmask: torch.Tensor) -> None:
    import torch

    if logits.dim() != 2 or logits.dtype not in (torch.float16, torch.bfloat16, torch.float32, torch.float64):
        # fp8 formats have no -inf to write.
        raise ValueError(f"logits must be a 2-D fp16/bf16/fp32/fp64 tensor, got {tuple(logits.shape)} {logits.dtype}")
    if bitmask.dim() != 2 or bitmask.dtype != torch.int32:
        raise ValueError(f"bitmask must be a 2-D int32 tensor, got {tuple(bitmask.shape)} {bitmask.dtype}")
    if bitmask.device != logits.device:
        raise ValueError(f"bitmask is on {bitmask.device}, logits on {logits.device}")
    if logits.shape[1] and (logits.shape[1] - 1) * abs(logits.stride(1)) >= 2**31:
        raise ValueError("logits column offsets must fit in int32 (column stride too large)")


def host_row_indices(rows: torch.Tensor | Sequence[int], n_logit_rows: int) -> list[int]:
    """Validate host-side row indices (list or CPU tensor) against the logits' row count."""
    import torch

    if isinstance(rows, torch.Tensor):
        if rows.dim() != 1 or rows.is_floating_point() or rows.is_complex() or rows.dtype == torch.bool:
            raise ValueError(f"rows must be a 1-D integer tensor, got {tuple(rows.shape)} {rows.dtype}")
        values = rows.tolist()
    else:
        from schemac.runtime.boundary import INTEGER, integer

        values = [integer(r) for r in rows]
        if None in values:
            raise ValueError(f"rows[{values.index(None)}] must be {INTEGER}")
    bad = [r for r in values if not 0 <= r < n_logit_rows]
    if bad:
        raise ValueError(f"row indices {bad[:4]} outside [0, {n_logit_rows})")
    if len(set(values)) != len(values):
        raise ValueError("row indices must be distinct (one mask row per logit row)")
    return values


def prepare(
    logits: torch.Tensor,
    bitmask: torch.Tensor,
    rows: Rows = None,
    vocab_size: int | None = None,
    *,
    device_rows: bool = True,
) -> MaskCall:
    """Validate one masking request; with ``device_rows`` also put host row indices on the device."""
    import torch

    _check_tensors(logits, bitmask)
    n_logit_rows, n_cols = logits.shape
    n_mask_rows, n_words = bitmask.shape
    if vocab_size is None:
        vocab = min(32 * n_words, n_cols)
    else:
        vocab = operator.index(vocab_size)
        if not 0 <= vocab <= 32 * n_words:
            raise ValueError(f"vocab_size {vocab} needs {-(-vocab // 32)} mask words, bitmask has {n_words}")
    if rows is None:
        if n_mask_rows > n_logit_rows:
            raise ValueError(f"{n_mask_rows} mask rows but only {n_logit_rows} logit rows; pass rows")
        return MaskCall(n_mask_rows, vocab, None, None)
    if isinstance(rows, torch.Tensor) and rows.device.type != "cpu":
        if rows.device != logits.device:
            raise ValueError(f"rows are on {rows.device}, logits on {logits.device}")
        if rows.dim() != 1 or rows.dtype not in (torch.int32, torch.int64):
            raise ValueError(f"device rows must be a 1-D int32/int64 tensor, got {rows.dtype}")
        host, device = None, rows
    else:
        host = host_row_indices(rows, n_logit_rows)
        device = None
        if device_rows and host:
            # A fresh pageable tensor: the non-blocking copy stages it at once, without waiting
            # for the stream, and nobody can overwrite it before the copy reads it.
            device = torch.tensor(host, dtype=torch.int32).to(logits.device, non_blocking=True)
    n = len(device) if host is None else len(host)
    if n > n_mask_rows:
        raise ValueError(f"{n} row indices but only {n_mask_rows} mask rows")
    return MaskCall(n, vocab, device, host)
