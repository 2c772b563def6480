"""The native SGLang backend through SGLang 0.5.23's own scheduler-side code on CPU: server
argument parsing, the request's finish check (`Req.update_finish_state`), the result
processor's grammar advance (`_accept_grammar_tokens`), the batch mask
(`SamplingBatchInfo.update_regex_vocab_mask`), the detokenizer's stop-token trimming and the
speculative draft-tree walk (`generate_token_bitmask`). The model is a script: each step it
samples the next token of a chosen text, and the test asserts that token was allowed.
"""
from __future__ import annotations

import gc
import json
from array import array
from dataclasses import fields
from functools import lru_cache
from types import SimpleNamespace
from typing import Any

import pytest
import torch

from testkit import sglang_support

M = sglang_support.load()

from sglang.srt.sampling.sampling_batch_info import SamplingBatchInfo  # noqa: E402
from sglang.srt.sampling.sampling_params import SamplingParams  # noqa: E402

from schemac.artifact import Artifact  # noqa: E402
from schemac.runtime.sglang import backend as integ  # noqa: E402
from schemac.runtime.sglang.grammar import SchemacGrammar  # noqa: E402
from schemac.runtime import tekken_tokenizer  # noqa: E402

VOCAB = 4000
PADDED = VOCAB + 70
SCHEMA = {"type": "object", "properties": {"n": {"type": "integer", "maximum": 50}}, "required": ["n"],
          "additionalProperties": False}
ANSWER = '{"n": 42}'
THINK_TEMPLATE = ("{% for m in messages %}<|{{ m.role }}|>{{ m.content }}\n{% endfor %}"
                  "{% if add_generation_prompt %}<|assistant|><think>\n{% endif %}")


@lru_cache(maxsize=None)
def tok() -> Any:
    return tekken_tokenizer(vocab_size=VOCAB)


def parsed_args(*extra: str) -> Any:
    integ.register()
    return M["server_args"].prepare_server_args(
        ["--model-path", "/nonexistent", "--device", "cpu", "--grammar-backend", "schemac", *extra])


@lru_cache(maxsize=None)
def backend(*extra: str) -> integ.SchemacGrammarBackend:
    """The backend SGLang's `create_grammar_backend` builds from really parsed server arguments
    (published in SGLang's runtime context, as its launcher does)."""
    from sglang.srt.runtime_context import get_context

    args = parsed_args(*extra)
    get_context().set_server_args(args)
    found = M["base_grammar_backend"].create_grammar_backend(args, tok(), PADDED, {tok().eos_token_id})
    assert isinstance(found, integ.SchemacGrammarBackend)
    return found


def enc(text: str) -> list[int]:
    return tok().encode(text, add_special_tokens=False)


def dispatch(b: integ.SchemacGrammarBackend, schema: Any = SCHEMA, reasoning: bool = False) -> SchemacGrammar:
    """SGLang's cache-miss path: the compile pool's dispatch, then the cached template's copy."""
    key = ("json", json.dumps(schema))
    found, hit = b.get_cached_or_future_value(key, reasoning)
    grammar = found if hit else found.result()
    if not hit:
        b.set_cache(key, grammar.copy())
    assert isinstance(grammar, SchemacGrammar), grammar
    return grammar


def make_req(grammar: Any) -> Any:
    params = SamplingParams(max_new_tokens=64, json_schema=json.dumps(SCHEMA))
    params.normalize(None)
    req = M["schedule_batch"].Req("r", "", array("q", [1, 2]), params, eos_token_ids={tok().eos_token_id},
                                  vocab_size=PADDED)
    req.grammar = grammar
    return req


def batch_mask(*grammars: Any) -> torch.Tensor:
    """SGLang's batch mask (rows of finished or terminated grammars stay all-allowed)."""
    info = SimpleNamespace(grammars=list(grammars), vocab_size=PADDED, temperatures=[1.0] * len(grammars),
                           device="cpu", grammar_mask=None)
    SamplingBatchInfo.update_regex_vocab_mask(info)
    return info.grammar_mask.vocab_mask


def allowed(row: torch.Tensor, token: int) -> bool:
    return bool((int(row[token // 32]) >> (token % 32)) & 1)


def detokenized(req: Any) -> str:
    detok = object.__new__(M["detokenizer_manager"].DetokenizerManager)
    detok.is_tool_call_parser_gpt_oss, detok.tool_close_token_ids = False, frozenset()
    ids = detok.trim_matched_stop(list(req.output_ids), req.finished_reason.to_json(), False)
    return tok().decode(ids)


def decode(grammar: Any, tokens: list[int], req: Any = None) -> Any:
    """SGLang's non-speculative decode loop: finish check, then the grammar advance."""
    processor = M["batch_result_processor"].SchedulerBatchResultProcessor
    req = make_req(grammar) if req is None else req
    for token in tokens:
        assert allowed(batch_mask(grammar)[0], token), f"token {token} masked after {list(req.output_ids)}"
        req.output_ids.append(token)
        req.update_finish_state(1)
        processor._accept_grammar_tokens(None, req, token)  # as SGLang: after the check, always
        grammar.finished = req.finished()
        if req.finished():
            break
    return req


def test_sglangs_plugin_loader_finds_and_registers_the_backend() -> None:
    """The `sglang.srt.plugins` entry point (pyproject.toml) is what SGLang runs in every process."""
    from sglang.srt.plugins import GENERAL_PLUGINS_GROUP, load_plugins_by_group

    plugins = load_plugins_by_group(GENERAL_PLUGINS_GROUP)
    assert "schemac" in plugins, "reinstall schemac (pip install -e .) to refresh its entry points"
    M["base_grammar_backend"].GRAMMAR_BACKEND_REGISTRY.pop("schemac", None)
    plugins["schemac"][0]()
    assert M["base_grammar_backend"].GRAMMAR_BACKEND_REGISTRY["schemac"].func is integ.init_backend


def test_the_backend_name_passes_sglangs_argument_parser() -> None:
    args = parsed_args("--reasoning-parser", "deepseek-r1")
    assert args.grammar_backend == "schemac" and args.reasoning_parser == "deepseek-r1"
    integ.register()  # twice: still one choice
    assert M["server_args"].GRAMMAR_BACKEND_CHOICES.count("schemac") == 1


def test_a_whole_answer_comes_back_through_the_finish_check_and_the_detokenizer() -> None:
    """The closing brace is not a stop token: the request ends at EOS, which alone is trimmed."""
    b = backend()
    grammar = dispatch(b)
    tokens = enc(ANSWER)
    req = decode(grammar, tokens + [tok().eos_token_id])
    assert req.finished_reason.to_json() == {"type": "stop", "matched": tok().eos_token_id}
    assert detokenized(req) == ANSWER
    assert grammar.is_terminated() and grammar.state.released


def test_a_speculative_run_past_the_answer_keeps_the_brace() -> None:
    """The spec path advances the grammar first, then checks: `}` then EOS in one run."""
    processor = M["batch_result_processor"].SchedulerBatchResultProcessor
    grammar = dispatch(backend())
    req = make_req(grammar)
    tokens = enc(ANSWER) + [tok().eos_token_id]
    for run in (tokens[:3], tokens[3:]):
        retained = processor._accept_grammar_tokens(None, req, run)
        assert retained == run
        req.output_ids.extend(retained)
        req.update_finish_state(len(retained))
        grammar.finished = req.finished()
    assert req.finished() and detokenized(req) == ANSWER


def test_copies_share_the_compiled_grammar_and_are_released() -> None:
    b = backend()
    template = dispatch(b)
    key = ("json", json.dumps(SCHEMA))
    b.engine.loader._cache.clear()  # the loader evicted it: a cache hit must not compile
    before = b.live
    submitted: list[Any] = []
    real_submit = b.engine.loader.submit
    b.engine.loader.submit = lambda artifact: submitted.append(artifact) or real_submit(artifact)  # type: ignore[method-assign]
    try:
        copies = [b.get_cached_or_future_value(key, False)[0] for _ in range(3)]
    finally:
        del b.engine.loader.submit
    assert not submitted and all(c.compiled is template.compiled for c in copies)
    assert b.live == before, "a copy makes no request state until it is used"
    for copy in copies:
        copy.accept_token(enc(ANSWER)[0])
    assert b.live == before + 3
    copies[0].finished = True
    assert b.live == before + 2
    del copies, copy
    gc.collect()
    assert b.live == before


def test_sglangs_grammar_cache_is_bounded_lru() -> None:
    b = integ.SchemacGrammarBackend(tok(), PADDED, {tok().eos_token_id}, cache_size=2)
    schemas = [{"const": i} for i in range(3)]
    for s in schemas[:2]:
        dispatch(b, s)
    dispatch(b, schemas[0])  # a hit: now the most recent
    dispatch(b, schemas[2])
    assert [json.loads(k[1]) for k in b.cache] == [schemas[0], schemas[2]]


def test_tokens_are_acknowledged_and_current_token_kept() -> None:
    grammar = dispatch(backend())
    req = decode(grammar, enc(ANSWER)[:4])
    assert not req.finished()
    assert grammar.current_token == enc(ANSWER)[3]
    assert grammar.state.acknowledged == 4 and grammar.state.pending == 0


def test_the_mask_buffer_is_llguidances_pinned_layout() -> None:
    from sglang.srt.constrained.llguidance_backend import GuidanceGrammar

    ours = dispatch(backend()).allocate_vocab_mask(PADDED, 3, "cpu")
    theirs = backend().fallback.dispatch_regex("[0-9]+")
    assert isinstance(theirs, GuidanceGrammar)
    ref = theirs.allocate_vocab_mask(PADDED, 3, "cpu")
    assert ours.shape == ref.shape and ours.dtype == ref.dtype and bool((ours == -1).all())
    assert ours.is_pinned() == ref.is_pinned() == torch.cuda.is_available()


def test_the_draft_tree_walk_gives_llguidances_rows_and_leaves_the_state() -> None:
    """A tree under the committed token: the answer's chain, a refused sibling, EOS too early."""
    import llguidance
    import llguidance.torch as llt

    grammar = dispatch(backend())
    req = decode(grammar, enc(ANSWER)[:1])
    chain = enc(ANSWER)[1:] + [tok().eos_token_id]
    draft = [enc(ANSWER)[0], *chain, enc("[")[0], tok().eos_token_id]
    n = len(draft)
    nxt = [i + 1 if 0 <= i < len(chain) else -1 for i in range(n)]
    sib = [-1] * n
    sib[1] = n - 2  # the refused token beside the first draft
    sib[n - 2] = n - 1  # EOS beside it
    mask, used = M["spec_utils"].generate_token_bitmask(
        [req], torch.tensor([nxt]), torch.tensor([sib]), torch.tensor([draft]), PADDED)
    assert used is grammar and grammar.state.pending == 0 and not grammar.is_terminated()
    matcher = llguidance.LLMatcher(backend().engine.tokenizer.ll, grammar.artifact.grammar, log_level=0)
    words = (VOCAB + 31) // 32
    for i in range(len(chain)):  # node i: after the committed token and i drafts
        assert matcher.consume_tokens(draft[: i + 1] if i == 0 else [draft[i]])
        own = torch.zeros((1, words), dtype=torch.int32)
        llt.fill_next_token_bitmask(matcher, own, 0)
        assert torch.equal(mask[i, :words], own[0]), i
        assert not mask[i, words:].any()
    assert bool((mask[len(chain)] == -1).all()), "after EOS the row is SGLang's unfilled one"
    assert bool((mask[n - 2] == -1).all()) and bool((mask[n - 1] == -1).all()), "refused drafts: no row"


def loose_grammar(b: integ.SchemacGrammarBackend) -> SchemacGrammar:
    """A grammar looser than its schema (built so on purpose): n accepts 99, the schema not."""
    import schemac

    loose = schemac.compile({"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"],
                             "additionalProperties": False})
    values = {f.name: getattr(loose, f.name) for f in fields(Artifact)}
    values["schema"] = SCHEMA
    values["key"] = "test-loose-" + loose.key
    compiled = b.engine.loader.submit(Artifact(**values)).result()
    return SchemacGrammar(b, compiled)


def test_an_invalid_answer_aborts_without_speculation() -> None:
    b = backend()
    grammar = loose_grammar(b)
    tokens = enc('{"n": 99}')
    req = decode(grammar, tokens)
    assert not req.finished() and req.to_finish is not None, "the abort waits for the next step"
    assert not allowed(batch_mask(grammar)[0], tok().eos_token_id)
    req = decode(grammar, [b.filler_token], req)
    assert req.finished_reason.to_json()["type"] == "abort"
    assert "answer-invalid" in req.finished_reason.to_json()["message"]


def test_an_invalid_answer_never_finishes_as_success_with_speculation() -> None:
    """With drafts the grammar must not raise inside the walk: the doomed state allows one
    filler token, so the request runs to its length limit (or aborts), never `stop`."""
    b = backend("--speculative-algorithm", "NGRAM")
    assert b.speculative
    grammar = loose_grammar(b)
    tokens = enc('{"n": 99}')
    req = decode(grammar, tokens)
    assert not req.finished() and not grammar.is_terminated()
    row = batch_mask(grammar)[0]
    assert [t for t in range(PADDED) if allowed(row, t)] == [b.filler_token]
    draft = [tokens[-1], b.filler_token, tok().eos_token_id]
    M["spec_utils"].generate_token_bitmask(  # no exception inside the walk
        [req], torch.tensor([[1, 2, -1]]), torch.tensor([[-1, -1, -1]]), torch.tensor([draft]), PADDED)
    req = decode(grammar, [b.filler_token] * 80, req)
    assert req.finished_reason.to_json()["type"] == "length"


def test_eos_is_masked_on_an_accepting_answer_the_schema_refuses() -> None:
    grammar = loose_grammar(backend())
    decode(grammar, enc('{"n": 99'))
    assert not allowed(batch_mask(grammar)[0], tok().eos_token_id)


def think_tokenizer() -> Any:
    t = tok()
    t.chat_template = THINK_TEMPLATE
    return t


def test_a_reasoning_model_thinks_freely_then_answers_whole() -> None:
    """`--reasoning-parser deepseek-r1` with a template that opens `<think>`: free text (EOS
    masked) until `</think>`, then the schema; SGLang's own parser splits the output."""
    b = backend("--reasoning-parser", "deepseek-r1")
    assert b.reasoning is not None and b.reasoning.end == "</think>"
    prompt = think_tokenizer().apply_chat_template([{"role": "user", "content": "n?"}], tokenize=False,
                                                   add_generation_prompt=True)
    assert prompt.endswith("<think>\n")
    grammar = dispatch(b, reasoning=True)
    thought = "Say [42], not {}.</think>"
    req = make_req(grammar)
    for token in enc(thought)[:3]:
        row = batch_mask(grammar)[0]
        assert not allowed(row, tok().eos_token_id) and allowed(row, enc("[")[0])
        grammar.accept_token(token)
        req.output_ids.append(token)
    req = decode(grammar, enc(thought)[3:] + enc(ANSWER) + [tok().eos_token_id], req)
    text = detokenized(req)
    assert text == "Say [42], not {}.</think>" + ANSWER or text.endswith(ANSWER)
    parser = M["reasoning_parser"].ReasoningParser(model_type="deepseek-r1", stream_reasoning=False)
    reasoning, content = parser.parse_non_stream(tok().decode(enc(thought) + enc(ANSWER)))
    assert json.loads(content) == {"n": 42} and "[42]" in reasoning


def test_without_reasoning_the_grammar_starts_at_once_and_a_cache_hit_keeps_it() -> None:
    b = backend("--reasoning-parser", "deepseek-r1")
    dispatch(b)
    hit = dispatch(b, reasoning=False)
    assert not allowed(batch_mask(hit)[0], enc("Say")[0])
    hit_thinking = dispatch(b, reasoning=True)
    assert allowed(batch_mask(hit_thinking)[0], enc("Say")[0])


def test_other_kinds_get_sglangs_reasoning_gate_under_a_reasoning_parser() -> None:
    from sglang.srt.constrained.reasoner_grammar_backend import ReasonerGrammarObject

    b = backend("--reasoning-parser", "deepseek-r1")
    found = b._init_value_dispatch(("regex", "[0-9]+"), True)
    assert isinstance(found, ReasonerGrammarObject)
    mask = found.allocate_vocab_mask(PADDED, 1, "cpu")
    found.fill_vocab_mask(mask, 0)
    assert allowed(mask[0], enc("Say")[0]), "free while thinking"
    for token in enc("</think>"):
        found.accept_token(token)
    found.fill_vocab_mask(mask, 0)
    assert not allowed(mask[0], enc("Say")[0]) and allowed(mask[0], enc("7")[0])


def test_a_failed_request_never_gets_eos_in_its_row() -> None:
    """After the runtime failed a request its own rows would be EOS-only, and SGLang checks
    EOS before the grammar sees it: the row allows the filler token, whose accept aborts."""
    b = backend()
    grammar = dispatch(b)
    req = decode(grammar, enc(ANSWER)[:2])
    with pytest.raises(ValueError, match="schemac"):
        grammar.accept_token(enc("[")[0])  # a token the mask forbade
    row = batch_mask(grammar)[0]
    assert [t for t in range(PADDED) if allowed(row, t)] == [b.filler_token]
    req = decode(grammar, [b.filler_token, b.filler_token], req)
    assert req.finished_reason.to_json()["type"] == "abort"


def test_the_draft_walk_crosses_the_reasoning_marker_without_raising() -> None:
    """Drafts from inside `<think>` through `</think>` into the answer: rows inside the block
    forbid EOS only, the row after the marker is the schema's first row plus the separator's
    whitespace (runtime/reasoning.py), and the walk leaves
    the request where it was."""
    b = backend("--reasoning-parser", "deepseek-r1")
    grammar = dispatch(b, reasoning=True)
    req = decode(grammar, enc("ok")[:1])
    chain = enc("ok</think>")[1:] + enc(ANSWER)[:2]
    draft = [enc("ok")[0], *chain, tok().eos_token_id]
    n = len(draft)
    nxt = [i + 1 if i < len(chain) else -1 for i in range(n)]
    sib = [-1] * n
    sib[1] = n - 1  # EOS beside the first draft: masked while reasoning, so never accepted
    mask, _ = M["spec_utils"].generate_token_bitmask(
        [req], torch.tensor([nxt]), torch.tensor([sib]), torch.tensor([draft]), PADDED)
    assert grammar.state.pending == 0 and grammar.state.in_reasoning and not grammar.is_terminated()
    marker_end = len(enc("ok</think>")) - 1  # the node whose row follows the whole marker
    for i in range(marker_end):
        assert not allowed(mask[i], tok().eos_token_id) and allowed(mask[i], enc("Say")[0]), i
    first, after = batch_mask(dispatch(backend()))[0], mask[marker_end]
    assert torch.equal(after & first, first), "the schema's first row"
    extra = [t for t in range(PADDED) if allowed(after, t) and not allowed(first, t)]
    # beyond it only the separator the runtime's gate allows after the marker (JSON whitespace)
    assert enc("\n\n")[0] in extra and all(tok().decode([t])[:1] in " \t\n\r" for t in extra)
    assert bool((mask[n - 1] == -1).all()), "the EOS draft was refused: its row is never filled"


# ---- rows the speculative walk and the reasoning gate give (attack round 13)

def test_sglang_draft_walk_forbids_eos_after_an_invalid_closing_brace() -> None:
    """Speculative mode absorbs EOS on a doomed answer without raising (the walk calls
    accept_token outside any try), so the walk's rows are the only judge: the row after a
    `}` that closes an answer the schema refuses allows the filler token, never EOS."""
    import torch
    b = backend("--speculative-algorithm", "NGRAM")
    grammar = loose_grammar(b)
    tokens = enc('{"n": 99}')
    req = decode(grammar, tokens[:-1])
    draft = [tokens[-2], tokens[-1], tok().eos_token_id]
    rows, _ = M["spec_utils"].generate_token_bitmask(
        [req], torch.tensor([[1, 2, -1]]), torch.tensor([[-1, -1, -1]]), torch.tensor([draft]), PADDED)
    assert allowed(rows[0], tokens[-1])
    assert not allowed(rows[1], tok().eos_token_id) and allowed(rows[1], b.filler_token)
    assert grammar.state.pending == 0 and not grammar.is_terminated()


def test_sglang_reasoning_rows_after_the_marker() -> None:
    """Under --reasoning-parser: EOS is masked right after `</think>`, the separator stops at 4
    space bytes, and a rollback into the marker gives free text again (EOS still masked).
    (SGLang judges a sampled EOS before the grammar sees it, so these rows are the defence.)"""
    eos = tok().eos_token_id
    b = backend("--reasoning-parser", "deepseek-r1")
    grammar = dispatch(b, reasoning=True)
    for t in enc("ok </think>"):
        grammar.accept_token(t)
    assert not allowed(batch_mask(grammar)[0], eos)
    space, seen = enc(" ")[0], []
    for _ in range(6):
        seen.append(allowed(batch_mask(grammar)[0], space))
        if seen[-1]:
            grammar.accept_token(space)
    assert seen == [True] * 4 + [False] * 2
    again = dispatch(b, reasoning=True)
    for t in enc("ok </think>"):
        again.accept_token(t)
    again.rollback(1)
    row = batch_mask(again)[0]
    assert allowed(row, enc("Say")[0]) and not allowed(row, eos)
