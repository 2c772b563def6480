"""Module shape: the layers of schemac, read from the source, so a wrong edge fails here before
anything imports it in an unlucky order.

Every import counts: module-level, lazy (inside a function) and type-only (`TYPE_CHECKING`)
alike, since each one states a dependency. Each rule names the offending edge as
`importer:line -> imported`.
"""
from __future__ import annotations

import ast
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
#: source folder -> package name (pyproject.toml's package-dir)
PACKAGES = {"schemac": "schemac", "runtime": "schemac.runtime", "cli": "schemac.cli"}


def _modules(packages: dict[str, str]) -> dict[str, Path]:
    out = {}
    for folder, package in packages.items():
        for path in (ROOT / folder).rglob("*.py"):
            parts = [p for p in path.relative_to(ROOT / folder).with_suffix("").parts if p != "__init__"]
            out[".".join([package, *parts])] = path
    return out


MODULES = _modules(PACKAGES)
BENCHMARKS = _modules({"benchmarks": "benchmarks"})


@dataclass(frozen=True)
class Edge:
    """`importer` imports `target` (a module) at `line`, naming `name` from it (None: the module
    itself, `import target` or `from package import target`, bound as `alias`)."""

    importer: str
    line: int
    target: str
    name: str | None
    alias: str | None = None

    def __str__(self) -> str:
        return f"{self.importer}:{self.line} -> {self.target}" + (f".{self.name}" if self.name else "")


def _package(name: str, path: Path) -> str:
    return name if path.name == "__init__.py" else name.rsplit(".", 1)[0]


def _edges(name: str, path: Path, known: set[str]) -> list[Edge]:
    """Every import in the file, lazy and type-only ones included, resolved to a module of `known`
    (a name imported from a package's `__init__` is an edge to the package)."""
    out: list[Edge] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out += [Edge(name, node.lineno, a.name, None, a.asname or a.name) for a in node.names if a.name in known]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = _package(name, path)
                for _ in range(node.level - 1):
                    anchor = anchor.rsplit(".", 1)[0]
                base = anchor + ("." + base if base else "")
            for a in node.names:
                if f"{base}.{a.name}" in known:
                    out.append(Edge(name, node.lineno, f"{base}.{a.name}", None, a.asname or a.name))
                elif base in known:
                    out.append(Edge(name, node.lineno, base, a.name))
    return [e for e in out if e.target != name]


EDGES = {name: _edges(name, path, set(MODULES)) for name, path in MODULES.items()}


def _under(name: str, package: str) -> bool:
    return name == package or name.startswith(package + ".")


def _violations(importers: str, forbidden: tuple[str, ...], allowed: tuple[str, ...] = ()) -> list[str]:
    return [str(e) for name, edges in EDGES.items() if _under(name, importers) and not any(_under(name, a) for a in allowed)
            for e in edges if any(_under(e.target, f) for f in forbidden)]


def _cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (iterative Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []
    for root in edges:
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on.add(root)
        while work:
            v, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on.add(child)
                    work.append((child, iter(sorted(edges[child]))))
                elif child in on:
                    low[v] = min(low[v], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


def test_cycle_finder_finds_a_cycle() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycles() -> None:
    """Not even through a lazy or a type-only import: each is a dependency that a refactoring
    can turn into a module-level one."""
    cycles = _cycles({name: {e.target for e in edges} for name, edges in EDGES.items()})
    found = [" ".join(str(e) for m in c for e in EDGES[m] if e.target in c) for c in cycles]
    assert not found, "import cycles:\n" + "\n".join(found)


def test_core_never_imports_the_runtime_or_the_cli() -> None:
    """The compiler (everything under schemac but schemac.runtime and schemac.cli) runs without
    either: the runtime and the CLI build on it, never the other way."""
    found = _violations("schemac", ("schemac.runtime", "schemac.cli"), allowed=("schemac.runtime", "schemac.cli"))
    assert not found, "core imports the runtime or the CLI:\n" + "\n".join(found)


def test_tools_never_import_the_runtime() -> None:
    """Tool envelopes are compiled without an engine; what they share with the runtime
    (request errors, outcomes, format readers) is the core's `schemac.api`."""
    found = _violations("schemac.tools", ("schemac.runtime",))
    assert not found, "schemac.tools imports the runtime:\n" + "\n".join(found)


def test_emit_internals_stay_inside_emit() -> None:
    """Outside schemac.emit, only its public surface (`schemac.emit`) is imported."""
    found = [str(e) for name, edges in EDGES.items() if not _under(name, "schemac.emit")
             for e in edges if e.target.startswith("schemac.emit.")]
    assert not found, "emit internals imported from outside emit:\n" + "\n".join(found)


def test_lowering_never_imports_emit_and_emit_never_imports_tools() -> None:
    """Data flows lower -> emit -> tools: passes never import the emitter (the markers it
    reads live in `schemac.lower.support.marks`), and the emitter never imports tool envelopes
    (they build on it)."""
    found = _violations("schemac.lower", ("schemac.emit",)) + _violations("schemac.emit", ("schemac.tools",))
    assert not found, "wrong-way edges:\n" + "\n".join(found)


def test_no_private_name_crosses_modules() -> None:
    """A name another module imports is part of its module's interface, so it has no leading
    underscore, whether the importer is in another package or the same one (`from m import _x`,
    or `m._x` on an imported module `m`)."""
    found = [str(e) for edges in EDGES.values() for e in edges
             if e.name is not None and e.name.startswith("_") and not e.name.startswith("__")]
    for name, path in MODULES.items():
        aliases = {e.alias: e.target for e in EDGES[name] if e.alias is not None}
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__"):
                target = aliases.get(ast.unparse(node.value))
                if target is not None:
                    found.append(f"{name}:{node.lineno} -> {target}.{node.attr}")
    assert not found, "private names used across modules:\n" + "\n".join(found)


def test_benchmarks_never_import_tests() -> None:
    """Benchmarks run from an installed checkout; a helper both use belongs to the library
    (or to benchmarks/), not to the test suite."""
    helpers = {p.stem for p in (ROOT / "tests").rglob("*.py")} - {"__init__", "conftest"}
    found = []
    for name, path in BENCHMARKS.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else []
            found += [f"{name}:{node.lineno} -> {n}" for n in names
                      if _under(n, "tests") or n.split(".")[0] in helpers]
    assert not found, "benchmarks import tests:\n" + "\n".join(found)


def test_package_imports_stay_cheap() -> None:
    code = ("import sys, schemac, schemac.runtime, schemac.cli.main; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('llguidance', 'torch', 'triton')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.strip() == "[]", out.stdout
