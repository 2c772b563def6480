"""The native SGLang backend against SGLang 0.5.23's real base classes (CPU, no server).

Each mask row the adapter writes is compared with llguidance's own mask for the same prefix on
the artifact's grammar (the independent oracle), widened to SGLang's vocabulary with the padded
ids forbidden; requests of other kinds must reach SGLang's own llguidance backend.
"""
from __future__ import annotations

import json
from dataclasses import fields
from functools import lru_cache
from types import SimpleNamespace

import pytest
import torch

from testkit import sglang_support

sglang_support.load()

from sglang.srt.constrained.base_grammar_backend import (  # noqa: E402
    GRAMMAR_BACKEND_REGISTRY,
    BaseGrammarObject,
    GrammarRow,
    InvalidGrammarObject,
)
from sglang.srt.constrained.llguidance_backend import GuidanceGrammar

from schemac.artifact import Artifact  # noqa: E402
from schemac.runtime.sglang import backend as integ  # noqa: E402
from schemac.runtime.sglang.grammar import SchemacGrammar  # noqa: E402
from schemac.runtime import tekken_tokenizer  # noqa: E402

TOKENIZER_VOCAB = 1000 + 3000
PADDED = TOKENIZER_VOCAB + 70  # an LM head wider than the tokenizer: 3 more mask words
SCHEMA = {
    "type": "object",
    "properties": {"n": {"type": "integer", "maximum": 50}, "tag": {"enum": ["red", "green"]}},
    "required": ["n", "tag"],
    "additionalProperties": False,
}
ANSWER = '{"n": 42, "tag": "green"}'


@lru_cache(maxsize=None)
def tok():  # type: ignore[no-untyped-def]
    return tekken_tokenizer(vocab_size=TOKENIZER_VOCAB)


@lru_cache(maxsize=None)
def backend() -> integ.SchemacGrammarBackend:
    return integ.init_backend(ARGS, tok(), PADDED, {tok().eos_token_id})


ARGS = SimpleNamespace(reasoning_parser=None, constrained_json_disable_any_whitespace=False,
                       constrained_json_whitespace_pattern=None, speculative_algorithm=None)


def enc(text: str) -> list[int]:
    return tok().encode(text, add_special_tokens=False)


def dispatch(kind: str, text: str) -> BaseGrammarObject:
    """SGLang's own dispatch path (the one its compile pool runs)."""
    return backend()._init_value_dispatch((kind, text), False)


def grammar() -> SchemacGrammar:
    found = dispatch("json", json.dumps(SCHEMA))
    assert isinstance(found, SchemacGrammar)
    return found


def oracle_row(artifact: Artifact, tokens: list[int]) -> torch.Tensor:
    """llguidance's mask after `tokens` on the artifact grammar, widened to PADDED ids."""
    import llguidance
    import llguidance.torch as llt

    matcher = llguidance.LLMatcher(backend().engine.tokenizer.ll, artifact.grammar, log_level=0)
    assert matcher.consume_tokens(tokens)
    own = torch.zeros((1, (TOKENIZER_VOCAB + 31) // 32), dtype=torch.int32)
    llt.fill_next_token_bitmask(matcher, own, 0)
    row = torch.zeros((PADDED + 31) // 32, dtype=torch.int32)
    row[: own.shape[1]] = own[0]
    return row


def mask_of(*grammars: BaseGrammarObject) -> torch.Tensor:
    mask = grammars[0].allocate_vocab_mask(PADDED, len(grammars), "cpu")
    mask.fill_(0x5A5A)  # garbage: every listed row must be written
    grammars[0].fill_vocab_mask_batched([GrammarRow(i, g) for i, g in enumerate(grammars)], mask)
    return mask


def test_register_puts_the_backend_in_sglangs_registry() -> None:
    integ.register()
    assert GRAMMAR_BACKEND_REGISTRY[integ.NAME].func is integ.init_backend


def test_register_binds_compile_options_to_every_request() -> None:
    """SGLang's server arguments have no schemac options, so `register` binds them: here the
    any-order policy, which admits an answer schema order refuses."""
    schema = json.dumps({"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
                         "required": ["a", "b"], "additionalProperties": False})
    try:
        integ.register(key_order="any")
        init = GRAMMAR_BACKEND_REGISTRY[integ.NAME]
        grammar = init(ARGS, tok(), PADDED, {tok().eos_token_id}).dispatch_json(schema)
        assert grammar.artifact.options["key_order"] == "any"
        for token in enc('{"b": 1, "a": 2}'):
            grammar.accept_token(token)
        assert grammar.state.is_accepting()
        assert backend().dispatch_json(schema).artifact.options["key_order"] == "schema"
        with pytest.raises(ValueError):
            integ.register(key_order="sorted")
    finally:
        integ.register()


def test_a_model_vocabulary_narrower_than_the_tokenizer_is_refused_at_startup() -> None:
    with pytest.raises(ValueError, match="smaller than its tokenizer"):
        integ.init_backend(ARGS, tok(), TOKENIZER_VOCAB - 1, {tok().eos_token_id})


@pytest.mark.parametrize("parser", ["cohere_command4", "minimax-append-think", "inkling"])
def test_a_reasoning_parser_without_one_inline_marker_pair_is_refused_at_startup(parser: str) -> None:
    """SGLang's own parser, given `<start>x<end>{}`, must return `{}` as the content (the first
    two do not), and the answer must not be framed (inkling): else schemac's gate would start
    the grammar where SGLang does not read the answer, so the server refuses to start."""
    with pytest.raises(ValueError, match="one inline start/end marker pair"):
        integ.init_backend(SimpleNamespace(**{**vars(ARGS), "reasoning_parser": parser}), tok(), PADDED, None)


def test_every_row_equals_llguidance_on_the_artifact_grammar_then_final_validation() -> None:
    g = grammar()
    tokens = enc(ANSWER)
    for i, token in enumerate(tokens):
        row = mask_of(g)[0]
        assert torch.equal(row, oracle_row(g.artifact, tokens[:i]))
        assert (int(row[token // 32]) >> (token % 32)) & 1, "the valid answer's next token is masked"
        g.accept_token(token)
    eos = tok().eos_token_id
    assert (int(mask_of(g)[0][eos // 32]) >> (eos % 32)) & 1
    g.accept_token(eos)
    assert g.is_terminated()
    assert g.state.answer == ANSWER


def test_refused_token_raises_value_error() -> None:
    g = grammar()
    with pytest.raises(ValueError, match="schemac"):
        g.accept_token(enc("[")[0])


def test_rollback_restores_the_mask_and_copy_is_fresh() -> None:
    g = grammar()
    tokens = enc(ANSWER)
    g.accept_token(tokens[0])
    before = mask_of(g)[0].clone()
    for t in tokens[1:4]:
        g.accept_token(t)
    g.rollback(3)
    assert torch.equal(mask_of(g)[0], before)
    fresh = g.copy()
    assert isinstance(fresh, SchemacGrammar) and fresh.state is not g.state
    assert torch.equal(mask_of(fresh)[0], oracle_row(g.artifact, []))


def test_padded_ids_are_masked_and_apply_sets_minus_inf() -> None:
    g = grammar()
    mask = mask_of(g)
    assert int(mask[0, (TOKENIZER_VOCAB + 31) // 32:].abs().sum()) == 0
    logits = torch.zeros((1, PADDED))
    g.apply_vocab_mask(logits, g.move_vocab_mask(mask, "cpu"))
    allowed = torch.isfinite(logits[0]).nonzero().flatten().tolist()
    assert allowed == [t for t in range(PADDED) if (int(mask[0, t // 32]) >> (t % 32)) & 1]
    assert allowed and max(allowed) < TOKENIZER_VOCAB


def test_other_request_kinds_go_to_sglangs_llguidance_backend() -> None:
    regex = dispatch("regex", "[0-9]+")
    ebnf = dispatch("ebnf", 'start: "yes" | "no"')
    tag = dispatch("structural_tag", json.dumps({
        "triggers": ["@call"], "structures": [{"begin": "@call(", "schema": {"type": "integer"}, "end": ")"}]}))
    for g in (regex, ebnf, tag):
        assert isinstance(g, GuidanceGrammar), g


def test_mixed_batch_is_the_same_whichever_grammar_comes_first() -> None:
    ours, theirs = grammar(), dispatch("regex", "[0-9]+")
    assert isinstance(theirs, GuidanceGrammar)
    ours_first = mask_of(ours, theirs, grammar())
    theirs_first = mask_of(theirs, ours, grammar())
    assert torch.equal(ours_first[0], theirs_first[1]) and torch.equal(ours_first[1], theirs_first[0])
    assert torch.equal(ours_first[0], oracle_row(ours.artifact, []))


@pytest.mark.parametrize("schema, code", [
    ({"type": "string", "pattern": "(a)\\1"}, "unsupported-regex"),
    ({"type": "string", "x-guidance": {"lenient": True}}, ""),
    ({"$ref": "https://example.com/remote.json"}, ""),
])
def test_schemas_schemac_refuses_fail_through_the_invalid_grammar_path(schema: dict, code: str) -> None:
    found = dispatch("json", json.dumps(schema))
    assert isinstance(found, InvalidGrammarObject)
    assert found.error_message.startswith("schemac rejected the schema: ")
    assert code in found.error_message


def test_an_answer_the_schema_refuses_aborts_instead_of_finishing() -> None:
    """A grammar looser than its schema (an artifact built so on purpose): the final validation
    when the grammar ends turns the answer into SGLang's abort, never a success."""
    import schemac

    loose = schemac.compile({"type": "object", "properties": {"n": {"type": "integer"}, "tag": {"type": "string"}},
                             "required": ["n", "tag"], "additionalProperties": False})
    strict = grammar().artifact
    values = {f.name: getattr(loose, f.name) for f in fields(Artifact)}
    values["schema"] = strict.schema  # validate against the strict schema, enforce the loose grammar
    values["key"] = "test-" + loose.key
    g = SchemacGrammar(backend(), backend().engine.loader.submit(Artifact(**values)).result())
    tokens = enc('{"n": 99, "tag": "blue"}')
    for token in tokens[:-1]:
        g.accept_token(token)
    assert not g.is_terminated()
    with pytest.raises(ValueError, match="answer-invalid: /n: 99 is greater"):
        g.accept_token(tokens[-1])  # the grammar ends at "}": without drafts it aborts here
