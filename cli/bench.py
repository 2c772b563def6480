"""Find the conformance benchmark for `schemac conformance`.

The benchmark lives with the other benchmarks in the source repository (`benchmarks/conformance`),
not in the installed package: it needs the test extras (mistral-common's tokenizers,
transformers) and data sets. From a checkout it is imported lazily; elsewhere the command says
where to get it.
"""
from __future__ import annotations

import importlib
import sys
from pathlib import Path
from types import ModuleType

import click

from schemac.cli.extras import MissingExtra, require

#: the checkout root when schemac runs from a source tree (schemac/ and benchmarks/ side by side)
_CHECKOUT = Path(__file__).resolve().parent.parent


def load_conformance() -> ModuleType:
    """`benchmarks.conformance`, from the import path or the checkout schemac runs from."""
    try:
        return importlib.import_module("benchmarks.conformance")
    except ModuleNotFoundError as exc:
        if exc.name not in ("benchmarks", "benchmarks.conformance"):
            raise
    if _put_checkout_on_path():
        return importlib.import_module("benchmarks.conformance")
    raise MissingExtra(
        "schemac conformance runs from a source checkout of schemac (benchmarks/conformance), "
        "with its test extra: pip install -e '.[test]', then schemac conformance PATHS..."
    )


def _put_checkout_on_path() -> bool:
    """Put the checkout schemac runs from first on sys.path, if it holds benchmarks/conformance.

    This is the one place schemac touches sys.path, and only for `schemac conformance` run from a
    source tree whose benchmarks are not importable yet (`schemac` called from outside the
    checkout). Importing the package from its file alone would not do: the benchmark compiles in
    worker processes started with multiprocessing's "spawn" method, which import the worker
    functions by module name (`benchmarks.conformance.*`) on the sys.path the parent hands them.
    """
    if not (_CHECKOUT / "benchmarks" / "conformance" / "__init__.py").is_file():
        return False
    if str(_CHECKOUT) not in sys.path:
        sys.path.insert(0, str(_CHECKOUT))
    return True


def check_tokenizer(tokenizers: dict[str, str], name: str) -> None:
    """The tokenizer exists and its dependencies are installed."""
    if name not in tokenizers:
        raise click.BadParameter(f"choose from {', '.join(sorted(tokenizers))}", param_hint="--tokenizer")
    needs = {"mistral_common": "mistral-common", "llguidance": "llguidance"}
    if name == "llama32k":
        needs.update({"transformers": "transformers", "sentencepiece": "sentencepiece"})
    require("conformance", needs)
