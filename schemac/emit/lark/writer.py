"""The Lark backend: nodes llguidance's JSON compiler cannot enforce exactly, written as rules.

Three kinds of node need it: arrays a lowering pass marked (`schemac.lower.support.marks.MARK`: contains
counts, unique items), objects with key constraints (listed or pattern keys, which escaped key
spellings bypass in llguidance's JSON form), and numbers with value constraints (inexact there).
A JSON schema cannot refer to a Lark rule, so every ancestor of such a node is written in Lark
as well: objects (`lark_objects`), arrays (`lark_arrays`), anyOf, oneOf (that llguidance proves
disjoint, hence an anyOf), allOf merged exactly (`lark_merge`), and `$ref`s (rules). Every other
subtree is embedded as `%json` under the syntax policy. Anything else above such a node is
rejected, never approximated.
"""
from __future__ import annotations

import json
from typing import Any

from schemac.budget import Budget
from schemac.diagnostics import reject
from schemac.emit.json_path import SYNTAX_POLICY, embed, translated
from schemac.emit.lark.arrays import write_array
from schemac.emit.lark.depth import MAX_RULE_DEPTH, compile_depth
from schemac.emit.lark.listed import listed, reorderable
from schemac.emit.lark.merge import (CL, NUMBER_KEYS, OBJECT_KEYS, ONE_OF, STRING_KEYS, STRINGS, Unwritable,
                                     merged, types_of)
from schemac.emit.lark.numbers import constrained, number_expr, numbers_apart
from schemac.emit.lark.objects import write_object
from schemac.emit.lark.rulebook import RuleBook, identifiers
from schemac.emit.lark.strings import exact_strings, lexer_limit, string_terminal
from schemac.lower.support.key_names import keys_named
from schemac.lower.support.marks import MARK, NOT_PATTERN, marked
from schemac.native import on_big_stack
from schemac.numbers.exact import is_number
from schemac.schema import Schema, child_pointer, iter_subschemas, ref_name

#: Keywords about arrays only (their meaning is "if the value is an array").
ARRAY_KEYS = frozenset({"items", "prefixItems", "minItems", "maxItems", "contains", "minContains",
                        "maxContains", "uniqueItems", MARK, CL})
_KNOWN = ARRAY_KEYS | OBJECT_KEYS | STRING_KEYS | NUMBER_KEYS | {"type", STRINGS}


def own_need(node: dict[str, Any], key_order: str = "schema") -> bool:
    """Whether `node` itself (not its subschemas) must be written in Lark (under `key_order`,
    llguidance's JSON form fixing the order of required keys)."""
    if "const" in node or "enum" in node:  # llguidance reads listed numbers as doubles, and
        values = [node.get("const"), node.get("enum")]  # writes listed objects in their own order
        return (MARK in node or NOT_PATTERN in node or _has(values, is_number)
                or (key_order == "any" and _has(values, reorderable)))
    return MARK in node or exact_strings(node) or keys_named(node) or constrained(node)


def _has(value: Any, found: Any) -> bool:
    """Whether `found` holds for `value` or any value inside it."""
    stack = [value]
    while stack:
        cur = stack.pop()
        if found(cur):
            return True
        if isinstance(cur, dict):
            stack.extend(cur.values())
        elif isinstance(cur, list):
            stack.extend(cur)
    return False


def needs_lark(node: Any, key_order: str = "schema") -> bool:
    """Whether any schema object inside `node` (its `$defs` included) must be written in Lark."""
    stack = [node]
    while stack:
        cur = stack.pop()
        if isinstance(cur, dict):
            if own_need(cur, key_order):
                return True
            stack.extend(sub for _, sub in iter_subschemas(cur))
            if isinstance(cur.get("$defs"), dict):
                stack.extend(cur["$defs"].values())
    return False


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


def _or_below(node: Any, memo: dict[int, tuple[Any, bool]], own: Any, children: Any) -> bool:
    """Whether `own` holds for `node` or anything below it (`children`), each object answered
    once into `memo` (id -> (object, answer); the object is kept so its id stays its own).
    Iterative post-order: nesting costs no stack."""
    hit = memo.get(id(node))
    if hit is not None and hit[0] is node:
        return hit[1]
    stack: list[tuple[Any, list[Any] | None]] = [(node, None)]
    while stack:
        cur, below = stack.pop()
        if below is None:
            hit = memo.get(id(cur))
            if hit is not None and hit[0] is cur:
                continue
            if own(cur):
                memo[id(cur)] = (cur, True)
                continue
            below = children(cur)
            stack.append((cur, below))
            stack.extend((c, None) for c in below)
        else:
            memo[id(cur)] = (cur, any(memo[id(c)][1] for c in below))
    return memo[id(node)][1]


#: the array markers as `embed`'s JSON spells them (`Writer.embed`'s backstop)
_MARK_TEXT, _CL_TEXT = json.dumps(MARK), json.dumps(CL)

#: bytes of a node's JSON that writing it (merging its conjuncts, distributing them) pays one step for
WRITE_BYTES_PER_STEP = 64
def _schema_error(text: str) -> str | None:
    """llguidance's error for the JSON schema `text` (a `%json` document, syntax policy in its
    `x-guidance`), or None when it loads. Checked as llguidance's own JSON-schema grammar, not as
    the Lark grammar `start: %json text`: the same compile of the same document (the Lark form's
    error is this one behind a position prefix and an excerpt), without the Lark front end, whose
    lexer llguidance builds afresh on every call (~1 ms a check, ten times the JSON form's)."""
    import llguidance

    is_error, messages = on_big_stack(llguidance.LLMatcher.validate_grammar_with_warnings,
                                      '{"grammars":[{"json_schema":' + text + "}]}", None)
    return (messages[0] if messages else "unknown error") if is_error else None


class Writer(RuleBook):
    """Builds the rules of one grammar; `value` returns the rule name for a schema (memoised).

    With `check_unsat`, every `%json` embedding is first tried alone, so one that accepts
    nothing becomes None (an optional property dropped, an alternative left out); without it
    the embeddings are trusted, and emit retries with checks when llguidance reports one.
    """

    def __init__(self, defs: dict[str, Any], check_unsat: bool, prefix: str = "", budget: Budget | None = None,
                 key_order: str = "schema") -> None:
        super().__init__(defs, prefix, budget, key_order)
        self._sized = 0  # rules whose bytes are counted in `_bytes`
        self._bytes = 0
        self.check_unsat = check_unsat
        #: definition rules whose body is being written → whether a reference to one was handed out
        self.open_definitions: dict[str, bool] = {}
        #: id(node) -> (node, whether it needs Lark); the node is kept so its id stays its own
        self.needs_memo: dict[int, tuple[Any, bool]] = {}
        #: id(node) -> (node, answer) of `_lark_below` and `_needing_ref_below`, kept alike
        self.lark_memo: dict[int, tuple[Any, bool]] = {}
        self.ref_memo: dict[int, tuple[Any, bool]] = {}
        #: (terminal, its node) for every negated-pattern string terminal written (`lexer_limit`)
        self.negated: list[tuple[str, dict[str, Any]]] = []
        # which definitions reach a node that needs Lark (through other definitions): a fixpoint
        self.def_needs = {n: needs_lark(body, key_order) for n, body in defs.items()}
        refs = {n: set(_refs(body)) for n, body in defs.items()}
        changed = True
        while changed:
            changed = False
            for n in defs:
                if not self.def_needs[n] and any(self.def_needs.get(r, False) for r in refs[n]):
                    self.def_needs[n] = changed = True

    @staticmethod
    def key_of(node: Schema) -> str:
        """The memo key of a schema: its JSON with member order kept, since the order of
        `properties` is the order the rule writes keys in (`stated_orders` writes one node in
        two orders; sorted keys would give both the first one's rule)."""
        return json.dumps(node, default=str)

    def needs(self, node: Any) -> bool:
        """Whether `node` must be written in Lark (itself, inside, or through a `$ref`)."""
        if not isinstance(node, dict):
            return False
        hit = self.needs_memo.get(id(node))
        if hit is None or hit[0] is not node:
            hit = self.needs_memo[id(node)] = (node, self._lark_below(node) or self._needing_ref_below(node))
        return hit[1]

    def _lark_below(self, node: dict[str, Any]) -> bool:
        """`needs_lark(node, key_order)`, memoised per object (`lark_memo`): nested nodes are asked
        again as the writer goes down, and each answer is the OR of its children's."""
        key_order = self.key_order

        def children(cur: dict[str, Any]) -> list[Any]:
            out = [sub for _, sub in iter_subschemas(cur) if isinstance(sub, dict)]
            if isinstance(cur.get("$defs"), dict):
                out.extend(v for v in cur["$defs"].values() if isinstance(v, dict))
            return out

        return _or_below(node, self.lark_memo, lambda cur: own_need(cur, key_order), children)

    def _needing_ref_below(self, node: dict[str, Any]) -> bool:
        """`any(def_needs.get(r) for r in _refs(node))`, memoised per object and list (`ref_memo`):
        whether some value inside `node` (data included, as `_refs` reads it) refers to a
        definition that needs Lark."""
        def_needs = self.def_needs

        def own(cur: Any) -> bool:
            name = ref_name(cur)
            return name is not None and def_needs.get(name, False)

        def children(cur: Any) -> list[Any]:
            values = cur.values() if isinstance(cur, dict) else cur
            return [v for v in values if isinstance(v, (dict, list))]

        return _or_below(node, self.ref_memo, own, children)

    def embed(self, node: Schema) -> str | None:
        """A rule for a schema needing no Lark as `%json`, or None when no value satisfies it."""
        key = "j" + json.dumps(node, default=str)  # key order kept: it is the answers' order
        if key in self.memo:
            return self.memo[key]
        body = embed(node, self.defs_of(node))
        if _MARK_TEXT in body or _CL_TEXT in body:  # a backstop: llguidance would ignore them (`embed` refuses scalar markers itself)
            raise reject("grammar-error", "", "internal: a marked array reached a %json embedding")
        if self.check_unsat:
            self.budget.native("", len(body))
            error = _schema_error(body.removeprefix("%json "))
            if error is not None and "Unsatisfiable schema" in error:
                self.memo[key] = None
                return None
        name = self.name("j")
        self.rules.append(f"{name}: {body}")
        self.memo[key] = name
        return name

    # -- schemas ----------------------------------------------------------------------------
    def value(self, node: Schema, pointer: str) -> str | None:
        """Rule name for `node`, or None when it accepts nothing."""
        if node is False:
            return None
        self._check()
        if node is True or not self.needs(node):
            return self.embed(node)
        key = self.key_of(node)
        if key in self.memo:
            hit = self.memo[key]
            if hit in self.open_definitions:
                self.open_definitions[hit] = True  # a recursive reference to a body being written
            return hit
        self.budget.step("", len(key) // WRITE_BYTES_PER_STEP)  # merging and distributing walk the node
        name = ref_name(node)
        if name is not None and len(node) == 1:
            rule = self.name("d")
            self.memo[key] = rule  # set first: recursive references reuse the rule
            self.open_definitions[rule] = False
            start = len(self.rules)
            body = self.value(self.defs[name], pointer)
            if self.open_definitions.pop(rule) and body is None and self._named(rule, key, start):
                # a rule kept since names it, and Lark has no exact empty rule
                raise Unwritable(pointer, f"a recursive definition (`{name}`) that accepts nothing")
            if body is None:
                self.memo[key] = None  # nothing names it: the position is pruned
                return None
            self.rules.append(f"{rule}: {body}")
            return rule
        rule = self.name("s")
        self.memo[key] = rule
        whole = merged(node, self.defs, pointer, self.screen)
        if "anyOf" not in whole and ("const" in whole or "enum" in whole):
            result = listed(self, node, whole)
        else:
            result = self._node(whole, pointer)
        if result is None:
            self.memo[key] = None
            return None
        self.rules.append(f"{rule}: {result}")
        return rule

    def _named(self, rule: str, key: str, start: int) -> bool:
        """Whether a rule written since `start`, or a remembered expression other than `key`'s own,
        names `rule` (its references may all have been pruned with the branches holding them)."""
        texts = [*self.rules[start:], *(v for k, v in self.memo.items() if k != key and isinstance(v, str))]
        return any(rule in identifiers(t) for t in texts)

    def _check(self) -> None:
        """Count a step and stop writing once the step budget or the grammar size limit is passed
        (distribution can multiply a schema's size many times over, so neither is known before
        writing). Both are the whole schema's, so they are reported at the root: the node being
        written may be a distributed branch that exists only in the lowered form."""
        self.budget.step("")
        if len(self.rules) - self._sized >= 64:
            self._bytes += sum(map(len, self.rules[self._sized:]))
            self._sized = len(self.rules)
            limit = self.budget.limits.max_grammar_bytes
            if self._bytes > limit:
                raise reject("too-large", "", f"the grammar passes {limit} bytes while being written",
                             hint="simplify the schema (fewer anyOf/oneOf branches under allOf)")

    def _check_one_of(self, branches: list[Schema], pointer: str) -> None:
        """A oneOf may be written as alternatives only once llguidance proves its branches
        disjoint (it refuses the others, as its JSON form would)."""
        doc = {"oneOf": branches, **({"$defs": self.defs} if self.defs else {}), "x-guidance": SYNTAX_POLICY}
        text = json.dumps(translated(doc), ensure_ascii=True, default=str)
        self.budget.native(pointer, len(text))
        error = _schema_error(text)
        if error is not None and "Unsatisfiable schema" not in error:
            raise reject("grammar-error", child_pointer(pointer, "oneOf"), f"llguidance rejected the oneOf: {error}")

    def _node(self, node: dict[str, Any], pointer: str) -> str | None:
        if "anyOf" in node:  # `merged` distributed every other conjunct into the branches
            if ONE_OF in node:
                self._check_one_of(node[ONE_OF], pointer)
            kind = "oneOf" if ONE_OF in node else "anyOf"
            # numbers one branch writes as rules beside another's number lexeme are written apart,
            # as one automaton (llguidance's greedy lexer would cut the rules' reading short)
            apart = numbers_apart(self, node["anyOf"], pointer)
            numbers, branches = (None, list(enumerate(node["anyOf"]))) if apart is None else apart
            alts = [] if numbers is None else [numbers]
            for i, branch in branches:
                r = self.value(branch, child_pointer(pointer, kind, i))
                if r is not None:
                    alts.append(r)
            return " | ".join(dict.fromkeys(alts)) if alts else None
        unknown = set(node) - _KNOWN
        if unknown:
            raise Unwritable(pointer, f"`{sorted(unknown)[0]}` beside it")
        types = types_of(node)
        alts: list[str] = []
        scalars = [t for t in types if t not in ("array", "object")]
        if constrained({**node, "type": scalars}):
            numbers = [t for t in scalars if t in ("number", "integer")]
            scalars = [t for t in scalars if t not in numbers]
            expr = number_expr(self, node, "number" not in numbers, pointer)
            if expr is not None:
                alts.append(expr)
        if exact_strings(node):  # strings as one exact terminal; string keywords bind no other type
            self.budget.native(pointer, len(self.key_of(node)))  # its probe: a matcher on the terminal
            body = string_terminal(node, pointer) if "string" in scalars else None
            if body is not None:
                alts.append(self.terminal("STR", body))
                self.negated.append((body, node))
            scalars = [t for t in scalars if t != "string"]
            node = {k: v for k, v in node.items() if k not in STRING_KEYS and k != STRINGS}
        if scalars:
            part: dict[str, Any] = {"type": scalars, **{k: v for k, v in node.items() if k in STRING_KEYS}}
            if "number" in scalars or "integer" in scalars:
                part.update({k: v for k, v in node.items() if k in NUMBER_KEYS})
            r = self.embed({"allOf": [part, *node[STRINGS]]} if STRINGS in node else part)
            if r is not None:
                alts.append(r)
        for kind, keys, write in (("object", OBJECT_KEYS, write_object), ("array", ARRAY_KEYS, write_array)):
            if kind not in types:
                continue
            sub = {k: v for k, v in node.items() if k in keys}
            if not (CL in sub or MARK in sub or self.needs(sub)):
                r = self.embed({"type": kind, **sub})
            else:
                r = write(self, sub, pointer)
            if r is not None:
                alts.append(r)
        return " | ".join(alts) if alts else None


def lark_rules(lowered: Schema, prefix: str = "", check_unsat: bool = False,
               budget: Budget | None = None, key_order: str = "schema") -> tuple[str, list[str]]:
    """(start expression, rule lines) for a lowered schema, every name starting with `prefix`
    (terminals with it in upper case), so several schemas can share one Lark grammar (tool
    envelopes). Raises CompileError where the schema cannot be written exactly."""
    root, defs = (lowered, {}) if not isinstance(lowered, dict) else (
        {k: v for k, v in lowered.items() if k != "$defs"}, dict(lowered.get("$defs", {})))
    tops, rules = lark_rules_of([root], defs, prefix, check_unsat, budget, key_order, marked(lowered))
    if tops[0] is None:
        raise reject("unsatisfiable", "", "no JSON value satisfies this schema, so no answer can be generated")
    return tops[0], rules


def lark_rules_of(roots: list[Schema], defs: dict[str, Any], prefix: str = "", check_unsat: bool = False,
                  budget: Budget | None = None, key_order: str = "schema", has_marks: bool = False
                  ) -> tuple[list[str | None], list[str]]:
    """([expression or None where no value satisfies it, per root], rule lines): schemas that
    share the definitions `defs` written by one writer (the values of one tool call's named
    parameters), as `lark_rules` writes one. `has_marks`: whether a marked array is among them
    (it, not a key or number, is then what needed Lark)."""
    writer = Writer(defs, check_unsat, prefix, budget, key_order)
    try:
        tops = [writer.value(root, "") for root in roots]
    except Unwritable as exc:
        # above a marked array, the array is what needs Lark; elsewhere a key or number does
        code, why = ("contains-unbounded", "an array constraint needs a Lark grammar") if has_marks else (
            "grammar-error", "llguidance's JSON form is not exact here (keys, numbers), so this node needs a Lark grammar")
        raise reject(code, exc.pointer, f"{why}, but {exc.what} cannot be written in Lark exactly",
                     hint="bound the array with maxItems, or simplify the schema around it (e.g. merge allOf parts by hand)"
                     ) from None
    if writer.negated:
        # native: a matcher per probe text over every terminal, paid by their size before it runs
        writer.budget.native("", 8 * sum(len(body) for body, _ in writer.negated))
        error = lexer_limit(writer.negated)
        if error is not None:
            raise reject("grammar-error", "", f"the negated-pattern string terminals pass llguidance's lexer limits ({error})",
                         hint="fewer overlapping patterns under oneOf/not (or make the branches disjoint another way)")
    rules = [f"{writer.sep}: /, ?/", f"{writer.ksep}: /: ?/"] + writer.rules
    writer.budget.step("", sum(map(len, rules)) // WRITE_BYTES_PER_STEP)  # the depth scan reads every rule
    for top in tops:
        if top is None or len(rules) < MAX_RULE_DEPTH:
            continue  # a chain of first references visits each rule once: at most len(rules) + 1 levels
        depth = compile_depth(top, rules)
        if depth > MAX_RULE_DEPTH:
            raise reject("too-large", "", f"llguidance would compile this grammar through a chain of {depth:,} rules "
                         f"(at most {MAX_RULE_DEPTH:,}): its compiler recurses once per rule on the native thread "
                         "stack, and a chain that deep can overflow it and crash the serving process",
                         hint="split very long objects or deeply nested structures, or loosen numeric constraints")
    return tops, rules


def lark_grammar(lowered: Schema, check_unsat: bool = False, budget: Budget | None = None,
                 key_order: str = "schema") -> str:
    """The llguidance grammar JSON for a lowered schema that needs Lark somewhere."""
    top, rules = lark_rules(lowered, "", check_unsat, budget, key_order)
    text = "\n".join([f"start: {top}"] + rules) + "\n"
    return json.dumps({"grammars": [{"lark_grammar": text}]}, ensure_ascii=False)
