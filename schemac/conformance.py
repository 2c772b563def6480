"""Conformance benchmark: schemac versus raw llguidance on JSON Schema Test Suite and MaskBench files.

Every instance is fed, as real tokens of a real tokenizer, through an llguidance matcher built
from each engine's grammar, so the figures measure what a serving engine would enforce. An
*invalidation error* (invalid instance accepted) breaks schemac's promise and is listed one by
one; a *validation error* (valid instance rejected) is a coverage or syntax-policy loss.
"""
from __future__ import annotations

import fnmatch
import hashlib
import io
import json
import os
import re
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Iterator

#: Report sections: the Test Suite's optional/format files are kept apart because formats are
#: optional assertions there, and schemac's goal is "0 invalidation errors outside them".
SUITE = "suite"
SUITE_FORMAT = "suite:optional/format"
MASKBENCH = "maskbench"
SECTIONS = (SUITE, SUITE_FORMAT, MASKBENCH)
ENGINES = ("schemac", "llguidance")

_MAX_SHOWN_DATA = 160
_EXAMPLES = 3  # rejection messages kept per code


@dataclass
class Case:
    """One schema and its labelled instances, located by file and group index."""

    source: str
    index: int
    section: str
    description: str
    schema: Any
    tests: list[tuple[Any, bool]]

    @property
    def location(self) -> str:
        return f"{self.source}#{self.index}" if self.section != MASKBENCH else self.source


@dataclass
class EngineResult:
    """One engine on one case: how compiling went and, if it compiled, each instance's verdict."""

    status: str  # "compiled" | "rejected" | "bug"
    code: str = ""
    message: str = ""
    compile_ms: float = 0.0
    compile_cpu_ms: float = 0.0  # thread CPU time of the same span: robust on a shared machine
    accepted: list[bool] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)  # matcher error per instance ("" if none)
    order_only: list[bool] = field(default_factory=list)  # rejected, but accepted with keys reordered


@dataclass
class CaseResult:
    case: Case
    engines: dict[str, EngineResult]
    validator: list[bool | None] = field(default_factory=list)  # None: validator raised
    validator_error: str = ""
    default_policy_code: str = ""  # first error code with upgrade_drafts off (MaskBench only)
    tokenizer_mismatches: int = 0
    cpu_s: float = 0.0  # worker CPU time for the whole case: wall time lies on a busy machine


# ---------------------------------------------------------------------------------------------
# Loading


def _section_for(path: Path, is_suite: bool) -> str:
    if not is_suite:
        return MASKBENCH
    parts = path.as_posix().split("/")
    return SUITE_FORMAT if any(a == "optional" and b == "format" for a, b in zip(parts, parts[1:])) else SUITE


def _expand(paths: Iterable[str | os.PathLike[str]], files: str | None) -> list[tuple[Path, str]]:
    """(file, display name) for each JSON file under `paths`, filtered by the `files` glob."""
    found: list[tuple[Path, str]] = []
    for raw in paths:
        root = Path(raw)
        if root.is_dir():
            items = [(p, p.relative_to(root.parent).as_posix()) for p in sorted(root.rglob("*.json"))]
        else:
            items = [(root, root.name)]
        for path, name in items:
            if files is None or fnmatch.fnmatch(name, files) or fnmatch.fnmatch(path.name, files):
                found.append((path, name))
    return found


def load_cases(paths: Iterable[str | os.PathLike[str]], *, files: str | None = None) -> list[Case]:
    """Cases from Test Suite files (a list of groups) and MaskBench files (one object each)."""
    cases: list[Case] = []
    for path, name in _expand(paths, files):
        data = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(data, list):
            section = _section_for(path, True)
            for i, group in enumerate(data):
                tests = [(t["data"], bool(t["valid"])) for t in group.get("tests", [])]
                cases.append(Case(name, i, section, group.get("description", ""), group["schema"], tests))
        elif isinstance(data, dict) and "schema" in data:
            tests = [(t["data"], bool(t["valid"])) for t in data.get("tests", [])]
            cases.append(Case(name, 0, MASKBENCH, data.get("description", ""), data["schema"], tests))
        else:
            raise ValueError(f"{path}: neither a Test Suite file nor a MaskBench file")
    return cases


# ---------------------------------------------------------------------------------------------
# Tokenizers: real vocabularies from mistral-common, built once per process and cached on disk

#: name → (mistral-common data file, how to build the llguidance tokenizer from it)
TOKENIZERS: dict[str, str] = {
    "llama32k": "tokenizer.model.v1",  # 32k Llama-style sentencepiece, through transformers
    "tekken131k": "tekken_240911.json",  # 131k tiktoken-style Tekken vocabulary
}
_TOKENIZER_CACHE: dict[str, Any] = {}


def _data_file(name: str) -> Path:
    import mistral_common

    return Path(mistral_common.__file__).parent / "data" / TOKENIZERS[name]


def _llama_json(model: Path) -> str:
    """The HF fast-tokenizer JSON for a sentencepiece model, converted once and kept on disk
    (conversion takes seconds; workers then load the JSON in a fraction of one)."""
    import tempfile

    digest = hashlib.sha256(model.read_bytes()).hexdigest()[:16]
    cache = Path(tempfile.gettempdir()) / "schemac-conformance" / f"llama-{digest}.json"
    if cache.exists():
        return cache.read_text(encoding="utf-8")
    import shutil

    from transformers import AutoTokenizer

    with tempfile.TemporaryDirectory() as tmp:
        shutil.copy(model, Path(tmp) / "tokenizer.model")
        hf = AutoTokenizer.from_pretrained(tmp)
        backend = hf.backend_tokenizer
        backend.no_padding()
        backend.no_truncation()
        text = backend.to_str()
    cache.parent.mkdir(parents=True, exist_ok=True)
    part = cache.with_suffix(f".{os.getpid()}.part")
    part.write_text(text, encoding="utf-8")
    os.replace(part, cache)
    return text


class _TekkenVocab:
    """The attributes and encode call that llguidance's TokenizerWrapper reads from a tokenizer."""

    def __init__(self, path: Path) -> None:
        from mistral_common.tokens.tokenizers.tekken import SpecialTokenPolicy, Tekkenizer

        self._tekken = Tekkenizer.from_file(path)
        n = self._tekken.n_words
        self.tokens = [self._tekken.id_to_byte_piece(i, SpecialTokenPolicy.KEEP) for i in range(n)]
        self.eos_token_id = self._tekken.eos_id
        self.bos_token_id = self._tekken.bos_id
        self.special_token_ids = sorted(self._tekken.special_ids)

    def __call__(self, text: str | bytes) -> list[int]:
        if isinstance(text, bytes):
            text = text.decode("utf-8")
        return self._tekken.encode(text, bos=False, eos=False)


def load_tokenizer(name: str = "llama32k") -> Any:
    """The llguidance LLTokenizer for `name` (see TOKENIZERS), built once per process."""
    if name in _TOKENIZER_CACHE:
        return _TOKENIZER_CACHE[name]
    import llguidance

    if name == "llama32k":
        tokenizer = llguidance.LLTokenizer(_llama_json(_data_file(name)))
    elif name == "tekken131k":
        from llguidance import TokenizerWrapper

        tokenizer = llguidance.LLTokenizer(TokenizerWrapper(_TekkenVocab(_data_file(name))))
    else:
        raise ValueError(f"unknown tokenizer {name!r}; choose from {', '.join(TOKENIZERS)}")
    _TOKENIZER_CACHE[name] = tokenizer
    return tokenizer


# ---------------------------------------------------------------------------------------------
# Per-case work (runs in worker processes)

_WORKER: dict[str, Any] = {}


def _init_worker(tokenizer: str, upgrade_drafts: bool) -> None:
    """Load the tokenizer and warm both engines up, so no timed compile pays for imports."""
    _WORKER["tokenizer"] = load_tokenizer(tokenizer)
    _WORKER["upgrade_drafts"] = upgrade_drafts
    warm = Case("warm-up", 0, SUITE, "", {"type": "object", "properties": {"a": {"type": "string"}}}, [])
    _schemac(warm, upgrade_drafts)
    _llguidance(warm)


def instance_text(data: Any) -> str:
    """The answer text fed to the matchers: `json.dumps` default text (", " and ": ")."""
    text = json.dumps(data, ensure_ascii=False)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # lone surrogates: only the escaped form is a UTF-8 text
        text = json.dumps(data)
    return text


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


def _deref(node: Any, root: Any) -> Any:
    """Follow local `#/...` references (a few hops) so key order can be read from the target."""
    for _ in range(8):
        if not (isinstance(node, dict) and isinstance(node.get("$ref"), str) and node["$ref"].startswith("#")):
            return node
        target: Any = root
        for token in node["$ref"][1:].split("/")[1:]:
            token = token.replace("~1", "/").replace("~0", "~")
            target = target.get(token) if isinstance(target, dict) else None
        node = target
    return node


def _properties(node: Any, root: Any) -> dict[str, Any]:
    """`properties` in grammar order: the node's own, then those of its allOf/anyOf/oneOf branches."""
    node = _deref(node, root)
    if not isinstance(node, dict):
        return {}
    found: dict[str, Any] = dict(node.get("properties") or {}) if isinstance(node.get("properties"), dict) else {}
    for keyword in ("allOf", "anyOf", "oneOf"):
        for branch in node.get(keyword) or []:
            for key, sub in _properties(branch, root).items():
                found.setdefault(key, sub)
    return found


def _reorder(value: Any, node: Any, root: Any, depth: int = 0) -> Any:
    """`value` with object keys in the order the grammar generates them (properties order first)."""
    node = _deref(node, root)
    if depth > 64 or not isinstance(node, dict):
        return value
    if isinstance(value, dict):
        props = _properties(node, root)
        keys = [k for k in props if k in value] + [k for k in value if k not in props]
        rest = node.get("additionalProperties")
        return {k: _reorder(value[k], props.get(k, rest), root, depth + 1) for k in keys}
    if isinstance(value, list):
        prefix = node.get("prefixItems") if isinstance(node.get("prefixItems"), list) else []
        return [_reorder(v, prefix[i] if i < len(prefix) else node.get("items"), root, depth + 1)
                for i, v in enumerate(value)]
    return value


def _run_instances(tokenizer: Any, grammar: str, schema: Any, case: Case,
                   texts: list[tuple[str, list[int]]], result: EngineResult) -> None:
    """Feed each tokenised instance; accepted = every token allowed and the matcher accepting.

    A valid instance that is rejected is retried once with its keys in `schema`'s property order:
    if that text is accepted, the loss is the documented property-order policy, not coverage.
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
            retry = instance_text(_reorder(data, schema, schema))
            reordered = retry != text and _accepts(base, tokenizer.tokenize_str(retry))[0]
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
        artifact = schemac.compile(case.schema, upgrade_drafts=upgrade_drafts, use_cache=False)
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
        from schemac.validate import FinalValidator, parse_answer

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
    if _schemac_first(case):
        ours, artifact = _schemac(case, upgrade_drafts)
        raw, raw_grammar = _llguidance(case)
    else:
        raw, raw_grammar = _llguidance(case)
        ours, artifact = _schemac(case, upgrade_drafts)
    out = CaseResult(case, {"schemac": ours, "llguidance": raw}, tokenizer_mismatches=mismatches)
    engines = ((ours, artifact.grammar if artifact else None, artifact.lowered if artifact else None),
               (raw, raw_grammar, case.schema))
    for result, grammar, schema in engines:
        if grammar is not None:
            try:
                _run_instances(tokenizer, grammar, schema, case, texts, result)
            except Exception as exc:  # noqa: BLE001
                result.status, result.code, result.message = "bug", type(exc).__name__, f"matcher: {exc}"
                result.accepted, result.errors, result.order_only = [], [], []
    if artifact is not None and ours.status == "rejected":  # a grammar schemac emitted must load
        ours.status = "bug"
    _validate(case, artifact.schema if artifact is not None else case.schema, texts, out)
    if case.section == MASKBENCH and upgrade_drafts:
        out.default_policy_code = _default_policy_code(case)
    return out


def _schemac_first(case: Case) -> bool:
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


# ---------------------------------------------------------------------------------------------
# Aggregation


def _percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    rank = min(len(ordered) - 1, max(0, int(round(q / 100.0 * (len(ordered) - 1)))))
    return ordered[rank]


def _short(data: Any) -> str:
    text = instance_text(data)
    return text if len(text) <= _MAX_SHOWN_DATA else text[: _MAX_SHOWN_DATA - 1] + "…"


@dataclass
class EngineStats:
    """One engine's figures over one section."""

    compiled: int = 0
    rejected: Counter = field(default_factory=Counter)
    rejected_examples: dict[str, list[dict[str, str]]] = field(default_factory=dict)
    bugs: list[dict[str, Any]] = field(default_factory=list)
    instances_checked: int = 0
    invalidation_errors: list[dict[str, Any]] = field(default_factory=list)
    validation_errors: list[dict[str, Any]] = field(default_factory=list)
    compile_ms: list[float] = field(default_factory=list)
    compile_cpu_ms: list[float] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "compiled": self.compiled,
            "rejected": sum(self.rejected.values()),
            "rejected_by": dict(self.rejected.most_common()),
            "rejected_examples": self.rejected_examples,
            "bugs": self.bugs,
            "instances_checked": self.instances_checked,
            "invalidation_errors": len(self.invalidation_errors),
            "invalidation_error_list": self.invalidation_errors,
            "validation_errors": len(self.validation_errors),
            "validation_errors_property_order": sum(e["property_order"] for e in self.validation_errors),
            "validation_error_list": self.validation_errors,
            "compile_ms_p50": _percentile(self.compile_ms, 50),
            "compile_ms_p99": _percentile(self.compile_ms, 99),
            "compile_ms_mean": sum(self.compile_ms) / len(self.compile_ms) if self.compile_ms else 0.0,
            "compile_cpu_ms_p50": _percentile(self.compile_cpu_ms, 50),
            "compile_cpu_ms_p99": _percentile(self.compile_cpu_ms, 99),
        }


@dataclass
class SectionStats:
    schemas: int = 0
    instances: int = 0
    schemas_without_tests: int = 0
    engines: dict[str, EngineStats] = field(default_factory=lambda: {e: EngineStats() for e in ENGINES})
    #: compile ms on schemas both engines compiled: the like-for-like ratio
    both_compiled_ms: dict[str, list[float]] = field(default_factory=lambda: {e: [] for e in ENGINES})
    #: the same times split by whether the engine compiled the case first or second (warm caches)
    by_turn: dict[tuple[str, bool], list[float]] = field(default_factory=dict)
    #: valid instances rejected on schemas both engines compiled: the like-for-like error count
    both_compiled_validation: Counter = field(default_factory=Counter)
    #: schemas raw llguidance compiled and schemac rejected (coverage must be a superset)
    llguidance_only: list[str] = field(default_factory=list)
    validator_disagreements: Counter = field(default_factory=Counter)  # per file
    validator_disagreement_list: list[dict[str, Any]] = field(default_factory=list)
    validator_errors: Counter = field(default_factory=Counter)  # per file: instances it could not judge
    default_policy_rejected: Counter = field(default_factory=Counter)
    tokenizer_mismatches: int = 0
    cpu_s: float = 0.0
    slowest: list[tuple[float, str]] = field(default_factory=list)  # (cpu s, case), top _LISTED

    def add(self, result: CaseResult) -> None:
        case = result.case
        self.schemas += 1
        self.cpu_s += result.cpu_s
        self.slowest = sorted([*self.slowest, (result.cpu_s, case.location)], reverse=True)[:_LISTED]
        self.instances += len(case.tests)
        self.schemas_without_tests += not case.tests
        self.tokenizer_mismatches += result.tokenizer_mismatches
        for name, res in result.engines.items():
            stats = self.engines[name]
            stats.compile_ms.append(res.compile_ms)
            stats.compile_cpu_ms.append(res.compile_cpu_ms)
            if res.status == "bug":
                stats.bugs.append({"case": case.location, "error": res.message})
                continue
            if res.status == "rejected":
                stats.rejected[res.code] += 1
                examples = stats.rejected_examples.setdefault(res.code, [])
                if len(examples) < _EXAMPLES:
                    examples.append({"case": case.location, "message": (res.message.splitlines() or [""])[0][:300]})
                continue
            stats.compiled += 1
            stats.instances_checked += len(case.tests)
            verdicts = zip(case.tests, res.accepted, res.errors, res.order_only)
            for t, ((data, valid), accepted, error, order_only) in enumerate(verdicts):
                if accepted == valid:
                    continue
                item = {"file": case.source, "group": case.index, "test": t, "data": _short(data)}
                if valid:
                    item["matcher_error"] = error.splitlines()[0][:_MAX_SHOWN_DATA] if error else "not accepting at end"
                    item["property_order"] = order_only
                    stats.validation_errors.append(item)
                else:
                    stats.invalidation_errors.append(item)
        if all(r.status == "compiled" for r in result.engines.values()):
            schemac_first = _schemac_first(case)
            for name, res in result.engines.items():
                self.both_compiled_ms[name].append(res.compile_ms)
                self.by_turn.setdefault((name, (name == "schemac") == schemac_first), []).append(res.compile_ms)
                self.both_compiled_validation[name] += sum(
                    valid and not accepted for (_, valid), accepted in zip(case.tests, res.accepted)
                )
        elif result.engines["llguidance"].status == "compiled" and result.engines["schemac"].status == "rejected":
            self.llguidance_only.append(case.location)
        for t, ((data, valid), verdict) in enumerate(zip(case.tests, result.validator)):
            if verdict is None:
                self.validator_errors[case.source] += 1
            elif verdict != valid:
                self.validator_disagreements[case.source] += 1
                self.validator_disagreement_list.append(
                    {"file": case.source, "group": case.index, "test": t, "valid": valid, "data": _short(data)}
                )
        if result.default_policy_code:
            self.default_policy_rejected[result.default_policy_code] += 1

    def ratio(self) -> float | None:
        ours, raw = (_percentile(self.both_compiled_ms[e], 50) for e in ENGINES)
        return ours / raw if raw > 0 else None

    def to_json(self) -> dict[str, Any]:
        ours, raw = (self.both_compiled_ms[e] for e in ENGINES)
        return {
            "schemas": self.schemas,
            "instances": self.instances,
            "schemas_without_tests": self.schemas_without_tests,
            "engines": {name: stats.to_json() for name, stats in self.engines.items()},
            "both_compiled": {
                "schemas": len(ours),
                "schemac_ms_p50": _percentile(ours, 50),
                "schemac_ms_p99": _percentile(ours, 99),
                "llguidance_ms_p50": _percentile(raw, 50),
                "llguidance_ms_p99": _percentile(raw, 99),
                "ratio_p50": self.ratio(),
                "ms_p50_first_second": {
                    e: [_percentile(self.by_turn.get((e, first), []), 50) for first in (True, False)] for e in ENGINES
                },
                "schemac_validation_errors": self.both_compiled_validation["schemac"],
                "llguidance_validation_errors": self.both_compiled_validation["llguidance"],
            },
            "llguidance_only": self.llguidance_only,
            "validator_disagreements": sum(self.validator_disagreements.values()),
            "validator_disagreements_by_file": dict(self.validator_disagreements.most_common()),
            "validator_disagreement_list": self.validator_disagreement_list,
            "validator_unjudged_by_file": dict(self.validator_errors.most_common()),
            "default_policy_rejected_by": dict(self.default_policy_rejected.most_common()),
            "tokenizer_mismatches": self.tokenizer_mismatches,
            "cpu_s": round(self.cpu_s, 2),
            "slowest_cases_cpu_s": [{"case": c, "cpu_s": round(t, 3)} for t, c in self.slowest],
        }


@dataclass
class Report:
    """All figures of one run; `to_text()` for people, `to_json()` for tools and the README."""

    tokenizer: str
    vocab_size: int
    upgrade_drafts: bool
    jobs: int
    wall_s: float = 0.0
    sections: dict[str, SectionStats] = field(default_factory=dict)
    validator_note: str = ""

    def add(self, result: CaseResult) -> None:
        self.sections.setdefault(result.case.section, SectionStats()).add(result)
        if result.validator_error and not self.validator_note:
            self.validator_note = result.validator_error

    def ordered(self) -> list[tuple[str, SectionStats]]:
        return [(name, self.sections[name]) for name in SECTIONS if name in self.sections]

    def promise_broken(self) -> bool:
        """True on any schemac bug, or any schemac invalidation error outside optional/format."""
        return any(
            stats.engines["schemac"].bugs or (name != SUITE_FORMAT and stats.engines["schemac"].invalidation_errors)
            for name, stats in self.sections.items()
        )

    def to_json(self) -> dict[str, Any]:
        from schemac import __version__

        return {
            "schemac_version": __version__,
            "tokenizer": self.tokenizer,
            "vocab_size": self.vocab_size,
            "upgrade_drafts": self.upgrade_drafts,
            "jobs": self.jobs,
            "wall_s": round(self.wall_s, 2),
            "cpu_s": round(sum(s.cpu_s for s in self.sections.values()), 2),
            "measured_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
            "validator_note": self.validator_note,
            "sections": {name: stats.to_json() for name, stats in self.ordered()},
        }

    def to_text(self) -> str:
        return _render(self)


# ---------------------------------------------------------------------------------------------
# Text report

_LISTED = 20  # items shown per list in the text report; --json has them all


def _rows(stats: SectionStats) -> list[tuple[str, str, str]]:
    ours, raw = stats.engines["schemac"], stats.engines["llguidance"]
    both = stats.to_json()["both_compiled"]

    def pair(f: Any) -> tuple[str, str]:
        return str(f(ours)), str(f(raw))

    ratio = stats.ratio()
    return [
        ("schemas / instances", f"{stats.schemas} / {stats.instances}", ""),
        ("compiled", *pair(lambda e: e.compiled)),
        ("rejected", *pair(lambda e: sum(e.rejected.values()))),
        ("bugs (non-CompileError)", *pair(lambda e: len(e.bugs))),
        ("instances checked", *pair(lambda e: e.instances_checked)),
        ("invalidation errors", *pair(lambda e: len(e.invalidation_errors))),
        ("validation errors", *pair(lambda e: len(e.validation_errors))),
        ("  of which property order only", *pair(lambda e: sum(i["property_order"] for i in e.validation_errors))),
        ("compile ms p50 (all)", *pair(lambda e: f"{_percentile(e.compile_ms, 50):.2f}")),
        ("compile ms p99 (all)", *pair(lambda e: f"{_percentile(e.compile_ms, 99):.2f}")),
        ("compile CPU ms p50 / p99 (all)", *pair(
            lambda e: f"{_percentile(e.compile_cpu_ms, 50):.2f} / {_percentile(e.compile_cpu_ms, 99):.1f}")),
        (f"compile ms p50 (both compiled, n={both['schemas']})",
         f"{both['schemac_ms_p50']:.2f}", f"{both['llguidance_ms_p50']:.2f}"),
        ("schemac / llguidance p50 ratio", f"{ratio:.1f}x" if ratio else "-", ""),
        ("  p50 when compiled first / second", *(
            " / ".join(f"{v:.2f}" for v in both["ms_p50_first_second"][e]) for e in ENGINES)),
        ("validation errors (both compiled)",
         str(both["schemac_validation_errors"]), str(both["llguidance_validation_errors"])),
        ("compiled by llguidance only", str(len(stats.llguidance_only)), ""),
        ("final-validator disagreements", str(sum(stats.validator_disagreements.values())), ""),
    ]


def _details(name: str, stats: SectionStats) -> list[str]:
    lines: list[str] = []
    for engine, es in stats.engines.items():
        if es.rejected:
            top = ", ".join(f"{code} {n}" for code, n in es.rejected.most_common(8))
            lines.append(f"  {engine} rejected by: {top}")
    for engine, es in stats.engines.items():
        for title, items in (("invalidation errors", es.invalidation_errors), ("bugs", es.bugs)):
            if items:
                lines.append(f"  {engine} {title} ({len(items)}):")
                lines += [f"    {json.dumps(i, ensure_ascii=False)}" for i in items[:_LISTED]]
                if len(items) > _LISTED:
                    lines.append(f"    … {len(items) - _LISTED} more in --json")
    if stats.validator_disagreements:
        top = ", ".join(f"{f} {n}" for f, n in stats.validator_disagreements.most_common(_LISTED))
        lines.append(f"  final-validator disagreements by file: {top}")
    if stats.validator_errors:
        lines.append(f"  final validator could not judge {sum(stats.validator_errors.values())} instances")
    if stats.default_policy_rejected:
        n = stats.default_policy_rejected.get("unsupported-dialect", 0)
        lines.append(f"  default policy (no --upgrade-drafts): {n} schemas rejected with unsupported-dialect")
    if stats.slowest:
        top = ", ".join(f"{c} {t:.2f}s" for t, c in stats.slowest[:5])
        lines.append(f"  slowest cases (CPU): {top}")
    if stats.tokenizer_mismatches:
        lines.append(f"  tokenizer round-trip mismatches: {stats.tokenizer_mismatches}")
    return [f"[{name}]"] + lines if lines else []


def _render(report: Report) -> str:
    head = (f"schemac conformance: tokenizer {report.tokenizer} (V={report.vocab_size}), "
            f"upgrade_drafts={report.upgrade_drafts}, jobs={report.jobs}, wall {report.wall_s:.1f} s, "
            f"worker CPU {sum(s.cpu_s for s in report.sections.values()):.1f} s")
    tables: list[str] = []
    try:
        from rich.console import Console
        from rich.table import Table
    except ImportError:
        Console = None  # noqa: N806 - plain text below
    for name, stats in report.ordered():
        rows = _rows(stats)
        if Console is not None:
            table = Table(title=name, title_justify="left")
            for col, justify in (("", "left"), ("schemac", "right"), ("llguidance", "right")):
                table.add_column(col, justify=justify)
            for row in rows:
                table.add_row(*row)
            console = Console(file=io.StringIO(), width=110, color_system=None)
            console.print(table)
            tables.append(console.file.getvalue().rstrip())
        else:
            width = max(len(r[0]) for r in rows)
            body = [f"{'':{width}}  {'schemac':>12}  {'llguidance':>12}"]
            body += [f"{a:{width}}  {b:>12}  {c:>12}" for a, b, c in rows]
            tables.append(f"{name}\n" + "\n".join(body))
    details = [line for name, stats in report.ordered() for line in _details(name, stats)]
    note = [f"final validator note: {report.validator_note}"] if report.validator_note else []
    return "\n\n".join([head, *tables, "\n".join(details + note)]).rstrip() + "\n"


# ---------------------------------------------------------------------------------------------
# Driver


def _results(cases: list[Case], tokenizer: str, upgrade_drafts: bool, jobs: int) -> Iterator[CaseResult]:
    if jobs <= 1:
        _init_worker(tokenizer, upgrade_drafts)
        yield from map(evaluate, cases)
        return
    import multiprocessing

    # spawn, not fork: the parent has Rust tokenizer threads running that a fork would copy mid-state
    context = multiprocessing.get_context("spawn")
    with context.Pool(jobs, initializer=_init_worker, initargs=(tokenizer, upgrade_drafts)) as pool:
        yield from pool.imap(evaluate, cases, chunksize=4)


def run(
    paths: Iterable[str | os.PathLike[str]],
    *,
    upgrade_drafts: bool,
    tokenizer: str = "llama32k",
    limit: int | None = None,
    jobs: int = 1,
    files: str | None = None,
) -> Report:
    """Benchmark every case under `paths` (files or folders); `limit` keeps the first N schemas."""
    if tokenizer not in TOKENIZERS:
        raise ValueError(f"unknown tokenizer {tokenizer!r}; choose from {', '.join(TOKENIZERS)}")
    started = time.perf_counter()
    cases = load_cases(paths, files=files)
    if limit is not None:
        cases = cases[:limit]
    tok = load_tokenizer(tokenizer)  # builds the on-disk cache once, before any worker starts
    report = Report(tokenizer, tok.vocab_size, upgrade_drafts, jobs)
    for result in _results(cases, tokenizer, upgrade_drafts, jobs):
        report.add(result)
    report.wall_s = time.perf_counter() - started
    return report


def main(argv: list[str] | None = None) -> int:
    """`schemac conformance` / `python -m benchmarks.conformance`: print the report, exit 1 on
    any schemac invalidation error outside optional/format or any schemac bug."""
    import argparse

    parser = argparse.ArgumentParser(prog="schemac conformance", description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="+", help="Test Suite / MaskBench JSON files or folders")
    parser.add_argument("--upgrade-drafts", action="store_true", help="translate draft-04/06/07/2019-09 schemas")
    parser.add_argument("--tokenizer", choices=sorted(TOKENIZERS), default="llama32k")
    parser.add_argument("--limit", type=int, default=None, help="only the first N schemas")
    parser.add_argument("--files", default=None, help="only files whose name matches this glob")
    parser.add_argument("--jobs", "-j", type=int, default=1)
    parser.add_argument("--json", dest="json_path", default=None, help="write all figures here")
    args = parser.parse_args(argv)
    report = run(
        args.paths, upgrade_drafts=args.upgrade_drafts, tokenizer=args.tokenizer,
        limit=args.limit, jobs=args.jobs, files=args.files,
    )
    print(report.to_text())
    if args.json_path:
        Path(args.json_path).write_text(json.dumps(report.to_json(), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return 1 if report.promise_broken() else 0


__all__ = ["Case", "CaseResult", "Report", "evaluate", "load_cases", "load_tokenizer", "main", "run"]
