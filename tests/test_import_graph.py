"""Module shape: no import circles among schemac, schemac.runtime and schemac.cli modules, the emit
backend and the lowering passes kept apart, and cheap package imports.

The graph is read from the source (module-level imports, `TYPE_CHECKING` blocks left out: they
never run), so a circle is caught before anything imports it in an unlucky order.
"""
from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: source folder -> package name (pyproject.toml's package-dir)
PACKAGES = {"schemac": "schemac", "runtime": "schemac.runtime", "cli": "schemac.cli"}


def _modules() -> dict[str, Path]:
    out = {}
    for folder, package in PACKAGES.items():
        for path in (ROOT / folder).rglob("*.py"):
            parts = [p for p in path.relative_to(ROOT / folder).with_suffix("").parts if p != "__init__"]
            out[".".join([package, *parts])] = path
    return out


MODULES = _modules()


def _type_checking(node: ast.stmt) -> bool:
    return isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)


def _imports(name: str, path: Path, top_only: bool) -> set[str]:
    """The schemac modules `name` imports (at module level only when `top_only`)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    if top_only:
        nodes: list[ast.AST] = []
        stack: list[ast.AST] = [s for s in tree.body if not _type_checking(s)]
        while stack:  # module-level statements, through try/if blocks but not into functions or classes
            node = stack.pop()
            nodes.append(node)
            if isinstance(node, (ast.If, ast.Try, ast.With)):
                stack.extend(s for s in ast.iter_child_nodes(node) if isinstance(s, ast.stmt) and not _type_checking(s))
    else:
        nodes = list(ast.walk(tree))
    found: set[str] = set()
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    for node in nodes:
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package
                for _ in range(node.level - 1):
                    anchor = anchor.rsplit(".", 1)[0]
                base = anchor + ("." + base if base else "")
            for a in node.names:
                found.add(f"{base}.{a.name}" if f"{base}.{a.name}" in MODULES else base)
    return {f for f in found if f in MODULES and f != name}


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
    edges = {name: _imports(name, path, top_only=True) for name, path in MODULES.items()}
    assert _cycles(edges) == []


def test_emit_and_lowering_kept_apart() -> None:
    """Passes never import the emitter (the marker lives in `schemac.lower.support.marks`); the emitter
    never imports tool envelopes (they build on it); nobody uses emit's private names."""
    for name, path in MODULES.items():
        deps = _imports(name, path, top_only=False)
        if name.startswith("schemac.lower"):
            assert not any(d.startswith("schemac.emit") for d in deps), name
        if name.startswith("schemac.emit"):
            assert not any(d.startswith("schemac.tools") for d in deps), name
        if not name.startswith("schemac.emit"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("schemac.emit"):
                    assert not any(a.name.startswith("_") for a in node.names), name


def test_package_imports_stay_cheap() -> None:
    code = ("import sys, schemac, schemac.runtime, schemac.cli.main; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('llguidance', 'torch', 'triton')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.strip() == "[]", out.stdout
