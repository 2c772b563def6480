"""`schemac conformance` and `schemac generate`: thin wrappers, checked for their wiring."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from testkit.cli_support import REMOTE, run, write


@pytest.fixture(autouse=True)
def _isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SCHEMAC_CACHE_DIR", str(tmp_path / "cache"))


def test_conformance_runs_the_benchmark_and_writes_json(tmp_path: Path) -> None:
    write(tmp_path / "suite.json", [{
        "description": "max", "schema": {"type": "integer", "maximum": 3},
        "tests": [{"description": "in", "data": 2, "valid": True}, {"description": "out", "data": 5, "valid": False}],
    }])
    result = run("conformance", "suite.json", "-j", "1", "--json", "figures.json")
    assert result.exit_code == 0, result.output
    assert "invalidation errors" in result.stdout
    figures = json.loads((tmp_path / "figures.json").read_text())
    assert figures["jobs"] == 1 and figures["upgrade_drafts"] is False
    assert figures["key_order"] == "schema"
    assert run("conformance", "suite.json", "-j", "1", "--key-order", "any", "--json", "free.json").exit_code == 0
    assert json.loads((tmp_path / "free.json").read_text())["key_order"] == "any"
    assert run("conformance", "suite.json", "--tokenizer", "nope").exit_code == 2


class _Fake:
    """Stands in for schemac.runtime.hf.generate: records its call, returns a canned result."""

    def __init__(self, status: str, value: Any) -> None:
        self.calls: list[tuple[Any, ...]] = []
        self.status, self.value = status, value

    def __call__(self, model_dir: str, schema: Any, prompt: str, max_new_tokens: int) -> Any:
        from schemac.api import Outcome
        from schemac.runtime.hf import Generation

        self.calls.append((model_dir, schema, prompt, max_new_tokens))
        return Generation(text=json.dumps(self.value), tokens=[], outcome=Outcome(self.status, "", self.value))


def test_generate_passes_its_arguments_and_prints_the_valid_answer(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import schemac.runtime.hf as hf

    fake = _Fake("ok", {"a": 1})
    monkeypatch.setattr(hf, "generate", fake)
    (tmp_path / "model").mkdir()
    write(tmp_path / "s.yaml", "type: object\n")
    result = run("generate", "--model", "model", "--schema", "s.yaml", "--prompt", "hi", "--max-new-tokens", "9")
    assert result.exit_code == 0 and json.loads(result.stdout) == {"a": 1}
    ((model_dir, artifact, prompt, max_new_tokens),) = fake.calls
    assert (model_dir, artifact.schema, prompt, max_new_tokens) == ("model", {"type": "object"}, "hi", 9)
    monkeypatch.setattr(hf, "generate", _Fake("length", None))
    cut = run("generate", "--model", "model", "--schema", "s.yaml", "--prompt", "hi")
    assert cut.exit_code == 1 and cut.stdout == "" and "length" in cut.stderr


def test_generate_reports_a_rejected_schema_with_its_location(tmp_path: Path) -> None:
    (tmp_path / "model").mkdir()
    write(tmp_path / "bad.json", REMOTE)
    result = run("generate", "--model", "model", "--schema", "bad.json", "--prompt", "hi")
    assert result.exit_code == 1 and result.stdout.startswith("bad.json:5:7: error[remote-ref] ")


def _without(monkeypatch: pytest.MonkeyPatch, *modules: str) -> None:
    """Make the CLI's dependency check see `modules` as not installed."""
    import importlib.util

    import schemac.cli.extras as extras

    real = importlib.util.find_spec
    monkeypatch.setattr(extras, "find_spec", lambda name, *a: None if name in modules else real(name, *a))


def test_generate_errors_are_sentences_not_tracebacks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "model").mkdir()
    write(tmp_path / "s.json", {"type": "object"})
    for prompt in ("", "   "):
        empty = run("generate", "--model", "model", "--schema", "s.json", "--prompt", prompt)
        assert empty.exit_code == 2 and "Invalid value for '--prompt'" in empty.stderr
    missing = run("generate", "--model", "model", "--schema", "s.json")
    assert missing.exit_code == 2 and "Missing option '--prompt'" in missing.stderr
    _without(monkeypatch, "torch")
    no_torch = run("generate", "--model", "model", "--schema", "s.json", "--prompt", "hi")
    assert no_torch.exit_code == 2 and "Traceback" not in no_torch.output
    assert no_torch.stderr == "Error: schemac generate needs torch, which is not installed: pip install torch\n"
    _without(monkeypatch)
    not_a_model = run("generate", "--model", "model", "--schema", "s.json", "--prompt", "hi")
    assert not_a_model.exit_code == 2 and "--model model: cannot load the model" in not_a_model.stderr


def test_conformance_without_its_extras_is_a_sentence(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path / "suite.json", [])
    _without(monkeypatch, "mistral_common")
    result = run("conformance", "suite.json")
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert result.stderr == ("Error: schemac conformance needs mistral-common, which is not installed: "
                             "pip install mistral-common\n")


def test_conformance_outside_a_checkout_says_where_it_lives(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import schemac.cli.bench as bench

    def absent(name: str) -> None:
        raise ModuleNotFoundError(f"No module named {name!r}", name="benchmarks")

    monkeypatch.setattr(bench.importlib, "import_module", absent)
    monkeypatch.setattr(bench, "_CHECKOUT", tmp_path)  # no benchmarks/ beside the package
    write(tmp_path / "suite.json", [])
    result = run("conformance", "suite.json")
    assert result.exit_code == 2 and "runs from a source checkout of schemac" in result.stderr
