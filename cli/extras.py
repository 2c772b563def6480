"""Clean errors for optional dependencies: a missing extra is a sentence with the install line,
never a traceback."""
from __future__ import annotations

from importlib.util import find_spec

import click


class MissingExtra(click.ClickException):
    """An optional dependency a command needs is not installed (exit 2, like a usage error)."""

    exit_code = 2


def require(command: str, modules: dict[str, str]) -> None:
    """Raise MissingExtra naming every module of `modules` (module → pip requirement) not installed."""
    missing = [req for module, req in modules.items() if find_spec(module) is None]
    if missing:
        raise MissingExtra(
            f"schemac {command} needs {', '.join(missing)}, which {'is' if len(missing) == 1 else 'are'} not installed: "
            f"pip install {' '.join(repr(m) if '[' in m else m for m in missing)}"
        )
