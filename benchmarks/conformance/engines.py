"""Per-case work, run in worker processes: compile with both engines, feed every instance as
tokens through each grammar's matcher, and ask the final validator."""
from __future__ import annotations

import hashlib
import json
import re
import time
from typing import Any

from benchmarks.conformance.cases import MASKBENCH, SUITE, Case, CaseResult, EngineResult, instance_text
from benchmarks.conformance.key_order import reordered_text
from benchmarks.conformance.tokenizers import load_tokenizer

_WORKER: dict[str, Any] = {}


def init_worker(tokenizer: str, upgrade_drafts: bool, key_order: str = "schema",
                ref_map: dict[str, str] | None = None) -> None:
    """Load the tokenizer and warm both engines up, so no timed compile pays for imports.
    `ref_map` serves remote documents from folders (the Test Suite's `remotes/`)."""
    _WORKER["tokenizer"] = load_tokenizer(tokenizer)
    _WORKER["upgrade_drafts"] = upgrade_drafts
    _WORKER["key_order"] = key_order
    _WORKER["ref_map"] = ref_map or None
    warm = Case("warm-up", 0, SUITE, "", {"type": "object", "properties": {"a": {"type": "string"}}}, [])
    _schemac(warm, upgrade_drafts)
    _llguidance(warm)


def _normalise_llg_error(message: str) -> str:
    """A stable bucket for an llguidance error: its first words, without quoted names or numbers."""
    text = message.strip().splitlines()[0] if message.strip() else "unknown"
    text = re.sub(r"^(Error|error):\s*", "", text)
    text = re.sub(r"\"[^\"]*\"|'[^']*'|`[^`]*`|\[[^\]]*\]|\{[^}]*\}", "…", text)
    text = re.sub(r"\d+", "N", text)
    words = re.split(r"\s+", text)
    return " ".join(words[:5]).rstrip(":,.")


def _accepts(base: Any, tokens: list[int]) -> tuple[bool, str]:
    matcher = base.deep_copy()
    ok = matcher.consume_tokens(tokens) and matcher.is_accepting()
    return bool(ok), matcher.get_error() if matcher.is_error() else ""


def _run_instances(tokenizer: Any, grammar: str, case: Case,
                   texts: list[tuple[str, list[int]]], result: EngineResult) -> None:
    """Feed each tokenised instance; accepted = every token allowed and the matcher accepting.

    A valid instance that is rejected is searched for a key order the grammar accepts
    (`key_order`): if one is found, the loss is the documented property-order policy, not coverage.
    """
    import llguidance

    base = llguidance.LLMatcher(tokenizer, grammar, log_level=0)
    if base.is_error():
        result.status, result.code = "rejected", "matcher-error"
        result.message = f"matcher-error: {base.get_error()}"
        return
    for (data, valid), (text, tokens) in zip(case.tests, texts):
        ok, error = _accepts(base, tokens)
        result.accepted.append(ok)
        result.errors.append(error)
        reordered = False
        if valid and not ok and isinstance(data, (dict, list)):
            retry = reordered_text(base, tokenizer.tokenize_str, data)
            reordered = retry is not None and retry != text and _accepts(base, tokenizer.tokenize_str(retry))[0]
        result.order_only.append(reordered)


class _Clock:
    """Wall and thread-CPU milliseconds since creation, written onto an EngineResult."""

    def __init__(self) -> None:
        self.wall, self.cpu = time.perf_counter(), time.thread_time()

    def stamp(self, result: EngineResult) -> EngineResult:
        result.compile_ms = (time.perf_counter() - self.wall) * 1000.0
        result.compile_cpu_ms = (time.thread_time() - self.cpu) * 1000.0
        return result


def _schemac(case: Case, upgrade_drafts: bool) -> tuple[EngineResult, Any]:
    import schemac
    from schemac.diagnostics import CompileError

    clock = _Clock()
    try:
        artifact = schemac.compile(case.schema, upgrade_drafts=upgrade_drafts, use_cache=False,
                                   key_order=_WORKER.get("key_order", "schema"), ref_map=_WORKER.get("ref_map"))
    except CompileError as exc:
        codes = exc.codes or ["compile-error"]
        return clock.stamp(EngineResult("rejected", codes[0], str(exc))), None
    except Exception as exc:  # noqa: BLE001 - any other exception is a schemac bug, listed
        return clock.stamp(EngineResult("bug", type(exc).__name__, f"{type(exc).__name__}: {exc}")), None
    return clock.stamp(EngineResult("compiled")), artifact


def _llguidance(case: Case) -> tuple[EngineResult, str | None]:
    """Raw llguidance, default options (strict), timed around the same kind of work as schemac."""
    import llguidance

    clock = _Clock()
    try:
        grammar = llguidance.LLMatcher.grammar_from_json_schema(json.dumps(case.schema, ensure_ascii=False))
        error = llguidance.LLMatcher.validate_grammar(grammar)
    except Exception as exc:  # noqa: BLE001 - llguidance reports malformed input by raising
        grammar, error = None, str(exc) or type(exc).__name__
    if error:
        return clock.stamp(EngineResult("rejected", _normalise_llg_error(error), error)), None
    return clock.stamp(EngineResult("compiled")), grammar


def _validate(case: Case, schema: Any, texts: list[tuple[str, list[int]]], out: CaseResult) -> None:
    """The final validator's verdict on every instance text (what the runtime checks last)."""
    try:
        from schemac.validate.final import FinalValidator, parse_answer

        validator = FinalValidator(schema)
    except Exception as exc:  # noqa: BLE001 - reported per file, never fatal
        out.validator_error = f"{type(exc).__name__}: {exc}"
        out.validator = [None] * len(texts)
        return
    for text, _ in texts:
        try:
            value = parse_answer(text)
        except ValueError:  # not a strict JSON answer (e.g. a lone surrogate): invalid
            out.validator.append(False)
            continue
        try:
            out.validator.append(validator.is_valid(value))
        except Exception as exc:  # noqa: BLE001
            out.validator.append(None)
            out.validator_error = out.validator_error or f"{type(exc).__name__}: {exc}"


def evaluate(case: Case) -> CaseResult:
    """Compile `case` with both engines and run every instance through each compiled grammar."""
    started = time.process_time()
    result = _evaluate(case)
    result.cpu_s = time.process_time() - started
    return result


def _evaluate(case: Case) -> CaseResult:
    tokenizer = _WORKER["tokenizer"]
    upgrade_drafts = _WORKER["upgrade_drafts"]
    texts: list[tuple[str, list[int]]] = []
    mismatches = 0
    for data, _ in case.tests:
        text = instance_text(data)
        tokens = tokenizer.tokenize_str(text)
        if tokenizer.decode_bytes(tokens) != text.encode("utf-8"):
            mismatches += 1
        texts.append((text, tokens))
    if schemac_first(case):
        ours, artifact = _schemac(case, upgrade_drafts)
        raw, raw_grammar = _llguidance(case)
    else:
        raw, raw_grammar = _llguidance(case)
        ours, artifact = _schemac(case, upgrade_drafts)
    out = CaseResult(case, {"schemac": ours, "llguidance": raw}, tokenizer_mismatches=mismatches)
    for result, grammar in ((ours, artifact.grammar if artifact else None), (raw, raw_grammar)):
        if grammar is not None:
            try:
                _run_instances(tokenizer, grammar, case, texts, result)
            except Exception as exc:  # noqa: BLE001
                result.status, result.code, result.message = "bug", type(exc).__name__, f"matcher: {exc}"
                result.accepted, result.errors, result.order_only = [], [], []
    if artifact is not None and ours.status == "rejected":  # a grammar schemac emitted must load
        ours.status = "bug"
    _validate(case, artifact.schema if artifact is not None else case.schema, texts, out)
    if case.section == MASKBENCH and upgrade_drafts:
        out.default_policy_code = _default_policy_code(case)
    return out


def schemac_first(case: Case) -> bool:
    """Which engine compiles a case first: half the cases each, fixed per case.

    The second compile of a schema finds the CPU caches warm from the first (both end in
    llguidance's grammar check of nearly the same grammar), about 15 % faster at the median on
    MaskBench for either engine (the report's "p50 when compiled first / second" row).
    Alternating gives both engines the same share of warm and cold compiles.
    """
    return hashlib.sha256(case.location.encode()).digest()[0] % 2 == 0


def _default_policy_code(case: Case) -> str:
    import schemac
    from schemac.diagnostics import CompileError

    try:
        schemac.compile(case.schema, upgrade_drafts=False, use_cache=False)
    except CompileError as exc:
        return (exc.codes or ["compile-error"])[0]
    except Exception as exc:  # noqa: BLE001 - counted as a bug by the main compile already
        return type(exc).__name__
    return ""
