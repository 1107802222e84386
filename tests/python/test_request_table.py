"""The shared request table (tests/config/requests.json, also replayed by the Rust and Node tests):
every row gets the same answer from Python's built-in HTTP server and from its ASGI app under
uvicorn, as from the other languages' servers and mounts."""

from __future__ import annotations

import http.client
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from procs import ROOT, free_port, stop, wait_listening

TABLE = json.loads((ROOT / "tests" / "config" / "requests.json").read_text())

SERVER = """
import json, sys
from oxmcp import Server
mount, port, config = sys.argv[1], int(sys.argv[2]), json.loads(sys.argv[3])
server = Server("table", **config)

@server.tool()
def echo(text: str) -> str:
    return text

@server.tool()
def second() -> str:
    return "2"

@server.tool()
async def wait() -> str:
    import asyncio
    await asyncio.sleep(30)  # past tool_timeout_ms, which cancels it
    return "late"

import threading
ENTERED, RELEASED = threading.Event(), threading.Event()

@server.tool(max_concurrency=1)
def hold() -> str:
    ENTERED.set()
    return "released" if RELEASED.wait(30) else "never released"

@server.tool()
def entered() -> str:
    return "held" if ENTERED.wait(30) else "never entered"

@server.tool()
def release() -> str:
    RELEASED.set()
    return "released"

if mount == "builtin":
    server.run("http", host="127.0.0.1", port=port)
else:
    import uvicorn
    uvicorn.run(server.asgi_app(), host="127.0.0.1", port=port, log_level="warning")
"""


def request_of(case: dict[str, Any], port: int) -> tuple[str, dict[str, str], bytes]:
    """The HTTP method, headers and body a row describes (the same construction in every runner)."""
    headers = {"host": f"127.0.0.1:{port}", "content-type": "application/json",
               "accept": "application/json, text/event-stream"}
    if "raw" in case:
        body = case["raw"]["body"].encode()
    elif "legacy" in case:
        spec = case["legacy"]
        headers["mcp-protocol-version"] = "2025-11-25"
        body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": spec["method"], "params": spec["params"]}).encode()
    else:
        spec = case["modern"]
        version = spec.get("version", "2026-07-28")
        params = json.loads(json.dumps(spec["params"]))
        if "pad" in case:
            params["arguments"]["text"] += "x" * case["pad"]
        meta: dict[str, Any] = {"io.modelcontextprotocol/protocolVersion": version}
        if not spec.get("no_caps"):
            meta["io.modelcontextprotocol/clientCapabilities"] = {}
        headers.update({"mcp-protocol-version": version, "mcp-method": spec["method"]})
        if "name" in params:
            headers["mcp-name"] = params["name"]
        body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": spec["method"],
                           "params": {**params, "_meta": meta}}).encode()
    if "size" in case:
        body = body.ljust(case["size"], b" ")
    for k, v in case.get("headers", {}).items():
        if v is None:
            headers.pop(k, None)
        else:
            headers[k] = v
    return "POST", headers, body


def outcome(case: dict[str, Any], status: int, text: str) -> dict[str, Any]:
    """The parts of an answer a row's `expect` names."""
    got: dict[str, Any] = {"status": status}
    messages = []
    if text.startswith("{"):
        messages = [json.loads(text)]
    else:
        messages = [json.loads(line[5:]) for line in text.splitlines() if line.startswith("data:") and line[5:].strip()]
    # The answer to the row's request (id 1), or an error that could name no id (a parse error).
    answer = next((m for m in messages if m.get("id") == 1), None) or next(
        (m for m in messages if "id" not in m and "error" in m), None)
    want = case["expect"]
    if "code" in want:
        got["code"] = answer["error"]["code"] if answer and "error" in answer else None
    if "message" in want:
        got["message"] = answer["error"]["message"] if answer and "error" in answer else None
    if "oauth_error" in want:
        got["oauth_error"] = messages[0].get("error") if messages and isinstance(messages[0].get("error"), str) else None
    if "text" in want:
        got["text"] = answer["result"]["content"][0]["text"] if answer and "result" in answer else None
    if "cursor" in want:
        got["cursor"] = bool(answer and "nextCursor" in answer.get("result", {}))
    return got


def send(port: int, method: str, headers: dict[str, str], body: bytes) -> tuple[int, str]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=15)
    try:
        conn.putrequest(method, "/mcp", skip_host=True, skip_accept_encoding=True)
        for k, v in headers.items():
            conn.putheader(k, v)
        conn.putheader("content-length", str(len(body)))
        conn.endheaders(body)
        resp = conn.getresponse()
        return resp.status, resp.read().decode(errors="replace")
    finally:
        conn.close()


def call_of(name: str) -> dict[str, Any]:
    return {"modern": {"method": "tools/call", "params": {"name": name, "arguments": {}}}, "expect": {"text": ""}}


def send_while_held(port: int, case: dict[str, Any]) -> tuple[int, str, Any]:
    """A `hold: true` row: sent while a `hold` call is in flight (see the table's `about`); the row's
    answer and the held call's text."""
    from concurrent.futures import ThreadPoolExecutor

    def text_of(name: str, answer: tuple[int, str]) -> Any:
        return outcome(call_of(name), *answer)["text"]

    with ThreadPoolExecutor(1) as pool:
        held = pool.submit(send, port, *request_of(call_of("hold"), port))
        assert text_of("entered", send(port, *request_of(call_of("entered"), port))) == "held"
        status, text = send(port, *request_of(case, port))
        send(port, *request_of(call_of("release"), port))
        return status, text, text_of("hold", held.result(timeout=30))


@pytest.mark.parametrize("mount", ["builtin", "asgi"])
@pytest.mark.parametrize("config", sorted(TABLE["configs"]))
def test_every_row_gets_the_shared_answer(tmp_path: Path, mount: str, config: str) -> None:
    cases = [c for c in TABLE["cases"] if c["config"] == config]
    script = tmp_path / "server.py"
    script.write_text(SERVER)
    port = free_port()
    proc = subprocess.Popen([sys.executable, str(script), mount, str(port), json.dumps(TABLE["configs"][config])],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        wait_listening(port, proc)
        differ = []
        for case in cases:
            if case.get("hold"):
                status, text, held = send_while_held(port, case)
                assert held == "released", held
            else:
                status, text = send(port, *request_of(case, port))
            got = outcome(case, status, text)
            if got != case["expect"]:
                differ.append(f"{case['name']}: expected {case['expect']}, got {got} ({text[:200]!r})")
        assert not differ, "\n".join(differ)
    finally:
        stop(proc)
