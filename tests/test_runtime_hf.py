"""transformers integration: any weights, the answer is valid JSON for the schema."""
from __future__ import annotations

import pytest

from schemac.runtime import generate, tekken_tokenizer
from schemac.validate import FinalValidator, parse_answer

SCHEMA = {
    "type": "object",
    "properties": {"digit": {"type": "integer", "minimum": 0, "maximum": 9}, "color": {"enum": ["red", "green", "blue"]}},
    "required": ["digit", "color"],
    "additionalProperties": False,
}


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    path = tmp_path_factory.mktemp("tiny-llama")
    tok = tekken_tokenizer(vocab_size=1000 + 3000, added_tokens=["<think>", "</think>"])
    torch.manual_seed(0)
    config = LlamaConfig(
        vocab_size=len(tok) + 30,  # padded LM head: columns past the tokenizer are masked
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=512,
        bos_token_id=1,
        eos_token_id=2,
        pad_token_id=2,
    )
    LlamaForCausalLM(config).save_pretrained(path)
    tok.save_pretrained(path)
    return str(path)


@pytest.mark.parametrize("seed_prompt", ["[INST] pick one [/INST]", "Answer in JSON:"])
def test_generate_is_valid_whatever_the_weights(model_dir, seed_prompt):
    out = generate(model_dir, SCHEMA, seed_prompt, max_new_tokens=48)
    assert out.outcome.status == "ok"
    value = parse_answer(out.outcome.text)
    assert value == out.outcome.value and FinalValidator(SCHEMA).errors(value) == []
    assert out.tokens[-1] == 2


def test_generate_reports_length_when_capped(model_dir):
    out = generate(model_dir, SCHEMA, "go", max_new_tokens=3)
    assert out.outcome.status == "length"
