"""The text report: one table per section (schemac beside raw llguidance), then the lists."""
from __future__ import annotations

import io
import json
from typing import Any

from benchmarks.conformance.cases import ENGINES, LISTED, percentile
from benchmarks.conformance.stats import Report, SectionStats


def _rows(stats: SectionStats) -> list[tuple[str, str, str]]:
    ours, raw = stats.engines["schemac"], stats.engines["llguidance"]
    both = stats.to_json()["both_compiled"]

    def pair(f: Any) -> tuple[str, str]:
        return str(f(ours)), str(f(raw))

    ratio = stats.ratio()
    return [
        ("schemas / instances", f"{stats.schemas} / {stats.instances}", ""),
        ("compiled", *pair(lambda e: e.compiled)),
        ("rejected", *pair(lambda e: sum(e.rejected.values()))),
        ("bugs (non-CompileError)", *pair(lambda e: len(e.bugs))),
        ("instances checked", *pair(lambda e: e.instances_checked)),
        ("invalidation errors", *pair(lambda e: len(e.invalidation_errors))),
        ("validation errors", *pair(lambda e: len(e.validation_errors))),
        ("  of which property order only", *pair(lambda e: sum(i["property_order"] for i in e.validation_errors))),
        ("compile ms p50 (all)", *pair(lambda e: f"{percentile(e.compile_ms, 50):.2f}")),
        ("compile ms p99 (all)", *pair(lambda e: f"{percentile(e.compile_ms, 99):.2f}")),
        ("compile CPU ms p50 / p99 (all)", *pair(
            lambda e: f"{percentile(e.compile_cpu_ms, 50):.2f} / {percentile(e.compile_cpu_ms, 99):.1f}")),
        (f"compile ms p50 (both compiled, n={both['schemas']})",
         f"{both['schemac_ms_p50']:.2f}", f"{both['llguidance_ms_p50']:.2f}"),
        ("schemac / llguidance p50 ratio", f"{ratio:.1f}x" if ratio else "-", ""),
        ("  p50 when compiled first / second", *(
            " / ".join(f"{v:.2f}" for v in both["ms_p50_first_second"][e]) for e in ENGINES)),
        ("validation errors (both compiled)",
         str(both["schemac_validation_errors"]), str(both["llguidance_validation_errors"])),
        ("schemas passing (every instance right)", str(stats.passing), ""),
        ("  refused as unsatisfiable, all invalid", str(stats.unsatisfiable_exact), ""),
        ("compiled by llguidance only", str(len(stats.llguidance_only)), ""),
        ("final-validator disagreements", str(sum(stats.validator_disagreements.values())), ""),
    ]


def _details(name: str, stats: SectionStats) -> list[str]:
    lines: list[str] = []
    for engine, es in stats.engines.items():
        if es.rejected:
            top = ", ".join(f"{code} {n}" for code, n in es.rejected.most_common(8))
            lines.append(f"  {engine} rejected by: {top}")
    for engine, es in stats.engines.items():
        for title, items in (("invalidation errors", es.invalidation_errors), ("bugs", es.bugs)):
            if items:
                lines.append(f"  {engine} {title} ({len(items)}):")
                lines += [f"    {json.dumps(i, ensure_ascii=False)}" for i in items[:LISTED]]
                if len(items) > LISTED:
                    lines.append(f"    … {len(items) - LISTED} more in --json")
    if stats.validator_disagreements:
        top = ", ".join(f"{f} {n}" for f, n in stats.validator_disagreements.most_common(LISTED))
        lines.append(f"  final-validator disagreements by file: {top}")
    if stats.validator_errors:
        lines.append(f"  final validator could not judge {sum(stats.validator_errors.values())} instances")
    if stats.default_policy_rejected:
        n = stats.default_policy_rejected.get("unsupported-dialect", 0)
        lines.append(f"  default policy (no --upgrade-drafts): {n} schemas rejected with unsupported-dialect")
    if stats.slowest:
        top = ", ".join(f"{c} {t:.2f}s" for t, c in stats.slowest[:5])
        lines.append(f"  slowest cases (CPU): {top}")
    if stats.tokenizer_mismatches:
        lines.append(f"  tokenizer round-trip mismatches: {stats.tokenizer_mismatches}")
    return [f"[{name}]"] + lines if lines else []


def render_text(report: Report) -> str:
    head = (f"schemac conformance: tokenizer {report.tokenizer} (V={report.vocab_size}), "
            f"upgrade_drafts={report.upgrade_drafts}, key_order={report.key_order}, jobs={report.jobs}, "
            f"ref_map={','.join(f'{u}={d}' for u, d in report.ref_map.items()) or 'none'}, wall {report.wall_s:.1f} s, "
            f"worker CPU {sum(s.cpu_s for s in report.sections.values()):.1f} s")
    tables: list[str] = []
    try:
        from rich.console import Console
        from rich.table import Table
    except ImportError:
        Console = None  # noqa: N806 - plain text below
    for name, stats in report.ordered():
        rows = _rows(stats)
        if Console is not None:
            table = Table(title=name, title_justify="left")
            for col, justify in (("", "left"), ("schemac", "right"), ("llguidance", "right")):
                table.add_column(col, justify=justify)
            for row in rows:
                table.add_row(*row)
            console = Console(file=io.StringIO(), width=110, color_system=None)
            console.print(table)
            tables.append(console.file.getvalue().rstrip())
        else:
            width = max(len(r[0]) for r in rows)
            body = [f"{'':{width}}  {'schemac':>12}  {'llguidance':>12}"]
            body += [f"{a:{width}}  {b:>12}  {c:>12}" for a, b, c in rows]
            tables.append(f"{name}\n" + "\n".join(body))
    details = [line for name, stats in report.ordered() for line in _details(name, stats)]
    note = [f"final validator note: {report.validator_note}"] if report.validator_note else []
    return "\n\n".join([head, *tables, "\n".join(details + note)]).rstrip() + "\n"
