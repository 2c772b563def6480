"""Output token caps: a default bounded by the deployment and the context; explicit caps are
validated, never silently reduced."""
from __future__ import annotations

from schemac.api import AdmissionError


def output_cap(requested: object, prompt_tokens: int, context_window: int, deployment_max: int) -> int:
    """The max number of output tokens for a request, or AdmissionError (400-style)."""
    room = context_window - prompt_tokens
    if room <= 0:
        raise AdmissionError(
            "prompt-too-long",
            f"prompt of {prompt_tokens} tokens leaves no room for output in a {context_window}-token context",
        )
    if requested is None:
        return min(deployment_max, room)
    if isinstance(requested, bool) or not isinstance(requested, int) or requested < 1:
        raise AdmissionError("invalid-max-tokens", f"output token cap must be a positive integer, got {requested!r}")
    if requested > deployment_max:
        raise AdmissionError("max-tokens-too-large", f"output token cap {requested} exceeds the deployment limit {deployment_max}")
    if requested > room:
        raise AdmissionError(
            "max-tokens-too-large",
            f"output token cap {requested} exceeds the {room} tokens left after a {prompt_tokens}-token prompt",
        )
    return requested
