"""The audit log follows a task: the call that makes it (`outcome="task"`), its real end (a `task`
event with `completed` / `is_error` / `failed` / `cancelled`), and every `tasks/get` / `tasks/cancel`, another caller's
refused try included, over real HTTP with named tokens."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
from procs import start_script, stop
from test_hardening import Stream

SERVER = """
import asyncio, sys
from oxmcp import Server, ToolError
server = Server("audited-tasks", tokens={"alice": "token-alice", "bob": "token-bob"})

@server.tool(task=True)
async def slow() -> str:
    await asyncio.sleep(0.2)
    return "done"

@server.tool(task=True)
async def boom() -> str:
    raise RuntimeError("no luck")

server.run("http", host="127.0.0.1", port=int(sys.argv[1]))
"""

MODERN = "2026-07-28"
META = {"io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {"extensions": {"io.modelcontextprotocol/tasks": {}}}}


def rpc(port: int, token: str, method: str, params: dict[str, Any], name: str | None = None) -> Any:
    headers = {"mcp-protocol-version": MODERN, "mcp-method": method, "authorization": f"Bearer {token}"}
    if name:
        headers["mcp-name"] = name
    st = Stream(port, "POST", headers, {"jsonrpc": "2.0", "id": 1, "method": method, "params": {**params, "_meta": META}})
    raw = st.resp.read().decode()
    st.close()
    return json.loads(next((line[5:] for line in raw.splitlines() if line.startswith("data:")), raw))


def settled(port: int, token: str, task_id: str) -> Any:
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        got = rpc(port, token, "tasks/get", {"taskId": task_id}, task_id)
        assert "result" in got, got
        if got["result"]["status"] not in ("working", "input_required"):
            return got
        time.sleep(0.05)
    pytest.fail(f"task {task_id} did not end")


def test_a_task_is_audited_from_its_call_to_its_end(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OXMCP_LOG", "warn,oxmcp::audit=info")
    monkeypatch.setenv("OXMCP_LOG_FORMAT", "json")
    proc, port = start_script(tmp_path, SERVER)
    try:
        made = rpc(port, "token-alice", "tools/call", {"name": "slow", "arguments": {}}, "slow")
        assert made["result"]["resultType"] == "task", made
        ok_id = made["result"]["taskId"]
        stolen = rpc(port, "token-bob", "tasks/get", {"taskId": ok_id}, ok_id)
        assert stolen.get("error", {}).get("code") == -32602, stolen
        assert settled(port, "token-alice", ok_id)["result"]["status"] == "completed"
        failed = rpc(port, "token-alice", "tools/call", {"name": "boom", "arguments": {}}, "boom")
        bad_id = failed["result"]["taskId"]
        # A tool error is a completed task whose result says isError (the spec keeps failed for
        # protocol errors); the audit record says is_error.
        assert settled(port, "token-alice", bad_id)["result"]["status"] == "completed"
    finally:
        stop(proc)
    assert proc.stderr is not None
    records = [json.loads(line)["fields"] for line in proc.stderr.read().decode().splitlines()
               if '"oxmcp::audit"' in line]
    calls = [(r["caller"], r["method"], r["name"], r["outcome"]) for r in records if r["message"] == "call"]
    ends = [(r["caller"], r["name"], r["task"], r["outcome"]) for r in records if r["message"] == "task"]
    assert ("alice", "tools/call", "slow", "task") in calls
    assert ("bob", "tasks/get", ok_id, "error") in calls, "another caller's try is recorded"
    assert ("alice", "tasks/get", ok_id, "ok") in calls
    assert ("alice", "tools/call", "boom", "task") in calls
    assert ("alice", "slow", ok_id, "completed") in ends
    assert ("alice", "boom", bad_id, "is_error") in ends
