"""Artifacts round-trip and refuse tampering; caches stay bounded and never trust bad entries."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import schemac
from schemac.artifact import Artifact, ArtifactError
from schemac.cache import DiskCache, MemoryCache
from testkit.grammar_harness import accepts
from tests.lower.test_stated_orders import P_BA


@pytest.fixture()
def artifact() -> Artifact:
    return schemac.compile({"type": "object", "properties": {"n": {"type": "integer"}}}, use_cache=False)


def test_round_trip(tmp_path: Path, artifact: Artifact) -> None:
    path = artifact.save(tmp_path / "a.json")
    loaded = Artifact.load(path)
    assert loaded.to_json() == artifact.to_json()


def test_edited_artifact_fails_checksum(tmp_path: Path, artifact: Artifact) -> None:
    data = artifact.to_json()
    data["grammar"] = data["grammar"].replace("integer", "string")
    with pytest.raises(ArtifactError, match="checksum"):
        Artifact.from_json(data)


@pytest.mark.parametrize("field, value, match", [("format_version", 99, "format version"), ("llguidance_version", "0.1", "llguidance")])
def test_foreign_versions_refused(artifact: Artifact, field: str, value: object, match: str) -> None:
    data = artifact.to_json()
    data[field] = value
    with pytest.raises(ArtifactError, match=match):
        Artifact.from_json(data)


def test_memory_hit_still_fills_a_new_cache_dir(tmp_path: Path) -> None:
    schema = {"type": "array", "items": {"type": "integer"}, "maxItems": 3}
    first = schemac.compile(schema, use_cache=True)  # in memory only
    assert schemac.compile(schema, cache_dir=tmp_path, use_cache=True) is first
    assert DiskCache(tmp_path).get(first.key) is not None


def test_disk_cache_recompiles_corrupt_entries(tmp_path: Path) -> None:
    schema = {"type": "array", "items": {"type": "string"}}
    first = schemac.compile(schema, cache_dir=tmp_path, use_cache=True)
    (entry,) = list(tmp_path.glob("*/*.json"))
    for corrupt in (entry.read_bytes()[: 40], entry.read_bytes().replace(b"string", b"strinG"), b"\x00\xff"):
        entry.write_bytes(corrupt)
        cache = DiskCache(tmp_path)
        assert cache.get(first.key) is None
        assert not entry.exists()
        cache.put(first)
        assert cache.get(first.key) is not None


def test_disk_cache_byte_bound(tmp_path: Path) -> None:
    cache = DiskCache(tmp_path, max_bytes=20_000)
    for i in range(40):
        cache.put(schemac.compile({"const": i, "title": "x" * 100}, use_cache=False))
    total = sum(p.stat().st_size for p in tmp_path.glob("*/*.json"))
    assert 0 < total <= 20_000


def test_memory_cache_bounds() -> None:
    mem = MemoryCache(max_entries=3, max_bytes=1000)
    arts = [schemac.compile({"const": i}, use_cache=False) for i in range(5)]
    for a in arts:
        mem.put(a, 100)
    assert len(mem) == 3 and mem.get(arts[0].key) is None and mem.get(arts[4].key) is arts[4]
    mem.put(arts[0], 5000)  # larger than the byte bound: never stored
    assert mem.get(arts[0].key) is None
    for a in arts[:4]:
        mem.put(a, 400)
    assert mem.nbytes <= 1000


def test_cache_key_covers_options() -> None:
    a = schemac.compile({"type": "string", "format": "color"}, use_cache=False)
    with pytest.raises(schemac.CompileError):
        schemac.compile({"type": "string", "format": "color"}, strict_formats=True)
    assert json.loads(a.dumps())["options"]["strict_formats"] is False


def test_cache_key_keeps_property_order() -> None:
    """Answers follow `properties` order, so a reordered schema must not hit the other's entry."""
    first = {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}}
    second = {"type": "object", "properties": {"b": {"type": "integer"}, "a": {"type": "integer"}}}
    one, two = schemac.compile(first), schemac.compile(second)
    assert one.key != two.key
    assert list(two.lowered["properties"]) == ["b", "a"]


def test_artifact_owns_its_data_through_the_memory_cache() -> None:
    """Issue 13: a caller's later edit of the schema it passed in, or of the data it got back, must
    not change what a cached artifact validates against."""
    from schemac.validate.final import FinalValidator

    schema = {"type": "object", "properties": {"n": {"type": "integer", "maximum": 3}}, "required": ["n"]}
    first = schemac.compile(schema)
    schema["properties"]["n"]["maximum"] = 100  # the caller reuses its dict
    schema["required"].append("m")
    again = schemac.compile({"type": "object", "properties": {"n": {"type": "integer", "maximum": 3}},
                             "required": ["n"]})
    assert again is first  # a memory-cache hit on the original content
    assert FinalValidator(again.schema).is_valid({"n": 3})
    assert not FinalValidator(again.schema).is_valid({"n": 4})
    for edit in (lambda: first.schema["properties"].update(x={}), lambda: first.schema["required"].append("x"),
                 lambda: first.lowered.clear(), lambda: first.options.pop("limits"),
                 lambda: first.diagnostics.append(None)):
        with pytest.raises(TypeError, match="read-only"):
            edit()
    with pytest.raises(AttributeError, match="read-only"):
        first.schema = {}  # type: ignore[misc]
    assert not FinalValidator(schemac.compile(schema).schema).is_valid({"n": 4})  # the edited schema: its own entry
    assert first.schema == {"type": "object", "properties": {"n": {"type": "integer", "maximum": 3}}, "required": ["n"]}


def test_frozen_data_copies_and_round_trips() -> None:
    """`thaw` and `copy.deepcopy` give plain mutable copies; pickling keeps data frozen."""
    import copy
    import pickle

    from schemac.artifact import FrozenDict, thaw

    art = schemac.compile({"enum": [[1, {"a": 2}]]}, use_cache=False)
    for mutable in (thaw(art.schema), copy.deepcopy(art.schema)):
        assert type(mutable) is dict and type(mutable["enum"][0][1]) is dict
        mutable["enum"][0].append(3)
    assert art.schema == {"enum": [[1, {"a": 2}]]}
    loaded = pickle.loads(pickle.dumps(art))
    assert isinstance(loaded.schema["enum"][0][1], FrozenDict) and loaded.to_json() == art.to_json()


def test_key_order_is_part_of_the_cache_key(tmp_path: Any) -> None:
    text = '{"b": 1, "a": 2}'
    first = schemac.compile(P_BA, cache_dir=tmp_path).grammar
    strict = schemac.compile(P_BA, cache_dir=tmp_path, key_order="properties").grammar
    again = schemac.compile(P_BA, cache_dir=tmp_path, key_order="schema").grammar
    assert accepts(first, text) and not accepts(strict, text) and accepts(again, text)
