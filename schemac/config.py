"""Project configuration: `[tool.schemac]` in pyproject.toml, or a schemac.toml.

Searched upward from the working directory (the first folder holding a schemac.toml, or a
pyproject.toml with a `[tool.schemac]` table, wins); `--config FILE` overrides the search.
Keys (all optional; command-line flags override them):

    strict-formats = true            # unknown `format` values are errors, not dropped annotations
    upgrade-drafts = true            # rewrite draft-04/06/07/2019-09 schemas to 2020-12
    key-order = "any"                # objects of at most 6 listed keys take them in every order
                                     # (default "schema": an order the schema states, `properties`'
                                     # or `required`'s; "properties": `properties`' order only)
    include = ["schemas/**/*.json"]  # which walked files are schemas (default: the hook's rule, see
                                     # schemac.cli.discover); a file named on the command line always is
    exclude = ["**/fixtures/**"]     # never checked: a named file is skipped with a note on stderr
    per-file-ignores = {"schemas/legacy/*.json" = ["unknown-format"]}
    ref-root = "schemas"             # relative `$ref` files are read only inside this folder
                                     # (default: the git work tree, else the working folder)
    ref-map = {"https://example.com/schemas/" = "vendor/schemas"}  # local copies of remote documents
    select = ["remote-ref"]          # report only these codes (--select); the rest are ignored
    ignore = ["unknown-format"]      # ignore these codes everywhere (--ignore)

Globs are relative to the configuration file's folder; `**` spans folders, `*` and `?` stay
within one, and a glob without `/` matches the file name in any folder. An ignored code is left
out of every report, and a schema whose only errors are ignored passes `check` (no artifact can
be written for it, so `compile` still fails it) — except `unknown-format`, which for those files
turns `strict-formats` off, so they compile with the formats dropped as annotations. The codes
of a file that is not a schema at all, or that schemac failed on (`NEVER_IGNORED`), cannot be
ignored or left unselected: such a file always fails.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from schemac.diagnostics import CODES

_KEYS = frozenset({"strict-formats", "upgrade-drafts", "key-order", "include", "exclude", "per-file-ignores",
                   "ref-root", "ref-map", "select", "ignore"})
#: a file that does not parse, is no schema, or crashed schemac fails whatever is selected or ignored
NEVER_IGNORED = frozenset({"invalid-json", "invalid-yaml", "duplicate-key", "invalid-schema", "internal-error"})
#: `schemac.pipeline.KEY_ORDERS`, spelt here so reading a configuration loads no compiler
KEY_ORDERS = ("schema", "properties", "any")


class ConfigError(ValueError):
    """A configuration file that cannot be read or has an unknown key or a malformed value."""


def glob_regex(pattern: str) -> re.Pattern[str]:
    """Compile a path glob (`**`, `*`, `?`, `[...]`) to a regex over '/'-separated paths."""
    out: list[str] = []
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
            continue
        if pattern.startswith("**", i):
            out.append(".*")
            i += 2
            continue
        if ch == "*":
            out.append("[^/]*")
        elif ch == "?":
            out.append("[^/]")
        elif ch == "[":
            end = pattern.find("]", i + 2)
            if end < 0:
                out.append(re.escape(ch))
            else:
                body = pattern[i + 1:end]
                if body.startswith("!"):
                    body = "^" + body[1:]
                out.append("[" + body.replace("\\", "\\\\") + "]")
                i = end
        else:
            out.append(re.escape(ch))
        i += 1
    return re.compile("".join(out) + r"\Z")


@dataclass(frozen=True)
class Glob:
    pattern: str
    regex: re.Pattern[str] = field(compare=False, repr=False)

    @classmethod
    def of(cls, pattern: str) -> "Glob":
        pattern = pattern.removeprefix("./")
        return cls(pattern, glob_regex(pattern))

    def matches(self, relpath: str) -> bool:
        target = relpath if "/" in self.pattern else PurePosixPath(relpath).name
        return self.regex.match(target) is not None


@dataclass(frozen=True)
class Config:
    """Settings for one run; `root` is the folder globs are relative to."""

    root: Path
    source: Path | None = None
    strict_formats: bool | None = None
    upgrade_drafts: bool | None = None
    key_order: str | None = None
    include: tuple[Glob, ...] = ()
    exclude: tuple[Glob, ...] = ()
    per_file_ignores: tuple[tuple[Glob, frozenset[str]], ...] = ()
    ref_root: Path | None = None
    ref_map: tuple[tuple[str, Path], ...] = ()  # (URI prefix, folder)
    select: frozenset[str] | None = None
    ignore: frozenset[str] = frozenset()

    def relative(self, path: Path) -> str:
        resolved = path.resolve()
        try:
            return resolved.relative_to(self.root.resolve()).as_posix()
        except ValueError:
            return resolved.as_posix()

    def excluded_by(self, path: Path) -> str | None:
        """The first `exclude` glob matching `path`, if any (named files too, with a note)."""
        rel = self.relative(path)
        return next((g.pattern for g in self.exclude if g.matches(rel)), None)

    def included(self, path: Path) -> bool:
        """Whether the `include` globs select `path` (they choose among walked files only)."""
        rel = self.relative(path)
        return any(g.matches(rel) for g in self.include)

    def ignored_codes(self, path: Path | None) -> frozenset[str]:
        """`ignore`, the codes `select` leaves out, and the per-file-ignores matching `path`."""
        out = set(self.ignore)
        if self.select is not None:
            out |= set(CODES) - self.select - NEVER_IGNORED
        if path is None:
            return frozenset(out)
        rel = self.relative(path)
        for glob, codes in self.per_file_ignores:
            if glob.matches(rel):
                out |= codes
        return frozenset(out)


def _toml_load(path: Path) -> dict[str, Any]:
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        try:
            import tomli as tomllib  # type: ignore[no-redef]
        except ModuleNotFoundError:
            raise ConfigError(
                f"{path}: reading configuration files needs Python 3.11+ or the 'tomli' package"
            ) from None
    try:
        with path.open("rb") as fh:
            return tomllib.load(fh)
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror or exc}") from exc
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}") from exc


def _table(path: Path) -> dict[str, Any] | None:
    """The schemac table of a config file; None for a pyproject.toml without one."""
    if path.name == "pyproject.toml":
        text = path.read_text(encoding="utf-8", errors="replace")
        if "tool.schemac" not in text and "[tool]" not in text:
            return None  # cheap pre-check: most pyproject files are not ours, and need no TOML parser
        table = _toml_load(path).get("tool", {}).get("schemac")
        if table is None:
            return None
        if not isinstance(table, dict):
            raise ConfigError(f"{path}: [tool.schemac] must be a table")
        return table
    return _toml_load(path)


def find_config(start: Path) -> Path | None:
    """The nearest schemac.toml or pyproject.toml with `[tool.schemac]`, from `start` upward."""
    for folder in [start.resolve(), *start.resolve().parents]:
        for name in ("schemac.toml", "pyproject.toml"):
            candidate = folder / name
            if candidate.is_file() and _table(candidate) is not None:
                return candidate
    return None


def _flag(path: Path, table: dict[str, Any], key: str) -> bool | None:
    value = table.get(key)
    if value is not None and not isinstance(value, bool):
        raise ConfigError(f"{path}: '{key}' must be true or false")
    return value


def _key_order(path: Path, table: dict[str, Any]) -> str | None:
    value = table.get("key-order")
    if value is not None and value not in KEY_ORDERS:
        choices = ", ".join(f'"{k}"' for k in KEY_ORDERS[:-1]) + f' or "{KEY_ORDERS[-1]}"'
        raise ConfigError(f"{path}: 'key-order' must be {choices}, not {value!r}")
    return value


def _globs(path: Path, table: dict[str, Any], key: str) -> tuple[Glob, ...]:
    value = table.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{path}: '{key}' must be a list of glob strings")
    return tuple(Glob.of(v) for v in value)


def _ignores(path: Path, table: dict[str, Any]) -> tuple[tuple[Glob, frozenset[str]], ...]:
    value = table.get("per-file-ignores", {})
    if not isinstance(value, dict):
        raise ConfigError(f"{path}: 'per-file-ignores' must be a table of glob = [codes]")
    out = []
    for pattern, codes in value.items():
        out.append((Glob.of(pattern), parse_codes(codes, f"{path}: per-file-ignores[{pattern!r}]")))
    return tuple(out)


def _ref_root(path: Path, table: dict[str, Any]) -> Path | None:
    value = table.get("ref-root")
    if value is not None and not isinstance(value, str):
        raise ConfigError(f"{path}: 'ref-root' must be a folder (a string)")
    return None if value is None else path.parent / value


def _ref_map(path: Path, table: dict[str, Any]) -> tuple[tuple[str, Path], ...]:
    value = table.get("ref-map", {})
    if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
        raise ConfigError(f"{path}: 'ref-map' must be a table of \"URI prefix\" = \"folder\"")
    return tuple((uri, path.parent / folder) for uri, folder in value.items())


def parse_codes(codes: object, where: str, ignoring: bool = True) -> frozenset[str]:
    """A list of diagnostic codes, each known (and ignorable, when `ignoring`); ConfigError otherwise."""
    if not isinstance(codes, (list, tuple)) or not all(isinstance(c, str) for c in codes):
        raise ConfigError(f"{where} must be a list of diagnostic codes")
    unknown = sorted(set(codes) - set(CODES))
    if unknown:
        raise ConfigError(f"{where}: unknown code(s) {', '.join(unknown)}")
    fixed = sorted(set(codes) & NEVER_IGNORED) if ignoring else []
    if fixed:
        raise ConfigError(f"{where}: {', '.join(fixed)} cannot be ignored: a file that does not parse, is not a "
                          "schema or made schemac fail always fails")
    return frozenset(codes)


def parse_config(path: Path, table: dict[str, Any]) -> Config:
    unknown = sorted(set(table) - _KEYS)
    if unknown:
        raise ConfigError(f"{path}: unknown key(s) {', '.join(unknown)} (known: {', '.join(sorted(_KEYS))})")
    return Config(
        root=path.parent,
        source=path,
        strict_formats=_flag(path, table, "strict-formats"),
        upgrade_drafts=_flag(path, table, "upgrade-drafts"),
        key_order=_key_order(path, table),
        include=_globs(path, table, "include"),
        exclude=_globs(path, table, "exclude"),
        per_file_ignores=_ignores(path, table),
        ref_root=_ref_root(path, table),
        ref_map=_ref_map(path, table),
        select=parse_codes(table["select"], f"{path}: 'select'", ignoring=False) if "select" in table else None,
        ignore=parse_codes(table.get("ignore", []), f"{path}: 'ignore'"),
    )


def load_config(path: Path | None = None, start: Path | None = None) -> Config:
    """The given file's settings, else the nearest one found from `start` (default: CWD), else defaults."""
    if path is None:
        path = find_config(start or Path.cwd())
        if path is None:
            return Config(root=(start or Path.cwd()))
    elif not path.is_file():
        raise ConfigError(f"{path}: no such configuration file")
    table = _table(path)
    if table is None:
        raise ConfigError(f"{path}: has no [tool.schemac] table")
    return parse_config(path, table)
