"""CI slice of fuzz/fuzz_frontend.py: loader and regex checker raise only CompileError."""
from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from schemac.budget import Budget
from schemac.diagnostics import CompileError
from schemac.front.load import load
from schemac.regex import check_patterns

JSONISH = st.text(st.sampled_from(list('{}[]":,0123456789.eE-+ truefalsnNIy\\u')), max_size=120).map(str.encode)
REGEX = st.text(st.sampled_from(list("ab()[]{}|*+?.^$\\-,:=!<>0123456789dwsuxpkc") + ["\ud800", "é"]), max_size=30)


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.one_of(st.binary(max_size=120), JSONISH))
def test_loader_raises_only_compile_error(data: bytes) -> None:
    try:
        load(data)
    except CompileError as exc:
        assert exc.codes


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(REGEX)
def test_regex_checker_raises_only_compile_error(pattern: str) -> None:
    try:
        check_patterns({"pattern": pattern}, Budget())
    except CompileError as exc:
        assert exc.codes
