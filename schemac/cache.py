"""Compiled-artifact caches: a bounded in-memory LRU and a content-addressed disk cache.

Disk entries are written atomically and re-verified (checksum, versions, key) on every load; a
corrupt or foreign entry is deleted and recompiled, never trusted. The disk cache is bounded in
bytes: after each write the least recently used entries go until it fits.
"""
from __future__ import annotations

import os
import threading
from collections import OrderedDict
from pathlib import Path

from schemac.artifact import Artifact, ArtifactError


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
        self._items: OrderedDict[str, tuple[Artifact, int]] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()

    def get(self, key: str) -> Artifact | None:
        with self._lock:
            hit = self._items.get(key)
            if hit is None:
                return None
            self._items.move_to_end(key)
            return hit[0]

    def put(self, artifact: Artifact, size: int) -> None:
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


class DiskCache:
    """`<dir>/<key[:2]>/<key>.json`; safe with concurrent writers (atomic rename, same content)."""

    def __init__(self, root: str | os.PathLike[str], max_bytes: int = 512 * 1024 * 1024) -> None:
        self.root = Path(root)
        self.max_bytes = max_bytes

    def _path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.json"

    def get(self, key: str) -> Artifact | None:
        path = self._path(key)
        try:
            artifact = Artifact.load(path)
        except FileNotFoundError:
            return None
        except (ArtifactError, OSError, UnicodeDecodeError):
            path.unlink(missing_ok=True)
            return None
        if artifact.key != key:
            path.unlink(missing_ok=True)
            return None
        try:
            os.utime(path)  # recency for eviction
        except OSError:
            pass
        return artifact

    def put(self, artifact: Artifact) -> None:
        """Best effort: a full disk or a read-only cache never fails a compile."""
        try:
            artifact.save(self._path(artifact.key))
            self._evict()
        except OSError:
            return

    def _evict(self) -> None:
        entries = []
        total = 0
        for path in self.root.glob("*/*.json"):
            try:
                st = path.stat()
            except OSError:
                continue
            entries.append((st.st_mtime, st.st_size, path))
            total += st.st_size
        if total <= self.max_bytes:
            return
        for _, size, path in sorted(entries):
            path.unlink(missing_ok=True)
            total -= size
            if total <= self.max_bytes:
                break
