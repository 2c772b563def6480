"""Turn command-line paths into the list of schema files to compile.

Directories are walked recursively (sorted) for `*.json`, plus `*.yaml`/`*.yml` when PyYAML is
installed, skipping hidden folders (.git, .venv), dependency folders (`node_modules`, `venv`,
`site-packages`, ...) and what the `.gitignore` files ignore; the configuration's
include/exclude globs then filter both walked and explicitly named files, so a pre-commit hook
that passes every JSON file of a repository checks only the schemas.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from schemac.cli.gitignore import Rule, ignored, read_rules
from schemac.config import Config

JSON_SUFFIXES = (".json",)
YAML_SUFFIXES = (".yaml", ".yml")
#: folders that hold other people's files, never the project's schemas (hidden ones are skipped too)
SKIPPED_FOLDERS = frozenset({"node_modules", "bower_components", "venv", "site-packages", "__pypackages__",
                             "__pycache__"})


class DiscoveryError(ValueError):
    """A path that does not exist, or a YAML file without PyYAML installed."""


@dataclass(frozen=True)
class Found:
    display: str
    path: Path | None  # None for stdin


def _display(path: Path) -> str:
    try:
        return path.resolve().relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return path.as_posix()


def _repository_root(folder: Path) -> Path | None:
    for up in [folder, *folder.parents]:
        if (up / ".git").exists():
            return up
    return None


def _walk(root: Path, suffixes: tuple[str, ...], gitignore: bool) -> list[Path]:
    """Schema-looking files under `root`, in a stable order, with the skipped folders pruned.

    Paths are matched against .gitignore rules relative to the repository root (the folder
    holding `.git`, else `root`), whose .gitignore files down to `root` apply too.
    """
    here = root.resolve()
    top = (_repository_root(here) or here) if gitignore else here
    start = here.relative_to(top).as_posix()
    start = "" if start == "." else start
    rules: list[Rule] = []
    if gitignore:
        folder, rel = top, ""
        rules += read_rules(folder, rel)
        for part in Path(start).parts:
            folder, rel = folder / part, f"{rel}/{part}" if rel else part
            rules += read_rules(folder, rel)
    rules_at: dict[str, list[Rule]] = {start: rules}
    out: list[Path] = []
    for folder, dirs, files in os.walk(root):
        below = Path(folder).relative_to(root).as_posix()
        rel = "/".join(p for p in (start, "" if below == "." else below) if p)
        here_rules = rules_at.pop(rel, [])

        def keep(name: str, is_dir: bool) -> bool:
            return not ignored(here_rules, f"{rel}/{name}" if rel else name, is_dir)

        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in SKIPPED_FOLDERS and keep(d, True))
        for d in dirs:
            child = f"{rel}/{d}" if rel else d
            rules_at[child] = here_rules + (read_rules(Path(folder) / d, child) if gitignore else [])
        out.extend(Path(folder) / f for f in sorted(files) if f.lower().endswith(suffixes) and keep(f, False))
    return out


def discover(paths: tuple[str, ...], config: Config, yaml_ok: bool, gitignore: bool = True) -> tuple[list[Found], int]:
    """The files to compile, in a stable order, and how many the configuration left out."""
    suffixes = JSON_SUFFIXES + (YAML_SUFFIXES if yaml_ok else ())
    found: list[Found] = []
    seen: set[Path] = set()
    skipped = 0
    for raw in paths:
        if raw == "-":
            found.append(Found("<stdin>", None))
            continue
        path = Path(raw)
        if path.is_dir():
            candidates = _walk(path, suffixes, gitignore)
        elif path.is_file():
            if path.suffix.lower() in YAML_SUFFIXES and not yaml_ok:
                raise DiscoveryError(f"{raw}: YAML schemas need PyYAML (pip install 'schemac[yaml]')")
            candidates = [path]
        else:
            raise DiscoveryError(f"{raw}: no such file or directory")
        for candidate in candidates:
            key = candidate.resolve()
            if key in seen:
                continue
            seen.add(key)
            if config.selects(candidate):
                found.append(Found(_display(candidate), candidate))
            else:
                skipped += 1
    return found, skipped


def artifact_names(found: list[Found], out_dir: Path) -> dict[int, Path]:
    """Output path per input index: `<stem>.schemac.json`, collision-safe.

    Files in one folder land flat in `out_dir`; inputs from several folders keep their folder
    layout below the folders' common ancestor, and two inputs of one folder with the same stem
    (`a.json`, `a.yaml`) keep their suffix (`a.json.schemac.json`), so no artifact overwrites another.
    """
    files = [(i, f.path.resolve()) for i, f in enumerate(found) if f.path is not None]
    parents = {p.parent for _, p in files}
    common = Path(os.path.commonpath([str(p) for p in parents])) if parents else Path.cwd()
    names: dict[int, Path] = {}
    by_target: dict[Path, list[int]] = {}
    for i, path in files:
        rel_parent = path.parent.relative_to(common) if len(parents) > 1 else Path()
        target = out_dir / rel_parent / f"{path.stem}.schemac.json"
        names[i] = target
        by_target.setdefault(target, []).append(i)
    for target, indices in by_target.items():
        if len(indices) > 1:
            for i in indices:
                names[i] = target.parent / f"{found[i].path.name}.schemac.json"  # type: ignore[union-attr]
    for i, f in enumerate(found):
        if f.path is None:
            names[i] = out_dir / "stdin.schemac.json"
    return names
