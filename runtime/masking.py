"""Apply packed token bitmasks to logits in place (Triton on CUDA, torch reference on CPU).

Public entry point::

    apply_token_bitmask(logits, bitmask, rows=None, vocab_size=None) -> None

- ``logits``: float tensor ``[n_logit_rows, V_logits]`` (fp32/bf16/fp16), any strides; changed
  in place. Only forbidden entries change (to ``-inf``); allowed entries keep their bits.
- ``bitmask``: int32 tensor ``[n_mask_rows, W]`` on the logits' device, ``W >= ceil(V_tok/32)``.
  Bit ``i % 32`` of word ``i // 32`` (LSB first) is token ``i``; 1 = allowed, a ``-1`` row allows
  everything (the mask contract of docs/design.md).
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

Validation lives in ``schemac.runtime.maskcall`` (shared with the Triton launcher).
``apply_token_bitmask_reference`` has identical semantics in plain torch (used for CPU logits
and as the oracle of the kernel tests); ``pack_bitmask`` packs a boolean allowed-matrix.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from schemac.runtime.maskcall import Rows, prepare

if TYPE_CHECKING:
    import torch


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
