"""Reusable mask buffers and asynchronous token copies between host and GPU.

``MaskBuffers`` (one per engine): the matchers fill pinned host rows; ``apply`` uploads them
with the row indices on a side stream of its own (so the upload overlaps whatever the caller's
stream is still running, typically the forward whose logits it will mask) and masks on the
caller's current stream once the upload is done. Buffers grow on demand (doubling) and are
reused; two CUDA events make the reuse safe without syncing every step, also when the caller
changes streams between steps:

- ``copied`` (recorded after the upload): ``host()`` waits on it before handing out the host
  rows again, so the host never overwrites memory an unfinished copy still reads; the kernel's
  stream waits on it before masking;
- ``consumed`` (recorded after the kernel): the next upload waits on it, so it never
  overwrites device rows an unfinished kernel still reads.

Row indices come from the host (the engine's CPU mirror of the batch), are validated there and
travel with the masks; nothing is read back from the GPU. The kernel always runs over the
device buffers' full row capacity, rows past the ones given set to -1 (which the kernel skips),
so its launch has one shape per logits tensor: after the second step on the same logits tensor
(same address, shape, strides and dtype) that launch is captured once as a CUDA graph and
replayed, which costs the host a few microseconds instead of Triton's Python launcher.
Engines whose logits move every step get the direct launch.

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

    #: launches captured as CUDA graphs, at most (one per logits tensor seen twice in a row)
    MAX_GRAPHS = 8

    def __init__(self, n_words: int, device: torch.device | str, graphs: bool = True) -> None:
        if n_words < 1:
            raise ValueError(f"n_words must be positive, got {n_words}")
        self.n_words = n_words
        self.device = device
        self.graphs = graphs
        self._cuda: bool | None = None
        self._host: torch.Tensor | None = None  # [capacity, n_words] int32
        self._dev: torch.Tensor | None = None  # [device capacity, n_words] int32
        self._dev_rows: torch.Tensor | None = None  # [device capacity] int32, -1 past the rows given
        self._host_rows: torch.Tensor | None = None  # pinned twin of _dev_rows
        self._upload: Any = None  # the side stream of the uploads
        self._copied: Any = None  # torch.cuda.Event after the last upload
        self._consumed: Any = None  # torch.cuda.Event after the last kernel
        self._host_busy = False  # an upload may still be reading the host buffers
        self._checked: tuple[Any, ...] | None = None  # the last logits layout validated
        self._vocab = 0  # its vocabulary size
        self._last_launch: tuple[Any, ...] | None = None
        self._captured: dict[tuple[Any, ...], Any] = {}

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
            self._host = torch.empty((size, self.n_words), dtype=torch.int32, pin_memory=self._is_cuda())
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

        targets = host_row_indices(rows, logits.shape[0])
        host = self._host[:n] if self._host is not None else None
        assert host is not None
        if not self._is_cuda():
            from .masking import apply_token_bitmask

            apply_token_bitmask(logits, host, targets, vocab_size)
            return
        import torch

        vocab = self._checked_vocab(logits, vocab_size)
        self._wait_host()
        self._ensure_device(n)
        assert self._dev is not None and self._dev_rows is not None and self._host_rows is not None
        indices = self._host_rows.numpy()
        indices[:n] = targets
        indices[n:] = -1
        if self._upload is None:
            self._upload = torch.cuda.Stream(self.device)
            self._copied = torch.cuda.Event()
        elif self._consumed is not None:
            self._upload.wait_event(self._consumed)
        with torch.cuda.stream(self._upload):
            self._dev[:n].copy_(host, non_blocking=True)
            self._dev_rows.copy_(self._host_rows, non_blocking=True)
            self._copied.record(self._upload)
        self._host_busy = True
        stream = torch.cuda.current_stream(self.device)
        stream.wait_event(self._copied)
        self._launch(logits, vocab)
        if self._consumed is None:
            self._consumed = torch.cuda.Event()
        self._consumed.record(stream)

    def _checked_vocab(self, logits: torch.Tensor, vocab_size: int | None) -> int:
        """The mask contract's checks (``maskcall.prepare``), run once per logits layout."""
        key = (logits.device, logits.dtype, tuple(logits.shape), tuple(logits.stride()), vocab_size)
        if key != self._checked:
            if logits.device != self.device:
                raise ValueError(f"logits are on {logits.device}, buffers on {self.device}")
            import torch

            from .maskcall import prepare

            probe = torch.empty((1, self.n_words), dtype=torch.int32, device=self.device)
            self._vocab = prepare(logits, probe, None, vocab_size, device_rows=False).vocab_size
            self._checked = key
        return self._vocab

    def _launch(self, logits: torch.Tensor, vocab: int) -> None:
        """The kernel over every device row: a captured graph once this launch repeats."""
        from .triton.bitmask import launch

        assert self._dev is not None and self._dev_rows is not None
        rows = self._dev_rows.shape[0]
        key = (logits.data_ptr(), logits.dtype, tuple(logits.shape), tuple(logits.stride()), vocab,
               self._dev.data_ptr(), rows)
        graph = self._captured.get(key)
        if graph is not None:
            graph.replay()
            return
        launch(logits, self._dev, self._dev_rows, rows, vocab)
        if self.graphs and key == self._last_launch and len(self._captured) < self.MAX_GRAPHS:
            self._captured[key] = _captured(lambda: launch(logits, self._dev, self._dev_rows, rows, vocab))
        self._last_launch = key

    def _ensure_device(self, n: int) -> None:
        import torch

        size = 0 if self._dev is None else self._dev.shape[0]
        if n <= size:
            return
        if self._consumed is not None:
            # Growth is rare (doubling): wait for the last kernel on the old buffers rather
            # than hand them back to the allocator while another stream may still read them.
            self._consumed.synchronize()
        self._wait_host()
        size = _grown(size, n)
        self._dev = torch.empty((size, self.n_words), dtype=torch.int32, device=self.device)
        self._dev_rows = torch.empty((size,), dtype=torch.int32, device=self.device)
        self._host_rows = torch.empty((size,), dtype=torch.int32, pin_memory=True)
        self._captured.clear()  # the graphs point at the old buffers


def _captured(launch: Any) -> Any:
    """`launch` captured once as a CUDA graph (on a side stream, this thread only: the caller's
    streams may have work in flight), to be replayed on the caller's current stream."""
    import torch

    graph = torch.cuda.CUDAGraph()
    stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):
        graph.capture_begin(capture_error_mode="thread_local")
        try:
            launch()
        finally:
            graph.capture_end()
    return graph


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
