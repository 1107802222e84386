"""Streamable HTTP on a Unix domain socket, over a real process: the official `mcp` client through httpx's
`uds` transport, curl with `--unix-socket` and HTTP/2 by prior knowledge, the file's mode, the loopback
`Host` rule, FastMCP's `uvicorn_config={"uds": ...}`, and the file removed at shutdown."""

from __future__ import annotations

import json
import os
import socket
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from procs import META, stop

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="Unix sockets")

SERVER = """
import sys
from oxmcp import Server
server = Server("uds")
@server.tool
def add(a: int, b: int) -> int:
    return a + b
server.run("http", uds=sys.argv[1])
"""

FASTMCP = """
import sys
from oxmcp import FastMCP
mcp = FastMCP("uds-fastmcp")
@mcp.tool
def add(a: int, b: int) -> int:
    return a + b
mcp.run(transport="http", port=9, uvicorn_config={"uds": sys.argv[1]}, uds_mode="0660")
"""


def start(tmp: Path, source: str, sock: Path) -> subprocess.Popen[bytes]:
    script = tmp / "server.py"
    script.write_text(source)
    proc = subprocess.Popen([sys.executable, str(script), str(sock)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 20
    while True:
        assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else ""
        try:
            with socket.socket(socket.AF_UNIX) as s:
                s.connect(str(sock))
            return proc
        except OSError:
            assert time.monotonic() < deadline, "the server did not listen in time"
            time.sleep(0.02)


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    tmp = tmp_path_factory.mktemp("uds")
    sock = tmp / "mcp.sock"
    proc = start(tmp, SERVER, sock)
    try:
        yield sock
    finally:
        assert stop(proc) == 0
        assert not sock.exists(), "the socket file is removed at shutdown"


def test_the_socket_is_made_with_mode_0600(served: Path) -> None:
    st = os.lstat(served)
    assert stat.S_ISSOCK(st.st_mode)
    assert stat.S_IMODE(st.st_mode) == 0o600


async def test_the_mcp_client_over_httpx_uds(served: Path) -> None:
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    async with httpx2.AsyncClient(transport=httpx2.AsyncHTTPTransport(uds=str(served))) as http:
        async with Client(streamable_http_client("http://localhost/mcp", http_client=http), mode="legacy") as c:
            assert [t.name for t in (await c.list_tools()).tools] == ["add"]
            r = await c.call_tool("add", {"a": 2, "b": 3})
            assert r.structured_content == {"result": 5}


def curl(sock: Path, host: str, *, body: bool = True) -> tuple[int, dict[str, object]]:
    """A tools/call over HTTP/2 on the socket; `body=False`: the listen GET, with no body."""
    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "add", "arguments": {"a": 1, "b": 2}, "_meta": META}}
    request = (["-H", "content-type: application/json", "-H", "accept: application/json, text/event-stream",
                "-H", "mcp-protocol-version: 2026-07-28", "-H", "mcp-method: tools/call", "-H", "mcp-name: add",
                "--data-binary", json.dumps(call)] if body else ["-H", "accept: text/event-stream"])
    out = subprocess.run(
        ["curl", "-sS", "--unix-socket", str(sock), "--http2-prior-knowledge", "-w", "\n%{http_code} %{http_version}",
         *request, f"http://{host}/mcp"],
        capture_output=True, text=True, timeout=30, check=True).stdout
    text, _, tail = out.rpartition("\n")
    code, version = tail.split()
    assert version == "2", "HTTP/2 by prior knowledge over the socket"
    return int(code), json.loads(text)


def test_curl_http2_prior_knowledge_and_the_loopback_host_rule(served: Path) -> None:
    code, msg = curl(served, "localhost")
    assert code == 200, msg
    assert msg["result"]["structuredContent"] == {"result": 3}  # type: ignore[index]
    # A request with no body: the guard refuses from the head. A refused POST whose body is still
    # on its way may be reset once answered (RFC 9113 §8.1 allows it), which curl 7.88 can report as
    # a framing error instead of the 403.
    code, msg = curl(served, "evil.example", body=False)
    assert code == 403
    assert msg["error"]["message"] == "Forbidden: Host not allowed"  # type: ignore[index]


async def test_uds_replaces_host_and_port(tmp_path: Path) -> None:
    from oxmcp import Server

    with pytest.raises(ValueError, match="uds replaces host and port"):
        await Server("x").run_async("http", port=8000, uds=str(tmp_path / "s.sock"))


def test_fastmcp_uvicorn_config_uds(tmp_path: Path) -> None:
    """FastMCP passes `uvicorn_config` to uvicorn, whose `uds` replaces host and port: so here."""
    sock = tmp_path / "f.sock"
    proc = start(tmp_path, FASTMCP, sock)
    try:
        assert stat.S_IMODE(os.lstat(sock).st_mode) == 0o660
        code, msg = curl(sock, "localhost")
        assert code == 200, msg
    finally:
        assert stop(proc) == 0
    assert not sock.exists()


def test_the_audit_record_names_the_client_process(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The kernel's word on who connected (SO_PEERCRED): the uid, gid and pid of curl, this user's.
    monkeypatch.setenv("OXMCP_LOG", "warn,oxmcp::audit=info")
    monkeypatch.setenv("OXMCP_LOG_FORMAT", "json")
    sock = tmp_path / "mcp.sock"
    proc = start(tmp_path, SERVER, sock)
    try:
        code, _ = curl(sock, "localhost")
        assert code == 200
    finally:
        stop(proc)
    assert proc.stderr is not None
    calls = [json.loads(line)["fields"] for line in proc.stderr.read().decode().splitlines()
             if '"oxmcp::audit"' in line and '"call"' in line]
    (call,) = [c for c in calls if c["method"] == "tools/call"]
    assert (call["peer_uid"], call["peer_gid"]) == (os.getuid(), os.getgid()), call
    assert call["peer_pid"] > 0 and call["peer_pid"] != os.getpid(), call
