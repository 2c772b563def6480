"""transformers integration: any weights, the answer is valid JSON for the schema."""
from __future__ import annotations

import pytest

from schemac.runtime import generate, tekken_tokenizer
from schemac.validate.final import FinalValidator, parse_answer

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


def _engine_and_model(model_dir):
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from schemac.runtime import Engine

    tok = AutoTokenizer.from_pretrained(model_dir)
    model = AutoModelForCausalLM.from_pretrained(model_dir).eval()
    engine = Engine.from_hf(tok, lm_head_size=model.get_output_embeddings().weight.shape[0], config_vocab_size=model.config.vocab_size)
    return tok, model, engine


def test_one_state_per_returned_sequence(model_dir):
    import torch

    import schemac
    from schemac.runtime import RequestOptions, SchemaLogitsProcessor, finalize_request

    tok, model, engine = _engine_and_model(model_dir)
    art = schemac.compile(SCHEMA)
    prompt = tok("Answer in JSON:", return_tensors="pt")["input_ids"]
    eos = list(engine.tokenizer.eos_ids)

    def run(states, **kw):
        torch.manual_seed(3)
        with torch.no_grad():
            return model.generate(prompt, attention_mask=torch.ones_like(prompt), max_new_tokens=40, do_sample=True,
                                  logits_processor=[SchemaLogitsProcessor(engine, states)], eos_token_id=eos,
                                  pad_token_id=eos[0], **kw)

    one = engine.admit(art, RequestOptions(engine.tokenizer.fingerprint))
    with pytest.raises(ValueError, match="num_return_sequences"):
        run([one], num_return_sequences=2)  # the second sequence would go unconstrained
    one.release()
    states = [engine.admit(art, RequestOptions(engine.tokenizer.fingerprint)) for _ in range(3)]
    out = run(states, num_return_sequences=3)
    for row, state in zip(out[:, prompt.shape[1] :].tolist(), states):
        tokens = row[: row.index(eos[0]) + 1] if eos[0] in row else row
        assert state.error is None and state.acknowledged >= 1  # every row drove its own state
        if tokens[-1] == eos[0]:
            value = finalize_request(state, "stop").value
            assert FinalValidator(SCHEMA).errors(value) == []
        state.release()


def test_reordered_rows_are_refused(model_dir):
    import torch

    import schemac
    from schemac.runtime import RequestOptions, SchemaLogitsProcessor

    _, _, engine = _engine_and_model(model_dir)
    art = schemac.compile(SCHEMA)
    states = [engine.admit(art, RequestOptions(engine.tokenizer.fingerprint)) for _ in range(2)]
    proc = SchemaLogitsProcessor(engine, states)
    scores = torch.zeros(2, engine.lm_head_size)
    ids = torch.tensor([[5, 6], [5, 6]])
    proc(ids, scores.clone())
    step = torch.tensor([[5, 6, 1123], [5, 6, 1123]])
    proc(step, scores.clone())
    with pytest.raises(ValueError, match="beam search"):
        proc(torch.tensor([[5, 7, 1123, 1123], [5, 6, 1123, 1123]]), scores.clone())  # beams reordered
    for s in states:
        s.release()
