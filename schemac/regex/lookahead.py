"""Leading look-aheads (`^(?=A)(?!B)R`) as a conjunction of plain patterns, exactly.

RE2 and llguidance have no look-around, yet schemas often guard a pattern with look-aheads right
after a leading `^`. Without the m flag `^` holds only at position 0, so an unanchored search of
`^(?=A1)…(?!B1)…R` can only succeed there, where the look-aheads are plain tests: it matches s iff
`^(?:R)` matches s, every `^(?:Ai)` matches s and no `^(?:Bj)` does (look-aheads capture nothing
any back-reference could read: back-references are refused). Each body and R is tried from
position 0 in both forms, so a `^` inside a body, or a second `^` opening R, holds where it did
(at the start, failing after a consumed character) and a `$` asserts the end of s in both.

`split_lookaheads` finds the shape with the one ECMA parser (`Translator`), so escapes, classes
and groups read as everywhere else; any other look-around (nested, after a consuming atom, in a
group or an alternative, a look-behind) leaves the pattern to the ordinary check, which refuses it
as before. `split_lookahead_patterns` rewrites every `pattern` keyword of that shape in a bundle,
before `check_patterns`: `pattern: P` becomes `pattern: ^R` plus `allOf` members `{pattern: ^A}`
and `{not: {type: string, pattern: ^B}}` appended after the user's own. `pattern` binds strings
only, so the negated members say `type: string` (a bare `not: {pattern}` would refuse every other
type, which the user's keyword let through); the existing negation of string keywords lowers
them (`schemac.lower.negation.strings`). `schemac.front.origins.in_source` maps diagnostics on the
appended members back to the user's `pattern` (`lookahead_member`). A pattern under
`propertyNames` is left whole: names have no key-level `allOf`, but every pattern with
look-aheads has an exact key terminal (`schemac.regex.assertions`).
"""
from __future__ import annotations

from typing import Any

from schemac.regex.parse import Translator
from schemac.regex.syntax import MAX_PATTERN_CHARS, PatternError
from schemac.schema import Bundle, Schema, iter_subschemas, some_subschema

_LEADS = ("^(?=", "^(?!")


def _parsed(pattern: str) -> Translator | PatternError:
    """`pattern` read by the ECMA parser with its leading look-aheads allowed, or its refusal."""
    parser = Translator(pattern, lookaheads=True)
    try:
        parser.parse()
    except PatternError as exc:
        return exc
    return parser


def split_lookaheads(pattern: str) -> tuple[str, list[tuple[bool, str]]] | None:
    """(rest R, [(positive, body), ...]) for `^(?=A)…(?!B)…R` with no other look-around and no
    top-level `|` (which would bind `^` to the first alternative only); None for any other pattern,
    and for one the ECMA parser refuses for another reason (the ordinary check reports it)."""
    if not pattern.startswith(_LEADS) or len(pattern) > MAX_PATTERN_CHARS:
        return None
    parser = _parsed(pattern)
    if isinstance(parser, PatternError) or parser.top_alternation:
        return None
    return pattern[parser.lead:], [(positive, pattern[a:b]) for positive, a, b in parser.lookaheads]


def lookahead_error(pattern: str) -> PatternError | None:
    """What the ECMA parser refuses in a pattern that opens with a look-ahead, reading the
    leading look-aheads as this module does: the pattern's real fault (an unclosed class, a
    repetition past the bound) rather than the look-ahead the plain parser stops at."""
    if not pattern.startswith(_LEADS):
        return None
    parsed = _parsed(pattern)
    return parsed if isinstance(parsed, PatternError) else None


def _anchored(body: str) -> str:
    """`^(?:body)`, without the group when `body` holds no `|` (simple negations stay simple)."""
    return "^" + body if "|" not in body else "^(?:" + body + ")"


def lookahead_members(pattern: str) -> tuple[str, list[Schema]] | None:
    """The plain `pattern` and the `allOf` members whose conjunction means `pattern`; None when
    `pattern` has no leading look-ahead shape."""
    split = split_lookaheads(pattern)
    if split is None:
        return None
    rest, parts = split
    if not rest and any(positive for positive, _ in parts):
        # `^(?=A)…` with nothing after: `^A` itself is the plain pattern (a vacuous `^` beside it
        # would leave llguidance an intersection it may fail to decide)
        first = next(i for i, (positive, _) in enumerate(parts) if positive)
        rest, parts = parts[first][1], parts[:first] + parts[first + 1:]
    members: list[Schema] = [
        {"pattern": _anchored(body)} if positive else {"not": {"type": "string", "pattern": _anchored(body)}}
        for positive, body in parts
    ]
    return _anchored(rest), members


def _rewritable(node: Schema) -> bool:
    return isinstance(node, dict) and isinstance(node.get("pattern"), str) and node["pattern"].startswith(_LEADS) \
        and isinstance(node.get("allOf", []), list)


def lookahead_member(node: Any, tokens: list[str]) -> bool:
    """Whether `tokens` (below `node`, a node of the document `resolve` read) lead into an `allOf`
    member that `split_lookahead_patterns` appended to `node`'s copy in the bundle."""
    if len(tokens) < 2 or tokens[0] != "allOf" or not tokens[1].isdigit() or not _rewritable(node):
        return False
    own = len(node.get("allOf", [])) + ("$ref" in node and "$dynamicRef" in node)  # `resolve` appends one for both
    return int(tokens[1]) >= own and split_lookaheads(node["pattern"]) is not None


def _has_leads(node: Schema) -> bool:
    """Whether some `pattern` under `node` opens with a look-ahead: the cheap walk every compile
    with patterns pays, as `check._has_patterns` does."""
    return some_subschema(node, lambda item: isinstance(item.get("pattern"), str) and item["pattern"].startswith(_LEADS))


def _rewrite(node: Schema) -> Schema:
    """`node` with every leading-look-ahead `pattern` below it rewritten; `node` itself when none.

    Iterative, keeping each visited node's parent and tokens rather than its whole path (paths
    are built only for the nodes rewritten)."""
    if not _has_leads(node):
        return node
    seen: list[tuple[int, tuple[str | int, ...]]] = []  # (index of the parent in `seen`, tokens from it)
    found: list[tuple[int, dict[str, Any], str, list[Schema]]] = []
    stack: list[tuple[int, tuple[str | int, ...], Schema, bool]] = [(-1, (), node, False)]
    while stack:
        parent, tokens, item, names = stack.pop()
        if not isinstance(item, dict):
            continue
        here = len(seen)
        seen.append((parent, tokens))
        names = names or tokens[:1] == ("propertyNames",)
        if _rewritable(item) and not names:
            form = lookahead_members(item["pattern"])
            if form is not None:
                found.append((here, item, *form))
        stack.extend((here, sub_tokens, sub, names) for sub_tokens, sub in iter_subschemas(item))
    if not found:
        return node
    copies: dict[int, Any] = {}  # id of an original container → its copy (each copied once)

    def copy(original: Any) -> Any:
        if id(original) not in copies:
            copies[id(original)] = dict(original) if isinstance(original, dict) else list(original)
        return copies[id(original)]

    top = copy(node)
    for index, item, plain, members in found:
        path: list[str | int] = []
        while index > 0:
            index, tokens = seen[index]
            path[:0] = tokens
        here, original = top, node
        for token in path:  # copy the containers on the way, so the caller's document is untouched
            child = original[token]
            here[token] = copy(child)
            here, original = here[token], child
        here["pattern"] = plain
        if "allOf" in item or members:
            here["allOf"] = copy(item["allOf"]) if "allOf" in item else []  # the copy a deeper path may use
            here["allOf"].extend(members)
    return top


def split_lookahead_patterns(bundle: Bundle) -> Bundle:
    """`bundle` with each `pattern` of leading look-aheads rewritten into plain patterns (see the
    module docstring); the same bundle when it has none."""
    root = _rewrite(bundle.root)
    defs = {name: _rewrite(body) for name, body in bundle.defs.items()}
    if root is bundle.root and all(defs[name] is body for name, body in bundle.defs.items()):
        return bundle
    return Bundle(root, defs, dict(bundle.origin))
