"""A Python tool that awaits ``ctx.elicit(...)``, served to a legacy (2025-11-25) client: the
server sends a real ``elicitation/create`` request and the test answers it — over stdio (the
request on stdout, the answer on stdin) and over Streamable HTTP with a session (the request on
the call's SSE stream, the answer POSTed). The same tool over a modern request uses MRTR.
"""

from __future__ import annotations

import http.client
import json
import os
import selectors
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from procs import free_port

APP = Path(__file__).resolve().parent / "apps" / "ask.py"
LEGACY = "2025-11-25"
INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": LEGACY, "capabilities": {"elicitation": {}},
                   "clientInfo": {"name": "legacy-test", "version": "1"}}}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}
CALL = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "greet", "arguments": {}}}


def answer(rid: Any, action: str) -> dict[str, Any]:
    result: dict[str, Any] = {"action": action}
    if action == "accept":
        result["content"] = {"name": "Ada"}
    return {"jsonrpc": "2.0", "id": rid, "result": result}


def expected_text(action: str) -> str:
    return f"Hello, Ada! (legacy, {LEGACY})" if action == "accept" else f"no name ({action})"


def check_elicitation(req: dict[str, Any]) -> None:
    assert req["method"] == "elicitation/create" and "id" in req, req
    p = req["params"]
    assert p["message"] == "What is your name?"
    assert p["requestedSchema"]["properties"]["name"]["type"] == "string"
    assert p["requestedSchema"]["required"] == ["name"]


# -- stdio ------------------------------------------------------------------------------------------

class Lines:
    def __init__(self, proc: subprocess.Popen[bytes]) -> None:
        assert proc.stdout is not None
        self.fd = proc.stdout.fileno()
        self.sel = selectors.DefaultSelector()
        self.sel.register(proc.stdout, selectors.EVENT_READ)
        self.buf = b""

    def next(self, timeout: float = 10) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while b"\n" not in self.buf:
            left = deadline - time.monotonic()
            assert left > 0 and self.sel.select(timeout=left), "no line from the server in time"
            chunk = os.read(self.fd, 65536)
            assert chunk, "the server closed stdout"
            self.buf += chunk
        line, _, self.buf = self.buf.partition(b"\n")
        return json.loads(line)


@pytest.mark.parametrize("action", ["accept", "decline"])
def test_elicit_over_legacy_stdio(action: str) -> None:
    proc = subprocess.Popen([sys.executable, str(APP)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    assert proc.stdin is not None
    out = Lines(proc)

    def send(m: dict[str, Any]) -> None:
        assert proc.stdin is not None
        proc.stdin.write((json.dumps(m) + "\n").encode())
        proc.stdin.flush()

    try:
        send(INIT)
        init = out.next()
        assert init["id"] == 1 and init["result"]["protocolVersion"] == LEGACY
        send(INITIALIZED)
        send(CALL)
        req = out.next()
        check_elicitation(req)
        send(answer(req["id"], action))
        resp = out.next()
        assert resp["id"] == 2, resp
        assert resp["result"]["content"][0]["text"] == expected_text(action)
        proc.stdin.close()
        assert proc.wait(10) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(5)


# -- HTTP with a session ----------------------------------------------------------------------------


@pytest.fixture
def http_ask() -> Any:
    port = free_port()
    proc = subprocess.Popen([sys.executable, str(APP), "--http", f"127.0.0.1:{port}"], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 15
        while True:
            assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else ""
            assert time.monotonic() < deadline, "server did not listen in time"
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                time.sleep(0.02)
        yield port
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(5)


def post(port: int, msg: dict[str, Any], session: str | None) -> http.client.HTTPResponse:
    headers = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
    if session is not None:
        headers["mcp-session-id"] = session
        headers["mcp-protocol-version"] = LEGACY
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.request("POST", "/mcp", body=json.dumps(msg).encode(), headers=headers)
    return conn.getresponse()


def sse_messages(resp: http.client.HTTPResponse) -> Any:
    """Yield each `data:` message of an SSE response as it arrives (reads block ≤ the socket timeout)."""
    while True:
        line = resp.readline()
        if not line:
            return
        if line.startswith(b"data:"):
            yield json.loads(line[5:].strip())


@pytest.mark.parametrize("action", ["accept", "decline"])
def test_elicit_over_legacy_http_session(http_ask: int, action: str) -> None:
    port = http_ask
    r = post(port, INIT, None)
    body = r.read()
    assert r.status == 200
    session = r.getheader("mcp-session-id")
    assert session, "a legacy initialize over HTTP opens a session"
    init = json.loads(body) if body.lstrip().startswith(b"{") else list(sse_messages_from(body))[-1]
    assert init["result"]["protocolVersion"] == LEGACY
    r = post(port, INITIALIZED, session)
    r.read()
    assert r.status == 202

    call = post(port, CALL, session)
    assert call.status == 200 and (call.getheader("content-type") or "").startswith("text/event-stream")
    stream = sse_messages(call)
    req = next(stream)
    check_elicitation(req)
    # The answer is a separate POST in the same session; the call's stream then ends with the result.
    r = post(port, answer(req["id"], action), session)
    r.read()
    assert r.status == 202
    resp = next(m for m in stream if "id" in m and "method" not in m)
    assert resp["id"] == 2 and resp["result"]["content"][0]["text"] == expected_text(action)

    # A legacy call without its session id is refused (no era to serve it in).
    r = post(port, {**CALL, "id": 3}, None)
    r.read()
    assert r.status >= 400


def sse_messages_from(body: bytes) -> Any:
    for line in body.splitlines():
        if line.startswith(b"data:"):
            yield json.loads(line[5:].strip())


async def test_same_tool_uses_mrtr_on_a_modern_request() -> None:
    """The same handler code, modern era: input_required first, then the answer completes it."""
    import runpy

    from oxmcp import Client

    server = runpy.run_path(str(APP))["server"]
    async with Client(server, capabilities={"elicitation": {}}) as c:
        first = await c.request("tools/call", {"name": "greet", "arguments": {}})
        assert first["resultType"] == "input_required"
        assert first["inputRequests"]["who"]["method"] == "elicitation/create"
        second = await c.request("tools/call", {"name": "greet", "arguments": {},
                                                "inputResponses": {"who": {"action": "accept", "content": {"name": "Ada"}}},
                                                "requestState": first["requestState"]})
        assert second["content"][0]["text"] == "Hello, Ada! (modern, 2026-07-28)"
