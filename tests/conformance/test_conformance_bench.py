"""Smoke tests of the conformance benchmark on tiny curated Test Suite / MaskBench files."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks import conformance
from benchmarks.conformance import MASKBENCH, SUITE, SUITE_FORMAT, Case, CaseResult, EngineResult, Report

DATA = Path(__file__).resolve().parents[2] / "testdata" / "conformance"
PATHS = [DATA / "suite", DATA / "maskbench"]


def _figures(report: Report) -> dict:
    """The report's JSON without the timing figures (which differ run to run)."""
    def strip(value):
        if isinstance(value, dict):
            timing = ("ratio_p50", "wall_s", "measured_at", "jobs")
            return {k: strip(v) for k, v in value.items() if "ms" not in k and "cpu" not in k and k not in timing}
        if isinstance(value, list):
            return [strip(v) for v in value]
        return value

    return strip(report.to_json())


@pytest.fixture(scope="module")
def report() -> Report:
    return conformance.run(PATHS, upgrade_drafts=True, tokenizer="llama32k")


def test_sections_and_counts(report: Report) -> None:
    assert [name for name, _ in report.ordered()] == [SUITE, SUITE_FORMAT, MASKBENCH]
    suite, fmt, mask = (report.sections[n] for n in (SUITE, SUITE_FORMAT, MASKBENCH))
    assert (suite.schemas, suite.instances) == (2, 8)
    assert (fmt.schemas, fmt.instances) == (1, 2)
    assert (mask.schemas, mask.instances, mask.schemas_without_tests) == (2, 2, 1)
    assert report.vocab_size == 32000
    assert mask.default_policy_rejected["unsupported-dialect"] == 1


def test_simple_schemas_compile_and_are_exact(report: Report) -> None:
    suite = report.sections[SUITE]
    for engine in ("schemac", "llguidance"):
        stats = suite.engines[engine]
        assert stats.compiled == 2 and not stats.bugs
        assert stats.instances_checked == 8
        assert stats.invalidation_errors == []
        # the only loss allowed on these is the documented property-order policy
        assert all(e["property_order"] for e in stats.validation_errors), stats.validation_errors
    assert not report.promise_broken()
    assert sum(suite.validator_disagreements.values()) == 0


def test_text_and_json_outputs(report: Report) -> None:
    text = conformance.render_text(report)
    for needle in ("schemac", "llguidance", SUITE, SUITE_FORMAT, MASKBENCH, "invalidation errors", "unsupported-dialect"):
        assert needle in text
    data = json.loads(json.dumps(report.to_json()))
    mask = data["sections"][MASKBENCH]
    assert mask["default_policy_rejected_by"] == {"unsupported-dialect": 1}
    assert {"compile_ms_p50", "compile_ms_p99", "invalidation_error_list"} <= set(mask["engines"]["schemac"])
    assert data["sections"][SUITE]["both_compiled"]["ratio_p50"] > 0


def test_parallel_run_gives_the_same_figures(report: Report) -> None:
    parallel = conformance.run(PATHS, upgrade_drafts=True, tokenizer="llama32k", jobs=2)
    assert _figures(parallel) == _figures(report)


def test_invalid_instance_accepted_is_listed_and_breaks_the_promise() -> None:
    case = Case("x.json", 3, SUITE, "d", {"type": "integer"}, [(1, True), ("no", False)])
    engines = {
        "schemac": EngineResult("compiled", accepted=[True, True], errors=["", ""], order_only=[False, False]),
        "llguidance": EngineResult("rejected", code="Unimplemented keys"),
    }
    report = Report("llama32k", 32000, False, 1)
    report.add(CaseResult(case, engines, validator=[True, False]))
    stats = report.sections[SUITE].engines["schemac"]
    assert stats.invalidation_errors == [{"file": "x.json", "group": 3, "test": 1, "data": '"no"'}]
    assert report.sections[SUITE].engines["llguidance"].rejected == {"Unimplemented keys": 1}
    assert report.promise_broken()
    fmt = Report("llama32k", 32000, False, 1)
    fmt.add(CaseResult(Case("f.json", 0, SUITE_FORMAT, "d", {}, case.tests), engines))
    assert not fmt.promise_broken()  # formats are optional assertions in the Test Suite


def test_exceptions_other_than_compile_error_are_bugs_not_crashes(monkeypatch: pytest.MonkeyPatch) -> None:
    import schemac

    def broken(*args, **kwargs):
        raise RuntimeError("lowering blew up")

    monkeypatch.setattr(schemac, "compile", broken)
    report = conformance.run([DATA / "suite" / "basic.json"], upgrade_drafts=False)
    stats = report.sections[SUITE].engines["schemac"]
    assert [b["error"] for b in stats.bugs] == ["RuntimeError: lowering blew up"] * 2
    assert report.sections[SUITE].engines["llguidance"].compiled == 2
    assert report.promise_broken()


def _order_matcher(schema: dict):
    import llguidance

    import schemac
    from benchmarks.conformance.tokenizers import load_tokenizer

    tokenizer = load_tokenizer("llama32k")
    # one order per object (`properties`'), so that the search has orders to find
    grammar = schemac.compile(schema, use_cache=False, key_order="properties").grammar
    return llguidance.LLMatcher(tokenizer, grammar, log_level=0), tokenizer.tokenize_str


def test_key_order_search_backtracks_into_nested_objects() -> None:
    """The order found for an inner object can make an outer key impossible; the search must
    go back into the inner object (the `accelerator.json` shape: an open branch takes the inner
    object's keys in instance order, a closed one needs them in schema order)."""
    inner = {"properties": {"a": {}, "t": {"const": "T"}}, "required": ["t"]}
    schema = {"anyOf": [
        {"properties": {"items": {"type": "array", "items": inner}, "kind": {"const": "chain"}}},
        {"properties": {"kind": {"const": "loop"}}},
    ], "type": "object"}
    matcher, tokenize = _order_matcher(schema)
    value = {"kind": "chain", "items": [{"t": "T", "a": 1}]}
    text = conformance.reordered_text(matcher, tokenize, value)
    assert text == '{"items": [{"a": 1, "t": "T"}], "kind": "chain"}'
    assert json.loads(text) == value


def test_key_order_search_never_changes_values() -> None:
    """An answer refused for a value, not an order, is never reported as order only."""
    schema = {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"const": 1}}, "required": ["b"]}
    matcher, tokenize = _order_matcher(schema)
    assert conformance.reordered_text(matcher, tokenize, {"b": 1, "a": 2}) == '{"a": 2, "b": 1}'
    assert conformance.reordered_text(matcher, tokenize, {"b": 2, "a": 2}) is None
    assert conformance.reordered_text(matcher, tokenize, {"b": 1, "a": 2}, budget=2) is None


def test_key_order_search_spells_lone_surrogates_as_the_answer_does() -> None:
    """Pieces are spelt like `instance_text` (escaped where raw text is not UTF-8): a lone
    surrogate in a value reached the tokenizer raw and raised out of the search."""
    schema = {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "string"}}}
    matcher, tokenize = _order_matcher(schema)
    text = conformance.reordered_text(matcher, tokenize, {"b": "x\ud800", "a": 1})
    assert text is None or json.loads(text) == {"a": 1, "b": "x\ud800"}


def test_cli_main_writes_json_with_the_tekken_vocabulary(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "figures.json"
    code = conformance.main([str(DATA / "suite"), "--files", "basic.json", "--limit", "1",
                             "--tokenizer", "tekken131k", "--json", str(target)])
    assert code == 0
    data = json.loads(target.read_text(encoding="utf-8"))
    assert data["tokenizer"] == "tekken131k" and data["vocab_size"] == 131072
    assert data["sections"][SUITE]["schemas"] == 1
    assert data["sections"][SUITE]["engines"]["schemac"]["instances_checked"] == 4
    assert "tekken131k" in capsys.readouterr().out


def test_engines_take_turns_compiling_first() -> None:
    """The second compile of a schema runs with warm caches: each engine goes first on about
    half the cases, and always the same half."""
    from benchmarks.conformance import Case, schemac_first

    cases = [Case(f"f{i}.json", 0, "maskbench", "", {}, []) for i in range(1000)]
    first = [schemac_first(c) for c in cases]
    assert 400 < sum(first) < 600
    assert first == [schemac_first(c) for c in cases]
