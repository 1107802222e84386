"""The Python everything server with a Redis, one replica: a 2026-07-28 stateless
tools/call needs no Redis (it works with Redis stopped), /readyz says so and stays ready, and a
Redis without a state key is refused with a message naming it. The same core rules as the Rust
server's tests/it/redis.rs; a missing redis-server fails (scripts/setup.sh installs it)."""

from __future__ import annotations

import http.client
import json
import shutil
import socket
import subprocess
import time
from typing import Any

import pytest
from procs import ROOT, free_port, start_python_http, stop

EVERYTHING = ROOT / "examples/python/everything.py"
MODERN = "2026-07-28"


def start_redis() -> tuple[subprocess.Popen[bytes], int]:
    exe = shutil.which("redis-server") or "/usr/bin/redis-server"
    port = free_port()
    try:
        proc = subprocess.Popen([exe, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    except FileNotFoundError:
        pytest.fail("redis-server is missing: `bash scripts/setup.sh` installs it (apt-get install redis-server)")
    deadline = time.monotonic() + 10
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return proc, port
        except OSError:
            assert time.monotonic() < deadline, "redis-server did not listen"
            time.sleep(0.02)


def request(port: int, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None) -> tuple[int, Any]:
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        c.request(method, path, json.dumps(body).encode() if body is not None else None, headers or {})
        r = c.getresponse()
        raw = r.read()
        return r.status, json.loads(raw) if raw else None
    finally:
        c.close()


def simple_call(port: int) -> tuple[int, Any]:
    params = {"name": "test_simple_text", "arguments": {},
              "_meta": {"io.modelcontextprotocol/protocolVersion": MODERN,
                        "io.modelcontextprotocol/clientCapabilities": {}}}
    return request(port, "POST", "/mcp", {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params},
                   {"content-type": "application/json", "accept": "application/json, text/event-stream",
                    "mcp-protocol-version": MODERN, "mcp-method": "tools/call", "mcp-name": "test_simple_text"})


def test_modern_calls_need_no_redis() -> None:
    redis, rport = start_redis()
    server = None
    try:
        server, port = start_python_http(EVERYTHING, {"OXMCP_REDIS_URL": f"redis://127.0.0.1:{rport}/",
                                                      "OXMCP_STATE_KEY": "python-redis-test-state-key-0123"})
        status, body = simple_call(port)
        assert status == 200 and body["result"]["content"][0]["type"] == "text", body
        assert request(port, "GET", "/readyz") == (200, {"status": "ok", "redis": "up"})
        redis.kill()
        redis.wait(5)
        start = time.monotonic()
        for _ in range(20):
            status, body = simple_call(port)
            assert status == 200 and body["result"]["content"][0]["type"] == "text", body
        assert time.monotonic() - start < 5
        assert request(port, "GET", "/readyz") == (200, {"status": "ok", "redis": "down"})
        assert request(port, "GET", "/healthz")[0] == 200
    finally:
        if server is not None:
            stop(server)
        redis.kill()
        redis.wait(5)


def test_a_redis_without_a_state_key_is_refused() -> None:
    import oxmcp

    with pytest.raises(ValueError, match=r"redis_url needs state_key \(OXMCP_STATE_KEY\)"):
        oxmcp.Server("r", "1", redis_url="redis://127.0.0.1:9/")
    with pytest.raises(ValueError, match=r'rate_limit_store "redis" needs redis_url'):
        oxmcp.Server("r", "1", rate_limit_store="redis")
    oxmcp.Server("r", "1", redis_url="redis://127.0.0.1:9/", state_key="python-redis-test-state-key-0123",
                 rate_limit_store="redis")
