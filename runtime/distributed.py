"""Admission and release agreed by every rank of a torch.distributed process group.

Under tensor or pipeline parallelism every rank masks its own copy of the logits, so a
constrained request may start only if every rank can enforce it: each rank checks the
fingerprint and its own LM head and compiles the grammar; the status is all-reduced, and any
failure rejects the request on every rank with the failing rank's diagnostic (its compiled
states released everywhere). Any exception on a rank is such a failure (`rank-exception`), so
the all-reduce always runs and the ranks can never go on to admit different requests; an id
already in the table is refused (`duplicate-request-id`) and the request it names is left as
it is. Release is collective too: a request cancelled on one rank (a client disconnect seen by
the API rank) is released on all of them; a request released through its own
`RequestState.release()` leaves this rank's table as well. Works unchanged on gloo (CPU) and
NCCL (a one-element CUDA tensor on the current device).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

from schemac.api import AdmissionError

if TYPE_CHECKING:
    from schemac.artifact import Artifact
    from schemac.runtime.admission import RequestOptions
    from schemac.runtime.engine import Engine
    from schemac.runtime.request import RequestState


class DistributedAdmission:
    """One per rank, beside its Engine. Every method is a collective: all ranks call it in
    the same order with the same request ids."""

    def __init__(self, engine: "Engine", group: Any = None, compile_timeout: float | None = 60.0) -> None:
        self.engine = engine
        self.group = group
        self.compile_timeout = compile_timeout
        self.states: dict[str, RequestState] = {}

    def admit(self, request_id: str, artifact: "Artifact | str | bytes", options: "RequestOptions") -> "RequestState":
        """Admit on this rank and agree with the others; raises AdmissionError on every rank
        (`code` and message of the lowest failing rank, prefixed with its number) if any fails."""
        import torch.distributed as dist

        state: RequestState | None = None
        failure: tuple[str, str] | None = None
        try:
            if request_id in self.states:
                raise AdmissionError("duplicate-request-id", f"request {request_id!r} is already admitted")
            state = self.engine.admit(artifact, options)
            state.wait_ready(self.compile_timeout)
            if state.error is not None:
                failure = (state.error.code, state.error.message)
        except AdmissionError as exc:
            failure = (exc.code, exc.message)
        except TimeoutError:
            failure = ("grammar-compile-timeout", f"grammar did not compile within {self.compile_timeout} s")
        except Exception as exc:  # noqa: BLE001 - every rank must reach the all-reduce
            failure = ("rank-exception", f"{type(exc).__name__}: {exc}")
        flag = self._tensor(0 if failure is None else 1)
        dist.all_reduce(flag, op=dist.ReduceOp.MAX, group=self.group)
        if int(flag.item()) == 0:
            assert state is not None
            self.states[request_id] = state
            state.add_release_hook(lambda released: self._forget(request_id, released))
            return state
        if state is not None:
            state.release()
        reports: list[Any] = [None] * dist.get_world_size(self.group)
        dist.all_gather_object(reports, failure, group=self.group)
        rank, (code, message) = next((r, f) for r, f in enumerate(reports) if f is not None)
        raise AdmissionError(code, f"rank {rank}: {message}")

    def release(self, request_ids: Sequence[str] = ()) -> list[str]:
        """Release, on every rank, the requests any rank names here (idempotent; unknown ids
        are ignored; a string is one id, never its characters). Returns the ids released on
        this rank."""
        import torch.distributed as dist

        ids = [request_ids] if isinstance(request_ids, str) else list(request_ids)
        lists: list[Any] = [None] * dist.get_world_size(self.group)
        dist.all_gather_object(lists, ids, group=self.group)
        released = []
        for request_id in dict.fromkeys(i for ids in lists for i in ids):
            state = self.states.pop(request_id, None)
            if state is not None:
                state.release()
                released.append(request_id)
        return released

    def _forget(self, request_id: str, state: "RequestState") -> None:
        if self.states.get(request_id) is state:
            del self.states[request_id]

    def _tensor(self, value: int) -> Any:
        import torch
        import torch.distributed as dist

        device = "cpu"
        if dist.get_backend(self.group) == "nccl":
            device = f"cuda:{torch.cuda.current_device()}"
        return torch.tensor([value], dtype=torch.int32, device=device)
