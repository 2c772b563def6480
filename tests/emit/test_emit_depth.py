"""The rule-depth guard: llguidance compiles Lark rules recursively on the native stack, so a
grammar deeper than `MAX_RULE_DEPTH` is refused at compile time instead of crashing an engine."""
from __future__ import annotations

import subprocess
import sys
import textwrap
import resource

import pytest

import schemac
from schemac.diagnostics import CompileError
from schemac.emit.lark.depth import MAX_RULE_DEPTH, compile_depth, references


def test_references_skip_literals_regexes_counts_and_json() -> None:
    body = r'"a\"b c" KEY_1 /[a-z\/]+ x/ o_2{2,3} %json {"properties": {"z_9": {"type": "string"}}} tail'
    assert references(body) == ["KEY_1", "o_2", "tail"]


def test_depth_follows_first_references_depth_first() -> None:
    rules = ["a: b c", "b: \"x\" c", "c: \"y\" a | \"z\"", "d: a"]
    # start -> a -> b -> c (c's reference back to a is already compiled); d is never reached
    assert compile_depth("a", rules) == 4
    assert compile_depth("\"q\"", rules) == 1


def _object(n: int) -> dict:
    return {"type": "object", "properties": {f"k{i}": {"type": "integer", "minimum": 0} for i in range(n)}}


def test_long_objects_are_refused_past_the_depth_bound() -> None:
    schemac.compile(_object(500), use_cache=False)
    with pytest.raises(CompileError) as info:
        schemac.compile(_object(MAX_RULE_DEPTH), use_cache=False)
    assert info.value.codes == ["too-large"] and "chain of" in str(info.value)


def test_nested_chains_add_up() -> None:
    """Depth is a property of the whole grammar: two objects each under the bound, one inside
    the other, pass it together."""
    inner = _object(600)
    outer = _object(599)
    outer["properties"]["k598"] = inner
    with pytest.raises(CompileError) as info:
        schemac.compile(outer, use_cache=False)
    assert info.value.codes == ["too-large"]


_CHAIN = textwrap.dedent("""
    import json, sys, threading
    import llguidance
    n = int(sys.argv[1])
    rules = ["start: r0"] + [f'r{i}: "a" r{i + 1} | "b"' for i in range(n)] + [f'r{n}: "c"']
    grammar = json.dumps({"grammars": [{"lark_grammar": "\\n".join(rules)}]})
    threading.stack_size(1 << 20)
    def build():
        print(llguidance.LLMatcher.validate_grammar(grammar) or "ok", flush=True)
    t = threading.Thread(target=build)
    t.start()
    t.join()
""")


@pytest.mark.parametrize("n, crashes", [(100, False), (4 * MAX_RULE_DEPTH, True)])
def test_llguidance_recursion_is_real(n: int, crashes: bool) -> None:
    """Pins why the guard exists: a chain of rules overflows a 1 MB thread stack inside
    llguidance (a signal, not an error). If llguidance ever compiles iteratively, the deep case
    stops crashing and this test says the bound can go."""
    run = subprocess.run([sys.executable, "-c", _CHAIN, str(n)], capture_output=True, text=True, timeout=120)
    assert (run.returncode < 0) is crashes, (run.returncode, run.stdout, run.stderr[-500:])
    if not crashes:
        assert run.stdout.strip() == "ok"


def _witness_parts(parts: int, patterns: int) -> dict:
    """`parts` witnesses, each a key matching one of `patterns` patterns with a value other than 0:
    patterns**parts distributed branches. The patterns are unanchored so that every intersection
    of them is a live key class (the key "a0b0c0" matches three); anchored ones (`^a0`, `^b0`)
    would make every intersection empty, which the Lark writer drops, leaving too few branches to
    reach the row limit."""
    letters = "abcdefgh"
    return {"type": "object", "allOf": [{"not": {"patternProperties": {f"{letters[j]}{i}": {"const": 0}
                                                                        for j in range(patterns)}}} for i in range(parts)]}


def test_grammars_past_the_parser_row_limit_are_refused() -> None:
    """81 distributed branches, all alive at the opening `{`: llguidance's parser would give up
    on the first byte of every answer, so the compiler refuses the schema instead."""
    with pytest.raises(CompileError) as info:
        schemac.compile(_witness_parts(4, 3), use_cache=False)
    assert info.value.codes == ["too-large"] and "items; max is" in str(info.value)


def test_large_grammars_under_the_row_limit_pass_the_probe() -> None:
    from schemac.emit.lark.probe import PROBE_FROM

    art = schemac.compile(_witness_parts(3, 3), use_cache=False)
    assert len(art.grammar) > PROBE_FROM


# ---- the depth the guard admits, on threads with glibc's default stack (attack round 8)

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
    return subprocess.run([sys.executable, "-c", _DEEP, str(Path(__file__).resolve().parents[2]), what, "native" if unlimited else "small"],
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
