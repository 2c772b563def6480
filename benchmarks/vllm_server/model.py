"""A tiny random-weight Llama in Hugging Face format, from a tokenizer that a package ships.

Nothing is downloaded: mistral-common ships Mistral's first 32k sentencepiece vocabulary
(`tokenizer.model.v1`); transformers reads it from a folder as `tokenizer.model` and saves it as a
fast tokenizer, which vLLM's guidance backend needs. Two heads of 64 dimensions: vLLM's CPU
attention refuses a head size of 16. The weights are random (seeded), so answers are the
grammar's choices, not a model's: the benchmark measures enforcement, not quality.
"""
from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path

#: the model's shape; recorded in the folder so a changed shape rebuilds it
SHAPE = {"hidden_size": 128, "intermediate_size": 256, "num_hidden_layers": 2, "num_attention_heads": 2,
         "num_key_value_heads": 2, "max_position_embeddings": 2048, "seed": 0}


def build(folder: Path) -> Path:
    """Write the model into `folder` (kept when its recorded shape is this one) and return it."""
    stamp = folder / "schemac-shape.json"
    if stamp.exists() and json.loads(stamp.read_text()) == SHAPE:
        return folder
    import mistral_common
    import torch
    from transformers import AutoTokenizer, LlamaConfig, LlamaForCausalLM

    shutil.rmtree(folder, ignore_errors=True)
    with tempfile.TemporaryDirectory() as tmp:
        shutil.copy(Path(mistral_common.__file__).parent / "data" / "tokenizer.model.v1", Path(tmp) / "tokenizer.model")
        tok = AutoTokenizer.from_pretrained(tmp)
    shape = {k: v for k, v in SHAPE.items() if k != "seed"}
    config = LlamaConfig(vocab_size=len(tok), bos_token_id=tok.bos_token_id, eos_token_id=tok.eos_token_id,
                         tie_word_embeddings=False, torch_dtype="float32", **shape)
    torch.manual_seed(SHAPE["seed"])
    model = LlamaForCausalLM(config)
    model.save_pretrained(folder)
    tok.save_pretrained(folder)
    stamp.write_text(json.dumps(SHAPE))
    return folder
