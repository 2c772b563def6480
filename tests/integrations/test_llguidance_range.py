"""The supported llguidance range: one pin everywhere, recorded in artifacts, enforced at load.

CI also runs this file in a second environment with the oldest supported llguidance
(`SCHEMAC_EXPECT_LLGUIDANCE` names it there, so the run cannot silently use another release).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from packaging.specifiers import SpecifierSet

import schemac
from schemac import artifact as artifact_module
from schemac.artifact import Artifact, ArtifactError, canonical_json, sha256_text
from schemac.llguidance_range import (
    BELOW,
    MINIMUM,
    SPECIFIER,
    LLGuidanceVersionError,
    check_runtime,
    installed_version,
    is_supported,
    parse,
)
from schemac.runtime import AdmissionError, load_artifact

ROOT = Path(__file__).resolve().parents[2]
#: llguidance releases on PyPI from 1.6.0 to 1.9.1 (the range's neighbourhood)
RELEASES = ["1.6.0", "1.6.1", "1.7.0", "1.7.2", "1.7.3", "1.7.5", "1.7.6", "1.8.0", "1.9.0", "1.9.1"]
VLLM_0_33 = SpecifierSet(">=1.7.0,<1.8.0")  # vllm-0.33.0 METADATA: Requires-Dist
SGLANG_0_5_23 = SpecifierSet(">=1.7.6,<2.0.0")  # sglang-0.5.23 METADATA: Requires-Dist


def test_pyproject_pins_the_same_range() -> None:
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    (pin,) = [d for d in deps if d.startswith("llguidance")]
    assert SpecifierSet(pin[len("llguidance"):]) == SpecifierSet(SPECIFIER)


def test_specifier_bounds_match_the_tuples() -> None:
    ours = SpecifierSet(SPECIFIER)
    for release in RELEASES + ["1.7.1", "2.0.0", "1.99.0"]:
        assert (release in ours) == is_supported(release) == (MINIMUM <= parse(release) < BELOW), release


def test_the_range_resolves_with_vllm_and_sglang_pins() -> None:
    ours = SpecifierSet(SPECIFIER)
    assert [r for r in RELEASES if r in ours and r in VLLM_0_33] == ["1.7.2", "1.7.3", "1.7.5", "1.7.6"]
    assert [r for r in RELEASES if r in ours and r in VLLM_0_33 and r in SGLANG_0_5_23] == ["1.7.6"]


@pytest.mark.parametrize("text, expected", [
    ("1.7.6", (1, 7, 6)), ("1.9.1+local", (1, 9, 1)), ("1.10.0rc1", (1, 10, 0)),
    ("1.7", None), ("", None), (None, None), (171, None), ("v1.7.6", None),
])
def test_parse(text: object, expected: object) -> None:
    assert parse(text) == expected


def test_installed_release_is_supported_and_the_expected_one() -> None:
    assert is_supported(installed_version())
    expected = os.environ.get("SCHEMAC_EXPECT_LLGUIDANCE")
    if expected:
        assert installed_version() == expected
    import llguidance

    assert getattr(llguidance, "__version__", installed_version()) == installed_version()


@pytest.fixture(scope="module")
def art() -> Artifact:
    return schemac.compile({"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]})


def _as_version(art: Artifact, version: str) -> dict:
    body = {k: v for k, v in art.to_json().items() if k != "checksum"}
    body["llguidance_version"] = version
    body["checksum"] = sha256_text(canonical_json(body))
    return json.loads(json.dumps(body))


def test_artifact_records_the_installed_release(art: Artifact) -> None:
    assert art.llguidance_version == installed_version() == artifact_module.LLGUIDANCE_VERSION
    assert load_artifact(art.dumps()).key == art.key


def test_runtime_refuses_an_artifact_of_another_release(art: Artifact) -> None:
    other = "1.7.6" if installed_version() != "1.7.6" else "1.9.1"
    data = _as_version(art, other)
    assert Artifact.from_json(data).llguidance_version == other  # readable: validation needs no grammar
    with pytest.raises(AdmissionError) as exc:
        load_artifact(json.dumps(data))
    assert exc.value.code == "artifact-version"
    message = str(exc.value)
    assert other in message and installed_version() in message and "recompile" in message
    with pytest.raises(LLGuidanceVersionError):
        check_runtime(other)


@pytest.mark.parametrize("version", ["1.7.0", "0.1", "2.0.0", "", None])
def test_unsupported_releases_are_refused_when_read(art: Artifact, version: object) -> None:
    with pytest.raises(ArtifactError, match="supported llguidance"):
        Artifact.from_json(_as_version(art, version))  # type: ignore[arg-type]
    with pytest.raises(AdmissionError) as exc:
        load_artifact(json.dumps(_as_version(art, version)))  # type: ignore[arg-type]
    assert exc.value.code == "artifact-invalid"


def test_the_cache_key_depends_on_the_llguidance_release(art: Artifact, monkeypatch: pytest.MonkeyPatch) -> None:
    from schemac import pipeline

    options = dict(art.options)
    key = pipeline.cache_key({"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]}, options)
    assert key == art.key
    monkeypatch.setattr(pipeline, "LLGUIDANCE_VERSION", "0.0.0-other")
    assert pipeline.cache_key({"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]},
                              options) != key


def test_reading_the_release_loads_no_native_library() -> None:
    code = ("import sys, schemac.artifact as a; v = a.LLGUIDANCE_VERSION; "
            "assert 'llguidance' not in sys.modules, 'llguidance imported'; print(v)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.strip() == installed_version()
