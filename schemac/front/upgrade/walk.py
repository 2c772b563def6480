"""The draft upgrade's walk: one pass over the old-draft document that builds the 2020-12 copy,
then re-aims every `$ref` at where its target landed.

Every schema node's source pointer is recorded with where it landed (`placed`), and every
keyword or value that changed its name on the way (`moved`), so diagnostics about the output
can be mapped back into the user's document (`schemac.front.origins`).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote, unquote, urldefrag, urljoin

from schemac.diagnostics import reject
from schemac.front.dialect.uri import dialect_of
from schemac.schema import SUBSCHEMA_KEYWORDS, Schema, child_pointer, fresh_name, pointer_exists, pointer_value
from schemac.front.upgrade.keywords import (
    DEFS_CONTAINERS, EFFECTIVE_2020, KNOWN, LIST, MAP, ONE, REF_OVERRIDES, SPECIAL_IN, TARGET_DIALECT, TARGET_URI,
)


@dataclass(slots=True)
class _Job:
    """Translate `src` (at `src_ptr`) into slot `key` of `parent`; `out_ptr` is where it lands."""

    src: Any
    src_ptr: str
    out_ptr: str
    parent: Any
    key: Any
    dialect: str
    base: str
    resource: str


@dataclass
class _RefSite:
    """A `$ref` as written (`ref`, at `src_ptr`), and the output node that holds its copy."""

    out: dict[str, Any]
    src_ptr: str
    base: str
    resource: str
    ref: str


@dataclass
class Upgrader:
    source: Schema
    root_dialect: str
    anchor_name: str
    contains_guard: bool
    #: source pointer -> (output pointer, dialect, base URI inside the node, output node)
    placed: dict[str, tuple[str, str, str, Any]] = field(default_factory=dict)
    resources: dict[str, str] = field(default_factory=dict)
    anchors: dict[tuple[str, str], str] = field(default_factory=dict)
    refs: list[_RefSite] = field(default_factory=list)
    recursive_anchored: dict[str, bool] = field(default_factory=dict)
    resource_parent: dict[str, str] = field(default_factory=dict)
    uses_dynamic: bool = False
    stack: list[_Job] = field(default_factory=list)
    #: output pointer -> source pointer of each keyword or value that changed its name on the way
    moved: dict[str, str] = field(default_factory=dict)

    # -- driver --

    def run(self) -> Schema:
        holder: dict[str, Any] = {}
        self.stack.append(_Job(self.source, "", "", holder, "root", self.root_dialect, "", ""))
        self._drain()
        self._rewrite_refs()
        out = holder["root"]
        if isinstance(out, dict):
            out.pop("$schema", None)
            out = {"$schema": TARGET_URI, **out}
        return out

    def _drain(self) -> None:
        while self.stack:
            self._schema(self.stack.pop())

    def _push(self, job: _Job, src: Any, src_tok: tuple[Any, ...], out_tok: tuple[Any, ...],
              parent: Any, key: Any, schema: bool = True) -> None:
        if not schema:  # a literal holds nothing to place or rewrite: copied now, pointer-free
            _copy_value(src, parent, key)
            if src_tok != out_tok:
                self._moved(job, src_tok, out_tok)
            return
        self.stack.append(
            _Job(
                src, child_pointer(job.src_ptr, *src_tok), child_pointer(job.out_ptr, *out_tok),
                parent, key, job.dialect, job.base, job.resource,
            )
        )

    # -- one schema node --

    def _moved(self, job: _Job, src_tok: tuple[Any, ...], out_tok: tuple[Any, ...]) -> None:
        self.moved[child_pointer(job.out_ptr, *out_tok)] = child_pointer(job.src_ptr, *src_tok)

    def _schema(self, job: _Job) -> None:
        node = job.src
        if not isinstance(node, dict):
            job.parent[job.key] = node
            self.placed[job.src_ptr] = (job.out_ptr, job.dialect, job.base, node)
            return
        declared = node.get("$schema")
        if isinstance(declared, str) and job.src_ptr != "":
            d = dialect_of(declared)
            if d is None:
                raise reject(
                    "unsupported-dialect", child_pointer(job.src_ptr, "$schema"),
                    f"unknown dialect {declared!r} in an embedded schema",
                )
            job.dialect = d
        out: dict[str, Any] = {}
        job.parent[job.key] = out
        self._identify(job, node, out)
        self.placed[job.src_ptr] = (job.out_ptr, job.dialect, job.base, out)
        if job.dialect == TARGET_DIALECT:
            self._current(job, node, out)
        elif job.dialect in REF_OVERRIDES and "$ref" in node:
            self._ref_only(job, node, out)
        else:
            self._old(job, node, out)

    def _identify(self, job: _Job, node: dict[str, Any], out: dict[str, Any]) -> None:
        """Resolve the node's identifier (base URI change and/or plain-name anchor)."""
        d = job.dialect
        id_kw = "id" if d == "draft-04" else "$id"
        ident = node.get(id_kw)
        anchor: str | None = None
        if isinstance(ident, str):
            uri, frag = urldefrag(ident)
            if d in REF_OVERRIDES:
                # Old drafts: `id: "base#name"` names this node `name` inside resource `base`;
                # beside `$ref` only the name counts (as in `referencing`).
                if uri and "$ref" not in node and self._enter(job, uri):
                    out["$id"] = uri
                    self._moved(job, (id_kw,), ("$id",))
                if frag and not frag.startswith("/"):
                    anchor = frag
            elif frag:
                raise reject("invalid-schema", child_pointer(job.src_ptr, id_kw),
                             f"'$id' {ident!r} must not carry a fragment")
            else:
                self._enter(job, uri)
                out["$id"] = ident
        if d not in REF_OVERRIDES and isinstance(node.get("$anchor"), str):
            anchor = node["$anchor"]
        if anchor is not None:
            self.anchors[(job.resource, anchor)] = job.src_ptr
            out["$anchor"] = anchor
            if "$anchor" not in node:
                self._moved(job, (id_kw,), ("$anchor",))
        if d == TARGET_DIALECT and isinstance(node.get("$dynamicAnchor"), str):
            self.anchors[(job.resource, node["$dynamicAnchor"])] = job.src_ptr
        if job.src_ptr == "":
            self.resources.setdefault(job.resource, "")
        if d == "2019-09" and self.resources.get(job.resource) == job.src_ptr:
            anchored = node.get("$recursiveAnchor") is True
            self.recursive_anchored[job.resource] = anchored
            if anchored:
                out["$dynamicAnchor"] = self.anchor_name

    def _enter(self, job: _Job, uri: str) -> bool:
        """Move the job's base URI to `uri`; True where that starts a new resource."""
        parent = job.resource
        job.base = urljoin(job.base, uri)
        job.resource = urldefrag(job.base)[0]
        if job.resource == parent:
            return False
        self.resource_parent.setdefault(job.resource, parent)
        self.resources.setdefault(job.resource, job.src_ptr)
        return True

    def _note_ref(self, job: _Job, out: dict[str, Any], ref: Any) -> None:
        if isinstance(ref, str):
            self.refs.append(_RefSite(out, job.src_ptr, job.base, job.resource, ref))

    def _defs(self, job: _Job, node: dict[str, Any], out: dict[str, Any]) -> None:
        """Merge `$defs` and `definitions` into one `$defs`; a clashing name gets a fresh one."""
        merged: dict[str, Any] = {}
        for container in DEFS_CONTAINERS:
            value = node.get(container)
            if container in node and not isinstance(value, dict):
                raise reject("invalid-schema", child_pointer(job.src_ptr, container),
                             f"'{container}' must be an object")
            for name, sub in (value or {}).items():
                new = name if name not in merged else fresh_name(merged, f"{name}-{container.lstrip('$')}")
                merged[new] = None
                self._push(job, sub, (container, name), ("$defs", new), merged, new)
        if merged:
            out["$defs"] = merged
            if "$defs" not in node:
                self._moved(job, ("definitions",), ("$defs",))

    def _ref_only(self, job: _Job, node: dict[str, Any], out: dict[str, Any]) -> None:
        """Old drafts ignore every keyword beside `$ref`; only definitions stay (inert) for pointers."""
        out["$ref"] = node["$ref"]
        self._note_ref(job, out, node["$ref"])
        self._defs(job, node, out)

    def _current(self, job: _Job, node: dict[str, Any], out: dict[str, Any]) -> None:
        for kw, value in node.items():
            if kw in ("$schema", "$id", "$anchor"):
                continue
            if kw == "$ref":
                out[kw] = value
                self._note_ref(job, out, value)
            else:
                self._children(job, kw, kw, value, SUBSCHEMA_KEYWORDS.get(kw), out)

    def _children(self, job: _Job, kw: str, out_kw: str, value: Any, shape: str | None,
                  out: dict[str, Any]) -> None:
        """Place keyword `kw` as `out_kw`: its subschemas as schema jobs, anything else as a value."""
        if kw != out_kw:
            self._moved(job, (kw,), (out_kw,))
        if shape == "one" and isinstance(value, (dict, bool)):
            out[out_kw] = None  # hold the keyword's place: llguidance orders properties by it
            self._push(job, value, (kw,), (out_kw,), out, out_kw)
        elif shape == "list" and isinstance(value, list):
            out[out_kw] = [None] * len(value)
            for i, sub in enumerate(value):
                self._push(job, sub, (kw, i), (out_kw, i), out[out_kw], i)
        elif shape == "map" and isinstance(value, dict):
            out[out_kw] = dict.fromkeys(value)
            for name, sub in value.items():
                self._push(job, sub, (kw, name), (out_kw, name), out[out_kw], name)
        elif shape is not None and job.dialect != TARGET_DIALECT:
            raise reject("invalid-schema", child_pointer(job.src_ptr, kw), f"malformed '{kw}'")
        else:
            self._push(job, value, (kw,), (out_kw,), out, out_kw, schema=False)

    def _old(self, job: _Job, node: dict[str, Any], out: dict[str, Any]) -> None:
        d = job.dialect
        known = KNOWN[d]
        one, maps = ONE[d], MAP[d]
        special = SPECIAL_IN[d]
        for kw, value in node.items():
            if kw in special:
                continue
            if kw not in known:
                if kw not in EFFECTIVE_2020:
                    self._push(job, value, (kw,), (kw,), out, kw, schema=False)
            elif kw == "$ref":
                out[kw] = value
                self._note_ref(job, out, value)
            elif kw in one:
                self._children(job, kw, kw, value, "one", out)
            elif kw in LIST:
                self._children(job, kw, kw, value, "list", out)
            elif kw in maps:
                self._children(job, kw, kw, value, "map", out)
            else:
                self._children(job, kw, kw, value, None, out)
        self._defs(job, node, out)
        self._items(job, node, out)
        self._bounds(job, node, out)
        if d != "2019-09":
            self._dependencies(job, node, out)
        self._contains(job, node, out)
        if d == "2019-09" and "$recursiveRef" in node:
            self._recursive_ref(job, node, out)

    def _items(self, job: _Job, node: dict[str, Any], out: dict[str, Any]) -> None:
        """Array-form `items` is 2020-12 `prefixItems`; `additionalItems` counts only beside it."""
        items = node.get("items")
        if isinstance(items, list):
            if items:
                self._children(job, "items", "prefixItems", items, "list", out)
            if "additionalItems" in node:
                self._children(job, "additionalItems", "items", node["additionalItems"], "one", out)
        elif "items" in node:
            self._children(job, "items", "items", items, "one", out)

    def _bounds(self, job: _Job, node: dict[str, Any], out: dict[str, Any]) -> None:
        """draft-04 boolean exclusive bounds modify `minimum`/`maximum`; later drafts are numeric."""
        for bound, excl in (("minimum", "exclusiveMinimum"), ("maximum", "exclusiveMaximum")):
            if job.dialect != "draft-04":
                for kw in (bound, excl):
                    if kw in node:
                        self._push(job, node[kw], (kw,), (kw,), out, kw, schema=False)
                continue
            flag = node.get(excl, False)
            if not isinstance(flag, bool):
                raise reject("invalid-schema", child_pointer(job.src_ptr, excl),
                             f"draft-04 '{excl}' must be a boolean")
            if bound in node:
                kw = excl if flag else bound
                self._push(job, node[bound], (bound,), (kw,), out, kw, schema=False)

    def _dependencies(self, job: _Job, node: dict[str, Any], out: dict[str, Any]) -> None:
        """`dependencies` splits by value: name arrays to `dependentRequired`, schemas to
        `dependentSchemas`."""
        if "dependencies" not in node:
            return
        deps = node["dependencies"]
        if not isinstance(deps, dict):
            raise reject("invalid-schema", child_pointer(job.src_ptr, "dependencies"),
                         "'dependencies' must be an object")
        required: dict[str, Any] = {}
        schemas: dict[str, Any] = {}
        for name, dep in deps.items():
            if isinstance(dep, list):
                required[name] = None
                self._push(job, dep, ("dependencies", name), ("dependentRequired", name), required,
                           name, schema=False)
            elif isinstance(dep, (dict, bool)):
                schemas[name] = None
                self._push(job, dep, ("dependencies", name), ("dependentSchemas", name), schemas, name)
            else:
                raise reject("invalid-schema", child_pointer(job.src_ptr, "dependencies", name),
                             "a dependency must be an array of names or a schema")
        for kw, value in (("dependentRequired", required), ("dependentSchemas", schemas)):
            if value:
                out[kw] = value
                self._moved(job, ("dependencies",), (kw,))

    def _contains(self, job: _Job, node: dict[str, Any], out: dict[str, Any]) -> None:
        """2019-09 `contains` marks no item as evaluated, 2020-12's does: where `unevaluatedItems`
        occurs, hide it behind `not: {not: ...}` (annotations never leave a `not`)."""
        if "contains" not in KNOWN[job.dialect] or "contains" not in node:
            return
        host, at = out, ()
        if job.dialect == "2019-09" and self.contains_guard:
            host = {}
            all_of = out.setdefault("allOf", [])
            at = ("allOf", len(all_of), "not", "not")
            all_of.append({"not": {"not": host}})
        self._push(job, node["contains"], ("contains",), (*at, "contains"), host, "contains")
        for kw in ("minContains", "maxContains"):
            if kw in node and kw in KNOWN[job.dialect]:
                self._push(job, node[kw], (kw,), (*at, kw), host, kw, schema=False)

    def _recursive_ref(self, job: _Job, node: dict[str, Any], out: dict[str, Any]) -> None:
        """`$recursiveRef: "#"` is dynamic only when its resource root sets `$recursiveAnchor`."""
        if node["$recursiveRef"] != "#":
            raise reject("invalid-schema", child_pointer(job.src_ptr, "$recursiveRef"),
                         "'$recursiveRef' must be \"#\"")
        dynamic = self.recursive_anchored.get(job.resource, False)
        key = "$dynamicRef" if dynamic else "$ref"
        host, at = out, ()
        if key in out:
            host = {}
            all_of = out.setdefault("allOf", [])
            at = ("allOf", len(all_of))
            all_of.append(host)
        self._moved(job, ("$recursiveRef",), (*at, key))
        if dynamic:
            self.uses_dynamic = True
            host[key] = "#" + self.anchor_name
        else:
            host[key] = "#"
            self.refs.append(_RefSite(host, job.src_ptr, job.base, job.resource, "#"))

    # -- references --

    def _rewrite_refs(self) -> None:
        """Re-aim every `$ref` at its target's new place; targets with no place get one in `$defs`."""
        done = 0
        edges: set[tuple[str, str]] = set()
        while done < len(self.refs):
            site = self.refs[done]
            done += 1
            target = self._resolve(site)
            if target is None:
                continue
            res_uri, res_ptr, tgt_ptr, is_pointer = target
            if tgt_ptr not in self.placed:
                self._place_copy(site, tgt_ptr)
                self._drain()
                is_pointer = True
            edges.add((site.resource, self._resource_of(tgt_ptr, res_uri)))
            if not is_pointer:
                continue
            rel = self.placed[tgt_ptr][0][len(self.placed[res_ptr][0]):]
            prefix, _, frag = site.ref.partition("#")
            if unquote(frag) != rel:
                site.out["$ref"] = prefix + "#" + quote(rel, safe="/~!$&'()*+,;=:@")
        if self.uses_dynamic:
            self._check_contiguous(edges)

    def _resolve(self, site: _RefSite) -> tuple[str, str, str, bool] | None:
        """(resource URI, its source pointer, target source pointer, is a JSON Pointer ref), or
        None where the target lies outside the document (left for the resolver to reject)."""
        uri, frag = urldefrag(urljoin(site.base, site.ref))
        if uri not in self.resources:
            return None
        res_ptr = self.resources[uri]
        frag = unquote(frag)
        if frag and not frag.startswith("/"):
            tgt = self.anchors.get((uri, frag))
            return None if tgt is None else (uri, res_ptr, tgt, False)
        tgt_ptr = res_ptr + frag
        if not pointer_exists(self.source, tgt_ptr):
            raise reject("unresolvable-ref", child_pointer(site.src_ptr, "$ref"),
                         f"'$ref' {site.ref!r} does not resolve")
        return uri, res_ptr, tgt_ptr, True

    def _place_copy(self, site: _RefSite, tgt_ptr: str) -> None:
        """Translate a target the walk dropped or never saw as a schema, under the `$defs` of its
        nearest translated ancestor (same resource, no validation effect there)."""
        anc = tgt_ptr
        while anc not in self.placed:
            anc = anc[: anc.rfind("/")]
        out_ptr, dialect, base, host = self.placed[anc]
        value = pointer_value(self.source, tgt_ptr)
        if not isinstance(value, (dict, bool)) or not isinstance(host, dict):
            raise reject("invalid-schema", child_pointer(site.src_ptr, "$ref"),
                         f"'$ref' {site.ref!r} points at a value that is not a schema")
        defs = host.setdefault("$defs", {})
        name = fresh_name(defs, "upgrade-ref-target")
        defs[name] = None
        self.stack.append(
            _Job(value, tgt_ptr, child_pointer(out_ptr, "$defs", name), defs, name, dialect, base,
                 urldefrag(base)[0])
        )

    def _resource_of(self, ptr: str, default: str) -> str:
        best, best_len = default, -1
        for uri, root in self.resources.items():
            if (ptr == root or ptr.startswith(root + "/")) and len(root) > best_len:
                best, best_len = uri, len(root)
        return best

    def _check_contiguous(self, edges: set[tuple[str, str]]) -> None:
        """2019-09 stops the recursive search at the first resource without `$recursiveAnchor`;
        2020-12 skips such resources. Equal only if none can sit between two anchored ones."""
        graph: dict[str, set[str]] = {}
        for child, parent in self.resource_parent.items():
            graph.setdefault(parent, set()).add(child)
        for a, b in edges:
            graph.setdefault(a, set()).add(b)
        anchored = {u for u, flag in self.recursive_anchored.items() if flag}
        after_anchor = _reach(graph, anchored)
        for u in self.resources:
            if u not in anchored and u in after_anchor and _reach(graph, {u}) & anchored:
                raise reject(
                    "dynamic-ref", self.resources[u],
                    "a resource without '$recursiveAnchor' can sit between recursive anchors; "
                    "its 2019-09 meaning has no exact '$dynamicRef' form",
                )


def _copy_value(src: Any, parent: Any, key: Any) -> None:
    """Copy a plain JSON value (enum members, defaults, ...) into `parent[key]` without
    interpreting it: nothing inside a literal is ever placed or rewritten."""
    todo: list[tuple[Any, Any, Any]] = [(src, parent, key)]
    while todo:
        v, parent, key = todo.pop()
        if isinstance(v, dict):
            out: Any = dict.fromkeys(v)
            todo.extend((sub, out, k) for k, sub in v.items())
        elif isinstance(v, list):
            out = [None] * len(v)
            todo.extend((sub, out, i) for i, sub in enumerate(v))
        else:
            out = v
        parent[key] = out


def _reach(graph: dict[str, set[str]], start: set[str]) -> set[str]:
    """Nodes reachable from `start` in one or more steps."""
    seen: set[str] = set()
    todo = [n for s in start for n in graph.get(s, ())]
    while todo:
        n = todo.pop()
        if n not in seen:
            seen.add(n)
            todo.extend(graph.get(n, ()))
    return seen
