"""Format agreement: does the grammar for `{"type": "string", "format": X}` accept exactly the
strings the final validator's format check accepts?

    python3 -m benchmarks.format_agreement [--seed 0] [--mutants 3000] [--format NAME ...]

For each enforced format, candidates are built from the RFC grammar's edges (leap years
1900/2000/2023/2024, every leap-second local time against its offset and neighbours, IPv6 with
`::` at every position and IPv4 tails, IPv4 with leading zeros, host names at 63/64-octet labels
and 252-254 octets, quoted email local parts, URI odd schemes and percent-encoding, relative
references with ":" in the first segment, IRIs with every ucschar/iprivate boundary in every URI
part, JSON Pointer "~" escapes, Relative JSON Pointer index manipulation, URI Template operators,
prefixes and literals, durations such as P1W/PT/P1Y2M) plus seeded random single-character
mutations of them. Each candidate's two JSON texts (`json.dumps`, and UTF-8 beyond ASCII with
DEL escaped: llguidance takes non-ASCII raw only, and DEL escaped only) go through a
byte-level llguidance matcher over the compiled grammar, which accepts the string when it
accepts either text, and the string through `schemac.validate.final.FORMAT_CHECKS`. Printed per format:
candidates, agree, grammar-only (unsound: must be 0) and validator-only (completeness loss),
then compile milliseconds (best of 20, no cache) of each format's schema. Exit status 1 when any
grammar-only candidate exists.
"""
from __future__ import annotations

import argparse
import json
import random
import sys
import time
from typing import Any, Callable, Iterable

_ALPHABET = (
    "0123456789aAfFgzZTt:.-+_@[]%/?#\"\\ ~!$&'()*,;=xPYMWDHS{}<>^`|\n\x00\x7f"
    "\u00a0\u00e9\ud7ff\ue000\uf8ff\uf900\ufdd0\ufff0\U0001f600\U0001fffe\U000f0000\U0010fffd"
)


def _tokenizer() -> Any:
    from testkit.grammar_harness import _tokenizer as byte_tokenizer

    return byte_tokenizer()


def grammar_check(fmt: str) -> Callable[[str], bool]:
    """Acceptance of a string, in either JSON spelling, by the compiled grammar for `format: fmt`."""
    from llguidance import LLMatcher

    from schemac.pipeline import compile_schema

    grammar = compile_schema({"type": "string", "format": fmt}, use_cache=False).grammar
    fresh = LLMatcher(_tokenizer(), grammar, log_level=0)
    if fresh.is_error():
        raise ValueError(fresh.get_error())

    def accepts_text(text: bytes) -> bool:
        matcher = fresh.deep_copy()
        return bool(matcher.consume_tokens(list(text)) and matcher.is_accepting())

    def accepts(value: str) -> bool:
        raw = json.dumps(value, ensure_ascii=False).replace("\x7f", "\\u007f").encode("utf-8", "surrogatepass")
        return accepts_text(json.dumps(value).encode()) or accepts_text(raw)

    return accepts


# ---- candidates -----------------------------------------------------------------------------

_YEARS = ["0000", "0004", "0100", "0400", "1600", "1800", "1900", "1996", "2000", "2023", "2024", "2100", "2400", "9999"]


def _dates() -> list[str]:
    out = [f"{y}-{m:02}-{d:02}" for y in _YEARS for m in range(0, 14) for d in (0, 1, 28, 29, 30, 31, 32)]
    return out + ["2023-1-01", "2023-01-1", "20230101", "2023/01/01", "+2023-01-01", "2023-01-01 ", "２０２３-01-01", ""]


def _leap_cases(rng: random.Random) -> list[str]:
    """Second 60 at every local minute with its one right offset per sign, and near misses."""
    out = []
    for h in range(24):
        for m in range(60):
            local = h * 60 + m
            for sign in (1, -1):
                off = (sign * (local - 1439)) % 1440
                for delta in (0, 1, -1, 60):
                    o = (off + delta) % 1440
                    if delta == 0 or rng.random() < 0.1:
                        out.append(f"{h:02}:{m:02}:60{'+' if sign > 0 else '-'}{o // 60:02}:{o % 60:02}")
    return out + ["23:59:60Z", "23:59:60z", "23:59:60.999Z", "22:59:60Z", "23:58:60Z", "23:59:61Z", "23:59:60+00:00", "23:59:60-00:00"]


def _times(rng: random.Random) -> list[str]:
    out = _leap_cases(rng)
    for hms in ("00:00:00", "23:59:59", "24:00:00", "23:60:00", "12:00:61", "12:0:00", "1:00:00"):
        for frac in ("", ".0", ".123456789", ".", ".x"):
            for off in ("Z", "z", "+00:00", "-23:59", "+24:00", "+23:60", "+0100", "", " Z", "+01"):
                out.append(hms + frac + off)
    return out


def _date_times(rng: random.Random) -> list[str]:
    dates = ["2023-02-28", "2023-02-29", "2024-02-29", "1900-02-29", "2000-02-29", "2023-04-31", "2023-12-31"]
    times = ["23:59:60Z", "15:59:60-08:00", "15:59:60+08:00", "00:00:00Z", "12:30:45.5+05:30", "24:00:00Z"]
    out = [d + sep + t for d in dates for sep in ("T", "t", " ", "") for t in times]
    out += [f"{rng.choice(_YEARS)}-{rng.randint(1, 12):02}-{rng.randint(1, 31):02}T{t}" for t in _leap_cases(rng)[::7]]
    return out


def _durations() -> list[str]:
    parts = ["1Y", "2M", "3W", "4D"]
    times = ["5H", "6M", "7S"]
    out = []
    for mask in range(16):
        date = "".join(p for i, p in enumerate(parts) if mask >> i & 1)
        for tmask in range(8):
            time_ = "".join(p for i, p in enumerate(times) if tmask >> i & 1)
            out += ["P" + date + ("T" + time_ if time_ else ""), "P" + date + "T" + time_]
    return out + ["P", "PT", "P1W2D", "P1.5D", "PT1.5S", "P1M1Y", "PT1S1M", "P1DT", "p1d", "P0D", "PT0S", "P10000Y", "1D", "P-1D"]


def _ipv4s() -> list[str]:
    octets = ["0", "00", "01", "1", "9", "10", "99", "100", "199", "200", "249", "250", "255", "256", "300", "1000", ""]
    out = [".".join([a, b, "1", "2"]) for a in octets for b in octets]
    return out + ["1.2.3", "1.2.3.4.5", "1.2.3.4.", " 1.2.3.4", "1.2.3.04", "0x1.2.3.4", "1..2.3"]


def _ipv6s(rng: random.Random) -> list[str]:
    out = ["::", "::1", "1::", "::ffff:1.2.3.4", "::1.2.3.4", "1:2:3:4:5:6:1.2.3.4", "1:2:3:4:5:6:7:8", "1:2:3:4:5:6:7::",
           "::2:3:4:5:6:7:8", "1::2::3", ":::", "1:2:3:4:5:6:7:8:9", "12345::", "1:2:3:4:5:6:7", "fe80::1%eth0",
           "::ffff:256.1.1.1", "::ffff:01.1.1.1", "1:2:3:4:5:6:7:1.2.3.4", "[::1]", "::FFFF:1.2.3.4", "g::"]
    for _ in range(600):
        n = rng.randint(0, 9)
        groups = [format(rng.randrange(0x10000), "x")[: rng.randint(1, 4)] for _ in range(n)]
        tail = rng.random() < 0.3
        if tail:
            groups = groups[:-1] if groups else groups
        cut = rng.randint(0, len(groups)) if rng.random() < 0.7 else None
        text = ":".join(groups) if cut is None else ":".join(groups[:cut]) + "::" + ":".join(groups[cut:])
        if tail:
            text += (":" if text and not text.endswith(":") else "") + ".".join(str(rng.choice([1, 10, 255, 256])) for _ in range(4))
        out.append(text)
    return out


def _hostnames() -> list[str]:
    out = []
    for sizes in ([63], [64], [63, 63, 63, 61], [63, 63, 63, 62], [63, 63, 63, 63], [1] * 126, [1] * 127, [62, 63, 63, 63]):
        out.append(".".join("a" * (n - 1) + "b" for n in sizes))
    return out + ["a", "-a", "a-", "a-b", "a_b", "a.", ".a", "a..b", "", "xn--bcher-kva.example", "1.2.3.4", "A.B", "a b", "é.com"]


def _emails() -> list[str]:
    locals_ = ["a", "a.b", "a..b", ".a", "a.", '"a b"', '"a\\"b"', '"a@b"', '"\\\\"', '""', '"a\tb"', "a+b_c", "{a}|~", "a b", "é"]
    domains = ["x.com", "x", "-x.com", "x-.com", "x..com", "[1.2.3.4]", "[IPv6:::1]", "[IPv6:1.2.3.4]", "[IPv6:::1:2:3:4:5:6]", "[IPv6:1::2::3]", "[1.2.3]", "[ipv6:::1]", "", "x.com."]
    return [f"{lp}@{d}" for lp in locals_ for d in domains] + ["a", "@x.com", "a@@x.com", "a@b@c"]


def _uris() -> list[str]:
    out = ["a:", ":", "1a:b", "a+b.c-d:x", "http://x/%41", "http://x/%4G", "http://x/%", "http://x/ a", "http://[::ffff:1.2.3.4]/",
           "http://[::1]:80/", "http://[v1.x]/", "http://[v1.]/", "http://[1::2::3]/", "http://user:pw@host:8080/p?q=1#f",
           "http://[::1:2:3:4:5:6]/", "http://[1:2:3:4:5:6:1.2.3.4]/", "http://[1:2:3:4:5:6:7:8:9]/", "http://[::256.1.1.1]/",
           "mailto:a@b", "urn:isbn:0451450523", "a:b#c?d", "a:b#c#d", "a://", "a:///", "a:/", "a://h:p", "//x", "x", "a:é",
           "http://x/[", "http://x:80:90/", "HTTP://X", "a:?#", "http://01.02.03.004/", "a:%20", "http://[::1%25eth0]/"]
    return out


def _uri_references() -> list[str]:
    relative = ["", "?q", "#f", "?", "#", "//", "///", "//a@b@c/", "1:b", "./a:b", "a/b:c", "/a:b", "a:b", "%zz", "/%41",
                "//[::1]", "/[::1]", "[::1]", "//h:abc", "//h:80", "a b", "\\x", "..", "../a?b#c", "//[V1.x]", "//[v1.]", "@a",
                "a@b:c", "//u:p@[::ffff:1.2.3.4]:8/p", "//[::ffff:1.2.3.01]/", "?a/b?c#d/e?", "#a#b", "a%2Fb", "é"]
    return _uris() + relative


#: RFC 3987 edges: the last and first code points of each ucschar / iprivate range and its gaps
_NON_ASCII = ["\u009f", "\u00a0", "\ud7ff", "\ue000", "\uf8ff", "\uf900", "\ufdcf", "\ufdd0", "\ufdef", "\ufdf0",
              "\uffef", "\ufff0", "\ufffd", "\U00010000", "\U0001fffd", "\U0001fffe", "\U000dfffd", "\U000e0fff",
              "\U000e1000", "\U000efffd", "\U000f0000", "\U000ffffd", "\U000ffffe", "\U00100000", "\U0010fffd",
              "\U0010ffff"]


def _iris(references: bool) -> list[str]:
    base = ["http://{c}@h/p?q#f", "http://u@{c}/p?q#f", "http://u@h/{c}?q#f", "http://u@h/p?{c}#f", "http://u@h/p?q#{c}",
            "{c}:x", "h{c}p:x", "http://[{c}::1]/", "http://h:{c}/", "x:{c}", "x:/{c}", "x:?{c}"]
    if references:
        base += ["{c}", "{c}:x", "a/{c}:x", "//{c}", "?{c}", "#{c}", "/{c}"]
    out = [b.format(c=c) for b in base for c in _NON_ASCII]
    out += ["http://ƒøø.ßår/?∂éœ=πîx#πîüx", "http://ƒøø.ßår/?q=\U000f0000", "http://[V1.fe]", "http://[::ffff:192.168.0.01]"]
    return out + (_uri_references() if references else _uris())


def _json_pointers() -> list[str]:
    tokens = ["", "a", "~0", "~1", "~", "~2", "~~", "~01", "~-1", "0", "-", "é", "\U0001f600", " ", "\n", "\x00", "%a", "\\", "\""]
    out = ["/" + a for a in tokens] + ["/" + a + "/" + b for a in tokens for b in tokens]
    return out + ["", "#", "#/", "a", "0", "a/a", "//", "/a/", "/~1.1", "/~0.1"]


def _relative_json_pointers() -> list[str]:
    heads = ["0", "1", "01", "10", "120", "-1", "+1", "", "١", "0+1", "0-1", "1-0", "0+01", "0-", "0+", "0++1", "1-2"]
    tails = ["", "#", "##", "/", "/a", "//", "/~2", "/a~", "/~01", "#/a", "a", "\n", " ", "/é"]
    return [h + t for h in heads for t in tails]


def _uri_templates() -> list[str]:
    bodies = ["var", "x,y", "a.b", "a..b", ".a", "a.", "%41", "%4g", "v:1", "v:0", "v:01", "v:1000", "v:9999", "v:10000",
              "var*", "var*:3", "v:3*", "a,,b", "a,", ",a", "", "var=def", "a-b", "a b", "é", "a!b", "A_1"]
    ops = ["", "+", "#", ".", "/", ";", "?", "&", "=", ",", "!", "@", "|", "$", "(", "*", "{"]
    out = ["{" + o + b + "}" for o in ops for b in bodies]
    literals = ["a'b", "a b", "a\x7fb", "a%41b", "a%zzb", "a%4", "%", 'a"b', "a<b", "a>b", "a\\b", "a^b", "a`b", "a|b",
                "a}b", "a{b", "\U0001f600", "\ue000", "\ufffe", "\u00a0", "\u009f", "~", "[]", "http://example.com/{term:1}/{term}"]
    return out + literals + ["x{a}y{b}", "{a}{b}", "{a}}", "{{a}", ""]


def candidates(fmt: str, rng: random.Random) -> list[str]:
    """The edge cases for `fmt` (before mutation)."""
    return {
        "date": _dates,
        "time": lambda: _times(rng),
        "date-time": lambda: _date_times(rng),
        "duration": _durations,
        "ipv4": _ipv4s,
        "ipv6": lambda: _ipv6s(rng),
        "hostname": _hostnames,
        "email": _emails,
        "uuid": lambda: ["123e4567-e89b-12d3-a456-426614174000", "123E4567-E89B-12D3-A456-426614174000",
                         "123e4567e89b12d3a456426614174000", "123e4567-e89b-12d3-a456-42661417400", "g23e4567-e89b-12d3-a456-426614174000",
                         "{123e4567-e89b-12d3-a456-426614174000}", "00000000-0000-0000-0000-000000000000"],
        "uri": _uris,
        "uri-reference": _uri_references,
        "iri": lambda: _iris(False),
        "iri-reference": lambda: _iris(True),
        "json-pointer": _json_pointers,
        "relative-json-pointer": _relative_json_pointers,
        "uri-template": _uri_templates,
    }[fmt]()


def mutants(seeds: list[str], n: int, rng: random.Random) -> Iterable[str]:
    """`n` single-character insertions, deletions and replacements of random seeds."""
    for _ in range(n):
        s = rng.choice(seeds)
        i = rng.randint(0, len(s))
        op = rng.randrange(3)
        c = rng.choice(_ALPHABET)
        yield s[:i] + c + s[i:] if op == 0 or not s else s[:i] + s[i + 1:] if op == 1 else s[:i] + c + s[i + 1:]


def compile_ms(fmt: str, rounds: int = 20) -> float:
    from schemac.pipeline import compile_schema

    best = float("inf")
    for _ in range(rounds):
        started = time.perf_counter()
        compile_schema({"type": "string", "format": fmt}, use_cache=False)
        best = min(best, time.perf_counter() - started)
    return best * 1000.0


def main(argv: list[str] | None = None) -> int:
    from schemac.front.formats import ENFORCED_FORMATS
    from schemac.validate.final import FORMAT_CHECKS

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--mutants", type=int, default=3000, help="random mutations per format")
    parser.add_argument("--format", action="append", choices=sorted(ENFORCED_FORMATS))
    args = parser.parse_args(argv)
    unsound = 0
    print(f"{'format':<21} {'candidates':>10} {'agree':>7} {'grammar-only':>12} {'validator-only':>14} {'compile ms':>10}")
    for fmt in args.format or sorted(ENFORCED_FORMATS):
        rng = random.Random(f"{args.seed}:{fmt}")
        seeds = candidates(fmt, rng)
        pool = list(dict.fromkeys([*seeds, *mutants(seeds, args.mutants, rng)]))
        grammar, valid = grammar_check(fmt), FORMAT_CHECKS[fmt]
        grammar_only = [c for c in pool if grammar(c) and not valid(c)]
        validator_only = [c for c in pool if valid(c) and not grammar(c)]
        agree = len(pool) - len(grammar_only) - len(validator_only)
        print(f"{fmt:<21} {len(pool):>10} {agree:>7} {len(grammar_only):>12} {len(validator_only):>14} {compile_ms(fmt):>10.2f}")
        for label, found in (("grammar-only", grammar_only), ("validator-only", validator_only)):
            if found:
                print(f"    {label}: {', '.join(map(repr, found[:8]))}")
        unsound += len(grammar_only)
    return 1 if unsound else 0


if __name__ == "__main__":
    sys.exit(main())
