"""A number automaton as a regex in the syntax llguidance, RE2 and ECMA-262 read alike.

State elimination over the automaton of `schemac.numbers.dfa`: only literals, classes over
`-0-9.`, non-capturing groups, `*`, `?` and `{m,n}` are written (no lookaround, no backreference), so
the text can sit inside a Lark terminal `/.../`. Alternations merge single characters into
classes and share their common prefixes and suffixes, which keeps digit-range regexes near the
size of a hand-written one.
"""
from __future__ import annotations

from functools import lru_cache

from schemac.numbers.dfa import DIGITS, Dfa, TooLarge

# Regex terms as tuples: ("e",) empty string, ("c", chars) one character of a set,
# ("q", terms) concatenation, ("a", terms) alternation, ("s", term) star, ("o", term) optional,
# ("r", term, lo, hi) counted repetition of a class.
Term = tuple
EPS: Term = ("e",)


def _chars(term: Term) -> frozenset[str] | None:
    return term[1] if term[0] == "c" else None


def _seq(term: Term) -> tuple[Term, ...]:
    return () if term == EPS else term[1] if term[0] == "q" else (term,)


def _unit(term: Term) -> tuple[Term, int, int]:
    """`term` as (X, lo, hi) meaning X{lo,hi}."""
    if term[0] == "r":
        return term[1], term[2], term[3]
    if term[0] == "o" and term[1][0] not in ("q", "a"):
        return term[1], 0, 1
    return term, 1, 1


def _rep(x: Term, lo: int, hi: int) -> Term:
    if lo == hi == 1:
        return x
    if lo == 0 and hi == 1:
        return ("o", x)
    return ("r", x, lo, hi)


def cat(*terms: Term) -> Term:
    """Concatenation; neighbours X{a,b} X{c,d} become X{a+c,b+d} when the earlier is fixed
    (a == b) or the later is (c == d), so no length is lost or gained."""
    parts: list[Term] = []
    for t in terms:
        if t is None:
            return None  # type: ignore[return-value]
        for part in _seq(t):
            if parts:
                x1, a, b = _unit(parts[-1])
                x2, c, d = _unit(part)
                if x1 == x2 and x1[0] == "c" and (a == b or c == d):
                    parts[-1] = _rep(x1, a + c, b + d)
                    continue
            parts.append(part)
    if not parts:
        return EPS
    return parts[0] if len(parts) == 1 else ("q", tuple(parts))


def opt(core: Term) -> Term:
    """core?"""
    if core == EPS or core[0] in ("s", "o"):
        return core
    x, lo, hi = _unit(core)
    if lo == 1 and x[0] == "c":
        return _rep(x, 0, hi)
    return ("o", core)


def alt(*terms: Term) -> Term:
    """Alternation with classes merged and a common prefix/suffix factored out."""
    options: list[Term] = []
    for t in terms:
        if t is None:
            continue
        for o in (t[1] if t[0] == "a" else (t,)):
            if o not in options:
                options.append(o)
    if not options:
        return None  # type: ignore[return-value]
    optional = EPS in options or any(o[0] == "o" for o in options)
    options = [o[1] if o[0] == "o" else o for o in options if o != EPS]
    chars = frozenset().union(*[c for o in options if (c := _chars(o)) is not None])
    options = [o for o in options if _chars(o) is None] + ([("c", chars)] if chars else [])
    if len(options) > 1:
        seqs = [_seq(o) for o in options]
        head = 0
        while all(len(s) > head for s in seqs) and len({s[head] for s in seqs}) == 1:
            head += 1
        tail = 0
        while all(len(s) > head + tail for s in seqs) and len({s[len(s) - 1 - tail] for s in seqs}) == 1:
            tail += 1
        if head or tail:
            middle = alt(*[cat(*s[head:len(s) - tail]) for s in seqs])
            core = cat(*seqs[0][:head], middle, *seqs[0][len(seqs[0]) - tail:])
            return opt(core) if optional else core
    if not options:
        return EPS
    core = options[0] if len(options) == 1 else ("a", tuple(options))
    return opt(core) if optional else core


def star(term: Term | None) -> Term:
    if term is None or term == EPS:
        return EPS
    if term[0] in ("s", "o"):
        term = term[1]
    if term[0] == "r":
        term = term[1]  # (X{lo,hi})* is X* when lo <= 1; larger lo never comes from a loop edge
    return ("s", term)


@lru_cache(maxsize=1024)
def char_class(chars: frozenset[str]) -> str:
    digits = sorted(c for c in chars if c in DIGITS)
    parts: list[str] = []
    i = 0
    while i < len(digits):
        j = i
        while j + 1 < len(digits) and int(digits[j + 1]) == int(digits[j]) + 1:
            j += 1
        parts.append(digits[i] if i == j else digits[i] + digits[j] if j == i + 1 else f"{digits[i]}-{digits[j]}")
        i = j + 1
    if "-" in chars:
        parts.insert(0, "\\-")
    if "." in chars:
        parts.append("\\.")
    body = "".join(parts)
    if len(chars) == 1:
        return body
    return f"[{body}]"


def render(term: Term, memo: dict[int, tuple[Term, str]] | None = None) -> str:
    """The regex text of `term`. `memo` (id -> (term, text); the term is kept so its id stays its
    own) renders each term object once: state elimination shares subterms between edges and
    measures every edge it builds, which re-rendered the shared parts again and again."""
    if memo is not None:
        hit = memo.get(id(term))
        if hit is not None and hit[0] is term:
            return hit[1]
    kind = term[0]
    if kind == "e":
        text = ""
    elif kind == "c":
        text = char_class(term[1])
    elif kind == "a":
        text = "|".join(render(o, memo) for o in term[1])
    elif kind == "q":
        text = "".join(f"(?:{render(t, memo)})" if t[0] == "a" else render(t, memo) for t in term[1])
    else:
        inner = term[1]
        text = render(inner, memo)
        if inner[0] != "c":
            text = f"(?:{text})"
        if kind == "r":
            text += f"{{{term[2]}}}" if term[2] == term[3] else f"{{{term[2]},{term[3]}}}"
        else:
            text += "*" if kind == "s" else "?"
    if memo is not None:
        memo[id(term)] = (term, text)
    return text


def dfa_regex(dfa: Dfa, max_chars: int) -> str | None:
    """A regex for the automaton's language; None for the empty language. Raises TooLarge when
    an edge passes `max_chars`, or when the texts built along the way pass 16 times that (a
    residue automaton mod a large step grows its edges slowly but without end)."""
    n = len(dfa.edges)
    start, final = n, n + 1
    edges: dict[tuple[int, int], Term] = {(start, 0): EPS}
    for s, out in enumerate(dfa.edges):
        by_target: dict[int, set[str]] = {}
        for ch, t in out.items():
            by_target.setdefault(t, set()).add(ch)
        for t, chars in by_target.items():
            edges[(s, t)] = ("c", frozenset(chars))
    for s in dfa.accepting:
        edges[(s, final)] = EPS
    preds: dict[int, set[int]] = {k: set() for k in range(n + 2)}
    succs: dict[int, set[int]] = {k: set() for k in range(n + 2)}
    for a, b in edges:
        succs[a].add(b)
        preds[b].add(a)
    remaining = set(range(n))
    work = 0
    rendered: dict[int, tuple[Term, str]] = {}
    while remaining:
        k = min(remaining, key=lambda q: (len(preds[q] - {q}) * len(succs[q] - {q}), q))
        remaining.discard(k)
        loop = star(edges.pop((k, k), None))
        ins = [(a, edges.pop((a, k))) for a in preds.pop(k) if a != k]
        outs = [(b, edges.pop((k, b))) for b in succs.pop(k) if b != k]
        for a, _ in ins:
            succs[a].discard(k)
        for b, _ in outs:
            preds[b].discard(k)
        for a, t_in in ins:
            for b, t_out in outs:
                edges[(a, b)] = alt(edges.get((a, b)), cat(t_in, loop, t_out))
                succs[a].add(b)
                preds[b].add(a)
                size = len(render(edges[(a, b)], rendered))
                work += size
                if size > max_chars or work > 16 * max_chars:
                    raise TooLarge(f"regex longer than {max_chars} characters")
    result = edges.get((start, final))
    return None if result is None else render(result, rendered)
