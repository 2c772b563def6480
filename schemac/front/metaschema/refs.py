"""Offline `$ref`s into the official metaschemas: embedding them under the root's `$defs`.

The draft-04 to 2020-12 metaschemas (vocabularies included) ship with `jsonschema-specifications`.
A reference into one embeds that document, in a wrapper, under the root's `$defs`, in its own
dialect: an old draft goes through the same upgrade as a user's schema would (`upgrade_drafts`),
and is refused as one would be without it.

An embedded document is schemac's, not the user's, so no name it brings may meet one of the
user's (an `Embedding`): its `$id`s are renamed under a base URI that no URI of the user's
document starts with (so neither side can address the other's resources or anchors), a user
JSON Pointer never reaches into a wrapper, and the `$dynamicAnchor` an old draft's
`$recursiveAnchor` becomes is fresh against the user's anchors and the shipped ones (so neither
side's dynamic scope captures the other's). The 2020-12 metaschemas' own `$dynamicAnchor: meta`
keeps its name: its dynamic scope spans the user's document by design.
"""
from __future__ import annotations

import copy
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urldefrag, urljoin

from schemac.diagnostics import CompileError, reject
from schemac.front.dialect.uri import DIALECT_2020_12, dialect_of
from schemac.schema import child_pointer

#: `$defs` key (under the root) of an embedded metaschema (made fresh if the document has it)
METASCHEMA_KEY = "schemac:metaschema:{}"
#: the base URI embedded documents are renamed under, unless a URI of the document starts with it
_RESERVED_BASE = "https://schemac.invalid/metaschema{}/"


def join_uri(base: str, ref: str) -> str:
    """RFC 3986 join, except a fragment-only ref joins onto `base` whatever its scheme."""
    return base.split("#", 1)[0] + ref if ref.startswith("#") else urljoin(base, ref)


def unescape_token(token: str) -> str:
    return token.replace("~1", "/").replace("~0", "~")


@dataclass
class Embedding:
    """Where embedded metaschemas live, chosen against the user's document once, before any
    is embedded, so that neither side can name what the other declares."""

    prefix: str  # every embedded `$id` is renamed under it; no user URI starts with it
    anchor: str  # the `$dynamicAnchor` an old draft's `$recursiveAnchor` becomes
    wrappers: list[str] = field(default_factory=list)  # pointers of the wrappers in the document

    @classmethod
    def choose(cls, uris: Iterable[str], names: Iterable[str]) -> Embedding:
        """Fresh against the user's absolute URIs (`$id`s, joined refs) and anchor names."""
        from schemac.schema import fresh_name

        uris = list(uris)
        prefix, n = _RESERVED_BASE.format(""), 1
        while any(uri.startswith(prefix) for uri in uris):
            n += 1
            prefix = _RESERVED_BASE.format(f"-{n}")
        return cls(prefix, fresh_name(dict.fromkeys([*names, *_shipped_anchors()]), "meta"))

    def renamed(self, uri: str) -> str:
        """The embedded name of the official absolute `uri` (fragment kept)."""
        return self.prefix + uri.replace("://", "/", 1)

    def official(self, uri: str) -> str:
        """The official URI an embedded name stands for; other URIs as they are."""
        if not uri.startswith(self.prefix):
            return uri
        return uri[len(self.prefix):].replace("/", "://", 1)

    def hides(self, target: str, uri: str) -> bool:
        """Whether a reference to `uri` may not reach the pointer `target`: it lies in a wrapper
        and the reference is the user's (a JSON Pointer into the root), not an embedded name."""
        return not uri.startswith(self.prefix) and any(
            target == w or target.startswith(w + "/") for w in self.wrappers)


def _shipped_anchors() -> set[str]:
    """Every `$anchor`/`$dynamicAnchor` name in the shipped metaschemas."""
    from jsonschema_specifications import REGISTRY

    names: set[str] = set()
    todo: list[Any] = [REGISTRY[uri].contents for uri in REGISTRY]
    while todo:
        node = todo.pop()
        if isinstance(node, dict):
            names.update(node[kw] for kw in ("$anchor", "$dynamicAnchor") if isinstance(node.get(kw), str))
            todo.extend(node.values())
        elif isinstance(node, list):
            todo.extend(node)
    return names


def _bundled(uri: str) -> dict[str, Any] | None:
    """The official metaschema (or vocabulary metaschema) at `uri`, when it is one of a dialect
    schemac reads; a copy, so nothing downstream can alter the shared one."""
    from jsonschema_specifications import REGISTRY

    resource = REGISTRY.get(uri)
    contents = None if resource is None else resource.contents
    if not isinstance(contents, dict) or dialect_of(contents.get("$schema")) is None:
        return None  # not shipped, or draft-03: stays a remote reference
    return copy.deepcopy(contents)


def _embeddable(uri: str, upgrade_drafts: bool) -> bool:
    meta = _bundled(uri)
    return meta is not None and (upgrade_drafts or dialect_of(meta["$schema"]) == DIALECT_2020_12)


def outside(uri: str, kw: str, ref: str, site: str, embedding: Embedding | None) -> CompileError:
    """The rejection of a reference outside the document: a bundled metaschema left out (an
    old draft's without the upgrade, as its own document would be) or any other remote one.
    Raised only where the reference is reached, like every other unresolvable one."""
    if embedding is not None:
        uri = embedding.official(uri)
    meta = _bundled(uri) if kw == "$ref" else None
    if meta is not None:
        dialect = dialect_of(meta["$schema"])
        return reject("unsupported-dialect", site,
                      f"{kw} {ref!r} points into the {dialect} metaschema, which is read in its own dialect; "
                      "--upgrade-drafts translates it into 2020-12 exactly",
                      hint="pass --upgrade-drafts (upgrade_drafts=True)")
    return reject("remote-ref", site, f"{kw} {ref!r} points outside the document ({uri}); "
                  "schemac never fetches references", hint="bundle the referenced schema under $defs")


def _metaschema(uri: str, refs: list[str], embedding: Embedding) -> dict[str, Any]:
    """A 2020-12 wrapper holding the bundled metaschema at `uri` (`$defs/meta`, its `$id`
    renamed) and, as `$defs/ref<i>`, a reference standing for `refs[i]` (embedded names, into it).

    An old draft is translated as a user's document of that draft would be (`upgrade`): that
    moves things (`definitions` becomes `$defs`) and re-aims the wrapper's own references at
    where their targets landed, so `ref<i>` still means what `refs[i]` meant in that draft."""
    from schemac.front.upgrade.translate import upgrade

    meta = _bundled(uri)
    assert meta is not None, uri
    meta["id" if "id" in meta and "$id" not in meta else "$id"] = embedding.renamed(uri)
    dialect = str(dialect_of(meta["$schema"]))
    container = "definitions" if dialect.startswith("draft-") else "$defs"
    wrapper: dict[str, Any] = {
        "$schema": meta["$schema"],
        container: {"meta": meta, **{f"ref{i}": {"$ref": ref} for i, ref in enumerate(refs)}},
    }
    if dialect != DIALECT_2020_12:
        upgraded = upgrade(wrapper, dialect, anchor=embedding.anchor)
        assert isinstance(upgraded, dict), uri
        wrapper = upgraded
    return {**{k: v for k, v in wrapper.items() if k != "$schema"}, "$id": embedding.prefix + "wrapper/" + uri.replace("://", "/", 1)}


def _replaced(doc: Any, pointer: str, kw: str, value: str) -> Any:
    """`doc` with `kw` of the object at `pointer` set to `value` (copied along the path only)."""
    tokens = [unescape_token(t) for t in pointer.split("/")[1:]] if pointer else []
    if not tokens:
        return {**doc, kw: value}
    head, rest = tokens[0], child_pointer("", *tokens[1:])
    if isinstance(doc, list):
        out = list(doc)
        out[int(head)] = _replaced(doc[int(head)], rest, kw, value)
        return out
    return {**doc, head: _replaced(doc[head], rest, kw, value)}


def with_metaschemas(schema: dict[str, Any], sites: list[tuple[str, str, Any, str]], resources: dict[str, str],
                     anchor_names: Iterable[str], embedding: Embedding | None,
                     upgrade_drafts: bool) -> tuple[dict[str, Any], Embedding] | None:
    """`schema` with the bundled metaschemas its `$ref`s (`sites`) point into (outside the
    document: not in `resources`) embedded under `$defs`, each `$ref` re-aimed at its wrapper's
    `ref<i>`, and the `Embedding` (chosen on the first call, from the user's document); None
    when none. A `$dynamicRef` there is left alone (a static copy would lose its dynamic scope)."""
    wanted: dict[str, dict[str, list[str]]] = {}  # official URI -> embedded absolute ref -> site pointers
    uris: list[str] = list(resources)
    for ptr, kw, ref, base in sites:
        if not isinstance(ref, str) or ref.startswith("#"):
            continue
        absolute = join_uri(base, ref)
        uri = urldefrag(absolute)[0]
        uris.append(uri)
        official = uri if embedding is None else embedding.official(uri)
        if kw == "$ref" and uri not in resources and (official in wanted or _embeddable(official, upgrade_drafts)):
            wanted.setdefault(official, {}).setdefault(absolute, []).append(ptr)
    if not wanted:
        return None
    if embedding is None:  # the first call reads the user's document alone
        embedding = Embedding.choose(uris, anchor_names)
        wanted = {uri: {embedding.renamed(ref): ptrs for ref, ptrs in by_ref.items()} for uri, by_ref in wanted.items()}
    out: dict[str, Any] = schema
    metas: dict[str, Any] = {}
    for uri, by_ref in wanted.items():
        wrapper = _metaschema(uri, list(by_ref), embedding)
        for i, ptrs in enumerate(by_ref.values()):
            for ptr in ptrs:
                out = _replaced(out, ptr, "$ref", f"{wrapper['$id']}#/$defs/ref{i}")
        key = METASCHEMA_KEY.format(uri)
        while key in (schema.get("$defs") or {}):
            key += "_"
        metas[key] = wrapper
        embedding.wrappers.append(child_pointer("", "$defs", key))
    return {**out, "$defs": {**(out.get("$defs") or {}), **metas}}, embedding
