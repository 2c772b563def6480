"""Attack round 8: object witnesses (`x-schemac-witness`), `EVERY` merges, the residue number
automaton and the rule-depth guard.

Oracle: jsonschema on the ORIGINAL schema (schemac's FinalValidator where a pattern needs ECMA
semantics). Findings are strict xfails (the suite stays green until they are fixed); the cases
that held are plain tests, so a regression in them turns the suite red.
"""
from __future__ import annotations

import json
import random
import resource
import subprocess
import sys
import textwrap
from decimal import Decimal
from fractions import Fraction
from itertools import product
from functools import partial
from typing import Any

import jsonschema
import pytest

import schemac
from testkit.grammar_harness import _tokenizer, accepts
from tests.lower.test_lower_object_witness import _objects
from schemac.diagnostics import CompileError

KEYS = ["a", "x", "xa", "z"]
VALUES = [0, 1, "s"]
I = {"type": "integer"}
C0 = {"const": 0}


GRID = _objects(KEYS, VALUES, 3)


def _text(entries: list[tuple[str, Any]]) -> str:
    return "{" + ", ".join(f"{json.dumps(k, ensure_ascii=False)}: {json.dumps(v)}" for k, v in entries) + "}"


def _walk(schema: Any, grid: list[list[tuple[str, Any]]] = GRID, oracle: Any = None) -> None:
    """Soundness on every text of the grid; completeness up to property order (some order of
    every valid set of entries is accepted); a rejection only as `unsatisfiable` when no grid
    object is valid."""
    oracle = oracle or jsonschema.Draft202012Validator(schema)
    try:
        art = schemac.compile(schema, use_cache=False)
    except CompileError as exc:
        assert exc.codes == ["unsatisfiable"], exc
        assert not any(oracle.is_valid(json.loads(_text(e))) for e in grid), schema
        return
    accepted = partial(accepts, art.grammar)
    seen: dict[frozenset[tuple[str, str]], list[Any]] = {}
    for entries in grid:
        text = _text(entries)
        valid = oracle.is_valid(json.loads(text))
        got = accepted(text)
        assert not got or valid, ("invalid answer admitted", text)
        slot = seen.setdefault(frozenset((k, json.dumps(v)) for k, v in entries), [False, valid, text])
        slot[0] |= got
    refused = [s[2] for s in seen.values() if s[1] and not s[0]]
    assert not refused, ("no order of a valid object admitted", refused[:3])


# ---- findings -----------------------------------------------------------------------------------


def _several_witness_parts(parts: int, patterns: int) -> dict[str, Any]:
    letters = "abcdefgh"
    return {"type": "object", "allOf": [{"not": {"patternProperties": {f"^{letters[j]}{i}": C0 for j in range(patterns)}}}
                                        for i in range(parts)]}


def _row_limit_holds(schema: dict[str, Any], text: str) -> None:
    """Either the schema is refused at compile time, or the valid `text` is admitted (no
    ParserTooComplex at some row of the answer)."""
    assert jsonschema.Draft202012Validator(schema).is_valid(json.loads(text))
    try:
        art = schemac.compile(schema, use_cache=False)
    except CompileError:
        return  # refused before generation: within the promise
    import llguidance

    matcher = llguidance.LLMatcher(_tokenizer(), art.grammar, log_level=0)
    done = matcher.try_consume_tokens(list(text.encode()))
    assert not matcher.is_error(), matcher.get_error()[:200]
    assert done == len(text.encode()) and matcher.is_accepting()


_ROW = '{"a0": 1, "a1": 1, "a2": 1, "a3": 1}'


@pytest.mark.parametrize("parts, patterns", [(4, 3), (3, 5)])
def test_witness_products_at_the_root_are_refused_or_admitted(parts: int, patterns: int) -> None:
    """Held once `lark_probe` landed (mid-round): the row blow-up at the opening `{` is refused
    as too-large at compile time."""
    text = "{" + ", ".join(f'"a{i}": 1' for i in range(parts)) + "}"
    _row_limit_holds(_several_witness_parts(parts, patterns), text)


@pytest.mark.parametrize("schema, text", [
    ({"type": "object", "properties": {"p": _several_witness_parts(4, 3)}, "required": ["p"]}, '{"p": ' + _ROW + "}"),
    ({"type": "array", "prefixItems": [{"const": 1}], "items": _several_witness_parts(4, 3)}, "[1, " + _ROW + "]"),
], ids=["under-property", "second-item"])
def test_nested_witness_products_pass_llguidance_row_limit(schema: dict[str, Any], text: str) -> None:
    """Was a finding (the product one level down compiled, then llguidance's matcher failed every
    answer mid-way with 'Current row has 2673 items; max is 2000'); held once lark_probe's walks
    went down into nested values: refused as too-large at compile time."""
    _row_limit_holds(schema, text)


def test_same_products_without_witnesses_hold() -> None:
    """The control: as many distributed object branches without witnesses stay under the row
    limit, so the blow-up is the witness writer's."""
    schema = {"type": "object", "allOf": [{"anyOf": [{"patternProperties": {f"^{c}{i}": {"const": 1}}, "required": [f"{c}{i}"]}
                                                     for c in "abc"]} for i in range(4)]}
    text = '{"a0": 1, "a1": 1, "a2": 1, "a3": 1}'
    assert partial(accepts, schemac.compile(schema, use_cache=False).grammar)(text)


_DEEP = textwrap.dedent("""
    import sys, types
    from concurrent.futures import ThreadPoolExecutor
    sys.path.insert(0, sys.argv[1])
    import schemac
    # required keys: one live item per row, so llguidance's row probe (lark_probe) lets it through
    schema = {"type": "object", "properties": {f"k{i}": {"type": "integer", "minimum": 0} for i in range(990)},
              "required": [f"k{i}" for i in range(990)]}
    if sys.argv[3] == "small":
        import threading
        threading.stack_size(2 << 20)  # what glibc gives threads when RLIMIT_STACK could not be raised
    def compile_():
        try:
            return schemac.compile(schema, use_cache=False)
        except schemac.CompileError:
            return None
    if sys.argv[2] == "compile":  # the compiler itself, on a worker thread (asyncio.to_thread, a pool)
        with ThreadPoolExecutor(1) as pool:
            print("compiled", pool.submit(compile_).result() is not None, flush=True)
    else:  # compiled on the main thread, loaded by the runtime's own loader
        art = compile_()
        if art is None:
            print("rejected"); sys.exit(0)
        from testkit.grammar_harness import _tokenizer
        from schemac.runtime.loader import GrammarLoader
        loader = GrammarLoader(types.SimpleNamespace(ll=_tokenizer()))
        print("built", loader.submit(art).result() is not None, flush=True)
""")


def _unlimited_stack() -> None:
    resource.setrlimit(resource.RLIMIT_STACK, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))


def _deep_run(what: str) -> subprocess.CompletedProcess[str]:
    """`_DEEP` in a child whose threads get glibc's 2 MiB default (RLIMIT_STACK unlimited)."""
    from pathlib import Path

    unlimited = resource.getrlimit(resource.RLIMIT_STACK)[1] == resource.RLIM_INFINITY
    return subprocess.run([sys.executable, "-c", _DEEP, str(Path(__file__).parent), what, "native" if unlimited else "small"],
                          capture_output=True, text=True, timeout=300, preexec_fn=_unlimited_stack if unlimited else None)


def test_loader_threads_survive_guard_depth_under_unlimited_stack() -> None:
    """Held after runtime/loader.py's `_CompileExecutor` (64 MiB thread stacks) landed mid-round:
    before it, this child segfaulted (rc -11) building a 990-key grammar the depth guard admits."""
    run = _deep_run("load")
    assert run.returncode == 0 and "built True" in run.stdout, (run.returncode, run.stdout, run.stderr[-400:])


def test_compile_on_worker_thread_survives_guard_depth_under_unlimited_stack() -> None:
    """Found in this round (a segfault): the compiler's whole-grammar llguidance calls ran on the
    calling thread; they now run on `schemac.native` threads with their own stack."""
    run = _deep_run("compile")
    assert run.returncode == 0, (run.returncode, run.stdout, run.stderr[-400:])


# ---- cases that held ------------------------------------------------------------------------------

HELD = [
    {"type": "object", "properties": {"a": {}}, "not": {"additionalProperties": I}, "unevaluatedProperties": False},
    {"type": "object", "not": {"additionalProperties": I}, "unevaluatedProperties": False},  # unsatisfiable
    {"type": "object", "dependentSchemas": {"a": {"not": {"patternProperties": {"^x": C0}}}}, "maxProperties": 2},
    {"type": "object", "not": {"additionalProperties": I, "propertyNames": {"pattern": "^x"}}},
    {"type": "object", "oneOf": [{"not": {"additionalProperties": C0}}, {"not": {"additionalProperties": {"const": 1}}}]},
    {"type": "object", "not": {"oneOf": [{"not": {"additionalProperties": C0}}, {"required": ["a"]}]}},
    {"type": "object", "if": {"not": {"patternProperties": {"^x": C0}}}, "then": {"maxProperties": 1}, "else": {"required": ["z"]}},
    {"type": "object", "not": {"patternProperties": {"^x": False, "a": True}}},
    {"type": "object", "properties": {"x": C0}, "required": ["x"], "not": {"patternProperties": {"^x": C0}}},
    {"type": "object", "allOf": [{"patternProperties": {"^x": C0}, "additionalProperties": False},
                                 {"patternProperties": {"a": True}, "additionalProperties": {"type": "string"}}]},
    {"type": "object", "allOf": [{"properties": {"a": True}, "additionalProperties": C0}, {"patternProperties": {"^x": I}},
                                 {"patternProperties": {"a$": {"type": "string"}}, "additionalProperties": {"not": C0}}]},
    {"type": "object", "allOf": [{"additionalProperties": I}, {"patternProperties": {"^x": C0}}],
     "not": {"additionalProperties": C0}},
    {"type": "object", "minProperties": 3, "maxProperties": 3,
     "allOf": [{"not": {"patternProperties": {"^x": C0}}}, {"not": {"patternProperties": {"a": C0}}},
               {"not": {"additionalProperties": {"const": 1}}}]},
    {"type": "object", "not": {"additionalProperties": {"not": {"additionalProperties": C0}}}},
    {"type": "object", "if": {"patternProperties": {"^x": C0}}, "then": {"not": {"additionalProperties": C0}},
     "unevaluatedProperties": {"type": "string"}},
    {"type": "object", "oneOf": [{"patternProperties": {"^x": I}, "not": {"additionalProperties": C0}}, {"required": ["z"]}],
     "unevaluatedProperties": {"const": 1}},
    {"type": "object", "not": {"if": {"additionalProperties": C0}, "then": {"required": ["a"]},
                               "else": {"patternProperties": {"^x": I}}}},
    {"type": "object", "not": {"dependentSchemas": {"a": {"patternProperties": {"^x": C0}}}}, "maxProperties": 2},
    {"type": "object", "properties": {"xa": {"const": 1}}, "not": {"patternProperties": {"^x": {"const": 1}, "a$": C0}}},
]


@pytest.mark.parametrize("schema", HELD, ids=lambda s: json.dumps(s)[:60])
def test_witness_attacks_held(schema: dict[str, Any]) -> None:
    _walk(schema)


SPECIAL_KEYS = ["", '"', "\\", "\n", "\x7f", "\u2028", "é", "\U0001f600", "x", "\x01"]
SPECIAL_GRID = _objects(SPECIAL_KEYS, [0, "s"], 2)


@pytest.mark.parametrize("schema", [
    {"type": "object", "not": {"patternProperties": {"^$": C0}}},
    {"type": "object", "not": {"patternProperties": {'"': C0}}},
    {"type": "object", "not": {"patternProperties": {"\\\\": C0}}},
    {"type": "object", "not": {"patternProperties": {"^.$": C0}}},  # ECMA `.`: not U+2028, one astral char
    {"type": "object", "not": {"patternProperties": {"\\u2028": C0}}},
    {"type": "object", "properties": {"\x7f": C0}, "not": {"additionalProperties": C0}},
    {"type": "object", "properties": {"": {}}, "required": [""], "not": {"properties": {"": {}}, "additionalProperties": C0}},
], ids=lambda s: json.dumps(s)[:60])
def test_witness_special_keys_held(schema: dict[str, Any]) -> None:
    """Keys that need escapes, DEL, line separators, astral characters and the empty key, with
    schemac's ECMA validator as the oracle; `\\u` spellings of a key stay refused."""
    from schemac.validate.final import FinalValidator

    _walk(schema, SPECIAL_GRID, FinalValidator(schema))
    accepted = partial(accepts, schemac.compile(schema, use_cache=False).grammar)
    for key in SPECIAL_KEYS:
        escaped = '"' + "".join(f"\\u{ord(c):04x}" if ord(c) < 0x10000 else c for c in key) + '"'
        if key and escaped != json.dumps(key, ensure_ascii=False):
            assert not accepted("{" + escaped + ': "s"}'), escaped


R = "#/$defs/T"
RECURSIVE_VALUES: list[Any] = [0, "s", {}, [], {"a": 0}, {"x": {}}, {"a": {"a": 0}}, {"a": {"x": {}}},
                               {"x": {"a": {}}}, {"a": 0, "x": {}}, {"a": {}, "x": 0}, [{}], [{"a": 0}]]


@pytest.mark.parametrize("schema", [
    {"$defs": {"T": {"type": "object", "not": {"additionalProperties": {"$ref": R}}}}, "$ref": R},
    {"$defs": {"T": {"anyOf": [C0, {"type": "object", "additionalProperties": {"$ref": R}}]}}, "not": {"$ref": R}},
    {"$defs": {"T": {"oneOf": [{"type": "object", "not": {"additionalProperties": {"$ref": R}}}, {"required": ["a"]}]}},
     "$ref": R},
    {"$defs": {"T": {"type": "object", "if": {"additionalProperties": {"$ref": R}}, "then": {"required": ["a"]}}}, "$ref": R},
    {"type": "array", "contains": {"type": "object", "not": {"additionalProperties": C0}}},
    {"enum": [{"a": 0}, {"a": 1}, {"x": 0}, {}], "not": {"additionalProperties": C0}},
], ids=lambda s: json.dumps(s)[:60])
def test_witness_recursion_held(schema: dict[str, Any]) -> None:
    oracle = jsonschema.Draft202012Validator(schema)
    accepted = partial(accepts, schemac.compile(schema, use_cache=False).grammar)
    for value in RECURSIVE_VALUES:
        text = json.dumps(value)
        got = accepted(text)
        assert not got or oracle.is_valid(value), ("invalid answer admitted", text)
        assert got or not oracle.is_valid(value), ("valid answer refused", text)


def test_tool_envelope_writes_witness_exactly() -> None:
    """A witness has no `%json` form: tool envelopes write the answer and the arguments with emit's
    Lark writer, so it is enforced there exactly as in an answer (issue 29)."""
    from testkit.grammar_harness import accepts
    from testkit.tools_cases import chat, chat_tool, hermes
    from schemac.tools.grammar import build
    from schemac.validate.final import FinalValidator

    witness = {"type": "object", "properties": {"q": {"type": "object", "not": {"patternProperties": {"^x": C0}}}}}
    oracle = FinalValidator(witness)
    values = [{}, {"q": {}}, {"q": {"x": 1}}, {"q": {"xa": "s"}}, {"q": {"y": 1}}, {"q": {"x": 1, "y": 2}}, {"q": 1}]
    answer = build(chat(answer=witness), api="chat", parser="hermes")
    calls = build(chat(tools=[chat_tool("f", witness, strict=True)], answer=None, tool_choice="required"),
                  api="chat", parser="hermes")
    for value in values:
        valid = not oracle.errors(value)
        assert accepts(answer.grammar, json.dumps(value)) is valid, value
        assert accepts(calls.grammar, hermes(("f", value))) is valid, value


_STEPS = [Decimal(s) for s in ("0.1", "0.3", "7", "0.25", "2.5", "1.5", "0.7", "0.05", "11", "1.1", "0.125", "12.5",
                               "3.3", "0.001", "6", "0.04", "0.07", "13", "0.13")]
_BOUNDS: list[Any] = [None, Decimal("-3"), Decimal("0"), Decimal("0.5"), Decimal("-0.7"), Decimal("7"), Decimal("2.1")]


def _number_texts() -> list[str]:
    import re

    number = re.compile(r"-?(0|[1-9][0-9]*)(\.[0-9]+)?")
    out = ["".join(cs) for n in range(1, 5) for cs in product("-.0137", repeat=n)]
    return [t for t in out if number.fullmatch(t) and not (t[0] == "-" and Decimal(t) == 0)] + [
        "0.0000", "0.1250", "12.50", "39.00", "91.0", "1.10", "3.30", "-0.13", "-1.3", "0.001", "77", "143"]


def test_residue_automaton_held() -> None:
    """`numbers._automaton` (residue reader, bounds, integer syntax) against exact Fractions over
    random multipleOf / not-multipleOf / bound combinations (policy spellings, no `-0`)."""
    from schemac.numbers.exact import _automaton
    from schemac.numbers.dfa import TooLarge

    texts = _number_texts()
    rng = random.Random(8)
    checked = 0
    for _ in range(120):
        integer = rng.random() < 0.3
        step = rng.choice([None, *_STEPS])
        avoid = tuple(rng.sample(_STEPS, rng.randint(0, 3)))
        lo, hi, xlo, xhi = (rng.choice(_BOUNDS) if rng.random() < 0.3 else None for _ in range(4))
        try:
            dfa = _automaton(integer, lo, hi, xlo, xhi, step, avoid)
        except TooLarge:
            continue
        if dfa is None:
            continue
        checked += 1
        for t in texts:
            v = Fraction(Decimal(t))
            want = not (integer and "." in t)
            want = want and (lo is None or v >= lo) and (hi is None or v <= hi)
            want = want and (xlo is None or v > xlo) and (xhi is None or v < xhi)
            want = want and (step is None or (v / Fraction(step)).denominator == 1)
            want = want and all((v / Fraction(s)).denominator != 1 for s in avoid)
            state: int | None = 0
            for ch in t:
                state = None if state is None else dfa.edges[state].get(ch)
            assert (state is not None and state in dfa.accepting) == want, (t, integer, lo, hi, xlo, xhi, step, avoid)
    assert checked > 60
