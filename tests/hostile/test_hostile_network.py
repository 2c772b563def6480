"""Remote refs to loopback are rejected and nothing touches the network, at any stage."""
from __future__ import annotations

import socket
from typing import Any

import pytest

import schemac
from schemac.validate.final import FinalValidator

REMOTE = [
    {"$ref": "http://127.0.0.1:9/schema.json"},
    {"properties": {"a": {"$ref": "https://localhost/s.json#/x"}}},
    {"$id": "http://127.0.0.1/root.json", "$ref": "other.json"},
    {"$schema": "http://127.0.0.1/meta.json"},
]


@pytest.fixture()
def no_network(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    attempts: list[str] = []

    def refuse(name: str) -> Any:
        def _refuse(*args: Any, **kwargs: Any) -> Any:
            attempts.append(name)
            raise OSError(f"network use in a test: {name}{args!r}")
        return _refuse

    monkeypatch.setattr(socket.socket, "connect", refuse("connect"))
    monkeypatch.setattr(socket.socket, "connect_ex", refuse("connect_ex"))
    monkeypatch.setattr(socket, "create_connection", refuse("create_connection"))
    monkeypatch.setattr(socket, "getaddrinfo", refuse("getaddrinfo"))
    return attempts


@pytest.mark.parametrize("schema", REMOTE)
def test_remote_refs_rejected_without_network(schema: dict[str, Any], no_network: list[str]) -> None:
    diagnostics = schemac.check(schema)
    assert diagnostics and all(d.code in ("remote-ref", "unsupported-dialect") for d in diagnostics if d.severity.value == "error")
    assert no_network == []


def test_final_validator_never_retrieves(no_network: list[str]) -> None:
    validator = FinalValidator({"$ref": "http://127.0.0.1:9/s.json"})
    assert not validator.is_valid(1)
    assert no_network == []
