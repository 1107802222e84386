"""Real processes: stdio and Streamable HTTP on 127.0.0.1, signals, the CLI, and the official `mcp` client."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from procs import free_port

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "python"
META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}



def wait_port(port: int, proc: subprocess.Popen[bytes], timeout: float = 15) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"server exited early: {proc.stderr.read() if proc.stderr else ''}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.05)
    raise AssertionError("server did not listen in time")


def post(port: int, method: str, params: dict[str, Any], name: str | None = None, rid: int = 1) -> dict[str, Any]:
    body = json.dumps({"jsonrpc": "2.0", "id": rid, "method": method, "params": {**params, "_meta": META}}).encode()
    headers = {"content-type": "application/json", "accept": "application/json, text/event-stream",
               "mcp-protocol-version": "2026-07-28", "mcp-method": method}
    if name:
        headers["mcp-name"] = name
    req = urllib.request.Request(f"http://127.0.0.1:{port}/mcp", data=body, headers=headers, method="POST")
    with urllib.request.urlopen(req, timeout=10) as resp:
        raw = resp.read().decode()
    if raw.lstrip().startswith("{"):
        return json.loads(raw)
    msgs = [json.loads(line[5:]) for line in raw.splitlines() if line.startswith("data:")]
    return next(m for m in msgs if "id" in m)


@pytest.fixture
def http_everything() -> Any:
    port = free_port()
    proc = subprocess.Popen([sys.executable, str(EXAMPLES / "everything.py"), "--http", f"127.0.0.1:{port}"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        wait_port(port, proc)
        yield port, proc
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(5)


def test_http_tools_resources_prompts(http_everything: Any) -> None:
    port, _ = http_everything
    r = post(port, "tools/call", {"name": "test_simple_text"}, "test_simple_text")
    assert r["result"]["content"][0]["text"] == "This is a simple text response for testing."
    r = post(port, "resources/read", {"uri": "test://template/123/data"}, "test://template/123/data")
    assert "123" in r["result"]["contents"][0]["text"]
    r = post(port, "prompts/get", {"name": "test_simple_prompt"}, "test_simple_prompt")
    assert r["result"]["messages"][0]["content"]["text"] == "This is a simple prompt for testing."
    tools = post(port, "tools/list", {})["result"]["tools"]
    j = next(t for t in tools if t["name"] == "json_schema_2020_12_tool")
    assert j["inputSchema"]["$defs"]["address"]["$anchor"] == "addressDef"


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_http_signal_exits_zero_quickly(http_everything: Any, sig: int) -> None:
    _port, proc = http_everything
    t0 = time.monotonic()
    proc.send_signal(sig)
    assert proc.wait(5) == 0
    assert time.monotonic() - t0 < 3.0  # no drain wait (nothing in flight); not a timing of the machine


def stdio_exchange(args: list[str], lines: list[dict[str, Any]], env: dict[str, str] | None = None) -> list[dict[str, Any]]:
    proc = subprocess.run([sys.executable, *args], input="".join(json.dumps(m) + "\n" for m in lines).encode(),
                          capture_output=True, timeout=30, env=env)
    assert proc.returncode == 0, proc.stderr.decode()
    return [json.loads(line) for line in proc.stdout.decode().splitlines() if line.strip()]


def test_stdio_modern_and_cli_run() -> None:
    msgs = [{"jsonrpc": "2.0", "id": 1, "method": "tools/call",
             "params": {"name": "add", "arguments": {"a": 2, "b": 3}, "_meta": META}},
            {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
             "params": {"name": "add", "arguments": {"a": "x", "b": 3}, "_meta": META}}]
    for args in ([str(EXAMPLES / "quickstart.py")], ["-m", "oxmcp", "run", f"{EXAMPLES / 'quickstart.py'}:server"]):
        out = {m["id"]: m for m in stdio_exchange(args, msgs)}
        assert out[1]["result"]["structuredContent"] == {"result": 5}
        assert out[2]["result"]["isError"] is True


def test_stdio_legacy_session() -> None:
    # Like a real client: wait for the initialize response before anything else.
    proc = subprocess.Popen([sys.executable, str(EXAMPLES / "quickstart.py")], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdin is not None and proc.stdout is not None
    try:
        def send(m: dict[str, Any]) -> None:
            assert proc.stdin is not None
            proc.stdin.write((json.dumps(m) + "\n").encode())
            proc.stdin.flush()

        send({"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}})
        init = json.loads(proc.stdout.readline())
        assert init["result"]["serverInfo"]["name"] == "quickstart"
        assert init["result"]["protocolVersion"] == "2025-06-18"
        send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        send({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "add", "arguments": {"a": 1, "b": 1}}})
        out = json.loads(proc.stdout.readline())
        assert out["id"] == 2 and out["result"]["content"][0]["text"] == "2"
        proc.stdin.close()
        assert proc.wait(10) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(5)


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_stdio_signal_exits_zero(sig: int) -> None:
    proc = subprocess.Popen([sys.executable, str(EXAMPLES / "quickstart.py")], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        msg = {"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {"_meta": META}}
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write((json.dumps(msg) + "\n").encode())
        proc.stdin.flush()
        assert json.loads(proc.stdout.readline())["id"] == 1  # serving
        t0 = time.monotonic()
        proc.send_signal(sig)
        assert proc.wait(5) == 0
        assert time.monotonic() - t0 < 3.0  # no drain wait (nothing in flight)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(5)


# Filters out every row, so no row limit stops it: only the demo's time limit does.
NEVER_ENDING_CTE = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c WHERE x < 0"


def test_sqlite_explorer_is_read_only(tmp_path: Path) -> None:
    env = {**os.environ, "OXMCP_SQLITE_DB": str(tmp_path / "db.sqlite")}
    import sqlite3

    with sqlite3.connect(tmp_path / "db.sqlite") as db:
        db.execute("CREATE TABLE t (x INTEGER)")
        db.execute("INSERT INTO t VALUES (1), (2)")
    msgs = [{"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": {"name": n, "arguments": a, "_meta": META}}
            for i, (n, a) in enumerate([("list_tables", {}), ("query", {"sql": "SELECT sum(x) AS s FROM t"}),
                                        ("query", {"sql": "DELETE FROM t"}), ("describe_table", {"table": "t"}),
                                        ("query", {"sql": f"ATTACH DATABASE '{tmp_path / 'db.sqlite'}' AS other"}),
                                        ("query", {"sql": NEVER_ENDING_CTE})], 1)]
    msgs.append({"jsonrpc": "2.0", "id": 9, "method": "resources/read", "params": {"uri": "schema://t", "_meta": META}})
    out = {m["id"]: m["result"] for m in stdio_exchange([str(EXAMPLES / "sqlite_explorer.py")], msgs, env)}
    assert out[1]["structuredContent"] == {"result": ["t"]}
    assert out[2]["structuredContent"]["rows"] == [[3]]
    assert out[3]["isError"] is True and "readonly" in out[3]["content"][0]["text"].lower()
    assert out[4]["structuredContent"]["result"][0]["name"] == "x"
    assert "CREATE TABLE t" in out[9]["contents"][0]["text"]
    assert out[5]["isError"] is True and "not authorized" in out[5]["content"][0]["text"]
    assert out[6]["isError"] is True and "longer than" in out[6]["content"][0]["text"]
