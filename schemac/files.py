"""Atomic file writes that honour the process umask.

`tempfile.mkstemp` creates files 0600 whatever the umask, so artifacts, cache entries and
reports written through it could not be read by a serving process running as another user of
the same group. Here the temporary file is created by `os.open` with mode 0666, which the
kernel reduces by the umask exactly as for any ordinary file, then renamed into place.
"""
from __future__ import annotations

import os
import secrets
from pathlib import Path

TMP_PREFIX = ".tmp-"


def write_text_atomic(path: str | os.PathLike[str], text: str) -> Path:
    """Write `text` (UTF-8) to `path` atomically: a temporary file in the same folder, then a rename.

    Readers see the old file or the new one, never a part; the folder is created when missing.
    """
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    while True:
        tmp = target.parent / f"{TMP_PREFIX}{secrets.token_hex(8)}{target.suffix}"
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o666)
        except FileExistsError:
            continue
        break
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return target
