"""Front-end check of every pattern in a schema, and locating llguidance's refusals."""
from __future__ import annotations

from typing import Any, Iterator

from schemac.budget import Budget
from schemac.diagnostics import Diagnostic, reject
from schemac.regex.engine import compile_re2, translate
from schemac.regex.lookahead import lookahead_error
from schemac.regex.properties import UNICODE_VERSION, has_property_escape
from schemac.regex.strings import has_terminal, json_string_terminal
from schemac.regex.syntax import MAX_PATTERN_CHARS, PatternError
from schemac.schema import Bundle, Schema, child_pointer, iter_subschemas, some_subschema


def _patterns(node: Schema, pointer: str) -> Iterator[tuple[str, str]]:
    """(pattern, pointer) for every pattern in the tree under `node`; iterative."""
    for item, ptr in _objects(node, pointer):
        pat = item.get("pattern")
        if isinstance(pat, str):
            yield pat, child_pointer(ptr, "pattern")
        props = item.get("patternProperties")
        if isinstance(props, dict):
            for key in props:
                yield key, child_pointer(ptr, "patternProperties", key)


def _objects(node: Schema, pointer: str) -> Iterator[tuple[dict[str, Any], str]]:
    """(schema object, pointer) for every schema object under `node`, `node` included."""
    stack: list[tuple[Schema, str]] = [(node, pointer)]
    while stack:
        item, ptr = stack.pop()
        if isinstance(item, dict):
            yield item, ptr
            stack.extend((sub, child_pointer(ptr, *path)) for path, sub in iter_subschemas(item))


def _has_patterns(node: Schema) -> bool:
    """Whether `_patterns` would yield anything: the same positions, no pointers, any order."""
    return some_subschema(node, lambda item: isinstance(item.get("pattern"), str)
                          or (isinstance(item.get("patternProperties"), dict) and bool(item["patternProperties"])))


def _property_escaped(item: dict[str, Any]) -> bool:
    pattern, props = item.get("pattern"), item.get("patternProperties")
    return (isinstance(pattern, str) and has_property_escape(pattern)) or (
        isinstance(props, dict) and any(has_property_escape(key) for key in props))


def unicode_version_of(*roots: Schema | Bundle) -> str | None:
    """`UNICODE_VERSION` when some pattern under `roots` holds a Unicode property escape (its
    ranges are that version's tables: `properties`), else None: what an artifact records."""
    found = any(some_subschema(node, _property_escaped) for root in roots for node, _ in _roots(root))
    return UNICODE_VERSION if found else None


def _llguidance_complaint(schema: dict[str, Any]) -> str:
    """llguidance's complaint about compiling `schema`, or ""."""
    import llguidance

    try:
        return llguidance.LLMatcher.validate_grammar(llguidance.LLMatcher.grammar_from_json_schema(schema)) or ""
    except Exception as exc:  # llguidance raises ValueError/RuntimeError on malformed input
        return str(exc) or type(exc).__name__


def _llguidance_error(patterns: list[str]) -> str:
    """llguidance's complaint about `patterns` (all checked in one grammar), or ""."""
    return _llguidance_complaint({"type": "array", "prefixItems": [{"type": "string", "pattern": p} for p in patterns]})


def _refusal(message: str) -> str:
    return "" if "Unsatisfiable" in message else message  # empty language: valid, just matches nothing


def _llguidance_rejects(pattern: str) -> str:
    return _refusal(_llguidance_error([pattern]))


def _llguidance_rejects_together(patterns: list[str]) -> str:
    """llguidance's complaint about one string matching all of `patterns` (their intersection,
    which its regex engine may fail to decide), or ""."""
    return _refusal(_llguidance_complaint({"type": "string", "allOf": [{"pattern": p} for p in patterns]}))


def _together(node: Schema, pointer: str) -> Iterator[tuple[list[str], str]]:
    """(patterns, pointer of the first) for every schema object under `node` whose own `pattern`
    and its `allOf` members' (through nested `allOf`) bind one string together, two or more."""
    for item, ptr in _objects(node, pointer):
        found: list[tuple[str, str]] = []
        stack = [(item, ptr)]
        while stack:
            part, here = stack.pop()
            if isinstance(part.get("pattern"), str):
                found.append((part["pattern"], child_pointer(here, "pattern")))
            members = part.get("allOf")
            if isinstance(members, list):
                stack.extend((m, child_pointer(here, "allOf", i)) for i, m in reversed(list(enumerate(members)))
                             if isinstance(m, dict))
        if len(found) > 1:
            yield [p for p, _ in found], found[0][1]


def _roots(root: Schema | Bundle) -> list[tuple[Schema, str]]:
    """(schema, pointer of its origin) for a schema, or for a bundle's root and definitions."""
    if isinstance(root, Bundle):
        return [(root.root, "")] + [(body, root.origin.get(name, "")) for name, body in root.defs.items()]
    return [(root, "")]


def _terminal_error(pattern: str) -> PatternError | None:
    """Why a pattern has no exact terminal (rather than RE2's complaint about its look-arounds)."""
    try:
        json_string_terminal(pattern)
    except PatternError as exc:
        return exc
    return None


def check_patterns(root: Schema | Bundle, budget: Budget) -> None:
    """Check every pattern (`pattern`, `patternProperties` keys, inside `propertyNames` too).

    Each pattern must translate exactly and compile on RE2 within 2 MiB; its length is charged
    to the `regex_chars` budget. Raises `CompileError`. Given a Bundle, pointers are the
    definitions' origins in the user's document. llguidance's own acceptance is checked by the
    grammar check (emit), and `llguidance_pattern_errors` locates a refusal only when that fails:
    a separate llguidance check of every pattern cost as much as a typical whole compile.
    """
    roots = _roots(root)
    if not any(_has_patterns(node) for node, _ in roots):
        return
    found: set[str] = set()
    for node, pointer in roots:
        for pattern, ptr in _patterns(node, pointer):
            if len(pattern) > MAX_PATTERN_CHARS:
                raise reject("regex-too-large", ptr, f"pattern is longer than {MAX_PATTERN_CHARS:,} characters")
            budget.reserve("regex_chars", len(pattern), ptr)
            if pattern in found:
                continue
            try:
                if not has_terminal(pattern):  # assertions or anchors llguidance refuses: a Lark terminal
                    compile_re2(pattern)
                    translate(pattern)
            except PatternError as exc:
                # the terminal's reason is the most specific (it takes look-arounds where RE2 fails)
                exc = _terminal_error(pattern) or lookahead_error(pattern) or exc
                raise reject(exc.code, ptr, str(exc), hint="rewrite the pattern in the RE2-compatible subset of ECMA-262") from None
            found.add(pattern)


def _paid(budget: Budget | None, text: str) -> bool:
    """Whether `budget` (if any) can pay a native check on `text`; it pays when it can."""
    from schemac.budget import NATIVE_BYTES_PER_STEP

    if budget is None:
        return True
    cost = 1 + 4 * len(text) // NATIVE_BYTES_PER_STEP
    if not budget.fits("steps", cost):
        return False
    budget.step("", cost)
    return True


def llguidance_pattern_errors(root: Schema | Bundle, budget: Budget | None = None) -> list[Diagnostic]:
    """`unsupported-regex` for each pattern (already past `check_patterns`) that llguidance's regex
    engine refuses, at its pointer; else `grammar-error` at the first place where patterns it takes
    one by one bind one string together and it refuses their intersection (an `allOf` of
    patterns, a look-ahead pattern's parts); empty when neither. Run after a failed grammar check.
    Given the compile's `budget`, each check (one uninterruptible llguidance call) is paid for by
    its size before it runs, and locating stops (with what it found) at the first it cannot pay."""
    found: dict[str, str] = {}
    for node, pointer in _roots(root):
        for pattern, ptr in _patterns(node, pointer):
            if not has_terminal(pattern):  # those have no llguidance regex: the Lark probe judges them
                found.setdefault(pattern, ptr)
    if not found:
        return []
    errors: list[Diagnostic] = []
    if _paid(budget, "".join(found)) and _llguidance_error([translate(p) for p in found]):
        for pattern, ptr in found.items():
            if not _paid(budget, pattern):
                break
            message = _llguidance_rejects(translate(pattern))
            if message:
                errors.extend(reject("unsupported-regex", ptr, f"llguidance rejects the pattern: {message.strip()}").diagnostics)
    if errors:
        return errors
    for node, pointer in _roots(root):  # each alone is fine: look for patterns that bind one string together
        for patterns, ptr in _together(node, pointer):
            if any(has_terminal(p) for p in patterns):
                continue
            if not _paid(budget, "".join(patterns)):
                return []
            message = _llguidance_rejects_together([translate(p) for p in patterns])
            if message:
                return reject("grammar-error", ptr, f"llguidance cannot take these {len(patterns)} patterns on one "
                              f"string together: {message.strip().splitlines()[0][:300]}",
                              hint="simplify or merge the patterns that apply here").diagnostics
    return []
