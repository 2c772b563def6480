"""Which JSON Schema dialect a `$schema` URI names: a leaf both the dialect gate
(`schemac.front.dialect.gate`) and the draft upgrade (`schemac.front.upgrade.translate`) read, so neither imports the other
for it."""
from __future__ import annotations

DIALECT_2020_12 = "2020-12"

_DIALECT_PATHS: dict[str, str] = {
    "draft-04": "draft-04",
    "draft-06": "draft-06",
    "draft-07": "draft-07",
    "draft/2019-09": "2019-09",
    "draft/2020-12": "2020-12",
}


def dialect_of(uri: object) -> str | None:
    """Map a `$schema` URI (http/https, optional trailing '#' and 'schema' suffix) to a dialect."""
    if not isinstance(uri, str):
        return None
    u = uri.strip().lower()
    for scheme in ("https://", "http://"):
        if u.startswith(scheme):
            u = u[len(scheme):]
            break
    else:
        return None
    if u.startswith("www."):
        u = u[4:]
    if not u.startswith("json-schema.org/"):
        return None
    u = u[len("json-schema.org/"):]
    if u.endswith("#"):
        u = u[:-1]
    u = u.rstrip("/")
    if u.endswith("/schema"):
        u = u[: -len("/schema")]
    return _DIALECT_PATHS.get(u)
