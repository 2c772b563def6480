"""Turn command-line paths into the list of schema files to compile, and say what was left out.

A file named on the command line is always checked (pre-commit names files this way): only an
`exclude` glob may skip it, with a note on stderr. Folders are walked recursively (sorted) for
`*.json`, `*.yaml` and `*.yml`, skipping hidden folders (.git, .venv), dependency folders
(`node_modules`, `venv`, `site-packages`, ...) and what the `.gitignore` files ignore; a walked
file is a schema when the configuration's `include` globs select it, or, without `include`, by
the pre-commit hook's rule: its path names a schema (`SCHEMA_PATH`) or its top level has a
`$schema` naming a json-schema.org dialect. So `package.json` and `.pre-commit-config.yaml` are
not taken for schemas, and every file left out is listed with its reason (`--show-files`).
"""
from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from schemac.cli.gitignore import Rule, ignored, read_rules
from schemac.config import Config

SUFFIXES = (".json", ".yaml", ".yml")
YAML_SUFFIXES = (".yaml", ".yml")
#: folders that hold other people's files, never the project's schemas (hidden ones are skipped too)
SKIPPED_FOLDERS = frozenset({"node_modules", "bower_components", "venv", "site-packages", "__pypackages__",
                             "__pycache__"})
#: the `files:` pattern of .pre-commit-hooks.yaml's schemac-check hook (a test keeps them equal)
SCHEMA_PATH = re.compile(r"(^|/)(json-?)?schemas?/.*\.(json|ya?ml)$|\.schema\.(json|ya?ml)$")
#: how much of a file the `$schema` sniff reads when it is too large to parse
_SNIFF_BYTES = 64 * 1024
_DIALECT = r"https?://(?:www\.)?json-schema\.org/"
_JSON_SCHEMA_KEY = re.compile(r'"\$schema"\s*:\s*"' + _DIALECT)
_YAML_SCHEMA_KEY = re.compile(r"""(?m)^(?:\$schema|"\$schema"|'\$schema')\s*:\s*["']?""" + _DIALECT)


class DiscoveryError(ValueError):
    """A path that does not exist, or a YAML schema without PyYAML installed."""


@dataclass(frozen=True)
class Found:
    display: str
    path: Path | None  # None for stdin


@dataclass
class Discovery:
    """The files to compile, in a stable order; the files left out, with why; notes for stderr."""

    found: list[Found] = field(default_factory=list)
    left_out: list[tuple[str, str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


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


def declares_schema(path: Path, max_bytes: int) -> bool:
    """Whether the file's top level has a `$schema` naming a json-schema.org dialect.

    JSON up to `max_bytes` is parsed (a nested `$schema` does not count); YAML, and JSON too large
    to compile anyway, are sniffed in their first 64 KiB.
    """
    try:
        if path.suffix.lower() in YAML_SUFFIXES or path.stat().st_size > max_bytes:
            with path.open("rb") as fh:
                head = fh.read(_SNIFF_BYTES).decode("utf-8", errors="replace")
            pattern = _YAML_SCHEMA_KEY if path.suffix.lower() in YAML_SUFFIXES else _JSON_SCHEMA_KEY
            return pattern.search(head) is not None
        value = json.loads(path.read_bytes())
    except (OSError, ValueError, RecursionError):
        return False
    return isinstance(value, dict) and isinstance(value.get("$schema"), str) and re.match(
        _DIALECT, value["$schema"].strip(), re.I) is not None


def _schema_name(path: Path) -> bool:
    """Whether the path names a schema, read from the repository (else working) folder down."""
    resolved = path.resolve()
    top = _repository_root(resolved.parent) or Path.cwd().resolve()
    try:
        rel = resolved.relative_to(top).as_posix()
    except ValueError:
        rel = resolved.as_posix()
    return SCHEMA_PATH.search(rel) is not None


def _why_not(path: Path, config: Config, max_bytes: int) -> str | None:
    """None when a walked file is a schema, else the reason it is left out."""
    glob = config.excluded_by(path)
    if glob is not None:
        return f"excluded by the configuration's exclude glob {glob!r}"
    if config.include:
        return None if config.included(path) else "not selected by the configuration's include globs"
    if _schema_name(path) or declares_schema(path, max_bytes):
        return None
    return "not a schema by name (*.schema.json, schemas/...) nor by a json-schema.org $schema"


def discover(paths: tuple[str, ...], config: Config, yaml_ok: bool, gitignore: bool = True,
             max_bytes: int = 16 * 1024 * 1024) -> Discovery:
    """What to compile from `paths`: named files always (bar `exclude`, with a note), walked
    files by the schema-file rule; a YAML schema without PyYAML is a DiscoveryError."""
    out = Discovery()
    seen: set[Path] = set()
    for raw in paths:
        if raw == "-":
            out.found.append(Found("<stdin>", None))
            continue
        path = Path(raw)
        if path.is_dir():
            walked = True
            candidates = _walk(path, SUFFIXES, gitignore)
        elif path.is_file():
            walked = False
            candidates = [path]
        else:
            raise DiscoveryError(f"{raw}: no such file or directory")
        for candidate in candidates:
            key = candidate.resolve()
            if key in seen:
                continue
            seen.add(key)
            display = _display(candidate)
            if walked:
                why = _why_not(candidate, config, max_bytes)
            else:
                glob = config.excluded_by(candidate)
                why = None if glob is None else f"excluded by the configuration's exclude glob {glob!r}"
                if why is not None:
                    out.notes.append(f"{display}: not checked, though named: {why}")
            if why is not None:
                out.left_out.append((display, why))
                continue
            if candidate.suffix.lower() in YAML_SUFFIXES and not yaml_ok:
                raise DiscoveryError(f"{display}: YAML schemas need PyYAML (pip install 'schemac[yaml]')")
            out.found.append(Found(display, candidate))
    return out


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
