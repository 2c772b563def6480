"""Disk cache under concurrent writer processes, corruption, a full disk and a stream (issue 6)."""
from __future__ import annotations

import errno
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

import schemac
from schemac.artifact import Artifact
from schemac.cache import DiskCache

_WRITER = """
import sys, schemac
root, worker = sys.argv[1], int(sys.argv[2])
for i in range(24):
    n = i if i % 2 else 1000 * worker + i   # odd: the same schemas in every process; even: own
    a = schemac.compile({"type": "array", "items": {"const": n}, "maxItems": 3}, cache_dir=root, use_cache=False)
    b = schemac.compile({"type": "array", "items": {"const": n}, "maxItems": 3}, cache_dir=root)
    assert a.grammar == b.grammar
print("ok")
"""


def test_concurrent_writer_processes(tmp_path: Path) -> None:
    procs = [subprocess.Popen([sys.executable, "-c", _WRITER, str(tmp_path), str(w)], stdout=subprocess.PIPE, text=True)
             for w in range(4)]
    outs = [p.communicate(timeout=120)[0] for p in procs]
    assert [p.returncode for p in procs] == [0] * 4 and all(o.strip() == "ok" for o in outs)
    entries = list(tmp_path.glob("*/*.json"))
    assert len(entries) == 12 + 4 * 12  # shared odd schemas once, each process's own even ones
    for path in entries:
        assert not path.name.startswith(".tmp-")
        artifact = Artifact.load(path)
        assert path.stem == artifact.key


def _artifact(i: int) -> Artifact:
    return schemac.compile({"const": i, "title": "t" * 50}, use_cache=False)


@pytest.mark.parametrize("damage", ["truncate", "bitflip", "empty", "garbage"])
def test_damaged_entries_are_dropped_and_recompiled(tmp_path: Path, damage: str) -> None:
    cache = DiskCache(tmp_path)
    artifact = _artifact(1)
    cache.put(artifact)
    (entry,) = tmp_path.glob("*/*.json")
    data = bytearray(entry.read_bytes())
    rng = random.Random(damage)
    if damage == "truncate":
        data = data[: rng.randrange(1, len(data))]
    elif damage == "bitflip":
        for _ in range(3):
            pos = rng.randrange(len(data))
            data[pos] ^= 1 << rng.randrange(8)
    elif damage == "empty":
        data = bytearray()
    else:
        data = bytearray(os.urandom(len(data)))
    entry.write_bytes(bytes(data))
    assert cache.get(artifact.key) is None and not entry.exists()
    again = schemac.compile({"const": 1, "title": "t" * 50, "$comment": damage}, cache_dir=tmp_path)
    cache.put(again)
    assert again.grammar == artifact.grammar and cache.get(again.key) is not None


def test_full_disk_never_fails_a_compile(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def no_space(*args: object, **kwargs: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "replace", no_space)
    artifact = schemac.compile({"type": "string", "maxLength": 3, "$comment": str(tmp_path)}, cache_dir=tmp_path)
    assert artifact.grammar
    assert list(tmp_path.rglob("*.json")) == []  # the temporary file was cleaned up


def test_tiny_tmpfs_if_mountable(tmp_path: Path) -> None:
    """A real full filesystem where mounting is allowed (root in CI); else the monkeypatch above."""
    mnt = tmp_path / "tiny"
    mnt.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(mnt)], capture_output=True).returncode:
        return  # no mount permission: covered by test_full_disk_never_fails_a_compile
    try:
        for i in range(60):
            assert schemac.compile({"const": i, "title": "x" * 2000, "$comment": str(mnt)}, cache_dir=mnt).grammar
        assert sum(p.stat().st_size for p in mnt.rglob("*.json")) <= 64 * 1024
    finally:
        subprocess.run(["umount", str(mnt)], check=False)


def test_byte_bound_holds_after_every_put(tmp_path: Path) -> None:
    cache = DiskCache(tmp_path, max_bytes=30_000, rescan_every=10_000)
    for i in range(120):
        cache.put(_artifact(i))
        assert cache.usage() <= 30_000
    assert len(list(tmp_path.glob("*/*.json"))) > 10


def test_eviction_is_amortised(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    scans = []
    real = DiskCache._entries
    monkeypatch.setattr(DiskCache, "_entries", lambda self: scans.append(1) or real(self))
    cache = DiskCache(tmp_path, max_bytes=200_000, rescan_every=10_000)
    arts = [_artifact(i) for i in range(150)]
    for a in arts:
        DiskCache(tmp_path, max_bytes=200_000, rescan_every=10_000).put(a)  # a new object per compile, as the pipeline does
    assert len(scans) < 15, len(scans)  # per-put scanning would be 150
    assert cache.usage() <= 200_000
