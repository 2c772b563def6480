"""The llguidance releases schemac's grammars are verified on, and the installed one.

Grammars are llguidance JSON (Lark inside), enforced by whatever llguidance the serving engine
installs: vLLM 0.33 pins `>=1.7,<1.8`, SGLang 0.5.23 `>=1.7.6,<2`. The exactness tests pass
unchanged from 1.7.2 to 1.9.1; 1.7.0 admits texts the escape-bug guard (schemac/regex/guard.py)
keeps out on later releases, and 1.6 has no multi-EOS tokenizers, so the floor is 1.7.2.

An artifact records the release it was compiled (and grammar-checked) with; a runtime enforces it
only on that same release (`check_runtime`), since llguidance's accepted language is what the
tests pinned, per release. Reading the version is lazy: importing schemac stays cheap.
"""
from __future__ import annotations

import re
from functools import lru_cache

#: lowest release (inclusive) and first excluded one: keep equal to pyproject.toml's pin
MINIMUM = (1, 7, 2)
BELOW = (2, 0, 0)
#: the same range as a pip requirement specifier
SPECIFIER = ">=1.7.2,<2"

_RELEASE = re.compile(r"(\d+)\.(\d+)\.(\d+)")


class LLGuidanceVersionError(ValueError):
    """An llguidance release outside the supported range, or not the one an artifact needs."""


def parse(version: object) -> tuple[int, int, int] | None:
    """(major, minor, patch) of a release string like "1.7.6" (a local/pre suffix is ignored)."""
    if not isinstance(version, str):
        return None
    found = _RELEASE.match(version)
    return None if found is None else (int(found[1]), int(found[2]), int(found[3]))


def is_supported(version: object) -> bool:
    release = parse(version)
    return release is not None and MINIMUM <= release < BELOW


def require_supported(version: object, what: str = "llguidance") -> str:
    """`version` itself when supported, else `LLGuidanceVersionError` naming the range."""
    if not is_supported(version):
        raise LLGuidanceVersionError(
            f"{what} {version!r} is outside the supported range llguidance{SPECIFIER}"
        )
    return str(version)


@lru_cache(maxsize=1)
def installed_version() -> str:
    """The installed llguidance release: the loaded module's `__version__` where it has one (1.7.2
    and 1.7.3 have none), else the distribution's metadata, so the native library stays unloaded."""
    import sys
    from importlib.metadata import version

    found = getattr(sys.modules.get("llguidance"), "__version__", None)
    return found if isinstance(found, str) else version("llguidance")


def check_runtime(artifact_version: str) -> None:
    """Refuse to enforce a grammar compiled with another llguidance than the installed one."""
    runtime = installed_version()
    require_supported(runtime, "the installed llguidance")
    if artifact_version != runtime:
        raise LLGuidanceVersionError(
            f"artifact was compiled with llguidance {artifact_version}, this runtime has {runtime}: "
            f"recompile the schema here (`schemac compile`), or install llguidance=={artifact_version}"
        )
