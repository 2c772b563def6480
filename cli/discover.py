"""Turn command-line paths into the list of schema files to compile.

Directories are walked recursively (sorted, hidden folders such as .git skipped) for `*.json`,
plus `*.yaml`/`*.yml` when PyYAML is installed; the configuration's include/exclude globs then
filter both walked and explicitly named files, so a pre-commit hook that passes every JSON file
of a repository checks only the schemas.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from schemac.config import Config

JSON_SUFFIXES = (".json",)
YAML_SUFFIXES = (".yaml", ".yml")


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


def _walk(root: Path, suffixes: tuple[str, ...]) -> list[Path]:
    out: list[Path] = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        out.extend(Path(folder) / f for f in sorted(files) if f.lower().endswith(suffixes))
    return out


def discover(paths: tuple[str, ...], config: Config, yaml_ok: bool) -> tuple[list[Found], int]:
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
            candidates = _walk(path, suffixes)
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
