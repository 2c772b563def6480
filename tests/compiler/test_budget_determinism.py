"""Verdicts come from deterministic work units (steps), never from the clock; deterministic
rejections are cached like compiles; the wall-clock guard's `compile-timeout` is never cached."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import schemac
from schemac import pipeline
from schemac.budget import Limits
from schemac.cache import MemoryCache

#: a budget-bound writer (3^12 distributed branches past a tight budget), an enum, a pattern, a refusal by lowering
SCHEMAS: list[Any] = [
    {"type": "object", "properties": {f"k{i}": {"type": ["integer", "null"]} for i in range(12)},
     "allOf": [{"if": {"required": [f"k{i}"]}, "then": {"properties": {f"k{i}": {"minimum": 1}}}} for i in range(12)]},
    {"enum": [i * 3 for i in range(500)]},
    {"type": "object", "properties": {"a": {"pattern": "^x+$"}}, "required": ["a"]},
    {"type": "array", "uniqueItems": True},
]
TIGHT = Limits(steps=4_000)


def _verdict(schema: Any, limits: Limits) -> tuple[str, ...]:
    try:
        art = schemac.compile(schema, use_cache=False, limits=limits)
        return ("compiled", str(art.budget["steps"]["used"]))
    except schemac.CompileError as exc:
        return tuple(exc.codes) + tuple(d.pointer for d in exc.diagnostics)


def test_a_slow_clock_changes_no_verdict(monkeypatch: pytest.MonkeyPatch) -> None:
    """A machine so loaded that every step takes 50 ms gives the verdicts (and step counts) of an
    idle one, as long as the last-resort guard is not reached."""
    idle = [_verdict(s, TIGHT) for s in SCHEMAS]
    assert idle[0][0] == "too-large" and idle[1][0] == "compiled" and idle[3][0] == "unique-items-unbounded"
    clock = [0.0]

    def slow() -> float:
        clock[0] += 0.05
        return clock[0]

    monkeypatch.setattr("schemac.budget.time.monotonic", slow)
    loaded = [_verdict(s, Limits(steps=TIGHT.steps, deadline_s=1e9)) for s in SCHEMAS]
    assert loaded == idle


def test_the_wall_clock_guard_has_its_own_code(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(schemac.CompileError) as exc:
        schemac.compile({"enum": [1, 2]}, use_cache=False, limits=Limits(deadline_s=-1.0))
    assert exc.value.codes == ["compile-timeout"]


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """A fresh memory cache, and the number of real builds so far."""
    calls: list[int] = []
    real = pipeline._build

    def build(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(pipeline, "_MEMORY", MemoryCache())
    monkeypatch.setattr(pipeline, "_build", build)
    return calls


def _codes(schema: Any, **options: Any) -> list[str]:
    with pytest.raises(schemac.CompileError) as exc:
        schemac.compile(schema, **options)
    return exc.value.codes


def test_rejections_are_cached_in_memory_and_on_disk(counted: list[int], tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    schema = SCHEMAS[0]
    first = _codes(schema, limits=TIGHT, cache_dir=tmp_path)
    assert first == _codes(schema, limits=TIGHT, cache_dir=tmp_path) == ["too-large"]
    assert len(counted) == 1
    assert len(list(tmp_path.glob("*/*.rejected.json"))) == 1
    monkeypatch.setattr(pipeline, "_MEMORY", MemoryCache())  # a new process: only the disk remembers
    assert _codes(schema, limits=TIGHT, cache_dir=tmp_path) == first and len(counted) == 1
    assert _codes(schema, limits=TIGHT, use_cache=False) == first and len(counted) == 2  # no cache: compiled again


def test_a_corrupt_cached_rejection_is_dropped(counted: list[int], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _codes(SCHEMAS[3], cache_dir=tmp_path)
    (path,) = tmp_path.glob("*/*.rejected.json")
    path.write_text(path.read_text().replace("unique-items-unbounded", "too-large"))
    monkeypatch.setattr(pipeline, "_MEMORY", MemoryCache())
    assert _codes(SCHEMAS[3], cache_dir=tmp_path) == ["unique-items-unbounded"] and len(counted) == 2


def test_timeouts_are_never_cached(counted: list[int], tmp_path: Path) -> None:
    limits = Limits(deadline_s=-1.0)
    for _ in range(2):
        assert _codes({"enum": [1, 2]}, limits=limits, cache_dir=tmp_path) == ["compile-timeout"]
    assert len(counted) == 2 and not list(tmp_path.glob("*/*.json"))
