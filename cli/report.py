"""Machine-readable reports: stable JSON, SARIF 2.1.0 and GitHub workflow annotations (text: `text.py`).

The JSON report (`--format json`, format version 1; fields are only ever added) is::

    {
      "format": 1, "schemac": "0.3.0", "llguidance": "1.9.1",
      "ok": true,                          # false when any schema is rejected (exit code 1)
      "summary": {"schemas": 2, "ok": 1, "rejected": 1, "ignored": 0},
      "schemas": [{
        "path": "schemas/a.json",          # as given, relative to the working directory
        "status": "ok",                    # ok | rejected | ignored (every error ignored by config)
        "compile_ms": 1.23,                 # measured in the worker: the compile or the rejection
        "grammar_bytes": 512,              # 0 when not compiled
        "budget": {"entries": {"used": 3, "limit": 256}, ...},   # {} when not compiled
        "artifact": "out/a.schemac.json",  # `compile` only, else null
        "suppressed": 0,                   # diagnostics hidden by per-file-ignores
        "diagnostics": [{"severity": "error", "code": "unsupported-keyword",
                         "pointer": "/properties/a/foo", "message": "...", "hint": "...",
                         "line": 4, "column": 7}]    # hint only when there is one
      }]
    }

Lines and columns are 1-based; columns count Unicode code points (SARIF `columnKind`
`unicodeCodePoints`). A member is located at its key, an array element at its value.
"""
from __future__ import annotations

from typing import Any, Iterable
from urllib.parse import quote

from schemac.cli.runner import Outcome

JSON_FORMAT = 1
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


def versions() -> tuple[str, str]:
    """(schemac, llguidance) versions; llguidance's from its metadata, without importing it."""
    from importlib.metadata import PackageNotFoundError, version

    from schemac.version import __version__

    try:
        llg = version("llguidance")
    except PackageNotFoundError:
        llg = "not installed"
    return __version__, llg


def summary(outcomes: list[Outcome]) -> dict[str, int]:
    counts = {"schemas": len(outcomes), "ok": 0, "rejected": 0, "ignored": 0}
    for o in outcomes:
        counts[o.status] += 1
    return counts


def to_json(outcomes: list[Outcome]) -> dict[str, Any]:
    schemac_version, llg = versions()
    return {
        "format": JSON_FORMAT,
        "schemac": schemac_version,
        "llguidance": llg,
        "ok": all(o.passed for o in outcomes),
        "summary": summary(outcomes),
        "schemas": [o.to_json() for o in outcomes],
    }


def _uri(display: str) -> str:
    if display.startswith("/"):
        return "file://" + quote(display)
    return quote(display)


def _message(d: dict[str, Any]) -> str:
    text = d["message"]
    if d.get("hint"):
        text += f" Hint: {d['hint']}"
    return text


def to_sarif(outcomes: list[Outcome]) -> dict[str, Any]:
    """One SARIF run; each diagnostic code used is a rule, described from diagnostics.CODES."""
    from schemac.diagnostics import CODES

    schemac_version, llg = versions()
    rules: list[dict[str, Any]] = []
    index: dict[str, int] = {}
    results: list[dict[str, Any]] = []
    for o in outcomes:
        for d in o.diagnostics:
            code = d["code"]
            if code not in index:
                index[code] = len(rules)
                summary_text, example = CODES.get(code, (code, ""))
                rule: dict[str, Any] = {
                    "id": code,
                    "shortDescription": {"text": summary_text},
                    "fullDescription": {"text": summary_text},
                }
                if example:
                    rule["help"] = {"text": f"{summary_text}\nExample: {example}"}
                rules.append(rule)
            results.append({
                "ruleId": code,
                "ruleIndex": index[code],
                "level": "error" if d["severity"] == "error" else "warning",
                "message": {"text": _message(d)},
                "locations": [{
                    "physicalLocation": {
                        "artifactLocation": {"uri": _uri(o.display)},
                        "region": {"startLine": d["line"], "startColumn": d["column"]},
                    },
                    "logicalLocations": [{"fullyQualifiedName": d["pointer"] or "/", "kind": "object"}],
                }],
                "properties": {"pointer": d["pointer"]},
            })
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "schemac",
                "version": schemac_version,
                "semanticVersion": schemac_version,
                "rules": rules,
                "properties": {"llguidance": llg},
            }},
            "columnKind": "unicodeCodePoints",
            "results": results,
        }],
    }


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def github_lines(outcomes: list[Outcome]) -> Iterable[str]:
    """`::error file=F,line=L,col=C,title=CODE::message` per diagnostic, then a plain summary."""
    for o in outcomes:
        for d in o.diagnostics:
            kind = "error" if d["severity"] == "error" else "warning"
            text = f"{d['pointer'] or '/'}: {d['message']}"
            if d.get("hint"):
                text += f"\nhint: {d['hint']}"
            yield (
                f"::{kind} file={_escape_property(o.display)},line={d['line']},col={d['column']},"
                f"title={_escape_property(d['code'])}::{_escape_data(text)}"
            )
    counts = summary(outcomes)
    yield f"schemac: {counts['schemas']} schemas, {counts['ok']} ok, {counts['rejected']} rejected, {counts['ignored']} ignored"
