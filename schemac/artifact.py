"""The compiled, versioned artifact: plain JSON a runtime loads and checks before trusting."""
from __future__ import annotations

import hashlib
import json
import os
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from schemac.version import __version__
from schemac.diagnostics import Diagnostic
from schemac.llguidance_range import installed_version, is_supported, SPECIFIER
from schemac.schema import Schema

if TYPE_CHECKING:
    from schemac.validate.client import Answer

#: Bumped whenever the artifact's fields or their meaning change; loaders refuse other versions.
FORMAT_VERSION = 2


def __getattr__(name: str) -> Any:
    """`LLGUIDANCE_VERSION`: the installed llguidance release, read on first use (cheap import)."""
    if name == "LLGUIDANCE_VERSION":
        return installed_version()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class ArtifactError(ValueError):
    """An artifact that is malformed, of another format/llguidance/Unicode version, or fails its hash."""


def check_unicode_version(recorded: Any) -> None:
    """Refuse (ArtifactError) an artifact whose patterns use Unicode property escapes (`\\p{..}`)
    compiled under another Unicode version than this Python's: its grammar's classes come from the
    compiling Python's tables, the final validator's from this one's, and the two could disagree
    on the code points assigned in between. None (no property escape) runs anywhere."""
    if recorded is not None and recorded != unicodedata.unidata_version:
        raise ArtifactError(
            f"artifact's patterns use Unicode property escapes compiled under Unicode {recorded!r}, but this "
            f"Python has Unicode {unicodedata.unidata_version}: the grammar and the final validator could "
            "disagree; recompile the schema with this Python"
        )


class FrozenDict(dict):  # type: ignore[type-arg]
    """A JSON object nobody can change: an artifact's data is its own, so a caller's later edit
    (of what it passed in or of what it got back) cannot change what a cached artifact checks.

    A `dict` subclass, so validators, `json.dumps` and `==` treat it as the object it is; every
    mutating method raises. `copy.deepcopy` gives a plain, mutable copy (use `thaw` likewise).
    """

    def _refuse(self, *_args: Any, **_kwargs: Any) -> Any:
        raise TypeError("artifact data is read-only; take a mutable copy with schemac.artifact.thaw")

    __setitem__ = __delitem__ = __ior__ = clear = pop = popitem = setdefault = update = _refuse

    def __reduce__(self) -> Any:
        return (FrozenDict, (dict(self),))

    def __deepcopy__(self, memo: dict[int, Any]) -> Any:
        return thaw(self)


class FrozenList(list):  # type: ignore[type-arg]
    """A JSON array nobody can change (see `FrozenDict`)."""

    def _refuse(self, *_args: Any, **_kwargs: Any) -> Any:
        raise TypeError("artifact data is read-only; take a mutable copy with schemac.artifact.thaw")

    __setitem__ = __delitem__ = __iadd__ = __imul__ = append = clear = extend = insert = pop = remove = \
        reverse = sort = _refuse

    def __reduce__(self) -> Any:
        return (FrozenList, (list(self),))

    def __deepcopy__(self, memo: dict[int, Any]) -> Any:
        return thaw(self)


def freeze(value: Any) -> Any:
    """A deep, read-only copy of a JSON value (scalars, including exact numbers, are immutable
    already and shared); depth is bounded by the loader's `max_depth`."""
    if isinstance(value, dict):
        return FrozenDict({k: freeze(v) for k, v in value.items()})
    if isinstance(value, (list, tuple)):
        return FrozenList(freeze(v) for v in value)
    return value


def thaw(value: Any) -> Any:
    """A deep, plain (mutable) copy of a JSON value, frozen or not."""
    if isinstance(value, dict):
        return {k: thaw(v) for k, v in value.items()}
    if isinstance(value, list):
        return [thaw(v) for v in value]
    return value


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
    The artifact owns its data: `schema`, `lowered`, `options`, `budget` and `diagnostics` are
    deep read-only copies made at construction (`freeze`), so neither the caller's later edits
    nor edits through a cached artifact can change what final validation checks.
    `unicode_version` is the Unicode version of `unicodedata` when a pattern uses a property
    escape (None otherwise): loading or validating under another version is refused
    (`check_unicode_version`).
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
    llguidance_version: str = field(default_factory=installed_version)  # the release it was compiled with
    schemac_version: str = __version__
    unicode_version: str | None = None  # written only when set: other artifacts are unchanged

    def __post_init__(self) -> None:
        for name in ("schema", "lowered", "options", "budget", "diagnostics"):
            object.__setattr__(self, name, freeze(getattr(self, name)))

    def __setattr__(self, name: str, value: Any) -> None:
        if name in self.__dict__:
            raise AttributeError(f"artifact field {name!r} is read-only; build a new Artifact instead")
        super().__setattr__(name, value)

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
        } | ({"unicode_version": self.unicode_version} if self.unicode_version is not None else {})

    @property
    def lark(self) -> str:
        """The grammar as one Lark text, for engines that take `llguidance.grammar_from("grammar",
        text)` (vLLM `structured_outputs={"grammar": ...}`, SGLang `ebnf`): the same language."""
        from schemac.emit import lark_text

        return lark_text(self.grammar)

    def validate(self, text: str, finish_reason: str = "stop") -> "Answer":
        """The runtime's exact final validation of an answer from any engine (`schemac.validate.client`):
        ok with the value, invalid with pointers, or truncated."""
        from schemac.validate.client import check_answer

        check_unicode_version(self.unicode_version)
        return check_answer(self.key, self.schema, text, finish_reason)

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
        if not is_supported(data.get("llguidance_version")):  # the runtime also wants the same release
            raise ArtifactError(
                f"artifact was built for llguidance {data.get('llguidance_version')!r}, "
                f"outside the supported llguidance{SPECIFIER}"
            )
        check_unicode_version(data.get("unicode_version"))
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
                unicode_version=body.get("unicode_version"),
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
        """Write atomically (temp file in the same folder, then rename), with the process umask."""
        from schemac.files import write_text_atomic

        return write_text_atomic(path, self.dumps())

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> "Artifact":
        return cls.loads(Path(path).read_text(encoding="utf-8"))
