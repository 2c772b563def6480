"""The one-command test set-up holds: every third-party import is declared, and CI runs the README's line.

A brand-new venv has only what pyproject.toml and tests/requirements-no-deps.txt name, so an
import of anything else passes here only by luck (`.ci/run` proves it for real in a fresh venv;
this test names the culprit in a second).
"""
from __future__ import annotations

import ast
import re
import subprocess
import sys
import tomllib
from importlib.metadata import packages_distributions
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
#: the package, its installed sub-packages' source folders, the tests and their shared harnesses
SCANNED = ("schemac", "runtime", "cli", "tests", "testkit")


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def declared() -> set[str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    reqs = list(project["dependencies"]) + [r for extra in project["optional-dependencies"].values() for r in extra]
    reqs += [line for line in (ROOT / "tests" / "requirements-no-deps.txt").read_text().splitlines()
             if line.strip() and not line.startswith("#")]
    return {_norm(re.split(r"[<>=!~;\[ ]", r.strip(), maxsplit=1)[0]) for r in reqs}


#: handlers that make an import inside their `try` an optional probe (the code works without it)
_PROBES = {"ImportError", "ModuleNotFoundError", "Exception"}


def _probed(tree: ast.AST) -> set[int]:
    """Ids of the nodes inside a `try` whose handlers catch a failed import."""
    out: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Try) and any(
                h.type is None or (isinstance(h.type, ast.Name) and h.type.id in _PROBES) for h in node.handlers):
            out.update(id(n) for b in node.body for n in ast.walk(b))
    return out


def _imports(path: Path) -> set[str]:
    """Absolute imports of one file, as dotted module names, bar optional probes (`_probed`)."""
    out: set[str] = set()
    tree = ast.parse(path.read_text(encoding="utf-8"))
    probed = _probed(tree)
    for node in ast.walk(tree):
        if id(node) in probed:
            continue
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            out.add(node.module)
    return out


def _test_run_files() -> list[Path]:
    """The scanned folders' files, plus the benchmarks modules the tests import (transitively)."""
    files = [p for top in SCANNED for p in sorted((ROOT / top).rglob("*.py"))]
    todo = [m for p in files for m in _imports(p) if m.startswith("benchmarks")]
    seen: set[Path] = set()
    while todo:
        parts = todo.pop().split(".")
        for n in range(len(parts), 0, -1):
            base = ROOT.joinpath(*parts[:n])
            for candidate in (base.with_suffix(".py"), base / "__init__.py"):
                if candidate.is_file() and candidate not in seen:
                    seen.add(candidate)
                    todo += [m for m in _imports(candidate) if m.startswith("benchmarks")]
    return files + sorted(seen)


def test_every_third_party_import_is_declared() -> None:
    local = {"schemac", "benchmarks", "tests", "testkit"} | {p.stem for p in (ROOT / "tests").rglob("*.py")}
    dists = packages_distributions()
    wanted = declared()
    missing: dict[str, str] = {}
    for path in _test_run_files():
        for module in _imports(path):
            top = module.split(".")[0]
            if top in sys.stdlib_module_names or top in local or top.startswith("_"):
                continue
            names = {_norm(d) for d in dists.get(top, [top])}
            if not names & wanted:
                missing.setdefault(top, str(path.relative_to(ROOT)))
    assert not missing, f"imported but declared neither in pyproject.toml nor tests/requirements-no-deps.txt: {missing}"


def test_the_formats_the_oracle_borrows_from_jsonschema_are_installed() -> None:
    """jsonschema checks some formats only with optional packages (json-pointer: jsonpointer);
    the cross-check oracle borrows them, so they are dependencies though nothing imports them."""
    from jsonschema import FormatChecker

    from schemac.verify.oracle import INDEPENDENT_FORMATS

    assert set(INDEPENDENT_FORMATS) <= set(FormatChecker().checkers)
    assert "jsonpointer" in declared()


def test_the_scan_sees_an_undeclared_import(tmp_path: Path) -> None:
    sample = tmp_path / "x.py"
    sample.write_text("import json\nimport numpy.linalg\nfrom yaml import safe_load\nfrom . import sibling\n")
    assert _imports(sample) == {"json", "numpy.linalg", "yaml"}
    assert "sglang" in declared() and "pyyaml" in declared() and "left-pad" not in declared()


def test_ci_runs_the_readme_test_command_in_a_fresh_venv() -> None:
    """`.ci/run` takes the Quick start's test line itself and runs it in a venv of its own."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    quick = readme[readme.index("## Quick start"):readme.index("## CLI")]
    (line,) = [s for s in quick.splitlines() if s.startswith("pip install -e '.[test]'")]
    assert line.endswith("&& python3 -m pytest") and "--no-deps -r tests/requirements-no-deps.txt" in line
    script = (ROOT / ".ci" / "run").read_text()
    grep = re.search(r'TEST_COMMAND="\$\((grep [^)]*)\)"', script)
    assert grep is not None
    found = subprocess.run(["bash", "-c", grep.group(1)], cwd=ROOT, capture_output=True, text=True, check=True)
    assert found.stdout.strip() == line
    assert re.search(r'python3 -m venv "\$VENV"\n', script) and "system-site-packages" not in script
    assert 'bash -c "$TEST_COMMAND"' in script and '"$rc" -eq 5' in script
