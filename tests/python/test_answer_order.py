"""A legacy client's answer reaches a Python handler as the client wrote it: the keys of an
``elicitation/create`` form's content and of a ``sampling/createMessage`` result keep the client's
order (a dict's), over stdio and over Streamable HTTP with a session, where the core's parsed JSON
has them sorted. The Node twin is tests/node/answer-order.test.mjs."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from procs import free_port, stop, wait_listening
from test_legacy_input import INITIALIZED, LEGACY, Lines, post, sse_messages

APP = Path(__file__).resolve().parent / "apps" / "answer_order.py"
INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": LEGACY, "capabilities": {"elicitation": {}, "sampling": {}},
                   "clientInfo": {"name": "order-test", "version": "1"}}}
# Written by hand so the order is the client's: neither alphabetical nor the schema's.
ANSWERS = {
    "elicitation/create": '{"action":"accept","content":{"mid":"m","zeta":"z","alpha":"a"}}',
    "sampling/createMessage": '{"role":"assistant","model":"m","content":{"type":"text","text":"hi"}}',
}
SHOWN = {"ask": '{"mid": "m", "zeta": "z", "alpha": "a"}',
         "draw": '{"role": "assistant", "model": "m", "content": {"type": "text", "text": "hi"}}'}


def answer(req: dict[str, Any]) -> bytes:
    return (f'{{"jsonrpc":"2.0","id":{json.dumps(req["id"])},"result":{ANSWERS[req["method"]]}}}').encode()


@pytest.mark.parametrize("tool", ["ask", "draw"])
def test_answer_keeps_the_clients_order_over_stdio(tool: str) -> None:
    proc = subprocess.Popen([sys.executable, str(APP)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    assert proc.stdin is not None
    out = Lines(proc)

    def send(line: bytes) -> None:
        assert proc.stdin is not None
        proc.stdin.write(line + b"\n")
        proc.stdin.flush()

    try:
        send(json.dumps(INIT).encode())
        assert out.next()["id"] == 1
        send(json.dumps(INITIALIZED).encode())
        send(json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                         "params": {"name": tool, "arguments": {}}}).encode())
        send(answer(out.next()))
        resp = out.next()
        assert resp["id"] == 2, resp
        assert resp["result"]["content"][0]["text"] == SHOWN[tool]
    finally:
        proc.kill()
        proc.wait(5)


@pytest.fixture
def http_app() -> Any:
    port = free_port()
    proc = subprocess.Popen([sys.executable, str(APP), "--http", f"127.0.0.1:{port}"], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    try:
        wait_listening(port, proc)
        yield port
    finally:
        stop(proc)


@pytest.mark.parametrize("tool", ["ask", "draw"])
def test_answer_keeps_the_clients_order_over_http(http_app: int, tool: str) -> None:
    import http.client

    port = http_app
    r = post(port, INIT, None)
    r.read()
    session = r.getheader("mcp-session-id")
    assert session
    post(port, INITIALIZED, session).read()
    call = post(port, {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": tool, "arguments": {}}},
                session)
    stream = sse_messages(call)
    req = next(stream)
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.request("POST", "/mcp", body=answer(req), headers={
        "content-type": "application/json", "accept": "application/json, text/event-stream",
        "mcp-session-id": session, "mcp-protocol-version": LEGACY})
    assert conn.getresponse().status == 202
    resp = next(m for m in stream if "id" in m and "method" not in m)
    assert resp["result"]["content"][0]["text"] == SHOWN[tool]
