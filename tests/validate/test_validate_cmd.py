"""Client-side final validation: `Artifact.validate` and `schemac validate` (issue 15).

The verdict must be the runtime's own (`schemac.runtime.final.finalize`), with exact numbers and
RFC 6901 pointers; "truncated" is checked against an independent oracle (llguidance's any-JSON
grammar, byte by byte) over every short text of a bounded alphabet.
"""
from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

import schemac
from schemac.validate.client import continues_to_json
from schemac.artifact import Artifact, canonical_json, sha256_text
from schemac.cli.validate_cmd import validate
from schemac.api import StructuredOutputError
from schemac.runtime.final import finalize
from schemac.validate.final import parse_answer

SCHEMA = {
    "type": "object",
    "properties": {
        "a/b~": {"type": "array", "items": {"type": "integer", "maximum": 3}},
        "x": {"type": "number", "multipleOf": 0.1},
    },
    "required": ["x"],
    "additionalProperties": False,
}


@pytest.fixture(scope="module")
def artifact() -> Artifact:
    return schemac.compile(SCHEMA)


@pytest.mark.parametrize("text, status, pointers", [
    ('{"x": 0.3}', "ok", []),  # 0.3 is a multiple of 0.1 exactly, not in doubles
    ('{"x": 0.30000000000000004}', "invalid", ["/x"]),  # ...and this double is not
    ('{"a/b~": [1, 4], "x": 1}', "invalid", ["/a~1b~0/1"]),
    ('{"a/b~": [1, 2, 7, 9], "x": 1e400}', "invalid", ["/a~1b~0/2", "/a~1b~0/3"]),
    ('{"x": 1, "x": 1}', "invalid", [""]),  # duplicate keys are no strict JSON
    ('{"x": NaN}', "invalid", [""]),
    ('{"a/b~": [1, 2], "x": 0.', "truncated", [""]),
    ('{"a/b~": [1', "truncated", [""]),
    ('', "invalid", [""]),
])
def test_verdicts_and_pointers(artifact: Artifact, text: str, status: str, pointers: list[str]) -> None:
    verdict = artifact.validate(text)
    assert verdict.status == status
    assert [v.pointer for v in verdict.violations] == pointers
    assert verdict.ok == (status == "ok")


def test_ok_value_keeps_exact_numbers(artifact: Artifact) -> None:
    verdict = artifact.validate('{"x": 12345678901234567890.1}')
    assert verdict.ok and str(verdict.value["x"]) == "12345678901234567890.1"


@pytest.mark.parametrize("text", [
    '{"x": 0.3}', '{"x": 0.30000000000000004}', '{"a/b~": [1, 4], "x": 1}', '{"x": ',
    '[1]', '{"x": 1} x', '"\\ud800"', '{"x": 1e-400}',
])
def test_same_verdict_as_the_runtime(artifact: Artifact, text: str) -> None:
    """`validate` says ok exactly when the runtime's `finalize` returns a success."""
    try:
        finalize(artifact.key, artifact.schema, text, "stop")
        runtime_ok = True
    except StructuredOutputError:
        runtime_ok = False
    assert artifact.validate(text).ok == runtime_ok
    assert finalize(artifact.key, artifact.schema, text, "length").status == "length"
    assert artifact.validate(text, "length").status == "truncated"


def test_every_proper_prefix_of_a_valid_answer_is_truncated(artifact: Artifact) -> None:
    text = '{"a/b~": [1, -2, 3], "x": -0.5e1, "\\u00e9\\ud83d\\ude00": null}'
    for end in range(1, len(text)):
        prefix = text[:end]
        try:
            parse_answer(prefix)
            continue  # a whole value already ("{...}" cannot be, numbers can)
        except ValueError:
            pass
        assert continues_to_json(prefix), prefix


def _any_json_prefix_oracle():  # type: ignore[no-untyped-def]
    import llguidance

    tokenizer = llguidance.LLTokenizer("byte")
    grammar = llguidance.LLMatcher.grammar_from_json_schema("{}", defaults={"whitespace_flexible": True})
    base = llguidance.LLMatcher(tokenizer, grammar, log_level=0)

    def is_prefix(text: str) -> bool:
        data = list(text.lstrip(" \t\n\r").encode())  # json.loads also takes leading whitespace
        return base.deep_copy().try_consume_tokens(data) == len(data)

    return is_prefix


def test_truncation_matches_an_independent_oracle_exhaustively() -> None:
    """Every text of up to 3 characters over a JSON-ish alphabet that `parse_answer` refuses:
    'truncated' iff llguidance's any-JSON grammar takes all of it (and it is not blank)."""
    is_prefix = _any_json_prefix_oracle()
    alphabet = '{}[]",:0-.e1tn \\'
    checked = 0
    for size in range(1, 4):
        for chars in itertools.product(alphabet, repeat=size):
            text = "".join(chars)
            try:
                parse_answer(text)
                continue
            except ValueError:
                pass
            checked += 1
            assert continues_to_json(text) == (text.strip() != "" and is_prefix(text)), text
    assert checked > 3000


@pytest.mark.parametrize("text, expected", [
    ('"\\ud800', True),  # a high surrogate escape: `\udc00` pairs it
    ('"\\udc00', False),  # a lone low surrogate: no continuation repairs it
    ('"\\ud8', True),
    ('"\\ud83d\\', True),  # an open escape after a high half: `udc00` ends it
    ('"\\ud83d\\ud', True),
    ('"\\ud83d\\uda', False),  # no low half starts with `da`
    ('{"a": 1, "a": ', False),  # duplicate key: never strict JSON
    ('{"a": 1, "a', True),  # "ab" is another key
    ('{"": 0, ', True),
    ('"\\\\ud800', True),  # an escaped backslash, then plain text
    ('01', False),
    ('[1,]', False),
    (' ', False),
])
def test_truncation_edge_cases(text: str, expected: bool) -> None:
    assert continues_to_json(text) is expected


# -- the command ---------------------------------------------------------------------------
def _files(tmp_path: Path, answer: str) -> tuple[str, str]:
    schema = tmp_path / "schema.json"
    schema.write_text(json.dumps(SCHEMA), encoding="utf-8")
    answer_file = tmp_path / "answer.json"
    answer_file.write_text(answer, encoding="utf-8")
    return str(schema), str(answer_file)


@pytest.mark.parametrize("answer, code, first_line", [
    ('{"x": 0.3}\n', 0, "ok"),
    ('{"a/b~": [4], "x": 1}', 1, "invalid (answer-invalid)"),
    ('{"x": 0.', 1, "truncated (answer-truncated)"),
    ('hello', 1, "invalid (answer-not-json)"),
])
def test_command_exit_codes(tmp_path: Path, answer: str, code: int, first_line: str) -> None:
    schema, answer_file = _files(tmp_path, answer)
    result = CliRunner().invoke(validate, [schema, answer_file])
    assert result.exit_code == code, result.output
    assert result.output.splitlines()[0] == first_line
    if code == 1 and "answer-invalid" in first_line:
        assert "/a~1b~0/0: 4 is greater than the maximum of 3" in result.output


def test_command_reads_artifacts_stdin_and_prints_json(tmp_path: Path, artifact: Artifact) -> None:
    path = tmp_path / "a.schemac.json"
    artifact.save(path)
    result = CliRunner().invoke(validate, [str(path), "-", "--json"], input='{"a/b~": [9], "x": 1}')
    assert result.exit_code == 1
    report = json.loads(result.output)
    assert report["status"] == "invalid" and report["violations"][0]["pointer"] == "/a~1b~0/0"
    result = CliRunner().invoke(validate, [str(path), "--finish-reason", "length"], input='{"x": 1}')
    assert (result.exit_code, result.output.split()[0]) == (1, "truncated")


def test_command_usage_errors(tmp_path: Path, artifact: Artifact) -> None:
    schema, answer_file = _files(tmp_path, '{"x": 1}')
    runner = CliRunner()
    assert runner.invoke(validate, [schema, str(tmp_path / "missing.json")]).exit_code == 2
    assert runner.invoke(validate, ["-", "-"], input="{}").exit_code == 2
    (tmp_path / "bad.json").write_text('{"type": "string", "pattern": "(a)\\\\1"}', encoding="utf-8")
    result = runner.invoke(validate, [str(tmp_path / "bad.json"), answer_file])
    assert result.exit_code == 2 and "does not compile" in result.output
    edited = artifact.to_json()
    edited["schema"] = {"type": "string"}  # the checksum no longer matches
    (tmp_path / "edited.json").write_text(json.dumps(edited), encoding="utf-8")
    result = runner.invoke(validate, [str(tmp_path / "edited.json"), answer_file])
    assert result.exit_code == 2 and "checksum" in result.output
    (tmp_path / "notjson.json").write_text("{", encoding="utf-8")
    assert runner.invoke(validate, [str(tmp_path / "notjson.json"), answer_file]).exit_code == 2


def test_artifact_of_another_supported_llguidance_still_validates(artifact: Artifact) -> None:
    """Validation needs no grammar: an artifact compiled under another llguidance release of
    the supported range is checked the same (only a runtime enforcing it refuses it)."""
    body = {k: v for k, v in artifact.to_json().items() if k != "checksum"}
    body["llguidance_version"] = "1.7.6" if artifact.llguidance_version != "1.7.6" else "1.9.1"
    body["checksum"] = sha256_text(canonical_json(body))
    other = Artifact.from_json(json.loads(json.dumps(body)))
    assert other.validate('{"x": 0.3}').ok
    assert other.validate('{"x": 0.35}').pointer == "/x"


def test_registered_in_the_schemac_group(tmp_path: Path) -> None:
    from schemac.cli.main import cli

    schema, answer_file = _files(tmp_path, '{"x": 0.3}')
    result = CliRunner().invoke(cli, ["validate", schema, answer_file])
    assert (result.exit_code, result.output) == (0, "ok\n")
