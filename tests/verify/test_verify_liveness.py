"""Liveness (issue 27 item 4): every prefix a compiled grammar admits extends to an accepted answer.

The checker (`schemac.verify.live` through `walk.Grammar.walk`) is tested on small Lark grammars
against a brute-force oracle (the finite language written out, a prefix live iff it begins an
accepted text), then the compiler on the schemas whose grammars had dead ends
(`testdata/liveness/cases.json`), and the checker on one such grammar kept as it was.
"""
from __future__ import annotations

import math
import json
from pathlib import Path
from typing import Any

import pytest

import schemac
from schemac.verify.check import verify_grammar
from schemac.verify.walk import Grammar

LIVENESS = Path(__file__).resolve().parents[2] / "testdata" / "liveness"
CASES = json.loads((LIVENESS / "cases.json").read_text(encoding="utf-8"))["cases"]


def _lark(text: str) -> str:
    return json.dumps({"grammars": [{"lark_grammar": text}]})


#: an empty terminal (llguidance proves `/a/ & /b/` empty only when the lexer reaches it)
EMPTY = 'E: /a/ & /b/\n'


def test_stuck_prefix_is_a_dead_end() -> None:
    """After `[2,` llguidance allows only EOS (an error state, `NoExtensionBias`): a dead end,
    not a complete text; `[2` is dead too (its only way on gets stuck), `[` and `[1` are live."""
    grammar = Grammar(_lark('start: "[" ("1" | "2" "," E) "]"\n' + EMPTY), ["[", "1", "2", ",", "]"])
    plain = grammar.walk(4, 1000, float("inf"))
    assert plain.dead_ends == ["[2,"] and plain.texts == ["[1]"]  # stuck is seen without a validator
    checked = grammar.walk(4, 1000, float("inf"), is_valid=lambda t: t == "[1]")
    assert checked.dead_ends == ["[2", "[2,"] and checked.undecided == []
    assert not grammar.accepts("[2,")


def test_dead_end_beyond_the_walk_depth() -> None:
    """The search goes past the walk's depth: `[2` (walked at depth 2) is proven dead through
    `[234,` (five tokens down), which the walk itself never reaches."""
    grammar = Grammar(_lark('start: "[" ("1" | "2" "3" "4" "," E) "]"\n' + EMPTY), ["[", "1", "2", "3", "4", ",", "]"])
    walked = grammar.walk(2, 1000, float("inf"), is_valid=lambda t: t == "[1]")
    assert walked.dead_ends == ["[2", "[234,"]


def test_prefix_running_on_for_ever_is_undecided() -> None:
    """`[2` can run on (`a*`) without ever closing: no bound proves it dead, so it is undecided,
    while every stuck prefix met on the way (`[2,`, `[2a,`, ...) is reported."""
    grammar = Grammar(_lark('start: "[" ("1" | "2" /a*/ "," E) "]"\n' + EMPTY), ["[", "1", "2", "a", ",", "]"])
    walked = grammar.walk(2, 1000, float("inf"), is_valid=lambda t: t == "[1]", bound=6)
    assert "[2" in walked.undecided and "[2" not in walked.dead_ends
    assert walked.dead_ends[:3] == ["[2,", "[2a,", "[2aa,"]


#: finite languages (every accepted text listed) with dead branches of several kinds
FINITE = [
    ('start: "[" ("1" | "2" "," E | "3" "4") "]" | "x" ("y" | "z" E)\n' + EMPTY,
     ["[1]", "[34]", "xy"]),
    ('start: "{" ("a" "b" "c" | "a" "b" E | "a" "d" E) "}"\n' + EMPTY, ["{abc}"]),
    ('start: "q" | "q" "r" E | "s" E\n' + EMPTY, ["q"]),
]


@pytest.mark.parametrize("lark, language", FINITE)
def test_liveness_matches_brute_force(lark: str, language: list[str]) -> None:
    """Every text of up to six characters the grammar admits as a prefix is reported dead iff no
    accepted text of the list begins with it (exhaustive, against the list).
    One text of the language is refused by the validator (`is_valid`): prefixes only it extends
    are dead too, since liveness means an answer the schema accepts."""
    alphabet = list("[]{},0123456789abcdefghijklmnopqrstuvwxyz")
    grammar = Grammar(_lark(lark), alphabet)
    accepted = language[:-1] if len(language) > 1 else language
    walked = grammar.walk(6, 100_000, float("inf"), is_valid=lambda t: t in accepted)
    assert walked.cut is None and walked.undecided == []
    assert set(walked.dead_ends) == {p for p in _admitted(grammar, 6) if not any(t.startswith(p) for t in accepted)}
    assert set(walked.texts) == set(language)


def _admitted(grammar: Grammar, depth: int) -> set[str]:
    """Every text of at most `depth` single characters the mask admits, breadth first from the
    pristine matcher, consumed character by character (not the walk's code; a stuck prefix, whose
    mask holds EOS alone, has no continuation)."""
    out, frontier = {""}, [("", grammar.matcher.deep_copy())]
    for _ in range(depth):
        nxt = []
        for text, m in frontier:
            mask = m.compute_bitmask()
            if m.is_error():
                continue
            for b in range(256):
                if mask[b >> 3] >> (b & 7) & 1:
                    child = m.deep_copy()
                    assert child.consume_token(b)
                    out.add(text + chr(b))
                    nxt.append((text + chr(b), child))
        frontier = nxt
    return out


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_dead_end_schemas_compile_live_or_are_rejected(case: dict[str, Any]) -> None:
    """Each schema whose grammar had dead ends compiles to one with none found, or is rejected
    as unsatisfiable (it was: no value satisfies it)."""
    report = schemac.verify(case["schema"], depth=3, time_s=math.inf, max_nodes=4000, canonical=300)
    if case["expect"] == "compiles":
        assert report.status == "verified" and report.ok, report.summary()
        assert report.dead_end_count == 0 and report.live_checked > 0
    else:
        assert report.status == "rejected" and {d.code for d in report.diagnostics} == {case["expect"]}


def test_unpruned_grammar_dead_ends_are_found() -> None:
    """The checker on `Handwritten---pnmp3`'s grammar as compiled before the key-class probe: a
    key in no witness class opens an object that can never close (`{"0": [...], ` is stuck)."""
    schema = next(c["schema"] for c in CASES if c["name"] == "pnmp3")
    grammar = (LIVENESS / "pnmp3-unpruned.grammar.json").read_text(encoding="utf-8")
    report = verify_grammar(schema, grammar, depth=3, time_s=math.inf, max_nodes=4000, canonical=0)
    assert report.dead_end_count > 0 and not report.ok and report.unsound_count == 0
    assert all(t.startswith('{"') and t.endswith(", ") for t in report.dead_ends[:3]), report.dead_ends
    assert "dead ends" in report.summary()


def test_duplicate_entries_past_the_keys_that_exist_are_not_admitted() -> None:
    """Two keys exist (`^[ab]$`, nothing else): maxProperties 5 is capped at 2, so the grammar
    refuses a third entry, which could only repeat a key; the object still takes both keys."""
    case = next(c for c in CASES if c["name"] == "two-keys-max-five")
    artifact = schemac.compile(case["schema"], use_cache=False)
    grammar = Grammar(artifact.grammar, ["a"])
    assert grammar.accepts('{"a": 1, "b": 2}') and grammar.accepts('{"b": 1, "a": 2}')
    assert not grammar.accepts('{"a": 1, "b": 2, "a": 3}')


def test_counted_key_terminals() -> None:
    """`terminal_strings` counts a key class exactly where it is finite and small, else None."""
    from schemac.emit.lark.probe import terminal_strings

    assert terminal_strings('/"[0-9]"/', [], 64) == 10
    assert terminal_strings('/"[0-9]"/ & ~("\\"1\\"" | "\\"2\\"")', [], 64) == 8
    assert terminal_strings('/"a"/ & /"b"/', [], 64) == 0
    assert terminal_strings('/"[a-z]*"/', [], 64) is None
    assert terminal_strings('/"[0-9]"/', [], 9) is None


def test_dead_end_benchmark_runs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`benchmarks.dead_ends` on MaskBench-shaped files: the pnmp3 case is clean (exit 0), the
    unsatisfiable one is counted as not compiled, and the totals line is printed."""
    from benchmarks.dead_ends import main

    for case in CASES[:3]:
        (tmp_path / f"{case['name']}.json").write_text(json.dumps({"schema": case["schema"]}), encoding="utf-8")
    assert main([str(tmp_path), "--limit", "2", "-j", "1", "--max-nodes", "300"]) == 0
    totals = capsys.readouterr().out.splitlines()[-1]
    assert "files 2, compiled 1, with dead ends 0, dead ends 0" in totals, totals
