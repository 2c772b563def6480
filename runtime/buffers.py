"""Reusable mask buffers and asynchronous token copies between host and GPU.

``MaskBuffers`` (one per engine): the matchers fill pinned host rows, ``apply`` uploads them
with the row indices on the caller's current stream and launches the masking kernel. Buffers
grow on demand (doubling) and are reused; two CUDA events make the reuse safe without
syncing every step, also when the caller changes streams between steps:

- ``copied`` (recorded after the upload): ``host()`` waits on it before handing out the host
  rows again, so the host never overwrites memory an unfinished copy still reads;
- ``consumed`` (recorded after the kernel): the next upload's stream waits on it, so a copy on
  another stream never overwrites device rows an unfinished kernel still reads.

Row indices come from the host (the engine's CPU mirror of the batch), are validated there and
travel with the masks; nothing is read back from the GPU.

``TokenCopier``: after sampling, ``start(sampled, drafts)`` copies the token tensors of the
constrained requests to pinned host memory on a side stream and returns at once; the host
submits the next forward, then ``PendingTokens.wait()`` blocks on that copy's event alone.

Nothing here imports torch or allocates before the first non-empty use: a batch without
constrained requests costs nothing. On a CPU device the same calls run synchronously.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Sequence

if TYPE_CHECKING:
    import torch


def _grown(current: int, needed: int) -> int:
    return max(needed, 2 * current)


class MaskBuffers:
    """Host (pinned) and device bitmask rows plus row indices, reused across steps."""

    def __init__(self, n_words: int, device: torch.device | str) -> None:
        if n_words < 1:
            raise ValueError(f"n_words must be positive, got {n_words}")
        self.n_words = n_words
        self.device = device
        self._cuda: bool | None = None
        self._host: torch.Tensor | None = None  # [capacity, n_words] int32
        self._host_rows: torch.Tensor | None = None  # [capacity] int32
        self._dev: torch.Tensor | None = None
        self._dev_rows: torch.Tensor | None = None
        self._copied: Any = None  # torch.cuda.Event after the last upload
        self._consumed: Any = None  # torch.cuda.Event after the last kernel
        self._host_busy = False  # an upload may still be reading the host buffers

    @property
    def capacity(self) -> int:
        """Rows the host buffers hold now (0 before first use)."""
        return 0 if self._host is None else self._host.shape[0]

    def _is_cuda(self) -> bool:
        if self._cuda is None:
            import torch

            device = torch.device(self.device)
            if device.type == "cuda" and device.index is None:
                device = torch.device("cuda", torch.cuda.current_device())
            self.device = device
            self._cuda = device.type == "cuda"
        return self._cuda

    def _wait_host(self) -> None:
        if self._host_busy:
            self._copied.synchronize()
            self._host_busy = False

    def host(self, n: int) -> torch.Tensor:
        """Return host rows ``[n, n_words]`` (int32, pinned on CUDA) that are safe to fill now."""
        import torch

        self._wait_host()
        if n > self.capacity:
            size = _grown(self.capacity, n)
            pin = self._is_cuda()
            self._host = torch.empty((size, self.n_words), dtype=torch.int32, pin_memory=pin)
            self._host_rows = torch.empty((size,), dtype=torch.int32, pin_memory=pin)
        assert self._host is not None
        return self._host[:n]

    def apply(self, logits: torch.Tensor, rows: Sequence[int], vocab_size: int | None = None) -> None:
        """Mask logit row ``rows[j]`` with host row ``j`` (as filled via ``host(len(rows))``).

        Runs on the caller's current stream; an empty ``rows`` does nothing at all.
        """
        n = len(rows)
        if n == 0:
            return
        if n > self.capacity:
            raise ValueError(f"{n} rows to apply but host() handed out only {self.capacity}")
        from .maskcall import host_row_indices
        from .masking import apply_token_bitmask

        targets = host_row_indices(rows, logits.shape[0])
        host = self._host[:n] if self._host is not None else None
        assert host is not None and self._host_rows is not None
        if not self._is_cuda():
            apply_token_bitmask(logits, host, targets, vocab_size)
            return
        if logits.device != self.device:
            raise ValueError(f"logits are on {logits.device}, buffers on {self.device}")
        import torch

        self._wait_host()
        self._host_rows.numpy()[:n] = targets
        stream = torch.cuda.current_stream(self.device)
        self._ensure_device(n)
        assert self._dev is not None and self._dev_rows is not None
        if self._consumed is not None:
            stream.wait_event(self._consumed)
        else:
            self._copied, self._consumed = torch.cuda.Event(), torch.cuda.Event()
        dev, dev_rows = self._dev[:n], self._dev_rows[:n]
        dev.copy_(host, non_blocking=True)
        dev_rows.copy_(self._host_rows[:n], non_blocking=True)
        self._copied.record(stream)
        self._host_busy = True
        apply_token_bitmask(logits, dev, dev_rows, vocab_size)
        self._consumed.record(stream)

    def _ensure_device(self, n: int) -> None:
        import torch

        size = 0 if self._dev is None else self._dev.shape[0]
        if n <= size:
            return
        if self._consumed is not None:
            # Growth is rare (doubling): wait for the last kernel on the old buffers rather
            # than hand them back to the allocator while another stream may still read them.
            self._consumed.synchronize()
        size = _grown(size, n)
        self._dev = torch.empty((size, self.n_words), dtype=torch.int32, device=self.device)
        self._dev_rows = torch.empty((size,), dtype=torch.int32, device=self.device)


class PendingTokens:
    """Host copies of token tensors; ``wait()`` blocks on their copy's event only."""

    def __init__(self, views: tuple[torch.Tensor, ...], event: Any) -> None:
        self._views = views
        self._event = event
        self._values: tuple[torch.Tensor, ...] | None = None

    def ready(self) -> bool:
        """Whether ``wait()`` would return without blocking."""
        return self._values is not None or self._event is None or bool(self._event.query())

    def wait(self) -> tuple[torch.Tensor, ...]:
        """Return the tokens as CPU int64 tensors the caller owns (one per tensor given to ``start``)."""
        if self._values is None:
            if self._event is not None:
                self._event.synchronize()
            self._values = tuple(v.clone() for v in self._views)
            self._views = ()
        return self._values


@dataclass
class _Slot:
    buffer: Any = None  # pinned int64 storage
    event: Any = None
    pending: PendingTokens | None = field(default=None)


class TokenCopier:
    """Asynchronous device-to-host copies of sampled and draft tokens, on a side stream.

    A ring of pinned slots lets the copy of step t+1 start while the host still holds step t's
    result; a slot is only refilled after its previous result was read (``wait()``), forcing
    that read first if the caller skipped it.
    """

    def __init__(self, device: torch.device | str, slots: int = 2) -> None:
        if slots < 1:
            raise ValueError(f"slots must be positive, got {slots}")
        self.device = device
        self._slots = [_Slot() for _ in range(slots)]
        self._next = 0
        self._stream: Any = None

    def start(self, *tokens: torch.Tensor) -> PendingTokens:
        """Copy ``tokens`` (integer tensors on the device) to the host after the current stream's work."""
        import torch

        device = torch.device(self.device)
        if device.type != "cuda":
            return PendingTokens(tuple(t.detach().to(torch.int64, copy=True) for t in tokens), None)
        total = sum(t.numel() for t in tokens)
        if total == 0:
            return PendingTokens(tuple(torch.empty(t.shape, dtype=torch.int64) for t in tokens), None)
        slot = self._slots[self._next]
        self._next = (self._next + 1) % len(self._slots)
        if slot.pending is not None:
            slot.pending.wait()
        held = 0 if slot.buffer is None else slot.buffer.numel()
        if held < total:
            slot.buffer = torch.empty((_grown(held, total),), dtype=torch.int64, pin_memory=True)
        if slot.event is None:
            slot.event = torch.cuda.Event()
        if self._stream is None:
            self._stream = torch.cuda.Stream(device)
        side = self._stream
        side.wait_stream(torch.cuda.current_stream(device))
        views = []
        offset = 0
        with torch.cuda.stream(side):
            for t in tokens:
                view = slot.buffer[offset : offset + t.numel()].view(t.shape)
                offset += t.numel()
                view.copy_(t.to(torch.int64), non_blocking=True)
                t.record_stream(side)
                views.append(view)
        slot.event.record(side)
        slot.pending = PendingTokens(tuple(views), slot.event)
        return slot.pending
