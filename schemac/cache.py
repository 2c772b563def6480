"""Compiled-artifact caches: a bounded in-memory LRU and a content-addressed disk cache.

Both also keep deterministic rejections (`Rejection`: the diagnostics of a schema refused by a
limit, a budget or a lowering), so a refused schema costs its budget once, not on every run; a
wall-clock `compile-timeout` or an `internal-error` is no verdict and is never kept. Disk entries are written atomically and re-verified (checksum, versions, key) on every load; a
corrupt or foreign entry is deleted and recompiled, never trusted. The disk cache is bounded in
bytes, with eviction amortised over writes (see `DiskCache`).
"""
from __future__ import annotations

import os
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field
import json
from pathlib import Path
from typing import Any, Callable, TypeVar, Union

from schemac.artifact import Artifact, ArtifactError, canonical_json, sha256_text
from schemac.diagnostics import Diagnostic

#: codes that say nothing about the schema (load or a bug), so a rejection holding one is not kept
UNCACHED_CODES = frozenset({"compile-timeout", "internal-error"})


@dataclass(frozen=True)
class Rejection:
    """The diagnostics of a deterministic compile rejection, under the compile's cache key."""

    key: str
    diagnostics: tuple[Diagnostic, ...]

    @staticmethod
    def cacheable(diagnostics: list[Diagnostic]) -> bool:
        return not any(d.code in UNCACHED_CODES for d in diagnostics)

    def dumps(self) -> str:
        body: dict[str, Any] = {"key": self.key, "rejection": [d.to_json() for d in self.diagnostics]}
        body["checksum"] = sha256_text(canonical_json(body))
        return json.dumps(body, ensure_ascii=False, allow_nan=False)

    @classmethod
    def loads(cls, text: str) -> "Rejection":
        """Read one back, refusing anything edited, corrupted or not a rejection (ArtifactError)."""
        try:
            data = json.loads(text)
            body = {k: v for k, v in data.items() if k != "checksum"}
            if data.get("checksum") != sha256_text(canonical_json(body)):
                raise ArtifactError("rejection checksum mismatch (corrupted or edited)")
            return cls(body["key"], tuple(Diagnostic.from_json(d) for d in body["rejection"]))
        except (AttributeError, KeyError, TypeError, ValueError, RecursionError) as exc:
            raise ArtifactError(f"not a cached rejection: {exc}") from exc


Entry = Union[Artifact, Rejection]


def default_cache_dir() -> Path:
    """`$SCHEMAC_CACHE_DIR`, else `$XDG_CACHE_HOME/schemac`, else `~/.cache/schemac`."""
    env = os.environ.get("SCHEMAC_CACHE_DIR")
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "schemac"


class MemoryCache:
    """LRU bounded in entries and in (approximate) bytes of grammar + schema text."""

    def __init__(self, max_entries: int = 256, max_bytes: int = 64 * 1024 * 1024) -> None:
        self.max_entries = max_entries
        self.max_bytes = max_bytes
        self._items: OrderedDict[str, tuple[Entry, int]] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()

    def get(self, key: str) -> Entry | None:
        with self._lock:
            hit = self._items.get(key)
            if hit is None:
                return None
            self._items.move_to_end(key)
            return hit[0]

    def put(self, artifact: Entry, size: int) -> None:
        with self._lock:
            old = self._items.pop(artifact.key, None)
            if old is not None:
                self._bytes -= old[1]
            if size > self.max_bytes:
                return
            self._items[artifact.key] = (artifact, size)
            self._bytes += size
            while len(self._items) > self.max_entries or self._bytes > self.max_bytes:
                _, (_, dropped) = self._items.popitem(last=False)
                self._bytes -= dropped

    def __len__(self) -> int:
        return len(self._items)

    @property
    def nbytes(self) -> int:
        return self._bytes


@dataclass
class _Usage:
    """What this process believes a cache directory holds; shared by its DiskCache objects."""

    estimate: int = -1  # bytes; -1 until first measured
    puts: int = 0  # writes since the last measurement
    lock: threading.Lock = field(default_factory=threading.Lock)


_USAGE: dict[Path, _Usage] = {}
_USAGE_LOCK = threading.Lock()


_Entry = TypeVar("_Entry", Artifact, "Rejection")


def _entry(path: Path, key: str, load: Callable[[Path], _Entry]) -> _Entry | None:
    """The entry `load` reads from `path` for `key`, or None; a corrupt or foreign file (another
    key's, a truncated write) is deleted, so the next compile replaces it."""
    try:
        found = load(path)
    except FileNotFoundError:
        return None
    except (ArtifactError, OSError, UnicodeDecodeError):
        path.unlink(missing_ok=True)
        return None
    if found.key != key:
        path.unlink(missing_ok=True)
        return None
    return found


class DiskCache:
    """`<dir>/<key[:2]>/<key>.json`; safe with concurrent writers (atomic rename, same content).

    Eviction is amortised: each process keeps a running size estimate per directory (the bytes
    it measured plus every entry it has written since; an overwrite counts twice, so the estimate
    only errs high) and re-scans the directory only when the estimate passes `max_bytes` or
    every `rescan_every` writes. A scan evicts least-recently-used entries down to
    `low_water * max_bytes`, so the next one is at least `(1 - low_water) * max_bytes` of writes
    away: O(1) amortised per write instead of a directory scan per write.

    Bound: with one writer process the directory never holds more than `max_bytes` once a
    `put` returns (during a put, one entry more). With P writer processes each one's estimate
    misses what the others wrote since its last scan, so the directory may reach
    `max_bytes + (P - 1) * ((1 - low_water) * max_bytes + rescan_every entries)` before a scan
    brings it back; the next scan by any writer restores `max_bytes`.
    """

    #: temporary files older than this are a crashed writer's leftovers and are removed
    STALE_TMP_S = 600.0

    def __init__(
        self,
        root: str | os.PathLike[str],
        max_bytes: int = 512 * 1024 * 1024,
        low_water: float = 0.9,
        rescan_every: int = 1024,
    ) -> None:
        self.root = Path(root)
        self.max_bytes = max_bytes
        self.low_water = low_water
        self.rescan_every = rescan_every
        key = Path(os.path.abspath(self.root))
        with _USAGE_LOCK:
            self._usage = _USAGE.setdefault(key, _Usage())

    def _path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.json"

    def holds(self, key: str) -> bool:
        """Whether an entry for `key` exists (unread: `get` checks it)."""
        return self._path(key).is_file()

    def get(self, key: str) -> Artifact | None:
        path = self._path(key)
        artifact = _entry(path, key, Artifact.load)
        if artifact is None:
            return None
        try:
            os.utime(path)  # recency for eviction
        except OSError:
            pass
        return artifact

    def _rejection_path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.rejected.json"

    def get_rejection(self, key: str) -> Rejection | None:
        """The rejection kept for `key`, if any (a corrupt or foreign entry is deleted)."""
        return _entry(self._rejection_path(key), key, lambda path: Rejection.loads(path.read_text(encoding="utf-8")))

    def put_rejection(self, rejection: Rejection) -> None:
        """Best effort, like `put`."""
        from schemac.files import write_text_atomic

        self._written(lambda: write_text_atomic(self._rejection_path(rejection.key), rejection.dumps()))

    def put(self, artifact: Artifact) -> None:
        """Best effort: a full disk or a read-only cache never fails a compile."""
        self._written(lambda: artifact.save(self._path(artifact.key)))

    def _written(self, write: Any) -> None:
        """Run `write` (returns the path written) and account for the bytes it added."""
        try:
            path = write()
            size = path.stat().st_size
        except OSError:
            return
        usage = self._usage
        with usage.lock:
            usage.puts += 1
            if usage.estimate >= 0:
                usage.estimate += size
            if usage.estimate < 0 or usage.estimate > self.max_bytes or usage.puts >= self.rescan_every:
                try:
                    usage.estimate = self._evict()
                except OSError:
                    usage.estimate = -1
                usage.puts = 0

    def usage(self) -> int:
        """Bytes the directory holds now (a scan; for tests and benchmarks)."""
        return sum(size for _, size, _ in self._entries())

    def _entries(self) -> list[tuple[float, int, Path]]:
        entries = []
        now = time.time()
        for path in self.root.glob("*/*.json"):
            try:
                st = path.stat()
            except OSError:
                continue
            if path.name.startswith(".tmp-"):
                if now - st.st_mtime > self.STALE_TMP_S:
                    path.unlink(missing_ok=True)
                    continue
            entries.append((st.st_mtime, st.st_size, path))
        return entries

    def _evict(self) -> int:
        """Scan, and if over `max_bytes` drop LRU entries to the low-water mark; returns bytes kept."""
        entries = self._entries()
        total = sum(size for _, size, _ in entries)
        if total <= self.max_bytes:
            return total
        target = int(self.max_bytes * self.low_water)
        for _, size, path in sorted(entries):
            if path.name.startswith(".tmp-"):
                continue  # another writer's file in flight
            try:
                path.unlink()
            except FileNotFoundError:
                pass  # another process evicted it first: its bytes are gone all the same
            total -= size
            if total <= target:
                break
        return total
