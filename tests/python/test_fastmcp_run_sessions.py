"""FastMCP's ``run()`` / ``http_app()`` session keywords (``max_sessions``, ``session_idle_timeout``)
are the core's options: applied, or refused when the core cannot honour them; never dropped."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from procs import start_script, stop

from oxmcp import FastMCP

SERVER = """
import sys
from oxmcp import FastMCP

mcp = FastMCP("s")

@mcp.tool
def ping() -> str:
    return "pong"

mcp.run("http", host="127.0.0.1", port=int(sys.argv[1]), max_sessions=1, session_idle_timeout=30)
"""

INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}


def _initialize(port: int) -> tuple[int, dict[str, str], Any]:
    req = urllib.request.Request(f"http://127.0.0.1:{port}/mcp", data=json.dumps(INIT).encode(), method="POST",
                                 headers={"content-type": "application/json",
                                          "accept": "application/json, text/event-stream"})
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, dict(r.headers), r.read()
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), json.loads(e.read())


def test_run_applies_max_sessions_over_http(tmp_path: Path) -> None:
    proc, port = start_script(tmp_path, SERVER)
    try:
        status, headers, _ = _initialize(port)
        assert status == 200
        assert {k.lower() for k in headers} >= {"mcp-session-id"}
        status, _, body = _initialize(port)
        assert status == 503, body
        assert body["error"]["message"] == "too many sessions"
    finally:
        stop(proc)


def test_http_app_gives_the_session_options_to_the_core() -> None:
    mcp = FastMCP("s")
    mcp.http_app(max_sessions=3, session_idle_timeout=1.5)
    assert mcp.options["max_sessions"] == 3
    assert mcp.options["session_idle_ms"] == 1500


@pytest.mark.parametrize(("kw", "text"), [
    ({"max_sessions": None}, "max_sessions=None"),
    ({"session_idle_timeout": None}, "session_idle_timeout=None"),
    ({"max_sessions": 0}, "max_sessions"),
])
def test_what_the_core_cannot_honour_is_refused(kw: dict[str, Any], text: str) -> None:
    mcp = FastMCP("s")
    with pytest.raises(ValueError, match=text):
        mcp.http_app(**kw)
    with pytest.raises(ValueError, match=text):
        mcp.run("http", port=0, **kw)
    assert "max_sessions" not in mcp.options and "session_idle_ms" not in mcp.options
