"""An independent ECMA-262 oracle for the regex tests: node's own RegExp with the "u" flag.

JSON Schema 2020-12 reads patterns as ECMA-262 with the "u" flag (the Test Suite's
`optional/ecmascript-regex.json` needs `\\p{Letter}`), matched unanchored. Node runs every
catalogue pattern over every string up to a length from `ALPHABET` in one process; Python walks
the same strings in the same order (`itertools.product`), so answers line up by index.
"""
from __future__ import annotations

import itertools
import json
import shutil
import subprocess
from functools import lru_cache

import pytest

#: characters where ECMA, RE2, Python `re` and llguidance disagree, plus plain ones
ALPHABET = [
    "a", "b", "0", "_", " ", "\t", "\n", "\r", "\x0b", "\x00", "\x1f", "\x7f", '"', "\\", "-",
    "\u0085", "\u00a0", "\u00e9", "\u0663", "\u2028", "\u2029", "\ufeff", "\U0001f600",
]
#: a smaller alphabet for length-3 strings (still every class boundary the catalogue has)
SHORT_ALPHABET = ["a", "b", " ", "\n", "\r", "\u00a0", "\u2028", "\ufeff", "\U0001f600", '"', "\\", "\x00"]

#: patterns over ECMA classes, anchors, `.`, line terminators, astral characters, quantifiers,
#: alternation, groups and escapes (all valid with the "u" flag)
CATALOGUE = [
    r"^.$", r"^..$", r".", r"^.*$", r"^.+$", r"^\s$", r"^\S$", r"\s", r"\S", r"^\s*$", r"^\S+$",
    r"^\d$", r"^\D$", r"^\w$", r"^\W$", r"^\w+$", r"\W", r"^[^]$", r"[^]", r"^[^]*$", r"[]", r"^[]*$",
    r"^[\s\S]$", r"^[^\s]$", r"^[^\S]$", r"^[^\d\s]+$", r"^[^\D]$", r"^[\w\s]$", r"^[^\W\d]$",
    r"^(?:\S+\s+){0,2}\S+$", r"^a$", r"a$", r"^a", r"a", r"^$", r"$", r"^", r"a|^b", r"^(a|b$)",
    r"^a|b$", r"^(?:a|)$", r"^(|a)b$", r"^a*$", r"^a+?$", r"^a??$", r"^a{2}$", r"^a{1,2}$", r"^a{2,}$",
    r"^(?:ab|a)*$", r"^(?:a|ab)(?:c|bcd)?$", r"^[^a]$", r"^[^a]+$", r"^[a-c-]$", r"^[-a]$",
    r"^[\u00a0-\u00ff]$", r"^\u{1F600}$", r"^\ud83d\ude00$", r"^[\u{1F600}-\u{1F64F}]$", r"^[^\u{1F600}]$",
    r"^\uFEFF$", r"^\x7f$", r"^[\x00-\x1f]$", r"^[^\x00-\x1f]*$", r'^[^"]*$', r'^[^"]+$', r'^[^"]?$',
    r"^[^\\]+$", r'^[^"\\]*$', r'^(?:\\.|[^"\\])*$', r"^\t$", r"^\cJ$", r"^\0$", r"^\/$", r"^[\b]$",
    r"^\n|\r$", r"^(?<n>a)b$", r"^\.$", r"\$", r"^\^", r"^[\^]$", r"^[.]$", r"^[\]]$", r"^\[\]$",
    r"^\u2028$", r"^[\u2028\u2029]$", r"^\r\n$", r"^[\n\r]+$", r"^\x0B$", r"^\v$", r"^\f$",
    r"^é$", r"^\u00E9$", r"^\u0663$", r"^[\d٣]$", r"^\S\s\S$", r"^(a)(b)?$", r"(?:)", r"^(?:)$",
    r"^[a\-b]$", r"^\{\}$", r"^\|$", r"^(?:\s|\S)$", r"^.?.?$", r"^[😀]$", r"^😀+$",
    r"^a{0}b$", r"^(?:)*$", r"^[^]{2}$", r"^\S{1,2}$", r"^(?:a|b)+?$", r"(?:^|\s)a(?:\s|$)", r"^(?:^a|b$)$",
    r"\s$|^\s", r"^[^\n\r]*$", r"[\u2028\u2029]", r"^[^\s\S]$", r"^\W+\w$",
    r"^[\ud83d\ude00-\ud83d\ude4f]$", r"^[^\ud83d\ude00]$", r"^\u{0}$", r"^[\u{0}-\u{1f}\u{7f}]+$",
    r"^[\0-\x1f]?$", r"^\x22$", r"^[\x5c]$",
]


def strings(alphabet: list[str], max_len: int) -> list[str]:
    """Every string over `alphabet` up to `max_len` characters, in node's order (see `_SCRIPT`)."""
    return ["".join(t) for n in range(max_len + 1) for t in itertools.product(alphabet, repeat=n)]


_SCRIPT = r"""
const input = JSON.parse(require('fs').readFileSync(0, 'utf8'));
const words = [];
for (let n = 0; n <= input.max_len; n++) {
  const rec = (prefix, k) => {
    if (k === 0) { words.push(prefix); return; }
    for (const c of input.alphabet) rec(prefix + c, k - 1);
  };
  rec('', n);
}
const out = input.patterns.map(p => {
  let re;
  try { re = new RegExp(p, 'u'); } catch (e) { return null; }
  return words.map(w => re.test(w) ? '1' : '0').join('');
});
process.stdout.write(JSON.stringify(out));
"""


def node_available() -> bool:
    return shutil.which("node") is not None


@lru_cache(maxsize=8)
def _run(patterns: tuple[str, ...], alphabet: tuple[str, ...], max_len: int) -> tuple[str | None, ...]:
    payload = json.dumps({"patterns": list(patterns), "alphabet": list(alphabet), "max_len": max_len})
    done = subprocess.run(["node", "-e", _SCRIPT], input=payload, capture_output=True, text=True, check=True)
    return tuple(json.loads(done.stdout))


def node_verdicts(patterns: list[str], alphabet: list[str], max_len: int) -> dict[str, list[bool] | None]:
    """For each pattern, node's `RegExp(p, "u").test(s)` for each of `strings(alphabet, max_len)`;
    None where node refuses the pattern (a SyntaxError under the "u" flag)."""
    answers = _run(tuple(patterns), tuple(alphabet), max_len)
    return {p: None if a is None else [c == "1" for c in a] for p, a in zip(patterns, answers)}


_NODE_WORDS = r"""
const input = JSON.parse(require('fs').readFileSync(0, 'utf8'));
process.stdout.write(JSON.stringify(input.patterns.map(p => input.words.map(w => new RegExp(p, 'u').test(w)))));
"""


def node_words(patterns: list[str], words: list[str]) -> dict[str, list[bool]]:
    """node's `RegExp(p, "u").test(w)` for given words (not an enumeration)."""
    if not node_available():
        pytest.skip("node (the ECMA-262 oracle) is not installed")
    done = subprocess.run(["node", "-e", _NODE_WORDS], input=json.dumps({"patterns": patterns, "words": words}),
                          capture_output=True, text=True, check=True)
    return dict(zip(patterns, json.loads(done.stdout)))
