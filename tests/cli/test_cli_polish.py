"""The gate's polish: --select/--ignore, hints that say what to do, diagnostics in file order, a
size check before any work, Ctrl-C exiting 130, severities printed as words."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from testkit.cli_support import COLOR, OK, REMOTE, report, run, write


@pytest.fixture(autouse=True)
def _isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SCHEMAC_CACHE_DIR", str(tmp_path / "cache"))


UNIQUE = {"type": "array", "uniqueItems": True}  # unique-items-unbounded, found after the formats' warnings
BOTH = {"type": "object", "properties": {"a": UNIQUE, "c": {"type": "string", "format": "color"}}}


def _codes(data: dict) -> list[list[str]]:
    return [[d["code"] for d in s["diagnostics"]] for s in data["schemas"]]


def test_select_and_ignore_flags_and_configuration(tmp_path: Path) -> None:
    write(tmp_path / "both.json", BOTH)
    code, data = report("check", "both.json")
    assert code == 1 and _codes(data) == [["unique-items-unbounded", "unknown-format"]]  # in file order
    code, data = report("check", "--ignore", "unique-items-unbounded", "both.json")
    assert code == 0 and _codes(data) == [["unknown-format"]] and data["schemas"][0]["status"] == "ignored"
    code, data = report("check", "--select", "unknown-format", "both.json")
    assert code == 0 and _codes(data) == [["unknown-format"]]
    code, data = report("check", "--ignore", "unknown-format,unique-items-unbounded", "both.json")
    assert code == 0 and _codes(data) == [[]] and data["schemas"][0]["suppressed"] == 2
    (tmp_path / "schemac.toml").write_text('select = ["unique-items-unbounded"]\n')
    code, data = report("check", "both.json")
    assert code == 1 and _codes(data) == [["unique-items-unbounded"]]
    code, data = report("check", "--select", "unknown-format", "both.json")  # the flag replaces the key
    assert code == 0 and _codes(data) == [["unknown-format"]]
    (tmp_path / "schemac.toml").write_text('ignore = ["unique-items-unbounded"]\n')
    assert report("check", "both.json")[0] == 0
    assert run("compile", "both.json", "-o", "out").exit_code == 1  # no artifact for an ignored error


def test_a_file_that_is_no_schema_fails_whatever_is_selected(tmp_path: Path) -> None:
    write(tmp_path / "broken.json", '{"type": ')
    code, data = report("check", "--select", "remote-ref", "broken.json")
    assert code == 1 and _codes(data) == [["invalid-json"]]
    for flag in ("--select", "--ignore"):
        bad = run("check", flag, "no-such-code", "broken.json")
        assert bad.exit_code == 2 and "unknown code(s) no-such-code" in bad.stderr
    refused = run("check", "--ignore", "invalid-json", "broken.json")
    assert refused.exit_code == 2 and "invalid-json cannot be ignored" in refused.stderr
    (tmp_path / "schemac.toml").write_text('ignore = ["internal-error"]\n')
    assert "internal-error cannot be ignored" in run("check", "broken.json").stderr


def test_unknown_format_and_too_large_say_how_to_silence_or_enforce(tmp_path: Path) -> None:
    write(tmp_path / "warn.json", COLOR)
    write(tmp_path / "big.json", {"enum": list(range(60_000))})
    _code, data = report("check", "warn.json", "big.json")
    warn, big = (s["diagnostics"][0] for s in data["schemas"])
    assert warn["code"] == "unknown-format" and "--strict-formats" in warn["hint"] and "--ignore" in warn["hint"]
    assert big["code"] == "too-large" and "--ignore too-large" in big["hint"] and "Limits" in big["hint"]
    strict = report("check", "--strict-formats", "warn.json")[1]["schemas"][0]["diagnostics"][0]
    assert strict["hint"] == "remove it, or drop --strict-formats"  # the compiler's own hint stays


def test_diagnostics_are_sorted_by_line_within_a_file(tmp_path: Path) -> None:
    text = ('{\n  "type": "object",\n  "properties": {\n    "z": {"type": "string", "format": "color"},\n'
            '    "a": {"type": "array", "uniqueItems": true},\n    "m": {"type": "string", "format": "hue"}\n  }\n}\n')
    write(tmp_path / "order.json", text)
    _code, data = report("check", "order.json")
    lines = [(d["line"], d["code"]) for d in data["schemas"][0]["diagnostics"]]
    assert lines == [(4, "unknown-format"), (5, "unique-items-unbounded"), (6, "unknown-format")]


def test_a_huge_file_is_refused_by_its_size_before_it_is_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from schemac.budget import Limits

    huge = tmp_path / "schemas" / "huge.json"
    huge.parent.mkdir()
    with huge.open("wb") as fh:
        fh.truncate(Limits().max_schema_bytes + 1)  # sparse: no disk, and reading it would be the bug

    def no_reading(self: Path) -> bytes:
        raise AssertionError(f"{self} was read")

    monkeypatch.setattr(Path, "read_bytes", no_reading)
    for target in ("schemas/huge.json", "schemas"):
        code, data = report("check", "--no-cache", target)
        (d,) = data["schemas"][0]["diagnostics"]
        assert code == 1 and d["code"] == "too-large" and (d["line"], d["column"]) == (1, 1)
        assert d["message"] == f"schema is {Limits().max_schema_bytes + 1} bytes; the limit is {Limits().max_schema_bytes}"


def test_a_schema_that_does_not_compile_names_its_severity_as_a_word(tmp_path: Path) -> None:
    write(tmp_path / "bad.json", REMOTE)
    write(tmp_path / "answer.json", "{}")
    result = run("validate", "bad.json", "answer.json")
    assert result.exit_code == 2 and "  error remote-ref at /properties/a/$ref: " in result.stderr
    assert "Severity." not in result.stderr


def _waiting_on_stdin(pid: int) -> bool:
    return Path(f"/proc/{pid}/wchan").read_text().endswith("pipe_read")


@pytest.mark.skipif(not Path("/proc/self/wchan").exists(), reason="needs Linux /proc to see the process wait")
def test_ctrl_c_exits_130_with_one_line(tmp_path: Path) -> None:
    """A real process interrupted while it waits for its schema on stdin (SIGINT restored to its
    default in the child, as in a terminal, whatever this test runner inherited)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "schemac.cli", "check", "-"], cwd=tmp_path, stdin=subprocess.PIPE,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "SCHEMAC_CACHE_DIR": str(tmp_path / "cache")},
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        for _ in range(6000):  # a bounded wait for the read (the test asserts no duration)
            if proc.poll() is not None or _waiting_on_stdin(proc.pid):
                break
            time.sleep(0.01)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert (proc.returncode, out, err) == (130, "", "schemac: interrupted\n")
    assert json.dumps(OK)  # the schema it never got
