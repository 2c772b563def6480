"""Unicode property escapes (`\\p{..}`, `\\P{..}`): exact General_Category classes, ECMA-262
spelling rules, the grammar and the validator agreeing, and the Unicode-version guard.

The oracle is `unicodedata.category` asked code point by code point (not the runs that
`schemac.regex.properties` builds), compared with the class `translate` spells, read back
from its text, over all 0x110000 code points; then RE2 (the validator) and llguidance (the
grammar) at every code point where some category changes, and node for ECMA-262's rules.
"""
from __future__ import annotations

import dataclasses
import json
import re
import unicodedata
from functools import lru_cache

import pytest

import schemac
from schemac.artifact import Artifact, ArtifactError
from schemac.regex import PatternError, compile_re2, ecma_search, translate
from schemac.regex.properties import GENERAL_CATEGORIES, MAX_PROPERTY_RANGES, UNICODE_VERSION, has_property_escape

N = 0x110000
SURROGATES = range(0xD800, 0xE000)
_ITEM = re.compile(r"(\\x\{[0-9A-F]+\}|[0-9A-Za-z])(?:-(\\x\{[0-9A-F]+\}|[0-9A-Za-z]))?")


@lru_cache(maxsize=1)
def _categories() -> tuple[bytes, dict[str, int]]:
    """Every code point's General_Category as one byte (an index into the returned names)."""
    names: dict[str, int] = {}
    codes = bytes(names.setdefault(unicodedata.category(chr(cp)), len(names)) for cp in range(N))
    return codes, names


def _oracle(members: frozenset[str]) -> bytes:
    """1 where the code point's category is one of `members`, else 0 (surrogates 0: a don't-care)."""
    codes, names = _categories()
    table = bytes(1 if name in members else 0 for name in sorted(names, key=names.get)).ljust(256, b"\0")
    return _no_surrogates(codes.translate(table))


def _no_surrogates(mask: bytes | bytearray) -> bytes:
    out = bytearray(mask)
    out[SURROGATES.start:SURROGATES.stop] = bytes(len(SURROGATES))
    return bytes(out)


def _code(item: str) -> int:
    return int(item[3:-1], 16) if item.startswith("\\x{") else ord(item)


def _members(pattern: str) -> bytes:
    """The code points the class `pattern` (one escape) translates to, read back from the text
    of its explicit `[...]`/`[^...]` spelling (as `translate` writes it before splitting a class
    around llguidance's escape bug: that split is checked below, through the grammar)."""
    from schemac.regex.parse import Translator

    parser = Translator(pattern)
    parser.parse()
    (class_text,) = parser.out
    assert class_text.startswith("[") and class_text.endswith("]"), class_text
    negated = class_text.startswith("[^")
    body = class_text[2 if negated else 1:-1]
    mask = bytearray(N)
    at = 0
    for match in _ITEM.finditer(body):
        assert match.start() == at, (class_text[:80], at)  # nothing else in the class
        lo = _code(match.group(1))
        hi = _code(match.group(2)) if match.group(2) else lo
        mask[lo:hi + 1] = b"\1" * (hi - lo + 1)
        at = match.end()
    assert at == len(body)
    if negated:
        mask = bytearray(mask.translate(bytes([1, 0]) + bytes(254)))
    return _no_surrogates(mask)


def _first_difference(got: bytes, expected: bytes) -> str:
    cp = next(i for i, (a, b) in enumerate(zip(got, expected)) if a != b)
    return f"U+{cp:04X} ({unicodedata.category(chr(cp))}): translated {got[cp]}, unicodedata {expected[cp]}"


def _spellings() -> list[tuple[str, frozenset[str]]]:
    """Every ECMA-262 spelling of a General_Category value, lone and after both property names."""
    out = []
    for name, members in GENERAL_CATEGORIES.items():
        out += [(name, members), (f"gc={name}", members), (f"General_Category={name}", members)]
    return out


# ---- exact by construction: every code point, every category -----------------------------

@pytest.mark.parametrize("body, members", _spellings(), ids=[b for b, _ in _spellings()])
def test_general_category_classes_are_exact(body: str, members: frozenset[str]) -> None:
    """`\\p{X}` holds exactly the code points whose category is in X, and `\\P{X}` exactly the
    others, over all of U+0000..U+10FFFF (surrogates aside: no JSON string holds one)."""
    expected = _oracle(members)
    got = _members(f"\\p{{{body}}}")
    assert got == expected, _first_difference(got, expected)
    negated = _members(f"\\P{{{body}}}")
    complement = _no_surrogates(expected.translate(bytes([1, 0]) + bytes(254)))
    assert negated == complement, _first_difference(negated, complement)


def test_binary_properties_are_exact() -> None:
    everything = _no_surrogates(b"\1" * N)
    assert _members(r"\p{Any}") == everything
    assert _members(r"\P{Any}") == bytes(N)
    assert _members(r"\p{ASCII}") == _no_surrogates(b"\1" * 0x80 + bytes(N - 0x80))
    assigned = _oracle(frozenset(c for c in _categories()[1] if c != "Cn"))
    assert _members(r"\p{Assigned}") == assigned


@lru_cache(maxsize=1)
def _change_points() -> list[int]:
    """Every code point where the category changes, and the one before it (no surrogates):
    between two of these, every class here is constant."""
    codes, _ = _categories()
    points = {0, N - 1}
    for cp in range(1, N):
        if codes[cp] != codes[cp - 1]:
            points |= {cp - 1, cp}
    return sorted(p for p in points if p not in SURROGATES)


GROUPS = {"L", "LC", "M", "N", "P", "S", "Z", "C"}
CATEGORIES = sorted({m for ms in GENERAL_CATEGORIES.values() for m in ms} | GROUPS)


@pytest.mark.parametrize("short", CATEGORIES)
def test_validator_reads_the_classes_at_every_change(short: str) -> None:
    """RE2, the final validator's engine, on the translated pattern: right at every code point
    where any category changes (so everywhere)."""
    members = GENERAL_CATEGORIES[short]
    expected = _oracle(members)
    inside, outside = compile_re2(f"^\\p{{{short}}}$"), compile_re2(f"^\\P{{{short}}}$")
    wrong = [cp for cp in _change_points()
             if (inside.search(chr(cp)) is not None) is not bool(expected[cp])
             or (outside.search(chr(cp)) is not None) is bool(expected[cp])]
    assert wrong == [], [f"U+{cp:04X}" for cp in wrong[:10]]


def _own_change_points(mask: bytes) -> list[int]:
    """Where `mask` changes (both sides), and the ends of each UTF-8 length and of the surrogates."""
    points = {0, 0x7F, 0x80, 0x7FF, 0x800, 0xD7FF, 0xE000, 0xFFFF, 0x10000, N - 1}
    for cp in range(1, N):
        if mask[cp] != mask[cp - 1]:
            points |= {cp - 1, cp}
    return sorted(p for p in points if p not in SURROGATES)


def _grammar(pattern: str) -> str:
    return schemac.compile({"type": "string", "pattern": pattern}, use_cache=False).grammar


@pytest.mark.parametrize("body", ["L", "Nd", "P", "Zs", "Cc", "C", "Cn"])
def test_grammar_reads_the_classes_at_their_changes(body: str) -> None:
    """llguidance, the grammar's engine, on schemac's grammar: each code point where X's membership
    changes (and the UTF-8 length boundaries) as a one-character JSON string, for `\\p{X}+` and
    `\\P{X}+` (`+`: \\p{Cc}, \\p{C} and \\P{P} hold every control character but not `"`, and
    llguidance's escape bug leaves such a class exact only repeated: `guard` splits it then,
    and refuses `^\\p{Cc}$`)."""
    from testkit.grammar_harness import accepts

    expected = _oracle(GENERAL_CATEGORIES[body])
    inside, outside = _grammar(f"^\\p{{{body}}}+$"), _grammar(f"^\\P{{{body}}}+$")
    wrong = []
    for cp in _own_change_points(expected):
        text = json.dumps(chr(cp), ensure_ascii=False).replace("\x7f", "\\u007f")  # the grammar's spelling
        if accepts(inside, text) is not bool(expected[cp]) or accepts(outside, text) is bool(expected[cp]):
            wrong.append(f"U+{cp:04X}")
    assert wrong == []


# ---- the Test Suite's cases, through the real matcher ---------------------------------------

def test_letters_through_the_grammar() -> None:
    """pattern.json #2 and patternProperties.json #5, as the grammar and the validator see them."""
    from testkit.grammar_harness import accepts

    art = schemac.compile({"type": "string", "pattern": "^\\p{Letter}+$"}, use_cache=False)
    for text, ok in [('"Hello"', True), ('"π"', True), ('"Ǆǅǆ"', True), ('"123"', False), ('""', False),
                     ('"a1"', False), ('"a b"', False)]:
        assert accepts(art.grammar, text) is ok, text
        assert art.validate(text).ok is ok, text
    keys = schemac.compile({"type": "object", "patternProperties": {"^\\p{Letter}+$": {"type": "number"}},
                            "additionalProperties": False}, use_cache=False)
    assert accepts(keys.grammar, '{"π":1}') and accepts(keys.grammar, '{"école":1}')
    assert not accepts(keys.grammar, '{"π":"x"}') and not accepts(keys.grammar, '{"123":1}')
    cole = schemac.compile({"type": "string", "pattern": "\\p{Letter}cole"}, use_cache=False)
    assert accepts(cole.grammar, '"l\'école"') and not accepts(cole.grammar, '"L\'ÉCOLE"')


def test_classes_and_complements_through_the_grammar() -> None:
    from testkit.grammar_harness import accepts

    for pattern, good, bad in [
        ("^[\\p{L}\\d]+$", ['"a1"', '"π9"'], ['"٣"', '"a-1"']),
        ("^[^\\p{L}]+$", ['"1-٣"', '" "'], ['"a"', '"1π"']),
        ("^\\P{L}+$", ['"1-٣"'], ['"é"']),
        ("^[^\\P{Lu}]$", ['"A"', '"Ω"'], ['"a"', '"1"']),
        ("^\\p{gc=Nd}+$", ['"42"', '"৪২"'], ['"-%#"']),
        ("^\\p{digit}+$", ['"42"', '"৪২"'], ['"-%#"']),  # ecmascript-regex.json #14
        ("^\\p{Cc}*$", ['"\\u0000\\n"', '""'], ['"\\""', '"\\\\"', '"a"']),  # the escape-bug split
        ("^(?=\\p{Lu})\\p{L}+$", ['"Ab"'], ['"ab"']),  # a leading look-ahead
        ("\\b\\p{Lu}", ['"a B"'], ['"ab"']),  # an assertion: a Lark terminal
    ]:
        art = schemac.compile({"type": "string", "pattern": pattern}, use_cache=False)
        for text in good:
            assert accepts(art.grammar, text) and art.validate(text).ok, (pattern, text)
        for text in bad:
            assert not accepts(art.grammar, text) and not art.validate(text).ok, (pattern, text)


# ---- ECMA-262 spelling: case-sensitive names, what is refused and why ----------------------

@pytest.mark.parametrize("pattern, fragment", [
    (r"\p{letter}", "invalid ECMA-262 regex"),  # names are case-sensitive: no loose matching
    (r"\p{Uppercase_letter}", "invalid ECMA-262 regex"),
    (r"\p{general_category=L}", "invalid ECMA-262 regex"),
    (r"\p{Gc=L}", "invalid ECMA-262 regex"),
    (r"\p{gc=Any}", "no General_Category value"),
    (r"\p{General_Category=Assigned}", "no General_Category value"),
    (r"\p{gc}", "invalid ECMA-262 regex"),
    (r"\p{L&}", "invalid ECMA-262 regex"),
    (r"\p{Is_L}", "invalid ECMA-262 regex"),
    (r"\p{ L}", "invalid ECMA-262 regex"),
    (r"\p{gc = L}", "invalid ECMA-262 regex"),
    (r"\p{}", "invalid ECMA-262 regex"),
    (r"\p", "invalid ECMA-262 regex"),
    (r"\pL", "invalid ECMA-262 regex"),
    (r"\p{L", "invalid ECMA-262 regex"),
    (r"[\p{L}-z]", "class escape in a range"),
    (r"\p{Script=Latin}", "script properties are not supported"),
    (r"\p{sc=Grek}", "script properties are not supported"),
    (r"\p{scx=Grek}", "script properties are not supported"),
    (r"\p{Script_Extensions=Latin}", "script properties are not supported"),
    (r"\P{Alphabetic}", "binary property Alphabetic is not supported"),
    (r"\p{White_Space}", "binary property White_Space is not supported"),
    (r"\p{Emoji}", "binary property Emoji is not supported"),
])
def test_refused_with_the_reason(pattern: str, fragment: str) -> None:
    with pytest.raises(PatternError) as info:
        translate(pattern)
    assert info.value.code == "unsupported-regex" and fragment in str(info.value)
    with pytest.raises(schemac.CompileError) as compiled:
        schemac.compile({"type": "string", "pattern": pattern}, use_cache=False)
    assert compiled.value.codes == ["unsupported-regex"]


def test_aliases_name_the_same_class() -> None:
    """Short, long and extra ECMA-262 aliases (`digit`, `punct`, `cntrl`, `Combining_Mark`: node
    and the Test Suite's ecmascript-regex.json #14/#19 take them) are one class."""
    for names in [("L", "Letter"), ("Nd", "Decimal_Number", "digit"), ("P", "Punctuation", "punct"),
                  ("Cc", "Control", "cntrl"), ("M", "Mark", "Combining_Mark"), ("LC", "Cased_Letter")]:
        spelt = {translate(f"\\p{{{form}{n}}}") for n in names for form in ("", "gc=", "General_Category=")}
        assert len(spelt) == 1, names


def test_translation_is_bounded() -> None:
    """A few pattern characters spell kilobytes of class: the total is capped (regex-too-large)."""
    fits = r"\p{L}" * (MAX_PROPERTY_RANGES // 1000)
    translate(fits)
    with pytest.raises(PatternError) as info:
        translate(r"\p{L}" * 50_000)
    assert info.value.code == "regex-too-large"


def test_has_property_escape() -> None:
    assert has_property_escape(r"^\p{L}$") and has_property_escape(r"[^\P{Lu}]") and has_property_escape(r"a\\\p{L}")
    assert not has_property_escape(r"\\p{L}") and not has_property_escape(r"p{L}") and not has_property_escape("a\\")


# ---- node: ECMA-262's own answer -------------------------------------------------------------

from testkit.ecma_oracle import node_available, node_verdicts, strings  # noqa: E402

needs_node = pytest.mark.skipif(not node_available(), reason="node (the independent ECMA-262 oracle) is not installed")

#: one character of every category, none whose category changed between Unicode 14 (Python 3.11)
#: and node's newer tables; U+FFFE and U+10FFFF are noncharacters (Cn for good)
STABLE = ["a", "Z", "π", "Ω", "ǅ", "ʰ", "中", "\u0300", "\u0903", "\u20dd", "5", "٣", "Ⅻ", "½", "_", "-", "(", ")",
          "«", "»", "!", "$", "^", "+", "©", " ", "\u00a0", "\u2028", "\u2029", "\x00", "\n", "\u00ad", "\ue000",
          "\ufffe", "\U0010ffff", "\U0001f600", "\U0001d400", "\U000e0001", '"', "\\"]
SHORTS = [c for c in CATEGORIES if c != "Cs"]
SEMANTICS = (
    [f"^\\p{{{s}}}$" for s in SHORTS] + [f"^\\P{{{s}}}$" for s in SHORTS]
    + [r"^\p{Letter}+$", r"\p{Letter}", r"^[\p{L}\d]+$", r"^[^\p{L}]+$", r"^[^\P{L}]$", r"^[\p{Lu}\p{Nd}_]+$",
       r"^\p{gc=Lu}\p{General_Category=Lowercase_Letter}$", r"^\p{digit}+$", r"^[\p{P}\p{S}]+$", r"^\P{Any}$",
       r"^\p{Any}+$", r"^\p{ASCII}+$", r"^\P{ASCII}$", r"^\p{Assigned}$", r"^\P{Assigned}$", r"^[^\p{Cn}\p{Co}]$",
       r"^\p{Lu}\p{Ll}*$", r"^(?:\p{L}|\p{N})+$", r"^\p{Z}|\p{Zs}$", r"[\p{C}]"]
)


@needs_node
def test_semantics_agree_with_node() -> None:
    """`ecma_search` (RE2 on the translation) answers as node's `RegExp(p, "u").test`, for every
    category, its complement and class combinations, on every string of up to 2 stable characters."""
    words = strings(STABLE, 2)
    verdicts = node_verdicts(SEMANTICS, STABLE, 2)
    wrong = []
    for pattern in SEMANTICS:
        expected = verdicts[pattern]
        assert expected is not None, f"node refuses {pattern!r}"
        wrong += [(pattern, w) for w, e in zip(words, expected) if ecma_search(pattern, w) is not e]
    assert wrong[:20] == []


NAMES = (
    [n for n in GENERAL_CATEGORIES] + [f"gc={n}" for n in GENERAL_CATEGORIES]
    + [f"General_Category={n}" for n in GENERAL_CATEGORIES]
    + [n.lower() for n in GENERAL_CATEGORIES if n.lower() != n] + [n.upper() for n in GENERAL_CATEGORIES if n.upper() != n]
    + ["Any", "ASCII", "Assigned", "any", "Ascii", "assigned", "Alphabetic", "Alpha", "White_Space", "space", "Emoji",
       "ASCII_Hex_Digit", "AHex", "Hex", "XIDS", "Lowercase", "Lower", "Uppercase", "Math", "Dash",
       "Script=Latin", "sc=Latn", "scx=Grek", "Script_Extensions=Greek", "sc=Nope", "Script=latin",
       "gc=Any", "gc=Assigned", "General_Category=ASCII", "gc", "General_Category", "Gc=L", "GC=L", "gc=l",
       "L&", "Is_L", "isL", "InGreek", "L1", "_L", "", " L", "L ", "gc =L", "gc= L", "gc==L", "Other", "Number",
       "Letter_Number", "Emoji=Yes", "Any=Yes", "ASCII=True", "Nd=digit"]
)


@needs_node
def test_names_agree_with_node() -> None:
    """What node refuses is refused; what node takes is translated, or refused as a script or
    binary property schemac does not support; what schemac translates node takes."""
    verdicts = node_verdicts([f"\\p{{{n}}}" for n in NAMES], ["a"], 0)
    wrong = []
    for name in NAMES:
        valid = verdicts[f"\\p{{{name}}}"] is not None
        try:
            translate(f"\\p{{{name}}}")
            ours = "translated"
        except PatternError as exc:
            ours = "unsupported" if "not supported" in str(exc) else "invalid"
        if (ours == "translated" and not valid) or (valid and ours == "invalid") or (not valid and ours == "translated"):
            wrong.append((name, valid, ours))
        if ours == "invalid":
            assert not valid, name
    assert wrong == []


# ---- the Unicode version: part of a pattern's meaning ---------------------------------------

def _faked(art: Artifact, version: str) -> dict:
    from schemac.artifact import canonical_json, sha256_text

    data = art.to_json()
    data["unicode_version"] = version
    data["checksum"] = sha256_text(canonical_json({k: v for k, v in data.items() if k != "checksum"}))
    return data


def test_artifact_records_the_unicode_version_only_when_used() -> None:
    used = schemac.compile({"type": "object", "properties": {"a": {"$ref": "#/$defs/w"}},
                            "$defs": {"w": {"type": "string", "pattern": "^[\\p{L}]+$"}}}, use_cache=False)
    assert used.unicode_version == unicodedata.unidata_version == UNICODE_VERSION
    assert used.to_json()["unicode_version"] == UNICODE_VERSION
    assert Artifact.loads(used.dumps()).unicode_version == UNICODE_VERSION
    names = schemac.compile({"propertyNames": {"pattern": "^\\P{Lu}"}}, use_cache=False)
    assert names.unicode_version == UNICODE_VERSION
    plain = schemac.compile({"type": "string", "pattern": "^\\\\p{L}$"}, use_cache=False)  # a backslash, then p
    assert plain.unicode_version is None and "unicode_version" not in plain.to_json()


def test_cache_key_covers_the_unicode_version(monkeypatch: pytest.MonkeyPatch) -> None:
    import schemac.pipeline as pipeline

    schema = {"type": "string", "pattern": "^\\p{L}+$"}
    options = schemac.compile(schema, use_cache=False).options
    key = pipeline.cache_key(schema, options)
    monkeypatch.setattr(pipeline, "UNICODE_VERSION", "13.0.0")
    assert pipeline.cache_key(schema, options) != key


@pytest.mark.parametrize("version", ["13.0.0", "99.0.0", ""])
def test_another_unicode_version_is_refused(version: str, tmp_path) -> None:
    """An artifact compiled under other Unicode tables is refused wherever it is read: loading,
    the runtime's admission, the disk cache (deleted, then recompiled), answer validation."""
    from schemac.cache import DiskCache
    from schemac.runtime import AdmissionError, load_artifact

    art = schemac.compile({"type": "string", "pattern": "^\\p{Letter}+$"}, use_cache=False)
    data = _faked(art, version)
    with pytest.raises(ArtifactError, match="Unicode"):
        Artifact.from_json(data)
    with pytest.raises(AdmissionError, match="Unicode"):
        load_artifact(json.dumps(data))
    foreign = dataclasses.replace(art, unicode_version=version)  # as if unpickled from another Python
    with pytest.raises(AdmissionError, match="Unicode"):
        load_artifact(foreign)
    with pytest.raises(ArtifactError, match="Unicode"):
        foreign.validate('"Hello"')
    cache = DiskCache(tmp_path)
    cache.put(art)
    (entry,) = list(tmp_path.glob("*/*.json"))
    entry.write_text(json.dumps(data), encoding="utf-8")
    assert cache.get(art.key) is None and not entry.exists()
    same = _faked(art, UNICODE_VERSION)  # the running version: accepted
    assert Artifact.from_json(same).validate('"Hello"').ok


def test_unsplittable_control_class_is_refused() -> None:
    """`^\\p{Cc}$` holds every control character but not `"`, once: llguidance 1.9.1 would admit
    `\\"`, and no split fixes it, so it is refused (as `^[\\x00-\\x1f]$` is)."""
    with pytest.raises(schemac.CompileError) as info:
        schemac.compile({"type": "string", "pattern": "^\\p{Cc}$"}, use_cache=False)
    assert info.value.codes == ["unsupported-regex"] and "control character" in str(info.value)


def test_tool_grammar_artifact_records_the_unicode_version() -> None:
    import schemac.tools as tools
    from testkit.tools_cases import chat, chat_tool

    letters = {"type": "object", "properties": {"w": {"type": "string", "pattern": "^\\p{L}+$"}}, "required": ["w"]}
    with_escape = tools.build(chat([chat_tool("f", letters)]), api="chat", parser="hermes")
    assert with_escape.artifact().unicode_version == UNICODE_VERSION
    assert with_escape.validate('<tool_call>\n{"name": "f", "arguments": {"w": "π"}}\n</tool_call>').ok
    assert not with_escape.validate('<tool_call>\n{"name": "f", "arguments": {"w": "1"}}\n</tool_call>').ok
    plain = tools.build(chat([chat_tool("f", {"type": "object"})]), api="chat", parser="hermes")
    assert plain.artifact().unicode_version is None
