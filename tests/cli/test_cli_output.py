"""The default text report (ruff-like), its options, folder walking and the draft message."""
from __future__ import annotations

import json
import os
import re
import shutil
import stat
from pathlib import Path

import pytest
from testkit.cli_support import COLOR, DRAFT7, OK, REMOTE, report, run, write

ROOT = Path(__file__).resolve().parents[2]
#: `path:line:col: severity[code] message (at pointer)`
LINE = re.compile(r"^(?P<path>[^:]+):(?P<line>\d+):(?P<col>\d+): (?P<sev>error|warning)\[(?P<code>[a-z-]+)\] .+ \(at (/\S*)\)$")


@pytest.fixture(autouse=True)
def _isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SCHEMAC_CACHE_DIR", str(tmp_path / "cache"))


def _three(tmp_path: Path) -> None:
    write(tmp_path / "schemas" / "ok.json", OK)
    write(tmp_path / "schemas" / "warn.json", COLOR)
    write(tmp_path / "schemas" / "bad.json", REMOTE)


def test_default_output_is_the_problems_then_a_summary(tmp_path: Path) -> None:
    _three(tmp_path)
    result = run("check", "schemas")
    lines = result.stdout.splitlines()
    assert result.exit_code == 1
    assert LINE.match(lines[0]) and lines[0].startswith("schemas/bad.json:5:7: error[remote-ref] ")
    assert lines[1].startswith("    hint: ")
    assert LINE.match(lines[2]) and lines[2].startswith("schemas/warn.json:6:7: warning[unknown-format] ")
    assert lines[-1] == "Found 1 error and 1 warning in 2 of 3 schemas (2 ok, 1 rejected)."
    assert "ok.json" not in result.stdout  # a clean schema prints nothing
    write(tmp_path / "schemas" / "bad.json", OK)
    write(tmp_path / "schemas" / "warn.json", OK)
    assert run("check", "schemas").stdout == "All 3 schemas compile.\n"


def test_table_statistics_quiet_exit_zero(tmp_path: Path) -> None:
    _three(tmp_path)
    table = run("check", "--show-ok", "schemas").stdout.splitlines()
    assert table[0].split() == ["schema", "status", "diagnostics", "budget", "ms"]
    assert [row.split()[:3] for row in table[1:4]] == [
        ["schemas/bad.json", "rejected", "1"], ["schemas/ok.json", "ok", "0"], ["schemas/warn.json", "ok", "1"]]
    as_table = run("check", "--format", "table", "schemas").stdout.splitlines()
    assert [row.split()[:3] for row in as_table] == [row.split()[:3] for row in table]  # ms aside
    stats = run("check", "--statistics", "schemas")
    assert stats.stdout.splitlines() == ["1  error    remote-ref", "1  warning  unknown-format",
                                         "Found 1 error and 1 warning in 2 of 3 schemas (2 ok, 1 rejected)."]
    quiet = run("check", "-q", "schemas")
    assert quiet.exit_code == 1 and len(quiet.stdout.splitlines()) == 2
    assert all(LINE.match(line) for line in quiet.stdout.splitlines())
    assert run("check", "--exit-zero", "schemas").exit_code == 0
    assert run("check", "--exit-zero", "missing").exit_code == 2  # usage errors still fail


def test_long_names_are_never_wrapped_and_long_literals_are_shortened(tmp_path: Path) -> None:
    name = "a-very-long-folder-name-that-goes-on/" * 3 + "and-a-long-schema-file-name.json"
    regex = "(?:^a$)*" + "x" * 2000 + "[0-9]*$"  # its complement has no exact form: not-exact quotes it
    write(tmp_path / name, {"type": "string", "not": {"pattern": regex}})
    result = run("check", "--show-ok", name)
    lines = result.stdout.splitlines()
    assert lines[1].startswith(name + "  rejected")  # the table row holds the whole name
    (diagnostic,) = [line for line in lines if LINE.match(line)]
    assert diagnostic.startswith(name + ":") and "x" * 100 not in diagnostic and "…" in diagnostic
    assert len(diagnostic) < len(name) + 300
    _code, data = report("check", name)
    assert regex in json.dumps(data)  # machine formats keep the whole message


def test_output_file_gets_the_report_with_the_umask(tmp_path: Path) -> None:
    _three(tmp_path)
    old = os.umask(0o022)
    try:
        result = run("check", "--output-file", "out/report.txt", "schemas")
        sarif = run("check", "--format", "sarif", "--output-file", "report.sarif", "schemas")
    finally:
        os.umask(old)
    assert result.exit_code == 1 and result.stdout == "" and sarif.stdout == ""
    text = (tmp_path / "out" / "report.txt").read_text()
    assert text.endswith("Found 1 error and 1 warning in 2 of 3 schemas (2 ok, 1 rejected).\n")
    assert json.loads((tmp_path / "report.sarif").read_text())["version"] == "2.1.0"
    assert stat.S_IMODE((tmp_path / "report.sarif").stat().st_mode) == 0o644
    assert run("check", "--output-file", "schemas/ok.json/x", "schemas").exit_code == 2  # cannot be written


def test_artifacts_and_cache_entries_follow_the_umask(tmp_path: Path) -> None:
    write(tmp_path / "a.json", {"type": "integer", "minimum": 3})
    old = os.umask(0o027)
    try:
        assert run("compile", "--cache-dir", "c", "a.json", "-o", "out").exit_code == 0
    finally:
        os.umask(old)
    (entry,) = (tmp_path / "c").glob("*/*.json")
    for path in (tmp_path / "out" / "a.schemac.json", entry):
        assert stat.S_IMODE(path.stat().st_mode) == 0o640, path


def test_compile_time_is_measured_around_the_compile_in_the_worker(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    import schemac.cli.runner as runner
    import schemac.pipeline

    clock = [100.0]
    monkeypatch.setattr(runner.time, "perf_counter", lambda: clock[0])
    real = schemac.pipeline.compile_schema

    def compile_schema(*args: object, **kwargs: object) -> object:
        clock[0] += 0.004  # the compile: 4 ms
        return real(*args, **kwargs)

    def read_source(task: object) -> object:
        clock[0] += 1.0  # reading the file (and anything before) is not compile time
        return real_read(task)

    real_read = runner.read_source
    monkeypatch.setattr(schemac.pipeline, "compile_schema", compile_schema)
    monkeypatch.setattr(runner, "read_source", read_source)
    write(tmp_path / "a.json", OK)
    write(tmp_path / "b.json", REMOTE)
    _code, data = report("check", "--no-cache", "a.json", "b.json")
    assert [s["compile_ms"] for s in data["schemas"]] == [4.0, 4.0]


def test_walk_skips_dependency_folders_and_respects_gitignore(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / ".gitignore").write_text("generated/\n*.tmp.json\n# comment\n")
    write(tmp_path / "schemas" / ".gitignore", "!keep.tmp.json\n")
    write(tmp_path / "schemas" / "a.json", OK)
    write(tmp_path / "schemas" / "keep.tmp.json", OK)
    write(tmp_path / "schemas" / "drop.tmp.json", REMOTE)
    write(tmp_path / "schemas" / "generated" / "g.json", REMOTE)
    write(tmp_path / "node_modules" / "pkg" / "schema.json", REMOTE)
    write(tmp_path / "venv" / "lib" / "x.json", REMOTE)
    write(tmp_path / ".venv" / "y.json", REMOTE)
    for target in (".", "schemas"):
        code, data = report("check", target)
        assert code == 0 and [s["path"] for s in data["schemas"]] == ["schemas/a.json", "schemas/keep.tmp.json"]
    code, data = report("check", "--no-respect-gitignore", "schemas")
    assert code == 1 and len(data["schemas"]) == 4
    code, data = report("check", "schemas/drop.tmp.json")  # named files are always read
    assert code == 1


def test_no_schemas_found_is_a_clear_message(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    write(tmp_path / "empty" / "notes.txt", "hello")
    result = run("check", "empty")
    assert result.exit_code == 0 and result.stdout == ""
    assert result.stderr == "No schemas found in empty: looked for *.json, *.yaml and *.yml files.\n"


def test_a_schema_rejected_only_for_its_draft_says_the_upgrade_is_exact(tmp_path: Path) -> None:
    write(tmp_path / "d7.json", DRAFT7)
    write(tmp_path / "d7bad.json", {**DRAFT7, "$ref": "https://example.com/x.json"})
    _code, data = report("check", "d7.json", "d7bad.json")
    good, bad = (s["diagnostics"] for s in data["schemas"])
    assert [d["code"] for d in good] == [d["code"] for d in bad] == ["unsupported-dialect"]
    assert good[0]["message"] == ("schema declares draft-07; schemac compiles JSON Schema draft 2020-12, and "
                                  "--upgrade-drafts translates draft-07 into it exactly; translated, it compiles")
    assert bad[0]["message"].endswith("; translated, it is still rejected (remote-ref at /$ref)")
    assert (good[0]["line"], good[0]["column"]) == (2, 3)


def test_compile_emit_lark_is_wired(tmp_path: Path) -> None:
    from schemac.artifact import Artifact

    write(tmp_path / "a.json", OK)
    result = run("compile", "a.json", "-o", "out", "--emit", "lark")
    if not hasattr(Artifact, "lark"):  # the Lark export is another change; the option says so meanwhile
        assert result.exit_code == 2 and "no Lark export" in result.stderr
        pytest.skip("Artifact.lark is not there yet")
    assert result.exit_code == 0
    artifact = Artifact.load(tmp_path / "out" / "a.schemac.json")
    assert (tmp_path / "out" / "a.lark").read_text(encoding="utf-8") == artifact.lark


def _three_hundred(folder: Path) -> set[str]:
    """300 schemas from the repository's test data (real schemas, variations of them, and the
    rejected examples); returns the names of those expected to have diagnostics."""
    sources = sorted((ROOT / "testdata" / "schemas" / "supported").glob("*.json"))
    upgrade = sorted((ROOT / "testdata" / "upgrade").glob("*.json"))
    rejected = sorted((ROOT / "testdata" / "schemas" / "rejected").glob("*.json"))
    made = 0
    for path in rejected:
        shutil.copy(path, folder / f"rejected-{path.name}")
        made += 1
    for path in upgrade:
        (folder / f"real-{path.name}").write_text(json.dumps(json.loads(path.read_text())["schema"]))
        made += 1
    i = 0
    while made < 300:
        variant = json.loads(sources[i % len(sources)].read_text())
        variant["$comment"] = f"variant {i}"
        if isinstance(variant.get("properties"), dict):
            variant["properties"][f"extra{i}"] = {"type": "integer", "minimum": i}
        (folder / f"v{i:03d}-{sources[i % len(sources)].name}").write_text(json.dumps(variant, indent=1))
        made += 1
        i += 1
    return {f"rejected-{p.name}" for p in rejected}


@pytest.mark.slow
def test_a_300_schema_folder_prints_only_its_problems_and_a_summary(tmp_path: Path) -> None:
    folder = tmp_path / "schemas"
    folder.mkdir()
    rejected = _three_hundred(folder)
    assert len(list(folder.iterdir())) == 300
    _code, data = report("check", "-j", "2", "--upgrade-drafts", "schemas")
    with_problems = {Path(s["path"]).name for s in data["schemas"] if s["diagnostics"]}
    assert rejected <= with_problems and len(with_problems) < 20
    result = run("check", "-j", "2", "--upgrade-drafts", "schemas")
    lines = result.stdout.splitlines()
    named = {Path(m.group("path")).name for m in map(LINE.match, lines) if m}
    assert named == with_problems
    diagnostics = sum(len(s["diagnostics"]) for s in data["schemas"])
    assert sum(1 for line in lines if LINE.match(line)) == diagnostics
    assert all(LINE.match(line) or line.startswith("    hint: ") for line in lines[:-1])
    ok = sum(s["status"] == "ok" for s in data["schemas"])
    assert re.fullmatch(rf"Found .* in {len(with_problems)} of 300 schemas \({ok} ok, \d+ rejected\)\.", lines[-1])
    assert len(lines) < 3 * diagnostics + 2


@pytest.mark.parametrize(
    "rules, path, is_dir, hit",
    [
        ("build", "build", True, True),
        ("build", "src/build", True, True),         # no slash: any depth
        ("/build", "src/build", True, False),       # leading slash: at the .gitignore's folder only
        ("/build", "build", True, True),
        ("docs/*.json", "docs/a.json", False, True),
        ("docs/*.json", "x/docs/a.json", False, False),  # an inner slash anchors too
        ("**/gen", "a/b/gen", True, True),
        ("gen/", "gen", False, False),              # folders only
        ("gen/", "gen", True, True),
        ("*.json\n!keep.json", "keep.json", False, False),  # a later rule re-includes
        ("!keep.json\n*.json", "keep.json", False, True),   # the last match wins
        ("\\#notes.json", "#notes.json", False, True),
        ("# a comment\n\n", "a.json", False, False),
    ],
)
def test_gitignore_rules(rules: str, path: str, is_dir: bool, hit: bool) -> None:
    from schemac.cli.gitignore import ignored, parse

    assert ignored(parse(rules, ""), path, is_dir) is hit


def test_gitignore_rules_of_a_subfolder_apply_below_it_only() -> None:
    from schemac.cli.gitignore import ignored, parse

    rules = parse("/x.json\n*.tmp", "sub")
    assert ignored(rules, "sub/x.json", False) and ignored(rules, "sub/deep/a.tmp", False)
    assert not ignored(rules, "x.json", False) and not ignored(rules, "sub/deep/x.json", False)
    assert not ignored(rules, "other/a.tmp", False)
