"""`Artifact.lark` through the exact llguidance entry points unmodified engines call.

vLLM 0.33 (`vllm/v1/structured_output/backend_guidance.py`): `structured_outputs={"grammar": T}`
→ `llguidance.grammar_from("grammar", T)`; request validation `LLMatcher.validate_grammar(g,
tokenizer)`; then `LLMatcher(ll_tokenizer, g, log_level=...)`, `get_error`, `consume_tokens`,
`validate_tokens`, `rollback`, `fill_next_token_bitmask`, on an `llguidance.hf.from_tokenizer`
tokenizer. SGLang 0.5.23 (`sglang/srt/constrained/llguidance_backend.py`): `ebnf` →
`grammar_from("ebnf", T)` in its real `GuidanceBackend.dispatch_ebnf`, then its
`GuidanceGrammar` (accept_token, rollback, fill_vocab_mask, copy).

On every lowering fixture, the Lark path must give the same verdict as the artifact's own
grammar on each fixture instance, refuse every invalid one, and (SGLang's classes) write the
same mask rows along a valid answer.
"""
from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

import pytest
import torch

import schemac
from schemac.artifact import Artifact
from schemac.diagnostics import CompileError
from schemac.runtime import tekken_tokenizer

FIXTURES = sorted((Path(__file__).resolve().parents[2] / "testdata" / "lower").glob("*/*.json"))
VOCAB = 1000 + 3000


@lru_cache(maxsize=None)
def hf_tokenizer() -> Any:
    return tekken_tokenizer(vocab_size=VOCAB)


@lru_cache(maxsize=None)
def vllm_tokenizer() -> Any:
    """vLLM's `GuidanceBackend._build_ll_tokenizer` for a fast tokenizer."""
    import llguidance.hf

    tok = hf_tokenizer()
    return llguidance.hf.from_tokenizer(tok, max(VOCAB, len(tok)))


@lru_cache(maxsize=None)
def sglang_backend() -> Any:
    from sglang.srt.constrained.llguidance_backend import GuidanceBackend

    return GuidanceBackend(hf_tokenizer(), any_whitespace=True, n_vocab=VOCAB,
                           eos_token_ids={hf_tokenizer().eos_token_id})


@lru_cache(maxsize=None)
def compiled(path: Path) -> tuple[Artifact | None, list[dict[str, Any]]]:
    case = json.loads(path.read_text(encoding="utf-8"))
    try:
        return schemac.compile(case["schema"]), case.get("tests", [])
    except CompileError:
        return None, []


def fixture_cases() -> list[Any]:
    return [pytest.param(p, id=f"{p.parent.name}/{p.stem}") for p in FIXTURES]


def _tokens(text: str) -> list[int]:
    return hf_tokenizer().encode(text, add_special_tokens=False)


def _verdict(matcher: Any, tokens: list[int]) -> bool:
    """vLLM's order: `validate_tokens` (speculative check, no advance), then `consume_tokens`."""
    n = matcher.validate_tokens(tokens)
    if n < len(tokens):
        return False
    assert matcher.consume_tokens(tokens) and not matcher.get_error()
    return matcher.is_accepting()


def test_fixtures_exist() -> None:
    assert len(FIXTURES) >= 50
    assert sum(compiled(p)[0] is not None for p in FIXTURES) >= 40


@pytest.mark.parametrize("path", fixture_cases())
def test_vllm_grammar_path_matches_the_artifact(path: Path) -> None:
    import llguidance

    artifact, tests = compiled(path)
    if artifact is None:
        return  # schemac refuses the schema: no artifact travels, nothing to enforce
    lark = artifact.lark
    grammar = llguidance.grammar_from("grammar", lark)
    assert grammar == llguidance.LLMatcher.grammar_from_lark(lark), "taken for GBNF, not Lark"
    assert llguidance.LLMatcher.validate_grammar(grammar, vllm_tokenizer()) == ""
    tok = vllm_tokenizer()
    for case in tests:
        text = json.dumps(case["data"])
        tokens = _tokens(text)
        via_lark = llguidance.LLMatcher(tok, grammar, log_level=1)
        assert not via_lark.get_error()
        own = llguidance.LLMatcher(tok, artifact.grammar, log_level=0)
        verdict = _verdict(via_lark, tokens)
        assert verdict == _verdict(own, tokens), text
        if not case["valid"]:
            assert not verdict, f"an invalid instance is admitted: {text}"
        if verdict:  # rollback as vLLM does after a rejected speculative run
            via_lark.rollback(len(tokens))
            assert via_lark.validate_tokens(tokens) == len(tokens)


@pytest.mark.parametrize("path", fixture_cases())
def test_sglang_ebnf_path_writes_the_artifacts_masks(path: Path) -> None:
    import llguidance
    import llguidance.torch as llt
    from sglang.srt.constrained.llguidance_backend import GuidanceGrammar

    artifact, tests = compiled(path)
    valid = [c for c in tests if c["valid"]]
    if artifact is None or not valid:
        return
    grammar = sglang_backend().dispatch_ebnf(artifact.lark)
    assert isinstance(grammar, GuidanceGrammar), grammar
    request = grammar.copy()
    own = llguidance.LLMatcher(sglang_backend().llguidance_tokenizer, artifact.grammar, log_level=0)
    tokens = _tokens(json.dumps(valid[0]["data"]))
    mask = request.allocate_vocab_mask(VOCAB, 1, "cpu")
    expected = torch.zeros_like(mask)
    accepted = 0
    for token in tokens:
        request.fill_vocab_mask(mask, 0)
        llt.fill_next_token_bitmask(own, expected, 0)
        assert torch.equal(mask, expected), f"rows differ after {accepted} tokens"
        if not (int(mask[0, token // 32]) >> (token % 32)) & 1:
            break  # the artifact itself refuses this spelling (syntax policy): verdicts checked above
        request.accept_token(token)
        own.consume_token(token)
        accepted += 1
    if accepted:  # SGLang's speculative DFS: accept, fill, rollback(1)
        request.rollback(1)
        own.rollback(1)
        request.fill_vocab_mask(mask, 0)
        llt.fill_next_token_bitmask(own, expected, 0)
        assert torch.equal(mask, expected)
