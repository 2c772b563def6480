"""Lark emission: arrays that JSON-schema form cannot express, written as llguidance Lark rules.

`contains` (with min/maxContains) on arrays of unbounded length, and `uniqueItems` over a finite
item domain too large to enumerate, are regular (resp. parametric) languages over item texts.
The lowering passes leave such a node with its standard keywords (so validators still read it
right) plus `MARK`, which carries what only a pass can compute (the complement of the contains
schema, the item domains). A JSON schema cannot refer to a Lark rule, so every ancestor of a
marked node is written in Lark as well: closed objects (properties in `properties` order, as
llguidance writes them), arrays, anyOf, allOf whose parts merge without interaction, and
`$ref`s (rules). Every unmarked subtree is embedded as `%json` under the syntax policy. Anything
else above a marked node is rejected (`contains-unbounded`), never approximated.

Array states: `a_p_c` is a non-empty rest of the array at position class p with c matches
counted, `t_p_c` what may follow an item there. Without maxContains the rules are ambiguous
(an item matching the contains schema may or may not be counted) but exact: a text is accepted
iff some choice counts minContains matches. With maxContains, items are either counted matches
or members of the complement, so the count is exact. Unique items use one bit per domain value.
"""
from __future__ import annotations

import json
from itertools import product
from typing import Any

from schemac.diagnostics import reject
from schemac.schema import Schema, child_pointer, iter_subschemas, ref_name

#: Keyword a lowering pass leaves on an array node only the Lark emitter can write.
MARK = "x-schemac-array"
#: Keywords about arrays only (their meaning is "if the value is an array").
ARRAY_KEYS = frozenset({"items", "prefixItems", "minItems", "maxItems", "contains", "minContains",
                        "maxContains", "uniqueItems", MARK})
_OBJECT_KEYS = frozenset({"properties", "additionalProperties", "patternProperties", "required",
                          "minProperties", "maxProperties"})
_SCALAR_KEYS = frozenset({"minLength", "maxLength", "pattern", "format", "minimum", "maximum",
                          "exclusiveMinimum", "exclusiveMaximum", "multipleOf"})
#: Keyword groups whose meaning depends on each other within one schema object; allOf parts
#: merge into one object only when no group is split across parts.
_GROUPS = (frozenset({"items", "prefixItems"}), frozenset({"uniqueItems", MARK}),
           frozenset({"properties", "patternProperties", "additionalProperties"}))
#: The writer's own key: the contains constraints of one array, from any number of allOf parts.
_CL = " contains"
#: Counts two parts may both set: the tighter one wins.
_TIGHTER = {"minItems": max, "maxItems": min, "minLength": max, "maxLength": min,
            "minProperties": max, "maxProperties": min}
#: At most this many contains constraints on one array (items are split by subsets of them).
MAX_CONTAINS = 4
_ALL_TYPES = ("null", "boolean", "object", "array", "string", "number")
_SEP = "SEP"
#: Upper bound on the states of one array, so the grammar stays a reasonable size.
MAX_STATES = 4096


def marked(node: Any) -> bool:
    """Whether any schema object inside `node` (its `$defs` included) carries `MARK`."""
    stack = [node]
    while stack:
        cur = stack.pop()
        if isinstance(cur, dict):
            if MARK in cur:
                return True
            stack.extend(sub for _, sub in iter_subschemas(cur))
            if isinstance(cur.get("$defs"), dict):
                stack.extend(cur["$defs"].values())
    return False


def _unsupported(pointer: str, what: str) -> Exception:
    return reject("contains-unbounded", pointer,
                  f"an array constraint needs a Lark grammar, but {what} cannot be written in Lark exactly",
                  hint="bound the array with maxItems, or simplify the schema around it")


def _lift(node: dict[str, Any]) -> dict[str, Any]:
    """`node` with its contains constraint (if any) moved into the writer's `_CL` list."""
    if "contains" not in node:
        return node
    out = {k: v for k, v in node.items() if k not in ("contains", "minContains", "maxContains", MARK)}
    mark = node.get(MARK, {})
    out[_CL] = [{"schema": node["contains"], "lo": int(node.get("minContains", 1)),
                 "hi": None if node.get("maxContains") is None else int(node["maxContains"]),
                 "not": mark.get("not-contains")}]
    if "domains" in mark:
        out[MARK] = {"domains": mark["domains"]}
    return out


def _unlift(node: dict[str, Any]) -> dict[str, Any]:
    """`node` with the writer's `_CL` list back in schema form (allOf parts carrying `MARK`)."""
    if _CL not in node:
        return node
    parts = []
    for c in node[_CL]:
        part: dict[str, Any] = {"contains": c["schema"], "minContains": c["lo"], MARK: {}}
        if c["hi"] is not None:
            part["maxContains"] = c["hi"]
            part[MARK] = {"not-contains": c["not"]}
        parts.append(part)
    out = {k: v for k, v in node.items() if k != _CL}
    out["allOf"] = list(out.get("allOf", [])) + parts
    return out


def _meet(a: list[str], b: list[str]) -> list[str]:
    """The JSON types in both `a` and `b` ("integer" is part of "number")."""
    def split(ts: list[str]) -> set[str]:
        return set().union(*[{"integer", "fraction"} if t == "number" else {t} for t in ts])

    both = split(a) & split(b)
    out = [t for t in ("null", "boolean", "object", "array", "string") if t in both]
    if {"integer", "fraction"} <= both:
        out.append("number")
    elif "integer" in both:
        out.append("integer")
    return out


def _types(node: dict[str, Any]) -> list[str]:
    t = node.get("type")
    if t is None:
        return list(_ALL_TYPES)
    return [t] if isinstance(t, str) else list(t)


class _Writer:
    """Builds the rules of one grammar; `value` returns the rule name for a schema (memoised)."""

    def __init__(self, defs: dict[str, Any]) -> None:
        self.defs = defs
        self.rules: list[str] = []
        self.memo: dict[str, str | None] = {}
        self.count = 0
        # which definitions reach a marked node (through other definitions): a fixpoint
        direct = {n: marked(body) for n, body in defs.items()}
        refs = {n: set(self._refs(body)) for n, body in defs.items()}
        self.def_marked = dict(direct)
        changed = True
        while changed:
            changed = False
            for n in defs:
                if not self.def_marked[n] and any(self.def_marked.get(r, False) for r in refs[n]):
                    self.def_marked[n] = changed = True

    # -- helpers ----------------------------------------------------------------------------
    def _name(self, prefix: str) -> str:
        self.count += 1
        return f"{prefix}{self.count}"

    @staticmethod
    def _refs(node: Any) -> list[str]:
        found: list[str] = []
        stack = [node]
        while stack:
            cur = stack.pop()
            if isinstance(cur, dict):
                name = ref_name(cur)
                if name is not None:
                    found.append(name)
                stack.extend(cur.values())
            elif isinstance(cur, list):
                stack.extend(cur)
        return found

    def _reaches_mark(self, node: Any) -> bool:
        return marked(node) or any(self.def_marked.get(r, False) for r in self._refs(node))

    def _defs_of(self, node: Any) -> dict[str, Any]:
        found: dict[str, Any] = {}
        stack = [node]
        while stack:
            cur = stack.pop()
            if isinstance(cur, dict):
                name = ref_name(cur)
                if name is not None and name in self.defs and name not in found:
                    found[name] = self.defs[name]
                    stack.append(self.defs[name])
                stack.extend(cur.values())
            elif isinstance(cur, list):
                stack.extend(cur)
        return found

    def _embed(self, node: Schema) -> str | None:
        """A rule for an unmarked schema as `%json`, or None when no value satisfies it."""
        import llguidance

        from schemac.tools.lark import embed

        body = embed(node, self._defs_of(node))
        if json.dumps(MARK) in body or json.dumps(_CL) in body:  # a backstop: llguidance would ignore them
            raise reject("grammar-error", "", "internal: a marked array reached a %json embedding")
        key = "j" + body
        if key in self.memo:
            return self.memo[key]
        is_error, messages = llguidance.LLMatcher.validate_grammar_with_warnings(
            json.dumps({"grammars": [{"lark_grammar": "start: " + body}]}), None)
        if is_error and any("Unsatisfiable schema" in m for m in messages):
            self.memo[key] = None
            return None
        name = self._name("j")
        self.rules.append(f"{name}: {body}")
        self.memo[key] = name
        return name

    def _alts(self, name: str, alts: list[str]) -> str | None:
        if not alts:
            return None
        self.rules.append(f"{name}: " + "\n    | ".join(alts))
        return name

    # -- schemas ----------------------------------------------------------------------------
    def value(self, node: Schema, pointer: str) -> str | None:
        """Rule name for `node`, or None when it accepts nothing."""
        if node is False:
            return None
        if node is True or not self._reaches_mark(node):
            return self._embed(node)
        key = json.dumps(node, sort_keys=True)
        if key in self.memo:
            return self.memo[key]
        name = ref_name(node)
        if name is not None and len(node) == 1:
            rule = self._name("d")
            self.memo[key] = rule  # set first: recursive references reuse the rule
            body = self.value(self.defs[name], pointer)
            if body is None:
                raise _unsupported(pointer, f"definition `{name}` (which accepts nothing)")
            self.rules.append(f"{rule}: {body}")
            return rule
        rule = self._name("s")
        self.memo[key] = rule
        result = self._node(self._merged(node, pointer), pointer)
        if result is None:
            self.memo[key] = None
            return None
        self.rules.append(f"{rule}: {result}")
        return rule

    def _merged(self, node: dict[str, Any], pointer: str, depth: int = 0) -> dict[str, Any]:
        """`node` with allOf parts and `$ref`s beside other keywords merged in, where exact."""
        if depth > 32:
            raise _unsupported(pointer, "a deeply nested allOf/$ref chain")
        parts: list[dict[str, Any]] = []
        base = {k: v for k, v in node.items() if k not in ("allOf", "$ref")}
        todo: list[Schema] = list(node.get("allOf", []))
        if "$ref" in node:
            todo.append({"$ref": node["$ref"]})
        for part in todo:
            if part is True:
                continue
            if part is False:
                raise _unsupported(pointer, "an allOf part that accepts nothing")
            name = ref_name(part)
            if name is not None and len(part) == 1:
                part = self.defs[name]
                if part is True:
                    continue
                if part is False:
                    raise _unsupported(pointer, "an allOf part that accepts nothing")
            parts.append(self._merged(part, pointer, depth + 1) if ("allOf" in part or "$ref" in part) else part)
        out = _lift(base)
        for part in map(_lift, parts):
            if "items" in out and "items" in part and "prefixItems" not in out and "prefixItems" not in part:
                part = {**part, "items": {"allOf": [out.pop("items"), part["items"]]}}
            for group in _GROUPS:
                if group & out.keys() and group & part.keys():
                    raise _unsupported(pointer, "allOf parts constraining the same keyword group")
            for k, v in part.items():
                if k == _CL:
                    out[_CL] = out.get(_CL, []) + v
                elif k in _TIGHTER and k in out:
                    out[k] = _TIGHTER[k](out[k], v)
                elif k == "type" and "type" in out:
                    out["type"] = _meet(_types(out), _types(part))
                elif k == "required" and "required" in out:
                    out["required"] = list(dict.fromkeys(list(out["required"]) + list(v)))
                elif k in out and out[k] != v:
                    raise _unsupported(pointer, f"allOf parts that both use `{k}`")
                else:
                    out[k] = v
        return out

    def _node(self, node: dict[str, Any], pointer: str) -> str | None:
        if "anyOf" in node:
            rest = _unlift({k: v for k, v in node.items() if k != "anyOf"})
            alts = []
            for i, branch in enumerate(node["anyOf"]):
                b = {"allOf": [rest, branch]} if rest else branch
                r = self.value(b, child_pointer(pointer, "anyOf", i))
                if r is not None:
                    alts.append(r)
            return " | ".join(alts) if alts else None
        unknown = set(node) - ARRAY_KEYS - _OBJECT_KEYS - _SCALAR_KEYS - {"type", "const", "enum", _CL}
        if unknown:
            raise _unsupported(pointer, f"`{sorted(unknown)[0]}` beside it")
        types = _types(node)
        values = {k: v for k, v in node.items() if k in ("const", "enum")}
        # a value list applies to every type; it is kept on embedded parts, and the Lark-written
        # parts are dropped when it lists no value of their type (otherwise: rejected)
        listed = ([node["const"]] if "const" in node else []) + list(node.get("enum", []))
        alts: list[str] = []
        scalars = [t for t in types if t not in ("array", "object")]
        if scalars:
            r = self._embed({"type": scalars, **values, **{k: v for k, v in node.items() if k in _SCALAR_KEYS}})
            if r is not None:
                alts.append(r)
        for kind, keys, write in (("object", _OBJECT_KEYS, self._object), ("array", ARRAY_KEYS | {_CL}, self._array)):
            if kind not in types:
                continue
            part = {k: v for k, v in node.items() if k in keys}
            if not (_CL in part or MARK in part or self._reaches_mark(part)):
                r = self._embed({"type": kind, **values, **part})
            elif values and not any(isinstance(v, dict if kind == "object" else list) for v in listed):
                r = None
            elif values:
                raise _unsupported(pointer, "`enum`/`const` beside it")
            else:
                r = write(part, pointer)
            if r is not None:
                alts.append(r)
        return " | ".join(alts) if alts else None

    def _object(self, node: dict[str, Any], pointer: str) -> str | None:
        if node.get("additionalProperties", True) is not False or node.get("patternProperties") \
                or "minProperties" in node or "maxProperties" in node:
            raise _unsupported(pointer, "an object that is not closed (additionalProperties: false, no "
                               "patternProperties or property counts)")
        props: dict[str, Schema] = node.get("properties", {})
        required = set(node.get("required", []))
        if required - props.keys():
            return None
        from schemac.tools.lark import literal

        # o_i_s: properties from index i on, s = whether a property was written already
        entries: list[tuple[str, str | None, bool]] = []
        for k, v in props.items():
            rule = self.value(v, child_pointer(pointer, "properties", k))
            if rule is None and k in required:
                return None
            if rule is not None:
                entries.append((k, rule, k in required))
        base = self._name("o")
        nxt = {0: "\"\"", 1: "\"\""}
        for i in range(len(entries) - 1, -1, -1):
            key, rule, req = entries[i]
            cur = {}
            for s in (0, 1):
                head = (f"{_SEP} " if s else "") + f"{literal(literal(key))} KSEP {rule} {nxt[1]}"
                alts = [head] + ([nxt[s]] if not req else [])
                cur[s] = self._alts(f"{base}_{i}_{s}", alts)  # type: ignore[assignment]
            nxt = cur  # type: ignore[assignment]
        return f"\"{{\" {nxt[0]} \"}}\""

    def _array(self, node: dict[str, Any], pointer: str) -> str | None:
        prefix: list[Schema] = list(node.get("prefixItems", []))
        rest: Schema = node.get("items", True)
        lo_items = int(node.get("minItems", 0))
        hi_items = node.get("maxItems")
        hi_items = None if hi_items is None else int(hi_items)
        if rest is False:
            hi_items = len(prefix) if hi_items is None else min(hi_items, len(prefix))
        mark = node.get(MARK, {})
        constraints: list[dict[str, Any]] = node.get(_CL, [])
        if constraints and node.get("uniqueItems") is True:
            raise _unsupported(pointer, "`contains` together with `uniqueItems`")
        if node.get("uniqueItems") is True:
            return self._unique(mark["domains"], lo_items, hi_items, pointer)
        if len(constraints) > MAX_CONTAINS:
            raise _unsupported(pointer, f"{len(constraints)} contains constraints on one array")
        top = max(len(prefix), lo_items) if hi_items is None else hi_items
        # per constraint: counts 0..lo (saturating: more matches change nothing) or 0..hi
        sizes = [(c["lo"] if c["hi"] is None else c["hi"]) + 1 for c in constraints]
        counts = list(product(*[range(n) for n in sizes]))
        if (top + 1) * len(counts) > MAX_STATES:
            raise reject("too-large", pointer, f"the array needs {(top + 1) * len(counts)} grammar states; "
                         f"the limit is {MAX_STATES}")
        base = self._name("a")

        def item(p: int) -> Schema:
            return prefix[p] if p < len(prefix) else rest

        def step(p: int) -> int | None:
            if hi_items is not None:
                return p + 1 if p < hi_items else None
            return min(p + 1, top)

        def accept(p: int, cs: tuple[int, ...]) -> bool:
            return p >= lo_items and all(n >= c["lo"] for n, c in zip(cs, constraints))

        def label(cs: tuple[int, ...]) -> str:
            return "_".join(map(str, cs)) or "n"

        # an item counted for the constraints in `chosen` satisfies those; for a constraint with a
        # maximum, an uncounted item must satisfy its complement (so its count is exact)
        moves: dict[tuple[int, tuple[int, ...]], list[tuple[str, int, tuple[int, ...]]]] = {}
        for p in range(top + 1):
            q = step(p)
            for cs in counts:
                found: list[tuple[str, int, tuple[int, ...]]] = []
                for chosen in product((False, True), repeat=len(constraints)) if q is not None else ():
                    limits = [c["lo"] if c["hi"] is None else c["hi"] for c in constraints]
                    if any(t and n >= lim for t, n, lim in zip(chosen, cs, limits)):
                        continue
                    parts = [item(p)] + [c["schema"] for t, c in zip(chosen, constraints) if t]
                    parts += [c["not"] for t, c in zip(chosen, constraints) if not t and c["hi"] is not None]
                    parts = [x for x in parts if x is not True]
                    r = self.value(True if not parts else parts[0] if len(parts) == 1 else {"allOf": parts}, pointer)
                    if r is not None:
                        found.append((r, q, tuple(n + t for n, t in zip(cs, chosen))))  # type: ignore[misc]
                moves[(p, cs)] = found
        live = {s for s in moves if accept(*s)}
        changed = True
        while changed:
            changed = False
            for s, found in moves.items():
                if s not in live and any((q, d) in live for _, q, d in found):
                    live.add(s)
                    changed = True
        for (p, c), found in sorted(moves.items()):
            if (p, c) not in live:
                continue
            alts = [f"{r} {base}_t{q}_{label(d)}" for r, q, d in found if (q, d) in live]
            has_more = self._alts(f"{base}_{p}_{label(c)}", alts) is not None
            tail = (["\"\""] if accept(p, c) else []) + ([f"{_SEP} {base}_{p}_{label(c)}"] if has_more else [])
            self._alts(f"{base}_t{p}_{label(c)}", tail)
        start = []
        zero = counts[0]
        if accept(0, zero):
            start.append("\"[\" \"]\"")
        if (0, zero) in live and any((q, d) in live for _, q, d in moves[(0, zero)]):
            start.append(f"\"[\" {base}_0_{label(zero)} \"]\"")
        return " | ".join(start) if start else None

    def _unique(self, domains: list[list[Any]], lo: int, hi: int | None, pointer: str) -> str | None:
        """`domains`: the values of each prefix position, then those of every later item."""
        from schemac.lower.unique_items import json_key

        index: dict[str, int] = {}
        consts: list[str | None] = []
        for dom in domains:
            for v in dom:
                k = json_key(v)
                if k not in index:
                    index[k] = len(consts)
                    consts.append(self._embed({"const": v}))
        if len(consts) > 64:
            raise _unsupported(pointer, f"`uniqueItems` over {len(consts)} values (at most 64 fit)")
        base = self._name("u")
        tail = len(domains) - 1
        ends: dict[int, str | None] = {}
        heads: dict[int, bool] = {}
        for p in range(tail, -1, -1):
            dom = domains[p]
            alts = []
            if hi is None or p < hi or p == tail:
                for v in dom:
                    k = index[json_key(v)]
                    if consts[k] is None:
                        continue
                    cond = f"bit_clear({k})"
                    if p == tail and hi is not None:
                        cond = f"and({cond}, bit_count_lt(_, {hi}))"
                    if ends.get(min(p + 1, tail), "") is None:
                        continue
                    alts.append(f"{consts[k]} {base}_t{min(p + 1, tail)}::set_bit({k}) %if {cond}")
            more = heads[p] = self._alts(f"{base}_{p}::_", alts) is not None
            end = ["\"\"" + (f" %if bit_count_ge(_, {lo})" if p == tail and lo > p else "")] if p >= lo or p == tail else []
            ends[p] = self._alts(f"{base}_t{p}::_", end + ([f"{_SEP} {base}_{p}::_"] if more else []))
        start = ["\"[\" \"]\""] if lo == 0 else []
        if heads.get(0):
            start.append(f"\"[\" {base}_0::0x0 \"]\"")
        return " | ".join(start) if start else None


def lark_grammar(lowered: Schema) -> str:
    """The llguidance grammar JSON for a lowered schema with marked nodes, as Lark."""
    root, defs = (lowered, {}) if not isinstance(lowered, dict) else (
        {k: v for k, v in lowered.items() if k != "$defs"}, dict(lowered.get("$defs", {})))
    writer = _Writer(defs)
    top = writer.value(root, "")
    if top is None:
        raise reject("unsatisfiable", "", "no JSON value satisfies this schema, so no answer can be generated")
    text = "\n".join([f"start: {top}", f"{_SEP}: /, ?/", "KSEP: /: ?/"] + writer.rules) + "\n"
    return json.dumps({"grammars": [{"lark_grammar": text}]}, ensure_ascii=False)
