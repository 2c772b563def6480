"""transformers integration: a logits processor and `generate` to try a schema on a local model.

Masks are filled by the runtime and applied by schemac.runtime.masking: the CPU reference path
here, the Triton kernel when the logits live on a GPU.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Sequence

from schemac.runtime.admission import RequestOptions
from schemac.runtime.engine import Engine
from schemac.api import Outcome
from schemac.runtime.final import finalize_request
from schemac.runtime.reasoning import ReasoningConfig

if TYPE_CHECKING:
    import torch

    from schemac.artifact import Artifact
    from schemac.runtime.request import RequestState


class SchemaLogitsProcessor:
    """A transformers LogitsProcessor: batch row i is masked by `states[i]`'s grammar.

    One request state per generated sequence: with `num_return_sequences=n` (sampling) pass
    batch × n states, row-major as transformers lays the rows out. A row count other than the
    number of states, or rows that change history between calls (beam search reorders and
    clones beams, which a request state cannot follow), raise ValueError at once instead of
    leaving a sequence unconstrained. Each call first commits the token sampled for every row
    since the previous call.
    """

    def __init__(self, engine: Engine, states: "Sequence[RequestState]") -> None:
        self._engine = engine
        self._states = list(states)
        self._seen: int | None = None
        self._previous: "torch.Tensor | None" = None
        self._bitmask: "torch.Tensor | None" = None
        self.committed = 0

    def commit_through(self, input_ids: "torch.Tensor") -> None:
        """Commit every row's tokens past the prompt that were not yet committed."""
        self._check_rows(input_ids)
        length = input_ids.shape[1]
        if self._seen is None:
            self._seen = length
            self._previous = input_ids.clone()
            return
        new = input_ids[:, self._seen :].tolist()
        for state, tokens in zip(self._states, new):
            if tokens and not state.terminated:
                state.commit(tokens)
        self.committed += length - self._seen
        self._seen = length
        self._previous = input_ids.clone()

    def _check_rows(self, input_ids: "torch.Tensor") -> None:
        rows = input_ids.shape[0]
        if rows != len(self._states):
            raise ValueError(
                f"{rows} sequences are generated but {len(self._states)} request states were given: pass one "
                "state per sequence (batch size x num_return_sequences; beam search is not supported)"
            )
        previous = self._previous
        if previous is not None and not bool((input_ids[:, : previous.shape[1]] == previous).all()):
            raise ValueError("generated rows changed history between steps (beam search): not supported with schemas")

    def __call__(self, input_ids: "torch.Tensor", scores: "torch.Tensor") -> "torch.Tensor":
        if self._seen is None:
            self._check_rows(input_ids)
            for state in self._states:
                state.wait_ready()
        self.commit_through(input_ids)
        if self._bitmask is None:
            self._bitmask = self._engine.allocate_bitmask(len(self._states))
        self._engine.fill(self._bitmask, [(s, i, ()) for i, s in enumerate(self._states)])
        return apply_mask(scores, self._bitmask, self._engine.tokenizer.vocab_size)


def apply_mask(scores: "torch.Tensor", bitmask: "torch.Tensor", vocab_size: int) -> "torch.Tensor":
    """Apply packed rows in place (columns >= vocab_size are masked too)."""
    from schemac.runtime.masking import apply_token_bitmask

    apply_token_bitmask(scores, bitmask.to(scores.device, non_blocking=True), vocab_size=vocab_size)
    return scores


@dataclass(frozen=True)
class Generation:
    """`text`: everything generated (reasoning included); `outcome.value`: the valid answer."""

    text: str
    tokens: list[int]
    outcome: Outcome


def generate(
    model_dir: str,
    schema: "Any | Artifact",
    prompt: str,
    max_new_tokens: int = 256,
    reasoning: ReasoningConfig | None = None,
) -> Generation:
    """Greedy constrained generation with a local transformers model; raises
    StructuredOutputError if the answer is not valid (never returns one as success)."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from schemac.artifact import Artifact

    tokenizer = AutoTokenizer.from_pretrained(model_dir)
    model = AutoModelForCausalLM.from_pretrained(model_dir)
    model.eval()
    if isinstance(schema, Artifact):
        artifact = schema
    else:
        import schemac

        artifact = schemac.compile(schema)
    engine = Engine.from_hf(
        tokenizer,
        lm_head_size=model.get_output_embeddings().weight.shape[0],
        config_vocab_size=model.config.vocab_size,
    )
    prompt_ids = tokenizer(prompt, return_tensors="pt")["input_ids"]
    options = RequestOptions(engine.tokenizer.fingerprint, tuple(prompt_ids[0].tolist()), reasoning)
    state = engine.admit(artifact, options)
    try:
        processor = SchemaLogitsProcessor(engine, [state])
        eos = list(engine.tokenizer.eos_ids)
        with torch.no_grad():
            out = model.generate(
                prompt_ids,
                attention_mask=torch.ones_like(prompt_ids),
                max_new_tokens=max_new_tokens,
                do_sample=False,
                logits_processor=[processor],
                eos_token_id=eos,
                pad_token_id=eos[0],
            )
        processor.commit_through(out)
        tokens = out[0, prompt_ids.shape[1] :].tolist()
        finish = "stop" if tokens and tokens[-1] in eos else "length"
        outcome = finalize_request(state, finish)
        return Generation(tokenizer.decode(tokens, skip_special_tokens=True), tokens, outcome)
    finally:
        state.release()
