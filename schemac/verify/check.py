"""`verify`: bounded-exhaustive soundness and completeness check of one compiled schema.

Soundness: every complete text the grammar admits within `depth` alphabet tokens is parsed and
judged by the final validator (`parse_answer` + `FinalValidator`); one it refuses is *unsound*.
Completeness: canonical valid instances built from the same literals (`candidate_values`,
written with `", "`/`": "` and with compact separators) must be admitted; one that is not is
*refused*. A valid object of two or three keys counts as refused only if no order of its keys is
admitted (schema order is one order, which this checker does not recompute); under
`key_order="any"`, whose promise is every order, one refused order is enough when the root object
is within the any-order bound (`every_order_promised`). With `cross_check`, the plain-jsonschema
oracle re-judges every text, and a verdict that differs is a *disagreement* (the final validator
and the grammar could share a mistake). Texts with a repeated key are counted apart: the grammar
admits them in open objects (a documented gap) and final validation refuses them, so none is ever
returned as a success.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from schemac.verify.live import DEFAULT_BOUND, DEFAULT_NODES

#: default bounds of one verify run
DEFAULT_DEPTH = 5
DEFAULT_MAX_NODES = 200_000
DEFAULT_TIME_S = 60.0
#: counterexamples shown per kind (`VerifyReport.first`); all are kept, up to `MAX_KEPT`
KEEP = 10
MAX_KEPT = 10_000


@dataclass(frozen=True)
class Counterexample:
    """A text and why it is a problem (`kind`: unsound, refused, disagreement)."""

    kind: str
    text: str
    detail: str


@dataclass
class VerifyReport:
    """The outcome of `verify`. `ok` is False on any unsound text, refused canonical instance or
    oracle disagreement; `cut` says when the walk stopped early (what was walked still counts)."""

    status: str  # "verified" | "rejected" (the compiler refused the schema: nothing to admit)
    depth: int
    alphabet: int = 0
    nodes: int = 0
    texts: int = 0
    valid_texts: int = 0
    duplicate_key_texts: int = 0
    canonical_checked: int = 0
    canonical_valid: int = 0
    oracle_checked: int = 0
    unsound_count: int = 0
    refused_count: int = 0
    #: valid instances refused only for a raw U+007F in a string value, admitted as `\u007f`:
    #: llguidance's string lexeme (docs/llguidance-deviations.md D1), a documented syntax-policy
    #: gap, reported but not a failure
    del_refused: int = 0
    disagreement_count: int = 0
    counterexamples: list[Counterexample] = field(default_factory=list)
    #: admitted prefixes no accepted text extends (the first `KEEP`; `walk.WalkResult`)
    dead_ends: list[str] = field(default_factory=list)
    dead_end_count: int = 0
    #: walked prefixes whose liveness was checked, and those of them left undecided
    live_checked: int = 0
    undecided_count: int = 0
    undecided: list[str] = field(default_factory=list)
    diagnostics: list[Any] = field(default_factory=list)
    oracle: str = "off"  # "off" | "on" | "unsupported: <why>"
    #: whether every key order of a canonical object had to be admitted (`key_order="any"`)
    every_order: bool = False
    cut: str | None = None
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return not (self.unsound_count or self.refused_count or self.disagreement_count or self.dead_ends)

    def first(self, kind: str, n: int = KEEP) -> list[Counterexample]:
        """The first `n` counterexamples of `kind` (walk order: shortest texts first by token)."""
        return [c for c in self.counterexamples if c.kind == kind][:n]

    def summary(self) -> str:
        if self.status == "rejected":
            codes = ", ".join(sorted({d.code for d in self.diagnostics})) or "?"
            return f"rejected by the compiler ({codes}): the grammar admits nothing, sound by construction"
        walked = f"{self.texts:,} texts admitted within depth {self.depth} ({self.nodes:,} prefixes, " \
                 f"{self.alphabet} tokens)"
        if self.cut:
            walked += f", walk cut: {self.cut}"
        return (f"{walked}; unsound {self.unsound_count}, duplicate-key {self.duplicate_key_texts}; "
                f"canonical valid instances {self.canonical_valid:,} of {self.canonical_checked:,} checked, "
                f"refused {self.refused_count}" + (" in some key order" if self.every_order else "")
                + (f" (and {self.del_refused} only for a raw U+007F in a value, "
                   f"admitted as \\u007f: deviation D1)" if self.del_refused else "")
                + f"; oracle {self.oracle}, {self.oracle_checked:,} verdicts, "
                f"disagreements {self.disagreement_count}; dead ends {self.dead_end_count} "
                f"({self.live_checked:,} prefixes checked, {self.undecided_count:,} undecided); "
                f"{self.seconds:.2f} s")


class _Judge:
    """Final-validator verdicts, with the oracle's second opinion when asked."""

    def __init__(self, schema: Any, report: VerifyReport, cross_check: bool) -> None:
        from schemac.validate.final import FinalValidator

        self.final = FinalValidator(schema)
        self.report = report
        self.oracle: Any = None
        if cross_check:
            from schemac.verify.oracle import Oracle, OracleUnsupported

            try:
                self.oracle = Oracle(schema)
                report.oracle = "on"
            except OracleUnsupported as exc:
                report.oracle = f"unsupported: {exc}"

    def note(self, kind: str, text: str, detail: str) -> None:
        r = self.report
        setattr(r, f"{kind}_count", getattr(r, f"{kind}_count") + 1)
        if len(r.counterexamples) < MAX_KEPT:
            r.counterexamples.append(Counterexample(kind, text, detail))

    def accepted(self, text: str) -> bool:
        """The final validator's verdict alone (the liveness search asks about texts the walk
        does not count; the oracle judges only the walk's own)."""
        from schemac.validate.final import parse_answer

        try:
            value = parse_answer(text)
        except ValueError:
            return False
        return not self.final.errors(value)

    def verdict(self, text: str) -> tuple[bool | None, str]:
        """(valid?, why not); None when the text is not a JSON answer at all."""
        from schemac.validate.final import parse_answer

        try:
            value = parse_answer(text)
        except ValueError as exc:
            return None, str(exc)
        errors = self.final.errors(value)
        valid = not errors
        if self.oracle is not None:
            self.report.oracle_checked += 1
            try:
                second = self.oracle.is_valid_text(text)
            except Exception as exc:  # noqa: BLE001 - an oracle failure is reported, never hidden
                self.note("disagreement", text, f"the oracle failed: {type(exc).__name__}: {exc}")
            else:
                if second != valid:
                    self.note("disagreement", text, f"final validator says {'valid' if valid else 'invalid'}"
                              f"{'' if valid else ' (' + errors[0] + ')'}, plain jsonschema says "
                              f"{'valid' if second else 'invalid'}")
        return valid, "" if valid else errors[0]


def _key_orders(value: Any, text: str, seps: tuple[str, str], render: Any) -> list[str]:
    """`text`, then the same object with its keys in every other order: the default syntax policy
    fixes one order (schema order, the keys of allOf parts and branches interleaved), which
    this checker does not recompute, so there a valid object is refused only if no order is admitted."""
    from itertools import permutations

    if not isinstance(value, dict) or not 1 < len(value) <= 3:
        return [text]
    return [text] + [render(dict((k, value[k]) for k in order), *seps) for order in permutations(value)][1:]


#: keywords whose subschemas apply to the object itself, which the emitter merges before it writes it
_IN_PLACE = ("allOf", "anyOf", "oneOf", "not", "if", "then", "else", "dependentSchemas")


def every_order_promised(lowered: Any) -> bool:
    """Whether `key_order="any"` writes the root object of `lowered` in every key order.

    The emitter decides per merged node (`lark_object_free.fits`: listed keys, min/maxProperties,
    witnesses); this bounds all the root's in-place parts (and the definitions they refer to)
    together, since it does not recompute the merges: conservative, so a root past the bound is
    checked as under schema order and never reported for an order the policy does not promise."""
    from schemac.emit import within
    from schemac.lower.support.marks import WITNESS
    from schemac.schema import ref_name

    defs = lowered.get("$defs", {}) if isinstance(lowered, dict) else {}
    names: set[str] = set()
    witnesses: set[str] = set()
    cap = 0
    todo, seen = [lowered], set()
    while todo:
        node = todo.pop()
        if not isinstance(node, dict) or id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node.get("properties"), dict):
            names.update(node["properties"])
        names.update(k for k in node.get("required", ()) if isinstance(k, str))
        for key in ("minProperties", "maxProperties"):
            if isinstance(node.get(key), (int, float)):
                cap = max(cap, int(node[key]))
        witnesses.update(repr(w) for w in node.get(WITNESS, ()))
        if "$ref" in node:
            name = ref_name(node)
            if name is None or name not in defs:
                return False  # not a bundle definition: nothing to bound
            todo.append(defs[name])
        for key in _IN_PLACE:
            sub = node.get(key)
            if isinstance(sub, list):
                todo.extend(sub)
            elif isinstance(sub, dict):
                todo.extend(sub.values() if key == "dependentSchemas" else [sub])
    return within(len(names), cap, len(witnesses))


def verify_schema(schema: Any, *, depth: int = DEFAULT_DEPTH, max_nodes: int = DEFAULT_MAX_NODES,
                  time_s: float = DEFAULT_TIME_S, cross_check: bool = False, canonical: int = 3000,
                  key_order: str = "schema", live: bool = True, live_bound: int = DEFAULT_BOUND,
                  live_nodes: int = DEFAULT_NODES, live_depth: int | None = None, **compile_options: Any) -> VerifyReport:
    """Compile `schema` and check its grammar against final validation (see the module docstring).

    `depth` bounds the walk in alphabet tokens; `max_nodes` and `time_s` bound its work (the
    report's `cut` says when one was reached); `canonical` is how many canonical instance values
    to check (0: none). `key_order` and `compile_options` go to `schemac.compile`; under "any",
    canonical objects must be admitted in every key order (`every_order_promised`). `live`:
    check every walked prefix (of at most `live_depth` tokens, default `depth`) for liveness
    too (`live.Search`: `live_bound` more tokens, `live_nodes` nodes per prefix)."""
    from schemac.diagnostics import CompileError
    from schemac.front.resolve.files import RefSource
    from schemac.pipeline import compile_schema

    started = time.monotonic()
    # `schemac.compile`'s own reading of its file options (the package root imports this module)
    refs = RefSource.of(*(compile_options.pop(k, None) for k in ("path", "ref_root", "ref_map")))
    try:
        artifact = compile_schema(schema, use_cache=False, key_order=key_order, refs=refs, **compile_options)
    except CompileError as exc:
        report = VerifyReport(status="rejected", depth=depth, diagnostics=list(exc.diagnostics))
        report.seconds = time.monotonic() - started
        return report
    every_order = key_order == "any" and every_order_promised(artifact.lowered)
    return verify_grammar(artifact.schema, artifact.grammar, depth=depth, max_nodes=max_nodes, time_s=time_s,
                          cross_check=cross_check, canonical=canonical, every_order=every_order, started=started,
                          live=live, live_bound=live_bound, live_nodes=live_nodes, live_depth=live_depth)


def verify_grammar(source: Any, grammar_text: str, *, depth: int = DEFAULT_DEPTH, max_nodes: int = DEFAULT_MAX_NODES,
                   time_s: float = DEFAULT_TIME_S, cross_check: bool = False, canonical: int = 3000,
                   every_order: bool = False, started: float | None = None, live: bool = True,
                   live_bound: int = DEFAULT_BOUND, live_nodes: int = DEFAULT_NODES,
                   live_depth: int | None = None) -> VerifyReport:
    """`verify_schema`'s checks of `grammar_text` against the (resolved 2020-12) schema `source`;
    `every_order`: a canonical object must be admitted in every order of its keys, not just one."""
    from schemac.verify.alphabet import candidate_values, render, tokens_for
    from schemac.verify.walk import Grammar

    started = time.monotonic() if started is None else started
    report = VerifyReport(status="verified", depth=depth, every_order=every_order)
    judge = _Judge(source, report, cross_check)
    alphabet = tokens_for(source)
    grammar = Grammar(grammar_text, alphabet)
    report.alphabet = len(alphabet)

    walked = grammar.walk(depth, max_nodes, started + time_s, is_valid=judge.accepted if live else None,
                          bound=live_bound, search_nodes=live_nodes, live_depth=live_depth)
    report.nodes, report.cut = walked.nodes, walked.cut
    report.dead_ends, report.dead_end_count = walked.dead_ends[:KEEP], len(walked.dead_ends)
    report.live_checked, report.undecided_count = walked.live_checked, len(walked.undecided)
    report.undecided = walked.undecided[:KEEP]
    report.texts = len(walked.texts)
    for text in walked.texts:
        valid, why = judge.verdict(text)
        if valid:
            report.valid_texts += 1
        elif valid is None and "duplicate object key" in why:
            report.duplicate_key_texts += 1
        else:
            judge.note("unsound", text, why)

    if canonical:
        for value in candidate_values(source, canonical):
            spelt = {render(value, *seps): seps for seps in ((", ", ": "), (",", ":"))}
            for text, seps in spelt.items():
                report.canonical_checked += 1
                valid, _ = judge.verdict(text)
                if valid:
                    report.canonical_valid += 1
                    orders = _key_orders(value, text, seps, render)
                    if every_order:
                        missing = [t for t in orders if not grammar.accepts(t)]
                    else:
                        missing = [] if any(grammar.accepts(t) for t in orders) else orders
                    if not missing:
                        continue
                    if (len(missing) == len(orders) and "\x7f" in text
                            and grammar.accepts(render(value, *seps, escape_del=True))):
                        report.del_refused += 1  # the documented deviation D1, not a refusal
                        continue
                    if len(missing) < len(orders):
                        judge.note("refused", missing[0], "a valid canonical instance the grammar refuses in this "
                                   "key order, though key_order=\"any\" promises every order")
                    else:
                        judge.note("refused", text, "a valid canonical instance the grammar refuses"
                                   + (" in every key order" if len(orders) > 1 else ""))
            if time.monotonic() > started + 2 * time_s:
                report.cut = (report.cut + "; " if report.cut else "") + "canonical instances cut by time"
                break
    report.seconds = time.monotonic() - started
    return report
