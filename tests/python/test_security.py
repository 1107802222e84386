"""The core's security options from Python, over real HTTP on 127.0.0.1: named bearer tokens per
caller with tool allow-lists (Server(tokens=...)), OAuth resource-server settings with JWTs
(run(oauth=...)), per-tool required scopes, rate limit, global and per-tool concurrency caps,
per-tool timeout, and ctx.caller.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from procs import free_port

APP = Path(__file__).resolve().parent / "apps" / "secure.py"
META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}



def start(env: dict[str, str] | None = None, app: Path = APP) -> tuple[subprocess.Popen[bytes], int]:
    port = free_port()
    proc = subprocess.Popen([sys.executable, str(app), "--http", f"127.0.0.1:{port}"], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, env={**os.environ, **(env or {})})
    deadline = time.monotonic() + 15
    while True:
        if proc.poll() is not None:
            raise AssertionError(proc.stderr.read().decode() if proc.stderr else "exited")
        assert time.monotonic() < deadline, "server did not listen in time"
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return proc, port
        except OSError:
            time.sleep(0.02)


def stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            assert proc.wait(10) == 0
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)
            raise


class Resp:
    def __init__(self, status: int, headers: Any, body: bytes) -> None:
        self.status, self.headers, self.body = status, headers, body

    def json(self) -> Any:
        text = self.body.decode()
        if text.lstrip().startswith("{"):
            return json.loads(text)
        return [json.loads(line[5:]) for line in text.splitlines() if line.startswith("data:")][-1]


def call(port: int, method: str, params: dict[str, Any] | None = None, token: str | None = None) -> Resp:
    params = {**(params or {}), "_meta": META}
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).encode()
    headers = {"content-type": "application/json", "accept": "application/json, text/event-stream",
               "mcp-protocol-version": "2026-07-28", "mcp-method": method}
    if method in ("tools/call", "prompts/get", "resources/read"):
        headers["mcp-name"] = params.get("name") or params["uri"]
    if token is not None:
        headers["authorization"] = f"Bearer {token}"
    req = urllib.request.Request(f"http://127.0.0.1:{port}/mcp", data=body, headers=headers, method="POST")
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return Resp(r.status, r.headers, r.read())
    except urllib.error.HTTPError as e:
        return Resp(e.code, e.headers, e.read())


def tool(port: int, name: str, token: str, **arguments: Any) -> Resp:
    return call(port, "tools/call", {"name": name, "arguments": arguments}, token)


@pytest.fixture(scope="module")
def secure() -> Any:
    proc, port = start()
    try:
        yield port
    finally:
        stop(proc)


def test_token_accepted_and_caller_seen(secure: int) -> None:
    r = tool(secure, "whoami", "alice-token")
    assert r.status == 200
    caller = r.json()["result"]["structuredContent"]
    assert caller["name"] == "alice" and caller["scopes"] == []
    # Any of a caller's tokens (rotation) is the same caller.
    assert tool(secure, "whoami", "alice-rotated").json()["result"]["structuredContent"]["name"] == "alice"


def test_missing_and_wrong_token_refused(secure: int) -> None:
    r = tool(secure, "whoami", None)  # type: ignore[arg-type]
    assert r.status == 401
    assert r.headers["www-authenticate"].startswith("Bearer")
    r = tool(secure, "whoami", "not-a-token")
    assert r.status == 401
    assert 'error="invalid_token"' in r.headers["www-authenticate"]


def test_allow_list_limits_what_a_caller_sees_and_calls(secure: int) -> None:
    names = {t["name"] for t in call(secure, "tools/list", token="bob-token").json()["result"]["tools"]}
    assert names == {"whoami"}
    r = tool(secure, "add", "bob-token", a=1, b=2)
    body = r.json()
    assert "error" in body or body["result"].get("isError"), body  # refused, not run
    assert tool(secure, "add", "alice-token", a=1, b=2).json()["result"]["structuredContent"] == {"result": 3}


def test_required_scope(secure: int) -> None:
    r = tool(secure, "admin_only", "alice-token")
    assert r.status == 403
    assert 'error="insufficient_scope"' in r.headers["www-authenticate"] and "admin" in r.headers["www-authenticate"]
    r = tool(secure, "admin_only", "root-token")
    assert r.status == 200 and r.json()["result"]["content"][0]["text"] == "admin things"


def test_rate_limit_per_caller(secure: int) -> None:
    # carol: the default 0.05/s (no refill while the test runs) with bursts of 3; alice has her own bucket.
    statuses = [tool(secure, "whoami", "carol-token").status for _ in range(5)]
    assert statuses[:3] == [200, 200, 200] and statuses[3:] == [429, 429], statuses
    r = tool(secure, "whoami", "carol-token")
    assert r.status == 429 and int(r.headers["retry-after"]) >= 1
    assert tool(secure, "whoami", "alice-token").status == 200


def test_per_tool_timeout(secure: int) -> None:
    t0 = time.monotonic()
    r = tool(secure, "slow", "alice-token")
    assert time.monotonic() - t0 < 5
    result = r.json()["result"]
    assert result["isError"] is True, result


def test_per_tool_concurrency_cap(secure: int) -> None:
    first: list[Resp] = []
    th = threading.Thread(target=lambda: first.append(tool(secure, "one_at_a_time", "alice-token", seconds=3)))
    th.start()
    # Until the first call holds the tool's one permit, a second one still runs: try again (bounded).
    for _ in range(25):
        time.sleep(0.1)
        second = tool(secure, "one_at_a_time", "alice-token", seconds=0)
        if second.json()["result"].get("isError"):
            break
    th.join(10)
    assert first and first[0].json()["result"]["content"][0]["text"] == "done"
    assert second.json()["result"]["isError"] is True, second.body


def test_string_cap_and_duplicate_keys_refused_before_python_runs(secure: int) -> None:
    # max_string_bytes=4096 in apps/secure.py: a longer string is 413 + -32600, wherever it is.
    r = tool(secure, "add", "alice-token", a=1, b="x" * 5000)
    assert r.status == 413 and r.json()["error"]["code"] == -32600, (r.status, r.body)
    assert "4096-byte string limit" in r.json()["error"]["message"]
    assert tool(secure, "add", "alice-token", a=1, b=2).json()["result"]["structuredContent"] == {"result": 3}
    # A duplicate key: the body's meaning would depend on the parser, so it is a parse error.
    body = ('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2,"b":3},'
            f'"_meta":{json.dumps(META)}}}}}').encode()
    req = urllib.request.Request(f"http://127.0.0.1:{secure}/mcp", data=body, method="POST", headers={
        "content-type": "application/json", "accept": "application/json, text/event-stream",
        "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": "add",
        "authorization": "Bearer alice-token"})
    with pytest.raises(urllib.error.HTTPError) as e:
        urllib.request.urlopen(req, timeout=10)
    assert e.value.code == 400 and json.loads(e.value.read())["error"]["code"] == -32700


def test_global_in_flight_cap() -> None:
    proc, port = start({"OXMCP_TEST_MAX_IN_FLIGHT": "1"})
    try:
        first: list[Resp] = []
        th = threading.Thread(target=lambda: first.append(tool(port, "one_at_a_time", "alice-token", seconds=3)))
        th.start()
        # Until the first call is in flight, another still gets through: try again (bounded).
        for _ in range(25):
            time.sleep(0.1)
            r = tool(port, "add", "alice-token", a=1, b=1)
            if r.status == 503:
                break
        th.join(10)
        assert r.status == 503 and "retry-after" in r.headers, (r.status, r.body)
        assert first[0].status == 200
        assert tool(port, "add", "alice-token", a=1, b=1).status == 200
    finally:
        stop(proc)


def test_oauth_jwt_via_run_options() -> None:
    jwt = pytest.importorskip("jwt")
    from cryptography.hazmat.primitives.asymmetric import rsa

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    jwk = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(key.public_key()))
    jwk.update(kid="k1", alg="RS256", use="sig")
    proc, port = start({"OXMCP_TEST_JWKS": json.dumps({"keys": [jwk]})})
    resource = f"http://127.0.0.1:{port}/mcp"
    try:
        def token(sub: str, scope: str, aud: str = resource, iss: str = "https://auth.example") -> str:
            now = int(time.time())
            return jwt.encode({"sub": sub, "scope": scope, "aud": aud, "iss": iss, "iat": now, "exp": now + 300},
                              key, algorithm="RS256", headers={"kid": "k1"})

        # RFC 9728 metadata, and a 401 that points at it.
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/.well-known/oauth-protected-resource/mcp", timeout=10) as m:
            doc = json.loads(m.read())
        assert doc["resource"] == resource and doc["authorization_servers"] == ["https://auth.example"]
        r = tool(port, "whoami", None)  # type: ignore[arg-type]
        assert r.status == 401 and "resource_metadata=" in r.headers["www-authenticate"]

        r = tool(port, "whoami", token("jwt-user", "mcp:tools"))
        assert r.status == 200
        caller = r.json()["result"]["structuredContent"]
        assert caller["name"] == "jwt-user" and caller["scopes"] == ["mcp:tools"]
        assert caller["claims"]["iss"] == "https://auth.example"
        # The allow-list given for JWT callers; the scope check on admin_only.
        assert "error" in tool(port, "add", token("jwt-user", "mcp:tools"), a=1, b=1).json() or \
            tool(port, "add", token("jwt-user", "mcp:tools"), a=1, b=1).json()["result"].get("isError")
        assert tool(port, "admin_only", token("jwt-user", "mcp:tools")).status == 403
        assert tool(port, "admin_only", token("jwt-user", "mcp:tools admin")).status == 200
        # A token for another audience, or from another issuer, is refused.
        assert tool(port, "whoami", token("jwt-user", "mcp:tools", aud="https://elsewhere/mcp")).status == 401
        assert tool(port, "whoami", token("jwt-user", "mcp:tools", iss="https://evil.example")).status == 401
        # Named tokens are not configured in this mode.
        assert tool(port, "whoami", "alice-token").status == 401
    finally:
        stop(proc)


def test_option_errors_are_reported() -> None:
    import asyncio

    from oxmcp import Server

    with pytest.raises(TypeError, match="unknown option `tokenz`"):
        Server("x", tokenz={})
    # Checked when the server is made, not at its first request.
    with pytest.raises(ValueError, match="tokens: alice: no tokens"):
        Server("x", tokens={"alice": {}})  # alice has no token
    with pytest.raises(TypeError, match="HTTP options, but the transport is stdio"):
        asyncio.run(Server("y").run_async("stdio", tokens="a=b"))
    with pytest.raises(TypeError, match="unknown HTTP option `validation`"):
        asyncio.run(Server("z").run_async("http", port=0, validation="tool_error"))


async def test_in_memory_client_with_a_token() -> None:
    """The in-memory client goes through the same HTTP handler, auth included."""
    import runpy

    from oxmcp import Client, McpError

    server = runpy.run_path(str(APP))["server"]
    async with Client(server, token="bob-token") as c:
        assert (await c.call_tool("whoami"))["structuredContent"]["name"] == "bob"
        assert [t["name"] for t in await c.list_tools()] == ["whoami"]
    async with Client(server) as c:
        with pytest.raises(McpError, match="HTTP 401") as e:
            await c.call_tool("whoami")
        assert e.value.data["httpStatus"] == 401
