"""Completers given at registration (``completions={"arg": values | Enum | function}``): the fixture
served over HTTP answers ``completion/complete`` as the Rust and Node fixtures do (the shared cases in
tests/fixtures/completion/cases.json); lists and enums are matched by the core."""

from __future__ import annotations

import enum
import json
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from procs import META, ROOT, start_python_http, stop

from oxmcp import DefinitionError, Server

FIXTURE = ROOT / "tests" / "fixtures" / "completion"


def _complete(port: int, ref: dict[str, Any], name: str, value: str) -> dict[str, Any]:
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "completion/complete",
                       "params": {"ref": ref, "argument": {"name": name, "value": value}, "_meta": META}}).encode()
    req = urllib.request.Request(f"http://127.0.0.1:{port}/mcp", data=body, method="POST", headers={
        "Content-Type": "application/json", "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "completion/complete"})
    with urllib.request.urlopen(req, timeout=30) as r:
        answer: dict[str, Any] = json.loads(r.read())
    return answer


def test_the_shared_cases_over_http() -> None:
    cases = json.loads((FIXTURE / "cases.json").read_text())["cases"]
    proc, port = start_python_http(Path(FIXTURE / "server.py"))
    try:
        for ref, name, typed, want in cases:
            got = _complete(port, ref, name, typed)
            assert got["result"]["completion"]["values"] == want, (ref, name, typed, got)
    finally:
        stop(proc)


def test_an_enum_of_other_values_completes_to_its_names_and_a_bad_completer_is_refused() -> None:
    class Level(enum.IntEnum):
        LOW = 1
        HIGH = 2

    from oxmcp._server import completion_values

    assert completion_values(Level) == ["LOW", "HIGH"]
    assert completion_values(("a", "b")) == ["a", "b"]
    s = Server("c")
    with pytest.raises(TypeError, match="a completer is a list of values, an Enum class or a function"):
        @s.prompt(completions={"x": 3})
        def p(x: str) -> str:
            return x
    with pytest.raises(DefinitionError, match="^prompt 'q' has no argument 'y' to complete$"):
        @s.prompt(completions={"y": ["a"]})
        def q(x: str) -> str:
            return x
    with pytest.raises(DefinitionError, match=r"^resource 'docs://\{section\}' has no template variable 'page' to complete$"):
        @s.resource("docs://{section}", completions={"page": ["a"]})
        def d(section: str) -> str:
            return section
    with pytest.raises(DefinitionError, match="^resource 'docs://motd' has no template variable 'x' to complete$"):
        @s.resource("docs://motd", completions={"x": ["a"]})
        def m() -> str:
            return ""
    # Nothing of a refused registration is kept: the names are free.
    @s.prompt(completions={"x": ["a"]})
    def q(x: str) -> str:  # noqa: F811
        return x

    @s.resource("docs://{section}")
    def d(section: str) -> str:  # noqa: F811
        return section
