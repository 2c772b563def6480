"""Triton kernel that applies packed token bitmasks to logits in place.

Each program takes one mask row and one column block; it loads the int32 mask words once,
clears the bits at/after the tokenizer vocabulary, and decides per 32-byte sector (the unit
the GPU writes to memory):

- every token allowed: nothing is read or written;
- every token forbidden: the sector is overwritten with ``-inf`` (a full vector store, no read);
- mixed: the sector is read and written back whole, ``-inf`` where forbidden.

No sector is ever written in part. Measured on the H200 (run 1, kept in the report): storing
``-inf`` only to the forbidden elements, with per-element store masks, runs at the write
roofline while the logits sit in L2 but 2-3x slower than ``fill_`` once they do not, since each
partly written sector then costs the memory system a read of its own. Mask words are read
from memory once; no vocabulary-sized boolean tensor exists and rows are never gathered.

Grid: (mask row j, column block). Mask row j masks logit row ``rows[j]`` (or j); a row index
outside ``[0, logits rows)`` is skipped rather than written, so a bad device index tensor
cannot corrupt memory (host-side callers validate first; see ``schemac.runtime.masking``).

``kernel()`` builds the JIT function on first use so that importing this module stays cheap.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any, Sequence

if TYPE_CHECKING:
    import torch

# Column-block sizes tried from largest to smallest; the largest that still yields two waves of
# programs over the multiprocessors wins (big blocks amortise index math, small ones fill the
# chip at batch 1).
_BLOCKS = (8192, 4096, 2048, 1024)
_DEFAULT_SMS = 132  # H200; used when no CUDA device is queried (interpreter mode).


@functools.cache
def kernel() -> Any:
    """Return the JIT-compiled masking kernel (built once; imports triton here)."""
    import triton
    import triton.language as tl

    @triton.jit
    def apply_bitmask_kernel(
        logits_ptr,
        mask_ptr,
        rows_ptr,
        n_logit_rows,
        logits_row_stride,
        logits_col_stride,
        mask_row_stride,
        mask_col_stride,
        n_cols,
        vocab_size,
        n_words,
        HAS_ROWS: tl.constexpr,
        BLOCK_WORDS: tl.constexpr,
        SECTOR: tl.constexpr,  # logits per 32-byte sector
        SECTOR_BITS: tl.constexpr,  # SECTOR low bits set, as a signed int32
    ):
        j = tl.program_id(0)
        block = tl.program_id(1)
        if HAS_ROWS:
            row = tl.load(rows_ptr + j).to(tl.int64)
        else:
            row = j.to(tl.int64)
        if (row >= 0) & (row < n_logit_rows):
            # One tensor row per sector, so that a warp's lanes cover consecutive sectors.
            per_word: tl.constexpr = 32 // SECTOR
            q = block * (BLOCK_WORDS * per_word) + tl.arange(0, BLOCK_WORDS * per_word)
            w = q // per_word
            words = tl.load(
                mask_ptr + j.to(tl.int64) * mask_row_stride + w * mask_col_stride,
                mask=w < n_words,
                other=0,
            )
            # Clear the bits at/after vocab_size (padded LM heads): nothing below tests columns
            # against the vocabulary again.
            keep = tl.minimum(tl.maximum(vocab_size - w * 32, 0), 32)
            ones = tl.full([BLOCK_WORDS * per_word], 0xFFFFFFFF, tl.uint32)
            valid = tl.where(keep > 0, ones >> tl.minimum(32 - keep, 31).to(tl.uint32), 0)
            sector = ((words & valid.to(tl.int32, bitcast=True)) >> ((q % per_word) * SECTOR)) & SECTOR_BITS
            lane = tl.arange(0, SECTOR)
            allowed = ((sector[:, None] >> lane[None, :]) & 1) != 0
            cols = q[:, None] * SECTOR + lane[None, :]
            inside = cols < n_cols
            ptrs = logits_ptr + row * logits_row_stride + cols * logits_col_stride
            write = (sector != SECTOR_BITS)[:, None]
            old = tl.load(ptrs, mask=write & (sector != 0)[:, None] & inside)
            neg_inf = tl.full([1, SECTOR], float("-inf"), tl.float32).to(logits_ptr.dtype.element_ty)
            tl.store(ptrs, tl.where(allowed, old, neg_inf), mask=write & inside)

    return apply_bitmask_kernel


@functools.cache
def _sm_count(device_index: int) -> int:
    import torch

    return torch.cuda.get_device_properties(device_index).multi_processor_count


def choose_config(n_rows: int, n_cols: int, sm_count: int = _DEFAULT_SMS) -> tuple[int, int]:
    """Pick (columns per program, num_warps) for a launch of ``n_rows`` mask rows."""
    for block_cols in _BLOCKS:
        if n_rows * -(-n_cols // block_cols) >= 2 * sm_count:
            break
    return block_cols, (8 if block_cols >= 4096 else 4)


def launch(
    logits: torch.Tensor,
    bitmask: torch.Tensor,
    rows: torch.Tensor | None,
    n_rows: int,
    vocab_size: int,
    *,
    block_cols: int | None = None,
    num_warps: int | None = None,
) -> Any:
    """Launch the kernel on validated arguments (``rows`` on the logits' device).

    Returns Triton's compiled-kernel handle (its ``asm`` shows the stores), or None when
    there is nothing to mask.
    """
    n_cols = logits.shape[1]
    if n_rows == 0 or n_cols == 0:
        return None
    if block_cols is None or num_warps is None:
        sms = _sm_count(logits.device.index or 0) if logits.is_cuda else _DEFAULT_SMS
        auto_cols, auto_warps = choose_config(n_rows, n_cols, sms)
        block_cols = block_cols or auto_cols
        num_warps = num_warps or auto_warps
    grid = (n_rows, -(-n_cols // block_cols))
    sector = 32 // logits.element_size()
    return kernel()[grid](
        logits,
        bitmask,
        rows,
        logits.shape[0],
        logits.stride(0),
        logits.stride(1),
        bitmask.stride(0),
        bitmask.stride(1),
        n_cols,
        vocab_size,
        bitmask.shape[1],
        HAS_ROWS=rows is not None,
        BLOCK_WORDS=block_cols // 32,
        SECTOR=sector,
        SECTOR_BITS=(1 << sector) - 1 if sector < 32 else -1,
        num_warps=num_warps,
    )


def warm_up(logits: torch.Tensor, bitmask: torch.Tensor, vocab_size: int) -> None:
    """JIT every block configuration `choose_config` can pick for these shapes and dtypes.

    The configuration follows the number of masked rows, which changes as requests come and
    go; without this, the first step at each new configuration pays a Triton compile. Engines
    call it once at start-up (beside CUDA-graph capture); it leaves `logits` as it was only in
    the rows' allowed columns, so pass scratch tensors.
    """
    import torch

    rows = torch.arange(min(logits.shape[0], bitmask.shape[0]), dtype=torch.int32, device=logits.device)
    for block_cols in _BLOCKS:
        launch(logits, bitmask, rows, rows.numel(), vocab_size, block_cols=block_cols,
               num_warps=8 if block_cols >= 4096 else 4)


def apply_token_bitmask_triton(
    logits: torch.Tensor,
    bitmask: torch.Tensor,
    rows: torch.Tensor | Sequence[int] | None = None,
    vocab_size: int | None = None,
) -> None:
    """Validate like ``schemac.runtime.masking.apply_token_bitmask`` and run the kernel.

    Works on CUDA tensors and, with ``TRITON_INTERPRET=1`` set before this module's kernel is
    built, on CPU tensors (how the tests check it against the CPU reference).
    """
    from ..maskcall import prepare

    call = prepare(logits, bitmask, rows, vocab_size)
    launch(logits, bitmask, call.rows, call.n_rows, call.vocab_size)
