"""The core's one configuration schema from Python: the shared table of invalid configurations
(tests/config/cases.json, also replayed by the Rust and Node tests) gives the same text here, and
the HTTP limits Python used to lack are enforced by a real server over HTTP on 127.0.0.1."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from procs import ROOT, free_port, wait_listening

from oxmcp import Server

TABLE = json.loads((ROOT / "tests" / "config" / "cases.json").read_text())
CASES = TABLE["cases"] + TABLE["edges"]["refused"]
ACCEPTED = TABLE["accepted"] + TABLE["edges"]["accepted"]


def _replay(case: dict[str, Any]) -> Server:
    """A row's `at`: the constructor, one listener, or the ASGI mount, over the row's `server` options."""
    config = dict(case["config"])
    if case["at"] == "server":
        return Server("t", **config)
    server = Server("t", **case.get("server", {}))
    if case["at"] == "mount":
        server.asgi_app(**config)
    else:
        asyncio.run(server.run_async("http", port=0, **config))
    return server


def _id(case: dict[str, Any]) -> str:
    return f"{case['at']}:{json.dumps(case['config'])}"


@pytest.mark.parametrize("case", CASES, ids=[_id(c) for c in CASES])
def test_invalid_configs_give_the_shared_error(case: dict[str, Any]) -> None:
    exc = TypeError if case["kind"] == "unknown" else ValueError
    with pytest.raises(exc) as e:
        _replay(case)
    assert str(e.value) == case["error"]


@pytest.mark.parametrize("case", ACCEPTED, ids=[_id(c) for c in ACCEPTED])
def test_accepted_configs_take_the_shared_effective_values(case: dict[str, Any]) -> None:
    from oxmcp import _oxmcp

    server = _replay(case)
    effective = _oxmcp.effective_options(server.options)
    for k, v in case.get("effective", {}).items():
        assert effective[k] == v, k


TOOL_ROWS = TABLE["tools"]


@pytest.mark.parametrize("case", TOOL_ROWS, ids=[json.dumps(c["limits"]) for c in TOOL_ROWS])
def test_tool_limits_give_the_shared_outcome(case: dict[str, Any]) -> None:
    limits = case["limits"]
    kwargs: dict[str, Any] = {}
    if "timeout_ms" in limits:
        kwargs["timeout"] = limits["timeout_ms"] / 1000
    if "max_concurrency" in limits:
        kwargs["max_concurrency"] = limits["max_concurrency"]
    if "task_after_ms" in limits:
        kwargs["task_after"] = limits["task_after_ms"] / 1000
    server = Server("t")

    def echo(text: str) -> str:
        return text

    if "error" in case:
        with pytest.raises(ValueError) as e:
            server.tool(**kwargs)(echo)
        assert str(e.value) == case["error"]
    else:
        server.tool(**kwargs)(echo)
        server.native  # the core takes the tool with these limits


def test_camel_case_names_and_bytes_are_accepted() -> None:
    s = Server("t", pageSize=2, state_key=b"0123456789abcdef", maxBodyBytes=1000, rateLimit={"rate": 5})
    s.native  # builds the core server


SERVER = """
import json, os, sys
from oxmcp import Server
server = Server("limits", **json.loads(os.environ["LIMITS"]))

@server.tool()
def echo(text: str) -> str:
    return text

server.run("http", host="127.0.0.1", port=int(sys.argv[1]))
"""

LIMITS = {"max_headers": 20, "max_header_bytes": 2048, "body_timeout_ms": 300, "force_private_cache": True,
          "cache_scope": "public", "cache_ttl_ms": 5000}


def exchange(port: int, head: str, body: bytes = b"", wait: float = 10) -> tuple[int, bytes]:
    """Send a raw request (head without the final blank line) and read the status line and body."""
    with socket.create_connection(("127.0.0.1", port), timeout=wait) as sock:
        sock.sendall(head.encode() + b"\r\n" + body)
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = sock.recv(65536)
            if not chunk:
                break
            data += chunk
        head_bytes, _, rest = data.partition(b"\r\n\r\n")
        length = 0
        for line in head_bytes.split(b"\r\n")[1:]:
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value)
        while len(rest) < length:
            chunk = sock.recv(65536)
            if not chunk:
                break
            rest += chunk
    return int(head_bytes.split(b" ", 2)[1]), rest


def post_head(port: int, length: int, extra: str = "") -> str:
    return (f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\ncontent-type: application/json\r\n"
            f"accept: application/json, text/event-stream\r\nmcp-protocol-version: 2026-07-28\r\n"
            f"mcp-method: tools/list\r\ncontent-length: {length}\r\n{extra}")


def test_the_four_http_limits_are_enforced_over_http() -> None:
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-c", SERVER, str(port)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, env={**os.environ, "LIMITS": json.dumps(LIMITS)}, cwd=ROOT)
    try:
        wait_listening(port, proc)
        meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {}}
        body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": meta}}).encode()
        status, reply = exchange(port, post_head(port, len(body)), body)
        assert status == 200, reply
        # force_private_cache wins over cache_scope="public".
        result = json.loads(reply)["result"]
        assert (result["cacheScope"], result["ttlMs"]) == ("private", 5000)
        # max_headers: 30 headers > 20.
        many = "".join(f"x-h{i}: v\r\n" for i in range(30))
        assert exchange(port, post_head(port, len(body), many), body)[0] == 431
        # max_header_bytes: one 3000-byte value > 2048.
        assert exchange(port, post_head(port, len(body), f"x-big: {'a' * 3000}\r\n"), body)[0] == 431
        # body_timeout_ms: 10 of 100 declared bytes, then silence: 408 after ~0.3 s.
        t0 = time.monotonic()
        status, _ = exchange(port, post_head(port, 100), b"{" * 10)
        assert status == 408
        assert time.monotonic() - t0 < 5
    finally:
        proc.terminate()
        proc.wait(10)


def test_declared_extensions_join_the_capabilities(tmp_path: Path) -> None:
    from procs import start_script, stop
    from test_access_everywhere import Http

    proc, port = start_script(tmp_path, """
import sys
from oxmcp import Server
server = Server("t", extensions={"io.modelcontextprotocol/oauth-client-credentials": {}})

@server.tool()
def echo(text: str) -> str:
    return text

server.run("http", host="127.0.0.1", port=int(sys.argv[1]))
""")
    try:
        result = Http(port, "").post("initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                                                    "clientInfo": {"name": "c", "version": "1"}}, modern=False)["result"]
    finally:
        stop(proc)
    assert result["capabilities"]["extensions"] == {"io.modelcontextprotocol/oauth-client-credentials": {}}
    assert "tools" in result["capabilities"]


@pytest.mark.parametrize("declared", [None, {}])
def test_an_extension_the_option_declares_is_declared_with_its_settings(tmp_path: Path, declared: Any) -> None:
    """A ui:// resource needs the MCP Apps extension declared; the ``extensions`` option, when it
    names that extension, gives the settings declared in its place (the same in Node)."""
    from procs import start_script, stop
    from test_access_everywhere import Http

    option = "" if declared is None else ', extensions={"io.modelcontextprotocol/ui": {}}'
    proc, port = start_script(tmp_path, f"""
import sys
from oxmcp import Server
server = Server("t"{option})

@server.ui_resource("ui://demo/view.html", name="view")
def view() -> str:
    return "<p>hi</p>"

server.run("http", host="127.0.0.1", port=int(sys.argv[1]))
""")
    try:
        result = Http(port, "").post("server/discover", {}, modern=True)["result"]
    finally:
        stop(proc)
    expected = {"mimeTypes": ["text/html;profile=mcp-app"]} if declared is None else declared
    assert result["capabilities"]["extensions"]["io.modelcontextprotocol/ui"] == expected
