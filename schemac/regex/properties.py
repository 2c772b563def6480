"""ECMA-262 Unicode property escapes (`\\p{..}`, `\\P{..}`, u flag) as explicit code point ranges.

Supported, with ECMA-262's exact spelling (case-sensitive, no loose matching): every
General_Category value and alias ECMA-262 lists (`L`, `Letter`, `LC`, `Cased_Letter`, `Nd`,
`Decimal_Number`, `digit`, ...), alone or after `General_Category=` / `gc=`, and the binary
properties `Any`, `ASCII` and `Assigned`. The ranges come from Python's `unicodedata` (Unicode
`UNICODE_VERSION`): one pass over every code point on the first property escape a process meets
(never before), kept for the process. Both the grammar (llguidance) and the final validator (RE2)
read the same explicit ranges, so they agree by construction; what they depend on is the Unicode
version, which an artifact using a property escape records (`Artifact.unicode_version`).

Refused (`unsupported-regex`): scripts (`Script=`, `sc=`, `Script_Extensions=`, `scx=`) and the
other binary properties, named as such; anything else is not ECMA-262 syntax and is refused as
invalid. Lone surrogates (`Cs`) are a don't-care, as everywhere in `syntax` (`normalise`):
no JSON string the grammar admits holds one.
"""
from __future__ import annotations

import itertools
import unicodedata
from functools import lru_cache

from schemac.regex.syntax import MAX_CODE_POINT, Ranges, complement, normalise

#: the Unicode version of the ranges (and so of every pattern holding a property escape)
UNICODE_VERSION: str = unicodedata.unidata_version

#: General_Category: (short name, long name, other ECMA-262 aliases, two-letter members of a group)
_GENERAL_CATEGORY: tuple[tuple[str, str, tuple[str, ...], tuple[str, ...]], ...] = (
    ("C", "Other", (), ("Cc", "Cf", "Cn", "Co", "Cs")),
    ("Cc", "Control", ("cntrl",), ()),
    ("Cf", "Format", (), ()),
    ("Cn", "Unassigned", (), ()),
    ("Co", "Private_Use", (), ()),
    ("Cs", "Surrogate", (), ()),
    ("L", "Letter", (), ("Ll", "Lm", "Lo", "Lt", "Lu")),
    ("LC", "Cased_Letter", (), ("Ll", "Lt", "Lu")),
    ("Ll", "Lowercase_Letter", (), ()),
    ("Lm", "Modifier_Letter", (), ()),
    ("Lo", "Other_Letter", (), ()),
    ("Lt", "Titlecase_Letter", (), ()),
    ("Lu", "Uppercase_Letter", (), ()),
    ("M", "Mark", ("Combining_Mark",), ("Mc", "Me", "Mn")),
    ("Mc", "Spacing_Mark", (), ()),
    ("Me", "Enclosing_Mark", (), ()),
    ("Mn", "Nonspacing_Mark", (), ()),
    ("N", "Number", (), ("Nd", "Nl", "No")),
    ("Nd", "Decimal_Number", ("digit",), ()),
    ("Nl", "Letter_Number", (), ()),
    ("No", "Other_Number", (), ()),
    ("P", "Punctuation", ("punct",), ("Pc", "Pd", "Pe", "Pf", "Pi", "Po", "Ps")),
    ("Pc", "Connector_Punctuation", (), ()),
    ("Pd", "Dash_Punctuation", (), ()),
    ("Pe", "Close_Punctuation", (), ()),
    ("Pf", "Final_Punctuation", (), ()),
    ("Pi", "Initial_Punctuation", (), ()),
    ("Po", "Other_Punctuation", (), ()),
    ("Ps", "Open_Punctuation", (), ()),
    ("S", "Symbol", (), ("Sc", "Sk", "Sm", "So")),
    ("Sc", "Currency_Symbol", (), ()),
    ("Sk", "Modifier_Symbol", (), ()),
    ("Sm", "Math_Symbol", (), ()),
    ("So", "Other_Symbol", (), ()),
    ("Z", "Separator", (), ("Zl", "Zp", "Zs")),
    ("Zl", "Line_Separator", (), ()),
    ("Zp", "Paragraph_Separator", (), ()),
    ("Zs", "Space_Separator", (), ()),
)
#: every ECMA-262 spelling of a General_Category value -> the two-letter categories it names
GENERAL_CATEGORIES: dict[str, frozenset[str]] = {
    name: frozenset(members or (short,))
    for short, long, aliases, members in _GENERAL_CATEGORY for name in (short, long, *aliases)
}
_GC_NAMES = ("General_Category", "gc")
_SCRIPT_NAMES = ("Script", "sc", "Script_Extensions", "scx")
#: the binary properties translated here (Assigned: every category but Cn)
_BINARY = ("Any", "ASCII", "Assigned")
#: ECMA-262's other binary properties (names and aliases): valid syntax, refused as unsupported
_OTHER_BINARY = frozenset((
    "ASCII_Hex_Digit AHex Alphabetic Alpha Bidi_Control Bidi_C Bidi_Mirrored Bidi_M Case_Ignorable CI Cased "
    "Changes_When_Casefolded CWCF Changes_When_Casemapped CWCM Changes_When_Lowercased CWL "
    "Changes_When_NFKC_Casefolded CWKCF Changes_When_Titlecased CWT Changes_When_Uppercased CWU Dash "
    "Default_Ignorable_Code_Point DI Deprecated Dep Diacritic Dia Emoji Emoji_Component EComp Emoji_Modifier EMod "
    "Emoji_Modifier_Base EBase Emoji_Presentation EPres Extended_Pictographic ExtPict Extender Ext Grapheme_Base "
    "Gr_Base Grapheme_Extend Gr_Ext Hex_Digit Hex IDS_Binary_Operator IDSB IDS_Trinary_Operator IDST ID_Continue "
    "IDC ID_Start IDS Ideographic Ideo Join_Control Join_C Logical_Order_Exception LOE Lowercase Lower Math "
    "Noncharacter_Code_Point NChar Pattern_Syntax Pat_Syn Pattern_White_Space Pat_WS Quotation_Mark QMark Radical "
    "Regional_Indicator RI Sentence_Terminal STerm Soft_Dotted SD Terminal_Punctuation Term Unified_Ideograph "
    "UIdeo Uppercase Upper Variation_Selector VS White_Space space XID_Continue XIDC XID_Start XIDS"
).split())
_SUPPORTED = "General_Category values, Any, ASCII and Assigned"
#: ranges the property escapes of one pattern may bring (`\p{L}` alone is about 650): a few
#: characters of pattern spell kilobytes of explicit class (milliseconds each), so this bounds
#: the translation's time and size; RE2's 2 MiB program refuses patterns not far above it
#: anyway (about 150 `\p{L}`)
MAX_PROPERTY_RANGES = 1 << 16


@lru_cache(maxsize=1)
def _category_table() -> dict[str, tuple[tuple[int, int], ...]]:
    """Each two-letter General_Category -> its runs of code points: one pass over all of them
    (about half a second), on the first property escape only."""
    runs: dict[str, list[tuple[int, int]]] = {}
    start = 0
    for category, run in itertools.groupby(map(unicodedata.category, map(chr, range(MAX_CODE_POINT + 1)))):
        end = start + sum(1 for _ in run)
        runs.setdefault(category, []).append((start, end - 1))
        start = end
    return {category: tuple(found) for category, found in runs.items()}


@lru_cache(maxsize=None)
def _category_ranges(members: frozenset[str]) -> tuple[tuple[int, int], ...]:
    """The code points of the union of `members` (two-letter categories), normalised."""
    table = _category_table()
    return tuple(normalise([run for member in members for run in table.get(member, ())]))


def property_ranges(body: str) -> Ranges:
    """The code points `\\p{body}` matches (normalised; a fresh list). ValueError with the
    reason when `body` is no property this module translates (see the module's docstring)."""
    name, equals, value = body.partition("=")
    if equals:
        if name in _GC_NAMES and value in GENERAL_CATEGORIES:
            return list(_category_ranges(GENERAL_CATEGORIES[value]))
        if name in _GC_NAMES:
            raise ValueError(f"invalid ECMA-262 regex: {value!r} is no General_Category value "
                             "(names are case-sensitive)")
        if name in _SCRIPT_NAMES:
            raise ValueError(f"Unicode property escape \\p{{{body}}}: script properties are not supported "
                             f"(only {_SUPPORTED})")
        raise ValueError(f"invalid ECMA-262 regex: unknown Unicode property {name!r} in \\p{{{body}}}")
    if body in GENERAL_CATEGORIES:
        return list(_category_ranges(GENERAL_CATEGORIES[body]))
    if body == "Any":
        return [(0, MAX_CODE_POINT)]
    if body == "ASCII":
        return [(0, 0x7F)]
    if body == "Assigned":
        return complement(list(_category_ranges(frozenset({"Cn"}))))
    if body in _OTHER_BINARY:
        raise ValueError(f"Unicode property escape \\p{{{body}}}: binary property {body} is not supported "
                         f"(only {_SUPPORTED})")
    raise ValueError(f"invalid ECMA-262 regex: unknown Unicode property name or value {body!r} "
                     "(names are case-sensitive)")


def has_property_escape(pattern: str) -> bool:
    """Whether `pattern` holds `\\p` or `\\P` as an escape (every backslash starts an escape, so
    a scan pairing them is exact for any pattern `translate` takes)."""
    i = pattern.find("\\")
    while i >= 0:
        if pattern[i + 1:i + 2] in ("p", "P"):
            return True
        i = pattern.find("\\", i + 2)
    return False
