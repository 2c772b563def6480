"""Referenced documents: local files and mapped copies of remote ones, read offline before resolution.

A `$ref` to another document (`common.json`, `./defs/a.yaml#/x`) is read from disk, never from
the network, and only from where the user allowed it (a `RefSource`):

- a `file:` URI (what a relative reference becomes against the referring file's own URI) when
  its real path (symlinks followed) lies inside the reference root;
- a URI under a mapped prefix (`--ref-map http://localhost:1234/=remotes`), read from that
  folder, also confined to it.

Anything else (a network scheme, a path outside the root, no file location to join against)
stays `remote-ref`, with the reason. Reading happens once, before the cache key is computed
(`gather`): the key covers every referenced file's content, and resolution itself never touches
the disk. The documents are read transitively (each one's references against its own URI),
at most `MAX_DOCUMENTS` of them and, all together, no more bytes than one schema may have.
A document that cannot be read or parsed is kept as a failure and reported where a reference
reaches it, at the referring `$ref` (the file, and its line and column when the parser gave
them, are named in the message). `with_documents` puts the documents under the root's `$defs`, each
with its absolute `$id`, where the resolver reads them like embedded resources; user JSON
Pointers never reach into them (`sealed`).
"""
from __future__ import annotations

import hashlib
import json
import os
import stat
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urldefrag, urlsplit
from urllib.request import url2pathname

from schemac.budget import Limits
from schemac.diagnostics import CompileError, Diagnostic, reject
from schemac.front.metaschema.refs import join_uri
from schemac.schema import SUBSCHEMA_KEYWORDS, Schema, child_pointer

#: documents read for one schema, at most (each costs a file read and a parse)
MAX_DOCUMENTS = 256
#: `$defs` key (under the root) of an embedded document (made fresh if the document has it)
DOCUMENT_KEY = "schemac:ref:{}"
#: the base URI of a document with no file location (`schemac.front.resolve.bundle.PLACEHOLDER_BASE`'s host)
_NO_LOCATION = "https://schemac.invalid/"
_WALK: dict[str, str] = {**SUBSCHEMA_KEYWORDS, "definitions": "map", "contentSchema": "one"}
_YAML = (".yaml", ".yml")
#: a refusal's hint, by a phrase of its reason (a network reference keeps the default one)
_HINTS = (
    ("outside the reference root", "widen the root with --ref-root DIR (ref-root in the configuration, ref_root=)"),
    ("outside the folder mapped", "keep the document inside the mapped folder"),
    ("no file location", "compile the schema from its file (schemac check FILE, or path=)"),
)


def default_root(start: Path | None = None) -> Path:
    """The reference root when none is given: the git work tree holding `start` (default: the
    working folder), else `start` itself."""
    return Path(_git_root(str((start or Path.cwd()).resolve())))


@lru_cache(maxsize=16)
def _git_root(start: str) -> str:
    """`git rev-parse --show-toplevel` in `start`, or `start` (no git, or not a work tree)."""
    try:
        out = subprocess.run(["git", "rev-parse", "--show-toplevel"], cwd=start, capture_output=True,
                             text=True, timeout=10, check=False)
    except (OSError, subprocess.SubprocessError):
        return start
    top = out.stdout.strip()
    return os.path.realpath(top) if out.returncode == 0 and top else start


@dataclass(frozen=True)
class RefSource:
    """Where referenced documents may be read from; picklable, so CLI workers get it whole."""

    base: str | None = None  # URI of the referring document (`file:///…/main.json`), None if none
    root: str | None = None  # local files must lie inside this folder (real path); None: none are read
    maps: tuple[tuple[str, str], ...] = ()  # (URI prefix, folder), longest prefix first

    @classmethod
    def of(cls, path: str | os.PathLike[str] | None = None, ref_root: str | os.PathLike[str] | None = None,
           ref_map: Mapping[str, str | os.PathLike[str]] | None = None) -> RefSource | None:
        """The source for a schema read from `path`: local files under `ref_root` (default:
        `default_root()` when `path` is given, else no local files), `ref_map` URI prefixes served
        from folders. None when all are None."""
        if path is None and ref_root is None and not ref_map:
            return None
        base = Path(path).absolute().as_uri() if path is not None else None
        if ref_root is None and path is not None:
            ref_root = default_root()
        root = os.path.realpath(ref_root) if ref_root is not None else None
        maps = sorted(((str(uri), os.path.realpath(folder)) for uri, folder in (ref_map or {}).items()),
                      key=lambda m: -len(m[0]))
        return cls(base, root, tuple(maps))

    def locate(self, uri: str) -> Path | str:
        """The file holding the document at `uri` (no fragment), or why none may be read."""
        for prefix, folder in self.maps:
            tail = uri[len(prefix):]
            if uri.startswith(prefix) and (prefix.endswith("/") or not tail or tail.startswith("/")):
                if urlsplit(tail).query:
                    return "a URI with a query names no file of the mapped folder"
                rest = unquote(urlsplit(tail).path).lstrip("/")
                return _inside(Path(folder) / rest, folder, f"the folder mapped to {prefix} ({folder})")
        parts = urlsplit(uri)
        if parts.scheme == "file" and parts.netloc in ("", "localhost"):
            if self.root is None:
                return "local files are not read here (no reference root)"
            return _inside(Path(url2pathname(parts.path)), self.root, f"the reference root {self.root}")
        if uri.startswith(_NO_LOCATION):
            return ("the schema has no file location to resolve it against (compile it from its file, "
                    "or pass path=)")
        scheme = parts.scheme or "no scheme"
        return (f"a network reference ({scheme}); nothing is fetched (a folder of local copies can serve "
                "it: --ref-map URI=DIR)")


def _inside(path: Path, folder: str, what: str) -> Path | str:
    real = os.path.realpath(path)
    if os.path.commonpath([real, folder]) != folder:
        return f"{path} is outside {what}" + (" (through a symbolic link)" if os.path.abspath(path) != real else "")
    return Path(real)


@dataclass
class Documents:
    """What `gather` read: documents by retrieval URI, and failures and refusals for the rest."""

    source: RefSource
    loaded: dict[str, Schema] = field(default_factory=dict)
    digests: dict[str, str] = field(default_factory=dict)  # retrieval URI -> sha256 of its bytes
    failed: dict[str, CompileError] = field(default_factory=dict)  # read, but not a usable document
    refused: dict[str, str] = field(default_factory=dict)  # URI -> why it may not be read
    placed: dict[str, str] = field(default_factory=dict)  # pointer in the resolved document -> URI
    #: the root's custom metaschema (`$schema` of no known dialect), by URI, when it could be read
    dialects: dict[str, Schema] = field(default_factory=dict)
    texts: dict[str, bytes] = field(default_factory=dict, repr=False)  # what was read, to locate diagnostics

    def relocated(self, diagnostics: list[Diagnostic]) -> list[Diagnostic]:
        """`diagnostics` with those inside a read document pointing at the user's root instead
        (its pointer names no place in the user's file) and naming the file and the place in it."""
        out = []
        for d in diagnostics:
            top = next((p for p in self.placed if d.pointer == p or d.pointer.startswith(p + "/")), None)
            if top is not None:
                uri, inner = self.placed[top], d.pointer[len(top):]
                d = replace(d, pointer="", message=f"in {_shown(uri)}{self._position(uri, inner)} at {inner or '/'}: {d.message}")
            out.append(d)
        return out

    def key_text(self) -> str:
        """What the cache key must add: every document's content hash, failure and refusal."""
        if not (self.digests or self.failed or self.refused):
            return ""
        return json.dumps({"base": self.source.base, "root": self.source.root, "maps": self.source.maps,
                           "docs": self.digests, "failed": {u: str(e) for u, e in self.failed.items()},
                           "refused": self.refused}, sort_keys=True)

    def error_at(self, uri: str, kw: str, ref: str, site: str) -> CompileError | None:
        """The rejection of a reference to `uri` that no document declares, if it was tried here."""
        failure = self.failed.get(uri)
        if failure is not None:
            found = failure.diagnostics[0]  # the loaders put the line and column in the message
            inner = f" at {found.pointer}" if found.pointer else ""
            return reject(found.code, site, f"{kw} {ref!r}: {_shown(uri)}{inner}: {found.message}", hint=found.hint)
        why = self.refused.get(uri)
        if why is not None:
            hint = next((h for part, h in _HINTS if part in why), "bundle the referenced schema under $defs")
            return reject("remote-ref", site, f"{kw} {ref!r} points outside the document ({_shown(uri)}): {why}",
                          hint=hint)
        return None


    def _position(self, uri: str, pointer: str) -> str:
        """`:line:column` of `pointer` in the JSON document read from `uri`, or "" (YAML, or not found)."""
        from schemac.front.locate import Locator

        raw = self.texts.get(uri)
        if raw is None or uri.lower().endswith(_YAML):
            return ""
        found = Locator.from_json_text(raw.decode("utf-8", errors="replace")).position(pointer)
        return f":{found[0]}:{found[1]}" if found is not None else ""


def _shown(uri: str) -> str:
    """A `file:` URI as its path; any other as it is."""
    return url2pathname(urlsplit(uri).path) if uri.startswith("file:") else uri


def _scan(doc: Schema, base: str) -> tuple[set[str], set[str]]:
    """(URIs the document's `$id`s declare, URIs its `$ref`/`$dynamicRef`s name), fragments cut.

    Every value is looked into, not only schema positions: a JSON Pointer may reach a schema
    anywhere (the resolver reads it with the base of the nearest schema above, as here, where
    an `$id` counts only in a schema position). A reference inside data is read needlessly,
    never wrongly: only a reference the resolver reaches uses what was read."""
    declared: set[str] = set()
    named: set[str] = set()
    stack: list[tuple[Any, str, bool]] = [(doc, base, True)]
    while stack:
        node, b, schema = stack.pop()
        if isinstance(node, list):
            stack.extend((sub, b, False) for sub in node)
            continue
        if not isinstance(node, dict):
            continue
        ident = node.get("$id")
        if schema and isinstance(ident, str):
            b = urldefrag(join_uri(b, ident))[0]
            declared.add(b)
        for kw in ("$ref", "$dynamicRef"):
            ref = node.get(kw)
            if isinstance(ref, str) and not ref.startswith("#"):
                named.add(urldefrag(join_uri(b, ref))[0])
        for kw, value in node.items():
            shape = _WALK.get(kw) if schema else None
            if shape == "one":
                stack.append((value, b, True))
            elif shape == "list" and isinstance(value, list):
                stack.extend((sub, b, True) for sub in value)
            elif shape == "map" and isinstance(value, dict):
                stack.extend((sub, b, True) for sub in value.values())
            else:
                stack.append((value, b, False))
    return declared, named


def canonical(uri: str, doc: Schema) -> str:
    """A retrieved document's own base URI: its `$id` joined onto where it was read from."""
    ident = doc.get("$id") if isinstance(doc, dict) else None
    return urldefrag(join_uri(uri, ident))[0] if isinstance(ident, str) else uri


def _read(path: Path, limits: Limits, allowance: int) -> tuple[Schema, bytes]:
    """The schema in the file at `path`, parsed like a schema named on the command line."""
    from schemac.front.load import check_value, load

    try:
        if not stat.S_ISREG(path.stat().st_mode):  # before opening: a FIFO would block the open
            raise reject("unresolvable-ref", "", "not a regular file")
        with path.open("rb") as fh:
            raw = fh.read(allowance + 1)  # never more than may be used, whatever the file claims
    except OSError as exc:
        raise reject("unresolvable-ref", "", f"cannot read it: {exc.strerror or exc}") from exc
    if len(raw) > allowance:
        raise reject("too-large", "", f"it takes the referenced documents past the schema's "
                     f"{limits.max_schema_bytes:,}-byte limit")
    if path.suffix.lower() in _YAML:
        from schemac.front.yaml_load import available, load_yaml

        if not available():
            raise reject("invalid-yaml", "", "a YAML document: reading it needs the yaml extra (pip install 'schemac[yaml]')")
        value = check_value(load_yaml(raw.decode("utf-8"))[0], limits)
    else:
        value = load(raw, limits)
    return _front(value), raw


def _front(value: Schema) -> Schema:
    """`value` through the stages the referring document went through before resolution: the
    dialect (2020-12 only: a referenced document is never upgraded), the metaschema, no
    `x-guidance`, and the draft-07 `dependencies` kept as a constraint."""
    from schemac.front.client_options import reject_client_options
    from schemac.front.dialect.compat import legacy_dependencies
    from schemac.front.dialect.gate import upgrade_needed
    from schemac.front.metaschema.check import check_metaschema

    try:
        upgrade_needed(value, False)
    except CompileError as exc:
        found = exc.diagnostics[0]
        raise reject("unsupported-dialect", found.pointer, f"{found.message.split(';')[0]}; a referenced document "
                     "is read as 2020-12 only") from exc
    check_metaschema(value)
    reject_client_options(value)
    return legacy_dependencies(value, None)


def gather(doc: Schema, source: RefSource, limits: Limits, base: str) -> Documents:
    """Every document `doc` references, transitively, that `source` allows reading; `base` is
    `doc`'s base URI. Nothing here raises for a document: failures are kept for the resolver."""
    out = Documents(source)
    declared, todo = _scan(doc, base)
    declared.add(urldefrag(base)[0])  # a reference back to the referring file is to the document itself
    allowance = limits.max_schema_bytes
    meta = _metaschema_uri(doc, source)
    if meta is not None:
        try:
            value, raw = _read(meta[1], limits, allowance)
        except CompileError as exc:
            out.failed[meta[0]] = exc
        else:
            allowance -= len(raw)
            out.dialects[meta[0]] = value
            out.digests[meta[0]] = hashlib.sha256(raw).hexdigest()
    seen: set[str] = set()
    pending = sorted(todo)
    while pending:
        uri = pending.pop()
        if uri in seen or uri in declared:
            continue
        seen.add(uri)
        where = source.locate(uri)
        if isinstance(where, str):
            out.refused[uri] = where
            continue
        if len(out.loaded) >= MAX_DOCUMENTS:
            out.failed[uri] = reject("too-large", "", f"more than {MAX_DOCUMENTS} referenced documents")
            continue
        try:
            value, raw = _read(where, limits, allowance)
        except CompileError as exc:
            out.failed[uri] = exc
            continue
        allowance -= len(raw)
        out.loaded[uri] = value
        out.texts[uri] = raw
        out.digests[uri] = hashlib.sha256(raw).hexdigest()
        ids, named = _scan(value, uri)
        declared |= ids | {canonical(uri, value)}
        pending.extend(sorted(named - seen, reverse=True))
    return out


def _metaschema_uri(doc: Schema, source: RefSource) -> tuple[str, Path] | None:
    """(URI, file) of the root's `$schema` when it names no known dialect and may be read."""
    from schemac.front.dialect.uri import dialect_of

    uri = doc.get("$schema") if isinstance(doc, dict) else None
    if not isinstance(uri, str) or dialect_of(uri) is not None:
        return None
    where = source.locate(urldefrag(uri)[0])
    return None if isinstance(where, str) else (urldefrag(uri)[0], where)


def with_documents(doc: dict[str, Any], documents: Documents) -> tuple[dict[str, Any], list[str], dict[str, str]]:
    """`doc` with every read document under its root `$defs` (with its absolute `$id`), the
    pointers of those documents (sealed from the user's JSON Pointers), and the retrieval URIs
    that differ from a document's own `$id` (aliases: both name it)."""
    defs = dict(doc.get("$defs") or {})
    sealed: list[str] = []
    aliases: dict[str, str] = {}
    for i, (uri, value) in enumerate(sorted(documents.loaded.items())):  # sorted: names stay stable
        own = canonical(uri, value)
        if own != uri:
            aliases[uri] = own
        body = {**value, "$id": own} if isinstance(value, dict) else {"$id": own, "allOf": [value]}
        key = DOCUMENT_KEY.format(uri.rstrip("/").rsplit("/", 1)[-1] or i)
        while key in defs:
            key += "_"
        defs[key] = body
        sealed.append(child_pointer("", "$defs", key))
        documents.placed[sealed[-1]] = uri
    return {**doc, "$defs": defs}, sealed, aliases

