"""A task belongs to its caller's identity key (issuer + subject for a JWT): the task methods and
`subscriptions/listen` compare that one key. A JWT caller gets the status notifications of its own
task on a listen stream; another subject gets nothing, over real HTTP."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
from procs import start_script, stop
from test_hardening import Stream

SERVER = """
import asyncio, json, sys
from oxmcp import Server
server = Server("jwt-tasks")

@server.tool(task=True)
async def slow(seconds: float = 0.3) -> str:
    await asyncio.sleep(seconds)
    return "done"

port = int(sys.argv[1])
server.run("http", host="127.0.0.1", port=port, oauth={
    "resource": f"http://127.0.0.1:{port}/mcp", "authorization_servers": ["https://auth.example"],
    "issuer": "https://auth.example", "jwks": json.loads(sys.argv[2])})
"""

MODERN = "2026-07-28"
META = {"io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {"extensions": {"io.modelcontextprotocol/tasks": {}}}}


def test_a_jwt_caller_hears_its_own_task_and_nobody_else_does(tmp_path: Any) -> None:
    jwt = pytest.importorskip("jwt")
    from cryptography.hazmat.primitives.asymmetric import rsa

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    jwk = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(key.public_key()))
    jwk.update(kid="k1", alg="RS256", use="sig")
    proc, port = start_script(tmp_path, SERVER, json.dumps({"keys": [jwk]}))
    streams: list[Stream] = []
    try:

        def token(sub: str) -> str:
            now = int(time.time())
            return str(jwt.encode({"sub": sub, "aud": f"http://127.0.0.1:{port}/mcp", "iss": "https://auth.example",
                                   "iat": now, "exp": now + 300}, key, algorithm="RS256", headers={"kid": "k1"}))

        def rpc(tok: str, method: str, params: dict[str, Any], name: str | None = None) -> Stream:
            headers = {"mcp-protocol-version": MODERN, "mcp-method": method, "authorization": f"Bearer {tok}"}
            if name:
                headers["mcp-name"] = name
            return Stream(port, "POST", headers,
                          {"jsonrpc": "2.0", "id": 1, "method": method, "params": {**params, "_meta": META}})

        made = rpc(token("carol"), "tools/call", {"name": "slow", "arguments": {"seconds": 0.5}}, "slow")
        raw = made.resp.read().decode()
        made.close()
        assert made.status == 200, raw
        answer = json.loads(next((line[5:] for line in raw.splitlines() if line.startswith("data:")), raw))
        assert answer["result"]["resultType"] == "task", answer
        task_id = answer["result"]["taskId"]

        def listen(sub: str) -> Stream:
            st = rpc(token(sub), "subscriptions/listen", {"notifications": {"taskIds": [task_id]}})
            streams.append(st)
            assert st.status == 200
            assert st.next()["method"] == "notifications/subscriptions/acknowledged"
            return st

        own, other = listen("carol"), listen("mallory")
        heard = own.next(10)
        while heard is not None and heard["params"].get("status") not in ("completed", "failed"):
            heard = own.next(10)
        assert heard is not None, "the owner heard nothing of its own task"
        assert heard["method"] == "notifications/tasks" and heard["params"]["taskId"] == task_id
        assert heard["params"]["status"] == "completed", heard
        assert other.next(1) is None, "another subject heard the task"
    finally:
        for st in streams:
            st.close()
        stop(proc)
