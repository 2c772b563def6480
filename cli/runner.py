"""Compile many schema files, in worker processes when asked, into plain picklable outcomes.

A worker reads its own file and writes its own artifact, so only small records cross process
boundaries. Diagnostics come back located: the loader's line/column when it gave one, else the
JSON Pointer looked up in the file's text (or the YAML node marks). `compile_ms` is measured in
the worker around the compile itself (a cache hit costs its lookup), never worker start-up.
"""
from __future__ import annotations

import os
import time
import traceback
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator

STDIN = "-"


@dataclass(frozen=True)
class Task:
    """One schema to compile. `text` is set for stdin; files are read by the worker."""

    display: str
    path: Path | None
    text: str | None = None
    upgrade_drafts: bool = False
    strict_formats: bool = False
    #: the property-order policy (`schemac.pipeline.KEY_ORDERS`)
    key_order: str = "schema"
    #: OpenAPI number formats as ranges (`schemac.compile`'s `openapi_formats`)
    openapi_formats: bool = True
    cache_dir: str | None = None
    use_cache: bool = True
    ignore: frozenset[str] = frozenset()
    artifact_path: Path | None = None
    #: extra outputs beside the artifact: "lark" writes the grammar's Lark text to `<stem>.lark`
    emit: tuple[str, ...] = ()
    #: referenced files are read inside this folder (None: `schemac.front.resolve.files.default_root`)
    ref_root: str | None = None
    #: (URI prefix, folder) serving local copies of remote documents
    ref_map: tuple[tuple[str, str], ...] = ()


@dataclass
class Outcome:
    """What happened to one schema. status: ok | rejected | ignored (every error ignored by config)."""

    display: str
    status: str
    diagnostics: list[dict[str, Any]] = field(default_factory=list)
    suppressed: int = 0
    budget: dict[str, dict[str, int]] = field(default_factory=dict)
    compile_ms: float = 0.0
    grammar_bytes: int = 0
    artifact: str | None = None

    @property
    def passed(self) -> bool:
        return self.status != "rejected"

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.display,
            "status": self.status,
            "compile_ms": round(self.compile_ms, 3),
            "budget": self.budget,
            "grammar_bytes": self.grammar_bytes,
            "artifact": self.artifact,
            "suppressed": self.suppressed,
            "diagnostics": self.diagnostics,
        }


def _is_yaml(task: Task) -> bool:
    return task.path is not None and task.path.suffix.lower() in (".yaml", ".yml")


def read_source(task: Task) -> tuple[Any, Callable[[], Any]]:
    """The schema source for compile_schema and a lazy locator factory."""
    from schemac.front.locate import Locator

    if task.text is not None:
        text = task.text
        return text, lambda: Locator.from_json_text(text)
    assert task.path is not None
    _check_size(task.path)
    raw = task.path.read_bytes()
    if _is_yaml(task):
        from schemac.front.yaml_load import load_yaml

        value, positions = load_yaml(raw.decode("utf-8"))
        return value, lambda: Locator(positions)
    return raw, lambda: Locator.from_json_text(raw.decode("utf-8", errors="replace"))


#: what to do about a diagnostic the compiler gave no hint for, in the command line's words
_CLI_HINTS = {
    "unknown-format": "--strict-formats (or strict-formats = true) makes it an error; --ignore unknown-format "
                      "or per-file-ignores hides it",
    "too-large": "split or simplify the schema (the bounds are schemac.budget.Limits; the Python API takes "
                 "limits=); --ignore too-large only lets check pass: compile writes no artifact for it",
}


def _check_size(path: Path) -> None:
    """Refuse a file over the schema size limit before reading it: a 56 MB file took 15.8 s and
    618 MB (reading, then locating the refusal in its text) for the verdict its size gives."""
    from schemac.budget import Limits
    from schemac.front.load import check_size

    check_size(path.stat().st_size, Limits())


def locate_all(diagnostics: list[Any], locator: Callable[[], Any]) -> list[dict[str, Any]]:
    """The diagnostics as records with a line and column, sorted by position (stable), hinted."""
    out = []
    cached: list[Any] = []
    for d in diagnostics:
        record = d.to_json()
        if d.line is None:
            if not cached:
                cached.append(locator())
            where = cached[0].position(d.pointer)
            record["line"], record["column"] = where if where is not None else (1, 1)
        if "hint" not in record and d.code in _CLI_HINTS:
            record["hint"] = _CLI_HINTS[d.code]
        out.append(record)
    return sorted(out, key=lambda r: (r["line"], r["column"]))


def run_task(task: Task) -> Outcome:
    """Compile one schema; never raises (a crash becomes an `internal-error` diagnostic)."""
    from schemac.diagnostics import CompileError, Severity
    from schemac.front.locate import Locator

    locator: Callable[[], Any] = lambda: Locator({})  # noqa: E731 - replaced once the source is read
    strict = task.strict_formats and "unknown-format" not in task.ignore
    source: Any = None
    started = time.perf_counter()
    try:
        from schemac.pipeline import compile_schema  # a broken install is reported, not raised
        from schemac.front.resolve.files import RefSource

        source, locator = read_source(task)
        started = time.perf_counter()
        artifact = compile_schema(
            source,
            upgrade_drafts=task.upgrade_drafts,
            strict_formats=strict,
            key_order=task.key_order,
            openapi_formats=task.openapi_formats,
            cache_dir=task.cache_dir,
            use_cache=task.use_cache,
            refs=RefSource.of(task.path, task.ref_root, dict(task.ref_map)),
        )
        elapsed_ms = (time.perf_counter() - started) * 1000.0
    except CompileError as exc:
        elapsed_ms = (time.perf_counter() - started) * 1000.0
        # with no artifact to write, `compile` cannot honour an ignored error: only warnings go
        kept = [
            d for d in exc.diagnostics
            if d.code not in task.ignore or (task.artifact_path is not None and d.severity is Severity.ERROR)
        ]
        if source is not None and not task.upgrade_drafts:
            kept = _with_upgrade_verdict(kept, source, task, strict)
        status = "rejected" if any(d.severity is Severity.ERROR for d in kept) else "ignored"
        return Outcome(task.display, status, locate_all(kept, locator), len(exc.diagnostics) - len(kept),
                       compile_ms=elapsed_ms)
    except OSError as exc:
        from schemac.diagnostics import error

        d = error("invalid-schema", "", f"cannot read the file: {exc.strerror or exc}")
        return Outcome(task.display, "rejected", [{**d.to_json(), "line": 1, "column": 1}])
    except UnicodeDecodeError as exc:
        from schemac.diagnostics import error

        code = "invalid-yaml" if _is_yaml(task) else "invalid-json"
        d = error(code, "", f"the file is not valid UTF-8: {exc.reason}")
        return Outcome(task.display, "rejected", [{**d.to_json(), "line": 1, "column": 1}])
    except Exception as exc:  # a compiler bug must not take the whole run down
        from schemac.diagnostics import error

        last = traceback.extract_tb(exc.__traceback__)[-1]
        d = error(
            "internal-error", "",
            f"{type(exc).__name__}: {exc} (at {Path(last.filename).name}:{last.lineno})",
            "please report this with the schema",
        )
        return Outcome(task.display, "rejected", [{**d.to_json(), "line": 1, "column": 1}])
    kept = [d for d in artifact.diagnostics if d.code not in task.ignore]
    written = None
    if task.artifact_path is not None:
        try:
            written = str(artifact.save(task.artifact_path))
            if "lark" in task.emit:
                from schemac.files import write_text_atomic

                write_text_atomic(lark_path(task.artifact_path), artifact.lark)
        except (OSError, ValueError) as exc:  # a full disk, or an export that failed: this schema fails
            from schemac.diagnostics import error

            d = error("internal-error", "", f"writing the output failed: {type(exc).__name__}: {exc}")
            return Outcome(task.display, "rejected", [{**d.to_json(), "line": 1, "column": 1}], compile_ms=elapsed_ms)
    return Outcome(
        task.display, "ok", locate_all(kept, locator), len(artifact.diagnostics) - len(kept),
        artifact.budget, elapsed_ms, len(artifact.grammar.encode("utf-8")), written,
    )


def _with_upgrade_verdict(kept: list[Any], source: Any, task: Task, strict: bool) -> list[Any]:
    """A schema rejected for its declared draft alone: say whether the exact upgrade compiles it."""
    from dataclasses import replace

    from schemac.diagnostics import CompileError, Severity
    from schemac.pipeline import compile_schema

    errors = [d for d in kept if d.severity is Severity.ERROR]
    if [d.code for d in errors] != ["unsupported-dialect"] or "--upgrade-drafts" not in errors[0].message:
        return kept
    from schemac.front.resolve.files import RefSource

    try:
        compile_schema(source, upgrade_drafts=True, strict_formats=strict, key_order=task.key_order,
                       openapi_formats=task.openapi_formats, use_cache=task.use_cache,
                       refs=RefSource.of(task.path, task.ref_root, dict(task.ref_map)))
        verdict = "; translated, it compiles"
    except CompileError as exc:
        first = next((d for d in exc.diagnostics if d.severity is Severity.ERROR), None)
        verdict = f"; translated, it is still rejected ({first.code} at {first.pointer or '/'})" if first else ""
    return [replace(d, message=d.message + verdict) if d is errors[0] else d for d in kept]


def lark_path(artifact_path: Path) -> Path:
    """`out/a.schemac.json` → `out/a.lark`."""
    return artifact_path.with_name(artifact_path.name.removesuffix(".schemac.json") + ".lark")


def run_all(tasks: list[Task], jobs: int, on_done: Callable[[], None] | None = None) -> Iterator[Outcome]:
    """Outcomes in task order; `jobs` > 1 spreads the work over that many processes."""
    jobs = max(1, min(jobs, len(tasks)))
    if jobs == 1:
        for task in tasks:
            yield run_task(task)
            if on_done:
                on_done()
        return
    chunk = max(1, min(64, len(tasks) // (jobs * 16)))
    with ProcessPoolExecutor(max_workers=jobs, initializer=_ignore_interrupts) as pool:
        try:
            for outcome in pool.map(run_task, tasks, chunksize=chunk):
                yield outcome
                if on_done:
                    on_done()
        except BaseException:  # Ctrl-C in the parent: drop the queued work, let the running finish
            pool.shutdown(wait=False, cancel_futures=True)
            raise


def _ignore_interrupts() -> None:
    """Workers leave Ctrl-C to the parent, which stops the run (no traceback per worker)."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)


def default_jobs() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1
