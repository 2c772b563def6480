"""Conformance benchmark: schemac versus raw llguidance on JSON Schema Test Suite and MaskBench files.

Owns loading the cases, running them through both engines as real tokens, and the figures.
Every instance is fed, as real tokens of a real tokenizer, through an llguidance matcher built
from each engine's grammar, so the figures measure what a serving engine would enforce. An
*invalidation error* (invalid instance accepted) breaks schemac's promise and is listed one by
one; a *validation error* (valid instance rejected) is a coverage or syntax-policy loss.
Run it as `python -m benchmarks.conformance PATHS...` or `schemac conformance PATHS...`.
"""
from __future__ import annotations

from benchmarks.conformance.cases import (
    MASKBENCH, SECTIONS, SUITE, SUITE_FORMAT, Case, CaseResult, EngineResult, instance_text, load_cases,
)
from benchmarks.conformance.driver import main, run
from benchmarks.conformance.engines import evaluate, schemac_first
from benchmarks.conformance.key_order import reordered_text
from benchmarks.conformance.render import render_text
from benchmarks.conformance.stats import Report
from benchmarks.conformance.tokenizers import TOKENIZERS, load_tokenizer

__all__ = [
    "MASKBENCH", "SECTIONS", "SUITE", "SUITE_FORMAT", "TOKENIZERS", "Case", "CaseResult", "EngineResult",
    "Report", "evaluate", "instance_text", "load_cases", "load_tokenizer", "main", "render_text", "reordered_text",
    "run", "schemac_first",
]
