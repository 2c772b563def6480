"""Request options a constrained request can carry, and the ones the runtime refuses.

Each refused combination would let an output bypass the mask (or report probabilities of
tokens the mask forbade), so the request is rejected before generation instead.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from schemac.api import AdmissionError
from schemac.runtime.reasoning import ReasoningConfig


@dataclass(frozen=True)
class RequestOptions:
    """What the serving engine knows about a constrained request's sampling setup."""

    tokenizer_fingerprint: str
    prompt_token_ids: tuple[int, ...] = ()
    reasoning: ReasoningConfig | None = None
    reasoning_started: bool | None = None  # the rendered template opened the block (None: read the prompt's end)
    speculative_acceptance: str = "strict"
    speculative_logprobs: bool = False
    stop: tuple[str, ...] = field(default_factory=tuple)
    ignore_eos: bool = False
    forced_acceptance: bool = False


def check_options(options: RequestOptions) -> None:
    """Raise AdmissionError for any combination that cannot be honoured exactly."""
    if options.speculative_acceptance != "strict":
        raise AdmissionError(
            "unsupported-speculative-acceptance",
            f"speculative acceptance {options.speculative_acceptance!r} can accept masked tokens; use 'strict'",
        )
    if options.speculative_logprobs:
        raise AdmissionError("unsupported-speculative-logprobs", "logprobs of speculative drafts are not masked")
    if options.stop:
        raise AdmissionError("unsupported-stop-strings", "custom stop strings could cut a structured answer")
    if options.ignore_eos:
        raise AdmissionError("unsupported-ignore-eos", "ignore_eos would continue past the end of the answer")
    if options.forced_acceptance:
        raise AdmissionError("unsupported-forced-acceptance", "synthetic forced acceptance bypasses the mask")
    if options.reasoning is not None:
        options.reasoning.check()
