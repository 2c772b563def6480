"""Apply packed token bitmasks to logits in place (Triton on CUDA, torch reference on CPU).

Public entry point::

    apply_token_bitmask(logits, bitmask, rows=None, vocab_size=None) -> None

- ``logits``: float tensor ``[n_logit_rows, V_logits]`` (fp32/bf16/fp16), any strides; changed
  in place. Only forbidden entries change (to ``-inf``); allowed entries keep their bits.
- ``bitmask``: int32 tensor ``[n_mask_rows, W]`` on the logits' device, ``W >= ceil(V_tok/32)``.
  Bit ``i % 32`` of word ``i // 32`` (LSB first) is token ``i``; 1 = allowed, a ``-1`` row allows
  everything (the mask contract of DESIGN.md).
- ``rows``: which logit row each mask row applies to: mask row ``j`` masks logit row
  ``rows[j]`` (target and bonus rows under speculative decoding). A list/tuple/range or CPU
  integer tensor is validated on the host (``0 <= r < n_logit_rows``, ``len(rows) <=
  n_mask_rows``) and copied to the device without a stream sync; a device integer tensor
  (int32/int64) is used as is, unvalidated (it would need a sync), and the kernel skips indices
  out of range instead of writing. Indices must be distinct (the kernel rewrites mixed
  32-byte sectors whole, so two mask rows on one logit row would race); host-side duplicates
  raise. ``None``: mask row ``i`` masks logit row ``i`` for every mask row. Logit rows not
  named are never touched; an empty ``rows`` returns at once, importing and launching nothing.
- ``vocab_size``: tokenizer vocabulary ``V_tok``; logit columns at or past it are always set to
  ``-inf`` (padded LM heads). Default ``min(32 * W, V_logits)``. Must be ``<= 32 * W``.

Raises ``ValueError`` for shapes, dtypes, devices or host row indices that break the contract:
a mask that cannot be applied exactly is never silently skipped.

``apply_token_bitmask_reference`` has identical semantics in plain torch (used for CPU logits
and as the oracle of the kernel tests); ``pack_bitmask`` packs a boolean allowed-matrix.
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
        values = [operator.index(r) for r in rows]
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


def apply_token_bitmask(
    logits: torch.Tensor,
    bitmask: torch.Tensor,
    rows: Rows = None,
    vocab_size: int | None = None,
) -> None:
    """Set forbidden logits to ``-inf`` in place (see the module docstring for the contract)."""
    if rows is not None and len(rows) == 0:
        return
    if not logits.is_cuda:
        apply_token_bitmask_reference(logits, bitmask, rows, vocab_size)
        return
    from .triton.bitmask import launch

    call = prepare(logits, bitmask, rows, vocab_size)
    launch(logits, bitmask, call.rows, call.n_rows, call.vocab_size)


def apply_token_bitmask_reference(
    logits: torch.Tensor,
    bitmask: torch.Tensor,
    rows: Rows = None,
    vocab_size: int | None = None,
) -> None:
    """Plain-torch masking with the kernel's exact semantics; ``rows`` must be host-side.

    It expands the bits into a boolean matrix, which the kernel never does: this is the
    oracle and the CPU path, not the fast path.
    """
    import torch

    call = prepare(logits, bitmask, rows, vocab_size, device_rows=False)
    if rows is not None and call.host_rows is None:
        raise ValueError("the reference needs host-side row indices (list or CPU tensor)")
    n = call.n_rows
    if n == 0:
        return
    allowed = min(call.vocab_size, logits.shape[1])
    words = -(-allowed // 32)
    shifts = torch.arange(32, dtype=torch.int32, device=bitmask.device)
    forbidden = ((bitmask[:n, :words, None] >> shifts) & 1) == 0
    forbidden = forbidden.reshape(n, words * 32)[:, :allowed]
    if call.host_rows is None:
        logits[:n, :allowed].masked_fill_(forbidden, float("-inf"))
        logits[:n, allowed:].fill_(float("-inf"))
        return
    for j, r in enumerate(call.host_rows):
        logits[r, :allowed].masked_fill_(forbidden[j], float("-inf"))
        logits[r, allowed:].fill_(float("-inf"))


def pack_bitmask(allowed: torch.Tensor) -> torch.Tensor:
    """Pack a boolean ``[rows, V]`` allowed-matrix into int32 ``[rows, ceil(V/32)]`` words."""
    import torch

    rows, vocab = allowed.shape
    words = -(-vocab // 32)
    padded = torch.zeros(rows, words * 32, dtype=torch.int64, device=allowed.device)
    padded[:, :vocab] = allowed.to(torch.int64)
    weights = torch.ones(32, dtype=torch.int64, device=allowed.device) << torch.arange(
        32, dtype=torch.int64, device=allowed.device
    )
    packed = (padded.view(rows, words, 32) * weights).sum(-1)
    return (packed - (packed >= 2**31).to(torch.int64) * 2**32).to(torch.int32)
