"""The text report, shaped like ruff's: only the problems, one line each, then a summary.

    schemas/a.json:5:7: error[remote-ref] $ref 'https://example.com/s.json' points outside the document (at /properties/a/$ref)
        hint: copy the referenced schema under $defs

Lines are never wrapped (a file name stays whole for editors and problem matchers), quoted
literals longer than `LITERAL_MAX` characters are shortened in the middle, and colour is used
only on a terminal without NO_COLOR. `--show-ok` / `--format table` add a per-schema table
first; `--statistics` prints counts per code instead of the lines.
"""
from __future__ import annotations

import re
from collections import Counter
from typing import Callable

from schemac.cli.runner import Outcome

LITERAL_MAX = 60
MESSAGE_MAX = 400
_QUOTED = re.compile(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"")

Style = Callable[..., str]


def plain(text: str, **_style: object) -> str:
    return text


def shorten(message: str) -> str:
    """`message` with each quoted literal over LITERAL_MAX characters cut in the middle, and the
    whole bounded by MESSAGE_MAX (a 2,000-character regex helps no one in a terminal)."""
    half = (LITERAL_MAX - 1) // 2

    def cut(m: re.Match[str]) -> str:
        text = m.group(0)
        if len(text) <= LITERAL_MAX:
            return text
        return text[: half + 1] + "…" + text[-half - 1:]

    out = _QUOTED.sub(cut, message)
    return out if len(out) <= MESSAGE_MAX else out[: MESSAGE_MAX - 1] + "…"


def diagnostic_lines(o: Outcome, style: Style = plain, hints: bool = True) -> list[str]:
    """`path:line:col: severity[code] message (at pointer)`, each hint on an indented line below."""
    lines = []
    for d in o.diagnostics:
        colour = "red" if d["severity"] == "error" else "yellow"
        lines.append(
            f"{style(o.display, bold=True)}:{d['line']}:{d['column']}: "
            f"{style(d['severity'] + '[' + d['code'] + ']', fg=colour, bold=True)} "
            f"{shorten(d['message'])} {style('(at ' + (d['pointer'] or '/') + ')', fg='cyan')}"
        )
        if hints and d.get("hint"):
            lines.append(f"    {style('hint:', dim=True)} {shorten(d['hint'])}")
    return lines


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def summary_line(outcomes: list[Outcome]) -> str:
    """'Found 2 errors and 1 warning in 2 of 300 schemas (298 ok).' or 'All 300 schemas compile.'"""
    severities = Counter(d["severity"] for o in outcomes for d in o.diagnostics)
    status = Counter(o.status for o in outcomes)
    bad = sum(1 for o in outcomes if o.diagnostics)
    if not severities:
        line = (f"All {_plural(len(outcomes), 'schema')} compile." if len(outcomes) != 1
                else "The schema compiles.")
    else:
        found = " and ".join(_plural(severities[s], s) for s in ("error", "warning") if severities[s])
        line = f"Found {found} in {bad} of {_plural(len(outcomes), 'schema')} ({status['ok']} ok"
        line += f", {status['rejected']} rejected" if status["rejected"] else ""
        line += ")."
    if status["ignored"]:
        line += f" {status['ignored']} passed with errors ignored by the configuration."
    suppressed = sum(o.suppressed for o in outcomes)
    if suppressed:
        line += f" {_plural(suppressed, 'diagnostic')} hidden by per-file-ignores."
    return line


def statistics_lines(outcomes: list[Outcome]) -> list[str]:
    """One line per code, most frequent first: `count  severity  code`."""
    counts = Counter((d["code"], d["severity"]) for o in outcomes for d in o.diagnostics)
    width = max((len(str(n)) for n in counts.values()), default=1)
    return [f"{n:>{width}}  {severity:<7}  {code}" for (code, severity), n in
            sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))]


def _budget_cell(budget: dict[str, dict[str, int]]) -> str:
    if not budget:
        return "-"
    kind, use = max(budget.items(), key=lambda kv: kv[1]["used"] / max(kv[1]["limit"], 1))
    if use["used"] == 0:
        return "0%"
    return f"{100.0 * use['used'] / max(use['limit'], 1):.0f}% {kind}"


def table_lines(outcomes: list[Outcome], with_artifacts: bool) -> list[str]:
    """One row per schema, columns padded to their widest cell (never wrapped)."""
    header = ["schema", "status", "diagnostics", "budget", "ms"] + (["artifact"] if with_artifacts else [])
    rows = [header]
    for o in outcomes:
        row = [o.display, o.status, str(len(o.diagnostics)), _budget_cell(o.budget), f"{o.compile_ms:.1f}"]
        if with_artifacts:
            row.append(o.artifact or "-")
        rows.append(row)
    widths = [max(len(r[i]) for r in rows) for i in range(len(header))]
    right = {2, 3, 4}
    return ["  ".join(c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(r, widths))).rstrip()
            for r in rows]


def render(outcomes: list[Outcome], *, style: Style = plain, skipped: int = 0, out_dir: str | None = None,
           table: bool = False, statistics: bool = False, quiet: bool = False) -> list[str]:
    """The whole text report as lines. `quiet`: the diagnostic lines only."""
    if quiet:
        return [line for o in outcomes for line in diagnostic_lines(o, style, hints=False)]
    lines: list[str] = []
    if table and outcomes:
        lines += table_lines(outcomes, out_dir is not None) + [""]
    if statistics:
        lines += statistics_lines(outcomes)
    else:
        lines += [line for o in outcomes for line in diagnostic_lines(o, style)]
    tail = summary_line(outcomes)
    if skipped:
        tail += f" {_plural(skipped, 'file')} left out (--show-files lists them and why)."
    lines.append(tail)
    if out_dir is not None:
        written = sum(1 for o in outcomes if o.artifact)
        lines.append(f"Wrote {_plural(written, 'artifact')} to {out_dir}.")
    return lines
