"""Import SGLang 0.5.23's scheduler-side modules (Req, the detokenizer, the draft-tree walk) on
a CPU test machine. Skip only when SGLang is not installed at all; a broken import fails.

SGLang's model-config registry imports two multimodal modules that load torchvision at module
level (image transforms no grammar path runs). torchvision has no build for a CPU torch here,
so while SGLang's modules are imported, and only when the real torchvision cannot load, those
imports see a minimal torchvision (`InterpolationMode`); it is removed from `sys.modules` again
afterwards, and transformers' own torchvision check has run (False) before.
"""
from __future__ import annotations

import enum
import importlib
import importlib.util
import sys
import types
from typing import Any

import pytest

MODULES = (
    "sglang.srt.server_args",
    "sglang.srt.constrained.base_grammar_backend",
    "sglang.srt.constrained.llguidance_backend",
    "sglang.srt.managers.schedule_batch",
    "sglang.srt.managers.detokenizer_manager",
    "sglang.srt.managers.scheduler_components.batch_result_processor",
    "sglang.srt.speculative.spec_utils",
    "sglang.srt.parser.reasoning_parser",
)


def load() -> dict[str, Any]:
    """The modules above by their last name component (skip if SGLang is absent)."""
    if importlib.util.find_spec("sglang") is None:
        pytest.skip("SGLang is not installed: pip install --no-deps sglang==0.5.23")
    names = _torchvision_stand_in()
    try:
        return {m.rsplit(".", 1)[1]: importlib.import_module(m) for m in MODULES}
    finally:
        for name in names:
            sys.modules.pop(name, None)


def _torchvision_stand_in() -> list[str]:
    try:
        import torchvision.transforms  # noqa: F401

        return []
    except Exception:  # absent, or built for another torch (its C ops fail to register)
        for name in [n for n in sys.modules if n == "torchvision" or n.startswith("torchvision.")]:
            del sys.modules[name]
    from transformers.utils import import_utils

    assert not import_utils.is_torchvision_available()

    class InterpolationMode(enum.Enum):
        NEAREST = "nearest"
        BILINEAR = "bilinear"
        BICUBIC = "bicubic"

    root, transforms, functional = (types.ModuleType(n) for n in (
        "torchvision", "torchvision.transforms", "torchvision.transforms.functional"))
    transforms.InterpolationMode = functional.InterpolationMode = InterpolationMode  # type: ignore[attr-defined]
    transforms.functional = functional  # type: ignore[attr-defined]
    root.transforms = transforms  # type: ignore[attr-defined]
    added = {m.__name__: m for m in (root, transforms, functional)}
    sys.modules.update(added)
    return list(added)
