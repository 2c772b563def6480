"""The compiled, versioned artifact: plain JSON a runtime loads and checks before trusting."""
from __future__ import annotations

import hashlib
import json
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from schemac import __version__
from schemac.diagnostics import Diagnostic
from schemac.schema import Schema

#: Bumped whenever the artifact's fields or their meaning change; loaders refuse other versions.
FORMAT_VERSION = 1
#: The llguidance release the grammars are written for (pinned in pyproject.toml).
LLGUIDANCE_VERSION = "1.9.1"


class ArtifactError(ValueError):
    """An artifact that is malformed, of another format/llguidance version, or fails its hash."""


def canonical_json(value: Any) -> str:
    """Deterministic JSON text (sorted keys, no spaces) used for hashing."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass
class Artifact:
    """Everything a runtime needs: the grammar to enforce and the schema to validate answers with.

    `key` is the sha256 of the canonical schema plus compile options (the cache key);
    `checksum` covers every other field, so a loaded artifact that was edited or corrupted fails.
    """

    key: str
    dialect: str
    source_dialect: str
    schema: Schema
    lowered: Schema
    grammar: str
    options: dict[str, Any]
    diagnostics: list[Diagnostic] = field(default_factory=list)
    budget: dict[str, dict[str, int]] = field(default_factory=dict)
    compile_ms: float = 0.0
    format_version: int = FORMAT_VERSION
    llguidance_version: str = LLGUIDANCE_VERSION
    schemac_version: str = __version__

    def _body(self) -> dict[str, Any]:
        return {
            "format_version": self.format_version,
            "schemac_version": self.schemac_version,
            "llguidance_version": self.llguidance_version,
            "key": self.key,
            "dialect": self.dialect,
            "source_dialect": self.source_dialect,
            "options": self.options,
            "schema": self.schema,
            "lowered": self.lowered,
            "grammar": self.grammar,
            "diagnostics": [d.to_json() for d in self.diagnostics],
            "budget": self.budget,
            "compile_ms": self.compile_ms,
        }

    def to_json(self) -> dict[str, Any]:
        body = self._body()
        body["checksum"] = sha256_text(canonical_json(body))
        return body

    def dumps(self) -> str:
        return json.dumps(self.to_json(), ensure_ascii=False, indent=1, allow_nan=False)

    @classmethod
    def from_json(cls, data: Any) -> "Artifact":
        if not isinstance(data, dict):
            raise ArtifactError("artifact is not a JSON object")
        version = data.get("format_version")
        if version != FORMAT_VERSION:
            raise ArtifactError(f"artifact format version {version!r}; this schemac reads {FORMAT_VERSION}")
        if data.get("llguidance_version") != LLGUIDANCE_VERSION:
            raise ArtifactError(
                f"artifact was built for llguidance {data.get('llguidance_version')!r}, "
                f"this runtime uses {LLGUIDANCE_VERSION}"
            )
        body = {k: v for k, v in data.items() if k != "checksum"}
        try:
            expected = sha256_text(canonical_json(body))
        except (TypeError, ValueError) as exc:
            raise ArtifactError(f"artifact is not canonical JSON: {exc}") from exc
        if data.get("checksum") != expected:
            raise ArtifactError("artifact checksum mismatch (corrupted or edited)")
        try:
            return cls(
                key=body["key"],
                dialect=body["dialect"],
                source_dialect=body["source_dialect"],
                schema=body["schema"],
                lowered=body["lowered"],
                grammar=body["grammar"],
                options=body["options"],
                diagnostics=[Diagnostic.from_json(d) for d in body["diagnostics"]],
                budget=body["budget"],
                compile_ms=body["compile_ms"],
                format_version=body["format_version"],
                llguidance_version=body["llguidance_version"],
                schemac_version=body["schemac_version"],
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise ArtifactError(f"artifact is missing or has a malformed field: {exc}") from exc

    @classmethod
    def loads(cls, text: str) -> "Artifact":
        try:
            data = json.loads(text)
        except (ValueError, RecursionError) as exc:
            raise ArtifactError(f"artifact is not valid JSON: {exc}") from exc
        return cls.from_json(data)

    def save(self, path: str | os.PathLike[str]) -> Path:
        """Write atomically (temp file in the same folder, then rename)."""
        target = Path(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".tmp-", suffix=".json")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(self.dumps())
            os.replace(tmp, target)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        return target

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> "Artifact":
        return cls.loads(Path(path).read_text(encoding="utf-8"))
