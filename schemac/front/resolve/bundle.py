"""Reference resolution: turn a 2020-12 document into a Bundle whose refs are all `#/$defs/<name>`.

Resolution is offline and static. Two linear walks: the first indexes the document (resources by
`$id`, `$anchor`/`$dynamicAnchor`, ref sites) and the second copies what the root reaches, rewriting
each `$ref`/`$dynamicRef` to a bundle definition. Every referenced location becomes exactly one
definition, also where it appears inline, so nothing is ever copied twice or inlined: fan-out
stays linear and recursion stays recursion. URIs are joined with RFC 3986 rules (`urljoin`);
fragment-only refs join onto the current base whatever its scheme (as `referencing` does).
A URI outside the document is `remote-ref` and nothing is fetched (no resolver with retrieval is
ever built), except the official metaschemas of the dialects schemac reads, which are embedded
under the root's `$defs` in their own dialect and kept apart from the user's names
(`schemac.front.metaschema.refs`). `$ref`s inside `const`/`enum`/unknown keywords are data and stay
untouched.
A location reached by a JSON Pointer is read as a schema wherever it lies (also inside a `const`
value), as jsonschema and the spec do; a target that is not an object or boolean is refused.

A `$dynamicRef` whose anchor several resources declare depends on the dynamic scope. The copy
walk tracks the only part of the scope that matters, the outermost resource entered that declares
each such anchor (a `State`), and copies a definition once per state it is reached in, so every
`$dynamicRef` becomes a static `$ref` to the copy its scope selects. A state is projected onto the
anchors a definition can reach, so copies stay few; each extra copy costs one budget entry.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote, urldefrag

from schemac.budget import Budget, check_cost
from schemac.diagnostics import CompileError, reject
from schemac.front.metaschema.refs import Embedding, join_uri, outside, unescape_token, with_metaschemas
from schemac.front.resolve.cycles import check_progress
from schemac.front.resolve.files import Documents, with_documents
from schemac.schema import DEF_PREFIX, SUBSCHEMA_KEYWORDS, Bundle, Schema, child_pointer, pointer_child

#: base URI of a document that declares none (hierarchical, so relative `$id`s join onto it)
PLACEHOLDER_BASE = "https://schemac.invalid/schema.json"

#: removed from the bundle: identifiers, dialect and the definition containers themselves
STRIPPED = frozenset({"$id", "$anchor", "$dynamicAnchor", "$schema", "$vocabulary", "$defs", "definitions"})
_REF_KEYWORDS = ("$ref", "$dynamicRef")
#: subschema positions `referencing` knows for 2020-12 (SUBSCHEMA_KEYWORDS plus two)
_WALK: dict[str, str] = {**SUBSCHEMA_KEYWORDS, "definitions": "map", "contentSchema": "one"}
_UNSAFE_NAME = re.compile(r"[^A-Za-z0-9_.\-]")
#: the dynamic scope as far as it matters: (anchor name, URI of the outermost resource declaring it)
State = tuple[tuple[str, str], ...]
_DEADLINE_EVERY = 512


def _child(pointer: str, token: str | int) -> str:
    """`child_pointer` for one token, without the escaping work when none is needed."""
    token = str(token)
    if "~" in token or "/" in token:
        return child_pointer(pointer, token)
    return pointer + "/" + token


def _def_name(pointer: str) -> str:
    """Readable name from a pointer: `/$defs/a/$defs/b` -> `a.b`, `` -> `root`."""
    if not pointer:
        return "root"
    tokens = [unescape_token(t) for t in pointer.split("/")[1:]]
    keep = [t for i, t in enumerate(tokens) if not (t in ("$defs", "definitions") and i + 1 < len(tokens))]
    return _UNSAFE_NAME.sub("_", ".".join(keep)) or "_"


def _scope_label(uri: str) -> str:
    """Short readable tag for a resource in a definition name: its last path segment."""
    tail = uri.rstrip("/").rsplit("/", 1)[-1].split("?", 1)[0]
    return _UNSAFE_NAME.sub("_", tail) or "_"


@dataclass
class _Index:
    """Everything the first walk learns about the document."""

    resources: dict[str, str] = field(default_factory=dict)  # absolute URI -> pointer
    anchors: dict[tuple[str, str], str] = field(default_factory=dict)  # (URI, name) -> pointer
    dynamic: dict[str, set[str]] = field(default_factory=dict)  # anchor name -> URIs defining it
    dynamic_at: dict[tuple[str, str], str] = field(default_factory=dict)  # (URI, name) -> pointer
    bases: dict[str, str] = field(default_factory=dict)  # schema pointer -> base URI
    #: URIs several `$id`s declare: harmless until a reference resolves against one
    ambiguous: dict[str, str] = field(default_factory=dict)  # URI -> pointer of the second $id
    needs_copy: bool = False


class _Resolver:
    def __init__(self, schema: Schema, budget: Budget, base_uri: str, embedding: Embedding | None = None,
                 documents: Documents | None = None, sealed: tuple[list[str], dict[str, str]] = ([], {})) -> None:
        self.doc = schema
        self.embedding = embedding
        self.documents = documents
        self.sealed, self.aliases = sealed  # referenced documents' pointers; their retrieval URIs
        self.budget = budget
        self.index = _Index()
        self.targets: dict[tuple[str, str], str] = {}  # (site pointer, keyword) -> target pointer
        self.target_set: set[str] = set()
        self.names: dict[tuple[str, State], str] = {}  # (target pointer, state) -> definition name
        self.used_names: set[str] = set()
        self.base_uri = base_uri
        self.sites: list[tuple[str, str, Any, str]] = []  # (pointer, keyword, value, base)
        self.dynamic_sites: dict[tuple[str, str], str] = {}  # scope-dependent $dynamicRef -> anchor
        self.dynamic_names: list[str] = []
        self.reach: dict[str, frozenset[str]] = {}
        self.copies: dict[str, int] = {}  # target pointer -> definitions made of it

    # ---- first walk: index ------------------------------------------------------------------

    def build_index(self) -> None:
        idx, limits = self.index, self.budget.limits
        stack: list[tuple[Schema, str, str, int]] = [(self.doc, "", self.base_uri, 0)]
        count = 0
        while stack:
            node, ptr, base, depth = stack.pop()
            count += 1
            if count > limits.max_nodes:
                raise reject("too-large", ptr, f"schema has more than {limits.max_nodes} subschemas")
            if depth > limits.max_depth:
                raise reject("too-large", ptr, f"schema nesting exceeds {limits.max_depth} levels")
            if count % _DEADLINE_EVERY == 1:
                self.budget.step(ptr)
            if not isinstance(node, dict):
                continue
            if not STRIPPED.isdisjoint(node):  # identifiers and anchors: rare, so tested once
                idx.needs_copy = True
                base = self._declared_base(node, ptr, base)
                self._index_anchors(node, ptr, base)
            idx.bases[ptr] = base
            if "$ref" in node:
                self.sites.append((ptr, "$ref", node["$ref"], base))
            if "$dynamicRef" in node:
                self.sites.append((ptr, "$dynamicRef", node["$dynamicRef"], base))
            for kw, value in node.items():
                shape = _WALK.get(kw)
                if shape is None:
                    continue
                here = _child(ptr, kw)
                if shape == "one":
                    if isinstance(value, (dict, bool)):
                        stack.append((value, here, base, depth + 1))
                elif shape == "list":
                    if isinstance(value, list):
                        stack.extend((sub, f"{here}/{i}", base, depth + 1)
                                     for i, sub in enumerate(value) if isinstance(sub, (dict, bool)))
                elif isinstance(value, dict):
                    stack.extend((sub, _child(here, k), base, depth + 1)
                                 for k, sub in value.items() if isinstance(sub, (dict, bool)))
        if self.index.resources.get(self.base_uri.split("#", 1)[0]) is None:
            self.index.resources[self.base_uri.split("#", 1)[0]] = ""

    def _index_anchors(self, node: dict[str, Any], ptr: str, base: str) -> None:
        idx = self.index
        for kw in ("$anchor", "$dynamicAnchor"):
            name = node.get(kw)
            if isinstance(name, str):
                key = (base, name)
                if idx.anchors.get(key, ptr) != ptr:
                    raise reject("invalid-schema", child_pointer(ptr, kw),
                                 f"anchor {name!r} is declared twice in one resource")
                idx.anchors[key] = ptr
                if kw == "$dynamicAnchor":
                    idx.dynamic.setdefault(name, set()).add(base)
                    idx.dynamic_at[key] = ptr

    def _declared_base(self, node: dict[str, Any], ptr: str, base: str) -> str:
        """The base URI inside `node`: `base`, or `base` joined with the node's `$id`."""
        ident = node.get("$id")
        if not isinstance(ident, str):
            return base
        uri, fragment = urldefrag(join_uri(base, ident))
        if fragment:
            raise reject("invalid-schema", child_pointer(ptr, "$id"),
                         f"$id {ident!r} has a fragment; 2020-12 identifiers must not (use $anchor)")
        if self.index.resources.setdefault(uri, ptr) != ptr:
            self.index.ambiguous.setdefault(uri, child_pointer(ptr, "$id"))
        return uri

    # ---- reference targets ------------------------------------------------------------------

    def base_of(self, pointer: str) -> str:
        """The base URI at `pointer`: that of the nearest schema at or above it (a pointer may
        reach a schema in a non-schema position, which the index walk never entered)."""
        while pointer not in self.index.bases and pointer:
            pointer = pointer.rsplit("/", 1)[0]
        return self.index.bases.get(pointer, self.base_uri)

    def node_at(self, pointer: str, site: str, ref: str) -> Any:
        node: Any = self.doc
        for token in pointer.split("/")[1:] if pointer else ():
            found, node = pointer_child(node, unescape_token(token))
            if not found:
                raise reject("unresolvable-ref", site, f"{ref!r}: no value at JSON Pointer {pointer!r}")
        return node

    def target(self, ptr: str, kw: str, ref: Any, base: str) -> str:
        """Pointer (in the document) of what `ref` at `ptr`/`kw` refers to; memoised per site."""
        key = (ptr, kw)
        if key in self.targets:
            return self.targets[key]
        site = child_pointer(ptr, kw)
        if not isinstance(ref, str):
            raise reject("invalid-schema", site, f"{kw} must be a string")
        if ref.startswith("#"):
            uri, fragment = base, ref[1:]
        else:
            uri, fragment = urldefrag(join_uri(base, ref))
        uri = self.aliases.get(uri, uri)
        if uri in self.index.ambiguous:
            raise reject("invalid-schema", site, f"{kw} {ref!r} resolves against {uri!r}, which two $ids "
                         f"declare (the second at {self.index.ambiguous[uri]}), so its target is ambiguous")
        root = self.index.resources.get(uri)
        if root is None:
            raise (self.documents is not None and self.documents.error_at(uri, kw, ref, site)) \
                or outside(uri, kw, ref, site, self.embedding)
        if "%" in fragment:
            fragment = unquote(fragment)
        if not fragment:
            target = root
        elif fragment.startswith("/"):
            target = root + "".join(
                child_pointer("", unescape_token(t)) for t in fragment.split("/")[1:]
            )
        else:
            found = self.index.anchors.get((uri, fragment))
            if found is None:
                raise reject("unresolvable-ref", site, f"{kw} {ref!r}: no anchor {fragment!r} in {uri}")
            target = found
        if (self.embedding is not None and self.embedding.hides(target, uri)) or any(  # as if never embedded
                _under(target, w) and not _under(root, w) for w in self.sealed):
            raise reject("unresolvable-ref", site, f"{ref!r}: no value at JSON Pointer {target!r}")
        node = self.node_at(target, site, ref)
        if not isinstance(node, (dict, bool)):
            raise reject("unresolvable-ref", site, f"{kw} {ref!r} refers to a {type(node).__name__}, not a schema")
        if kw == "$dynamicRef" and isinstance(node, dict) and node.get("$dynamicAnchor") == fragment \
                and len(self.index.dynamic.get(fragment, ())) > 1:
            self.dynamic_sites[key] = fragment
            self.target_set.update(self.index.dynamic_at[(uri, fragment)]
                                   for uri in self.index.dynamic[fragment])
        self.targets[key] = target
        self.target_set.add(target)
        return target

    # ---- dynamic scope ----------------------------------------------------------------------

    def enter(self, state: State, base: str) -> State:
        """`state` after entering the resource `base`: it may become the outermost for an anchor."""
        if not self.dynamic_sites:
            return state
        fixed = dict(state)
        for name in self.dynamic_names:
            if name not in fixed and (base, name) in self.index.dynamic_at:
                fixed[name] = base
        return tuple(sorted(fixed.items())) if len(fixed) != len(state) else state

    def def_state(self, target: str, state: State) -> State:
        """The state a definition is copied in: `state` entering its resource, kept to what it reaches."""
        if not self.dynamic_sites:
            return ()
        reach = self.reach[target]
        return tuple(item for item in self.enter(state, self.base_of(target))
                     if item[0] in reach)

    def resolve_dynamic(self, ptr: str, kw: str, target: str, state: State) -> str:
        """The target of the ref at `ptr`/`kw` in `state`: its scope's outermost anchor if dynamic."""
        name = self.dynamic_sites.get((ptr, kw))
        if name is None:
            return target
        outer = dict(state).get(name)
        return target if outer is None else self.index.dynamic_at[(outer, name)]

    def compute_reach(self) -> None:
        """For each target, the dynamic anchor names whose refs it can reach (an over-approximation)."""
        self.dynamic_names = sorted(set(self.dynamic_sites.values()))
        succ: dict[tuple[str, str], set[str]] = {}
        for key, name in self.dynamic_sites.items():
            succ[key] = {self.index.dynamic_at[(uri, name)] for uri in self.index.dynamic[name]}
        sites = [(ptr, kw) for ptr, kw, _, _ in self.sites if (ptr, kw) in self.targets]
        direct: dict[str, set[str]] = {}
        edges: dict[str, set[str]] = {}
        for t in self.target_set | {""}:
            prefix = t + "/"
            under = [s for s in sites if s[0] == t or s[0].startswith(prefix) or not t]
            direct[t] = {self.dynamic_sites[s] for s in under if s in self.dynamic_sites}
            edges[t] = {self.targets[s] for s in under} | set().union(*(succ.get(s, set()) for s in under))
        reach = {t: set(names) for t, names in direct.items()}
        changed = True
        while changed:
            changed = False
            for t, nxt in edges.items():
                before = len(reach[t])
                for n in nxt:
                    reach[t] |= reach.get(n, set())
                changed = changed or len(reach[t]) != before
        self.reach = {t: frozenset(names) for t, names in reach.items()}

    def name(self, target: str, state: State = ()) -> str:
        found = self.names.get((target, state))
        if found is None:
            copies = self.copies[target] = self.copies.get(target, 0) + 1
            if copies > 1:  # a second scope-specific copy of one location
                self.budget.reserve("entries", 1, target)
            own = self.base_of(target)
            stem = found = _def_name(target) + "".join("-" + _scope_label(uri) for _, uri in state if uri != own)
            n = 2
            while found in self.used_names:
                found, n = f"{stem}-{n}", n + 1
            self.used_names.add(found)
            self.names[(target, state)] = found
        return found

    def resolve_all_sites(self) -> None:
        """Resolve every ref site the index saw, so inline targets are known before copying.

        A site that fails is left for the copy walk, which raises only if the site is reachable.
        """
        for ptr, kw, ref, base in self.sites:
            try:
                self.target(ptr, kw, ref, base)
            except CompileError:
                pass

    # ---- second walk: copy ------------------------------------------------------------------

    def copy(self, raw: Schema, ptr: str, base: str, pending: list[tuple[str, State]],
             state: State = ()) -> Schema:
        """Copy of the schema at `ptr` (in dynamic `state`) with refs rewritten; referenced
        locations become refs."""
        inline_targets = self.target_set
        holder: list[Any] = [None]
        stack: list[tuple[Any, Any, Schema, str, str, int, State]] = [(holder, 0, raw, ptr, base, 0, state)]
        limits = self.budget.limits
        count = 0
        while stack:
            parent, slot, node, p, b, depth, st = stack.pop()
            count += 1
            if count % _DEADLINE_EVERY == 1:
                self.budget.step(p)
            if depth > limits.max_depth:
                raise reject("too-large", p, f"schema nesting exceeds {limits.max_depth} levels")
            if p != ptr and p in inline_targets:
                sub_state = self.def_state(p, st)
                parent[slot] = {"$ref": DEF_PREFIX + self.name(p, sub_state)}
                pending.append((p, sub_state))
                continue
            if not isinstance(node, dict):
                parent[slot] = node
                continue
            nb = self.index.bases.get(p, b)
            if nb != b:
                b, st = nb, self.enter(st, nb)
            out: dict[str, Any] = {}
            parent[slot] = out
            refs: list[str] = []
            for key, value in node.items():
                if key in STRIPPED:
                    continue
                if key in _REF_KEYWORDS:
                    target = self.resolve_dynamic(p, key, self.target(p, key, value, b), st)
                    sub_state = self.def_state(target, st)
                    if not refs:
                        out["$ref"] = None  # the written place: allOf merges (property order) read it
                    refs.append(DEF_PREFIX + self.name(target, sub_state))
                    pending.append((target, sub_state))
                    continue
                shape = _WALK.get(key)
                if shape == "one" and isinstance(value, (dict, bool)):
                    out[key] = None
                    stack.append((out, key, value, _child(p, key), b, depth + 1, st))
                elif shape == "list" and isinstance(value, list):
                    out[key] = items = list(value)
                    here = _child(p, key)
                    stack.extend((items, i, sub, f"{here}/{i}", b, depth + 1, st)
                                 for i, sub in enumerate(value) if isinstance(sub, (dict, bool)))
                elif shape == "map" and isinstance(value, dict):
                    out[key] = entries = dict(value)
                    here = _child(p, key)
                    stack.extend((entries, k, sub, _child(here, k), b, depth + 1, st)
                                 for k, sub in value.items() if isinstance(sub, (dict, bool)))
                else:
                    out[key] = value
            if refs:
                out["$ref"] = refs[0]
                if len(refs) > 1:  # $ref and $dynamicRef side by side: both apply
                    out.setdefault("allOf", []).append({"$ref": refs[1]})
        return holder[0]

    def bundle(self) -> Bundle:
        pending: list[tuple[str, State]] = []
        if self.dynamic_sites:
            self.compute_reach()
        if "" in self.target_set:  # the root is referenced: it lives in defs like any target
            state = self.def_state("", ())
            root: Schema = {"$ref": DEF_PREFIX + self.name("", state)}
            pending.append(("", state))
        else:
            state = self.enter((), self.index.bases.get("", self.base_uri))
            root = self.copy(self.doc, "", self.base_uri, pending, state)
        defs: dict[str, Schema] = {}
        origin: dict[str, str] = {}
        while pending:
            target, state = pending.pop()
            name = self.name(target, state)
            if name in defs:
                continue
            raw = self.node_at(target, target, "#" + target)
            defs[name] = self.copy(raw, target, self.base_of(target), pending, state)
            origin[name] = target
        ordered = {name: defs[name] for name in sorted(defs)}
        bundle = Bundle(root, ordered, {name: origin[name] for name in ordered})
        check_progress(bundle)
        return bundle


def _under(pointer: str, top: str) -> bool:
    return pointer == top or pointer.startswith(top + "/")


def resolve(schema: Schema, budget: Budget, base_uri: str | None = None, upgrade_drafts: bool = False,
            documents: Documents | None = None) -> Bundle:
    """Resolve every `$ref`/`$dynamicRef` in `schema` into a Bundle; raises CompileError.
    `upgrade_drafts` says whether a bundled metaschema of an old draft may be translated in;
    `documents` are the referenced documents read beforehand (`schemac.front.resolve.files.gather`)."""
    if isinstance(schema, bool):
        return Bundle(schema)
    resolver = _Resolver(schema, budget, base_uri or PLACEHOLDER_BASE, None, documents)
    resolver.build_index()
    if not resolver.sites:
        if not resolver.index.needs_copy:
            return Bundle(schema)
        return Bundle(resolver.copy(schema, "", resolver.base_uri, []))
    sealed: tuple[list[str], dict[str, str]] = ([], {})
    if documents is not None and documents.loaded and isinstance(schema, dict):
        doc, pointers, aliases = with_documents(schema, documents)
        check_cost(doc, budget.limits)  # each document passed it alone: the bound holds for all of them
        sealed = (pointers, aliases)
        resolver = _Resolver(doc, budget, resolver.base_uri, None, documents, sealed)
        resolver.build_index()
    embedding: Embedding | None = None
    while isinstance(resolver.doc, dict):  # until every bundled metaschema referred to is in
        embedded = with_metaschemas(resolver.doc, resolver.sites, resolver.index.resources,
                                    (name for _, name in resolver.index.anchors), embedding, upgrade_drafts)
        if embedded is None:
            break
        doc, embedding = embedded
        resolver = _Resolver(doc, budget, resolver.base_uri, embedding, documents, sealed)
        resolver.build_index()
    resolver.resolve_all_sites()
    return resolver.bundle()
