"""`schemac check` / `schemac compile` in-process: exit codes, formats, locations, artifacts."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from testkit.cli_support import COLOR, DRAFT7, OK, REMOTE, report, run, write

from schemac.artifact import Artifact


@pytest.fixture(autouse=True)
def _isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SCHEMAC_CACHE_DIR", str(tmp_path / "cache"))


def test_exit_codes_ok_rejected_usage(tmp_path: Path) -> None:
    write(tmp_path / "ok.json", OK)
    write(tmp_path / "bad.json", REMOTE)
    assert run("check", "ok.json").exit_code == 0
    assert run("check", "ok.json", "bad.json").exit_code == 1
    assert run("check", "missing.json").exit_code == 2
    assert run("check").exit_code == 2
    assert run("check", "--format", "xml", "ok.json").exit_code == 2


def test_text_report_locates_the_diagnostic_and_prints_the_hint(tmp_path: Path) -> None:
    write(tmp_path / "bad.json", REMOTE)
    result = run("check", "bad.json")
    assert result.exit_code == 1
    out = result.stdout
    first, hint, summary = out.splitlines()
    assert first.startswith("bad.json:5:7: error[remote-ref] $ref 'https://example.com/s.json' points outside")
    assert first.endswith(" (at /properties/a/$ref)")  # json.dumps(indent=2) layout
    assert hint == "    hint: bundle the referenced schema under $defs"
    assert summary == "Found 1 error in 1 of 1 schema (0 ok, 1 rejected)."
    assert "\x1b[" not in out  # not a terminal: no colour


def test_json_report_is_stable(tmp_path: Path) -> None:
    write(tmp_path / "ok.json", OK)
    write(tmp_path / "warn.json", COLOR)
    write(tmp_path / "bad.json", REMOTE)
    code, data = report("check", "ok.json", "warn.json", "bad.json")
    assert code == 1
    assert set(data) == {"format", "schemac", "llguidance", "ok", "summary", "schemas"}
    assert data["format"] == 1 and data["ok"] is False
    assert data["summary"] == {"schemas": 3, "ok": 2, "rejected": 1, "ignored": 0}
    ok, warn, bad = data["schemas"]
    assert set(ok) == {"path", "status", "compile_ms", "budget", "grammar_bytes", "artifact", "suppressed", "diagnostics"}
    assert ok["path"] == "ok.json" and ok["status"] == "ok" and ok["grammar_bytes"] > 0
    assert set(ok["budget"]) == {"entries", "evaluations", "regex_chars", "steps"}
    (w,) = warn["diagnostics"]
    assert w["severity"] == "warning" and w["code"] == "unknown-format"
    assert (w["pointer"], w["line"], w["column"]) == ("/properties/c/format", 6, 7)
    assert bad["status"] == "rejected" and bad["diagnostics"][0]["code"] == "remote-ref"
    assert bad["diagnostics"][0]["hint"]


def test_github_annotations(tmp_path: Path) -> None:
    write(tmp_path / "dir, x" / "bad.schema.json", REMOTE)
    result = run("check", "--format", "github", "dir, x")
    lines = result.stdout.splitlines()
    assert result.exit_code == 1
    assert lines[0].startswith("::error file=dir%2C x/bad.schema.json,line=5,col=7,title=remote-ref::/properties/a/$ref: ")
    assert "%0Ahint: bundle the referenced schema under $defs" in lines[0]
    assert lines[-1] == "schemac: 1 schemas, 0 ok, 1 rejected, 0 ignored"


def test_directories_are_walked_recursively_and_stdin_is_read(tmp_path: Path) -> None:
    write(tmp_path / "schemas" / "a.json", OK)
    write(tmp_path / "schemas" / "deep" / "er" / "b.json", OK)
    write(tmp_path / "schemas" / ".hidden" / "c.json", REMOTE)
    write(tmp_path / "schemas" / "notes.txt", "not a schema")
    code, data = report("check", "schemas", "-", input=json.dumps(REMOTE))
    assert code == 1
    assert [s["path"] for s in data["schemas"]] == ["schemas/a.json", "schemas/deep/er/b.json", "<stdin>"]
    assert data["schemas"][2]["diagnostics"][0]["line"] == 1


def test_invalid_json_is_located_by_the_loader(tmp_path: Path) -> None:
    write(tmp_path / "broken.json", '{\n  "type": "object",\n  "properties": {,}\n}')
    code, data = report("check", "broken.json")
    (d,) = data["schemas"][0]["diagnostics"]
    assert code == 1 and d["code"] == "invalid-json" and (d["line"], d["column"]) == (3, 18)


def test_yaml_schemas_and_duplicate_keys(tmp_path: Path) -> None:
    write(tmp_path / "y" / "schemas" / "ok.yaml", "type: object\nproperties:\n  when: {const: 2020-01-01}\n")
    write(tmp_path / "y" / "schemas" / "dup.yml", "type: object\nproperties:\n  a: {type: string}\n  a: {type: number}\n")
    write(tmp_path / "y" / "schemas" / "bad.yaml", "type: [string\n")
    write(tmp_path / "y" / "schemas" / "empty.yaml", "")
    code, data = report("check", "y")
    by_path = {s["path"].removeprefix("y/schemas/"): s for s in data["schemas"]}
    assert code == 1
    assert by_path["ok.yaml"]["status"] == "ok"
    (dup,) = by_path["dup.yml"]["diagnostics"]
    assert (dup["code"], dup["pointer"], dup["line"], dup["column"]) == ("duplicate-key", "/properties/a", 4, 3)
    assert by_path["bad.yaml"]["diagnostics"][0]["code"] == "invalid-yaml"
    assert by_path["empty.yaml"]["diagnostics"][0]["code"] == "invalid-yaml"


def test_flags_upgrade_drafts_and_strict_formats(tmp_path: Path) -> None:
    write(tmp_path / "d7.json", DRAFT7)
    write(tmp_path / "color.json", COLOR)
    assert report("check", "d7.json")[1]["schemas"][0]["diagnostics"][0]["code"] == "unsupported-dialect"
    assert run("check", "--upgrade-drafts", "d7.json").exit_code == 0
    assert run("check", "color.json").exit_code == 0
    code, data = report("check", "--strict-formats", "color.json")
    assert code == 1 and data["schemas"][0]["diagnostics"][0]["code"] == "unknown-format"


#: compiles to different grammars under the two key orders: {"b": .., "a": ..} only under "any"
TWO_KEYS = {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}, "required": ["a", "b"]}


def test_key_order_flag_reaches_the_artifact(tmp_path: Path) -> None:
    from testkit.grammar_harness import accepts

    write(tmp_path / "s.json", TWO_KEYS)
    assert run("compile", "s.json", "-o", "default").exit_code == 0
    assert run("compile", "--key-order", "any", "s.json", "-o", "free").exit_code == 0
    fixed = Artifact.load(tmp_path / "default" / "s.schemac.json")
    free = Artifact.load(tmp_path / "free" / "s.schemac.json")
    assert (fixed.options["key_order"], free.options["key_order"]) == ("schema", "any")
    assert not accepts(fixed.grammar, '{"b": 2, "a": 1}') and accepts(free.grammar, '{"b": 2, "a": 1}')
    bad = run("compile", "--key-order", "sorted", "s.json", "-o", "x")
    assert bad.exit_code == 2 and "'sorted' is not one of 'schema', 'properties', 'any'" in bad.stderr


def test_properties_key_order_flag_drops_the_required_order(tmp_path: Path) -> None:
    """`required` states `b, a`: the default admits it beside `properties`' `a, b`; "properties" does not."""
    from testkit.grammar_harness import accepts

    write(tmp_path / "s.json", {**TWO_KEYS, "required": ["b", "a"]})
    assert run("compile", "s.json", "-o", "default").exit_code == 0
    assert run("compile", "--key-order", "properties", "s.json", "-o", "strict").exit_code == 0
    stated = Artifact.load(tmp_path / "default" / "s.schemac.json")
    strict = Artifact.load(tmp_path / "strict" / "s.schemac.json")
    assert strict.options["key_order"] == "properties"
    for text in ('{"a": 1, "b": 2}', '{"b": 2, "a": 1}'):
        assert accepts(stated.grammar, text)
        assert accepts(strict.grammar, text) is text.startswith('{"a"')


def test_key_order_reaches_every_compile_of_check(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`check` compiles with the flag, and so does the upgrade verdict's second compile."""
    import schemac.pipeline

    seen: list[str] = []
    real = schemac.pipeline.compile_schema

    def recording(*args: object, **kwargs: object) -> object:
        seen.append(str(kwargs.get("key_order")))
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(schemac.pipeline, "compile_schema", recording)
    write(tmp_path / "s.json", TWO_KEYS)
    write(tmp_path / "d7.json", {**TWO_KEYS, "$schema": "http://json-schema.org/draft-07/schema#"})
    assert run("check", "--no-cache", "s.json").exit_code == 0 and seen == ["schema"]
    seen.clear()
    code, data = report("check", "--no-cache", "--key-order", "any", "s.json", "d7.json")
    by_path = {s["path"]: s for s in data["schemas"]}
    assert code == 1 and "translated, it compiles" in by_path["d7.json"]["diagnostics"][0]["message"]
    assert seen == ["any", "any", "any"]  # s.json; d7.json, then d7.json upgraded for the verdict


def test_parallel_check_keeps_input_order(tmp_path: Path) -> None:
    for i in range(6):
        write(tmp_path / "schemas" / f"{i}.json", REMOTE if i % 2 else {"type": "integer", "minimum": i})
    code, data = report("check", "-j", "2", "--no-cache", "schemas")
    assert code == 1
    assert [s["status"] for s in data["schemas"]] == ["ok", "rejected"] * 3


def test_disk_cache_is_used_and_can_be_disabled(tmp_path: Path) -> None:
    write(tmp_path / "ok.json", {"type": "integer", "minimum": 7})
    cache = tmp_path / "mycache"
    assert run("check", "--cache-dir", str(cache), "ok.json").exit_code == 0
    assert len(list(cache.glob("*/*.json"))) == 1
    other = tmp_path / "other"
    assert run("check", "--no-cache", "--cache-dir", str(other), "ok.json").exit_code == 0
    assert not other.exists()


def test_compile_writes_collision_safe_artifacts(tmp_path: Path) -> None:
    write(tmp_path / "a" / "x.json", OK)
    write(tmp_path / "b" / "x.json", {"type": "integer"})
    write(tmp_path / "b" / "x.yaml", "type: boolean\n")
    write(tmp_path / "b" / "bad.json", REMOTE)
    code, data = report("compile", "a/x.json", "b/x.json", "b/x.yaml", "b/bad.json", "-o", "out")
    assert code == 1
    arts = {s["path"]: s["artifact"] for s in data["schemas"]}
    assert arts == {
        "a/x.json": "out/a/x.schemac.json",
        "b/bad.json": None,
        "b/x.json": "out/b/x.json.schemac.json",
        "b/x.yaml": "out/b/x.yaml.schemac.json",
    }
    loaded = Artifact.load(tmp_path / "out" / "b" / "x.yaml.schemac.json")
    assert loaded.schema == {"type": "boolean"}
    flat = run("compile", "a/x.json", "-o", "flat")
    assert flat.exit_code == 0 and (tmp_path / "flat" / "x.schemac.json").is_file()
    assert flat.stdout.splitlines() == ["The schema compiles.",
                                        "Wrote 1 artifact to flat."]
    assert run("check", "-o", "out", "a").exit_code == 2  # -o belongs to compile


def test_version_names_schemac_and_llguidance() -> None:
    from importlib.metadata import version

    import schemac

    out = run("--version").stdout.strip()
    assert out == f"schemac {schemac.__version__} (llguidance {version('llguidance')})"


def test_a_compiler_crash_is_reported_not_raised(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import schemac.pipeline

    def crash(*_args: object, **_kwargs: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(schemac.pipeline, "compile_schema", crash)
    write(tmp_path / "ok.json", OK)
    code, data = report("check", "ok.json")
    (d,) = data["schemas"][0]["diagnostics"]
    assert code == 1 and d["code"] == "internal-error" and "RuntimeError: boom" in d["message"]


def test_every_code_the_cli_emits_is_documented() -> None:
    from schemac.diagnostics import CODES

    assert {"invalid-yaml", "internal-error", "duplicate-key", "invalid-json"} <= set(CODES)


def test_progress_bar_only_on_a_terminal_and_for_many_files(monkeypatch: pytest.MonkeyPatch) -> None:
    import io
    import sys

    from schemac.cli.check_cmd import _with_progress

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    def fake_run_all(tasks: list[int], jobs: int, on_done=None):  # type: ignore[no-untyped-def]
        for t in tasks:
            if on_done:
                on_done()
            yield t * 2

    for tty, n, drawn in ((True, 25, True), (True, 5, False), (False, 25, False)):
        err = Terminal() if tty else io.StringIO()
        monkeypatch.setattr(sys, "stderr", err)
        assert _with_progress(list(range(n)), 2, fake_run_all) == [2 * i for i in range(n)]
        assert ("compiling" in err.getvalue()) is drawn
