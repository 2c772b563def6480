"""Bounded-exhaustive verification of compiled grammars: `schemac.verify(schema, depth=...)`.

The module itself is callable (`schemac.verify(schema)` is `verify_schema(schema)`), so the
package name stays the API name. Importing it is cheap: llguidance and jsonschema load when a
check runs. See `check` for what is verified, `alphabet` for the texts it can reach, `walk` for
the grammar walk and `oracle` for the independent second opinion.
"""
from __future__ import annotations

import sys
import types
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from schemac.verify.check import VerifyReport

__all__ = ["Counterexample", "VerifyReport", "verify"]


def verify(schema: Any, **options: Any) -> "VerifyReport":
    """Compile `schema` and verify its grammar (options: depth, max_nodes, time_s, cross_check,
    canonical, and `schemac.compile`'s own); returns a `VerifyReport`."""
    from schemac.verify.check import verify_schema

    return verify_schema(schema, **options)


def __getattr__(name: str) -> Any:
    if name in ("VerifyReport", "Counterexample"):
        from schemac.verify import check

        return getattr(check, name)
    raise AttributeError(name)


class _CallableModule(types.ModuleType):
    """`schemac.verify` is both this package and the function: calling it verifies."""

    def __call__(self, schema: Any, **options: Any) -> "VerifyReport":
        return verify(schema, **options)


sys.modules[__name__].__class__ = _CallableModule
