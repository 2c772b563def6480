"""ECMA-262 regex semantics for all of schemac: translation, matching, checks, JSON string terminals.

Owns every use of a schema pattern (and is the only importer of RE2); see `engine` for why.

JSON Schema patterns are ECMA-262 regexes with the "u" flag, matched unanchored. RE2 (the
validator's engine) and llguidance's Rust-like engine disagree with ECMA and with each other on
`.`, `\\s`, `[^]`, `[]`, `\\u` escapes and `[[:name:]]`. `translate` rewrites an ECMA pattern
into a spelling whose meaning is the ECMA one in *both* engines: every character class becomes an
explicit list of `\\x{..}` ranges, literals are escaped, names of groups are dropped and lazy
quantifiers become greedy (same language). Anything whose ECMA meaning no engine can keep is
refused: backreferences, lone surrogates. Unicode property escapes (`\\p{..}`, `\\P{..}`: General_Category
values, `Any`, `ASCII`, `Assigned`) become explicit ranges from Python's `unicodedata`
(`properties`), so a pattern holding one means that Unicode version's tables: an artifact records it.
Look-arounds and `\\b`/`\\B` have no regex in either engine: a pattern holding them outside
repetitions gets an exact Lark terminal with `&`/`~` instead (`assertions`, `lookaround`), as does
one with an anchor llguidance refuses (after consumed input, inside a repetition: `spelling`);
`needs_terminal`/`has_terminal` say which, and the Lark writer routes those nodes. Look-aheads
right after a leading `^` keep their older rewrite: `lookahead` turns a `pattern` keyword holding
them into plain patterns and negated ones (an exact conjunction) before the check. `translate`
also works around an llguidance 1.9.1 bug with classes that hold every control character
(`guard`) and refuses the patterns it cannot fix, and (`rewrite`) respells word-limit repetitions
such as `(?:\\S+\\s+){0,99}\\S+` into equal languages llguidance's lexer can run.
`ecma_search` is the one matcher: RE2 on the translated pattern, `assertions.search` (positions)
for a pattern with look-arounds or `\\b`.
`strings` builds Lark terminals for canonical JSON string spellings whose values match.
"""
from __future__ import annotations

from schemac.regex.assertions import needs_terminal
from schemac.regex.check import check_patterns, llguidance_pattern_errors
from schemac.regex.engine import compile_re2, ecma_search, literal_of, translate
from schemac.regex.lookahead import split_lookahead_patterns, split_lookaheads
from schemac.regex.parse import Translator
from schemac.regex.strings import canonical_string_terminal, has_terminal, json_string_terminal
from schemac.regex.syntax import (
    LINE_TERMINATORS, MAX_CODE_POINT, MAX_PATTERN_CHARS, MAX_REPEAT, RE2_MAX_MEM, PatternError, Ranges, complement,
)

__all__ = [
    "MAX_CODE_POINT", "MAX_PATTERN_CHARS", "MAX_REPEAT", "RE2_MAX_MEM", "PatternError", "Ranges",
    "canonical_string_terminal", "check_patterns", "compile_re2", "ecma_search", "has_terminal", "json_string_terminal",
    "literal_of", "llguidance_pattern_errors", "needs_terminal", "split_lookahead_patterns", "split_lookaheads",
    "translate",
    "LINE_TERMINATORS", "Translator", "complement",
]
