"""The MRTR key ring and audience (`state_keys`, `state_audience`) over real HTTP: a state sealed
under an old key still opens after rotation, a state sealed for another audience is refused, and a
short ring key fails at start-up. The same test is tests/node/state-keys.test.mjs."""

from __future__ import annotations

import json
from typing import Any

import pytest
from procs import start_script, stop
from test_hardening import modern_as

import oxmcp

OLD, NEW = "o" * 32, b"n" * 40

SERVER = """
import json, sys
from oxmcp import Context, Server
opts = json.loads(sys.argv[2])
# "b:..." stands for the bytes of "...": the ring takes str and bytes keys alike.
opts["state_keys"] = [k[2:].encode() if k.startswith("b:") else k for k in opts["state_keys"]]
mcp = Server("keys", **opts)

@mcp.tool
async def ask(ctx: Context) -> str:
    answer = await ctx.elicit("who", "Name?", {"type": "object", "properties": {"name": {"type": "string"}}})
    return f"hello {(answer.content or {}).get('name')}"

mcp.run("http", host="127.0.0.1", port=int(sys.argv[1]))
"""


def serve(tmp_path: Any, **opts: Any) -> Any:
    keys = [k if isinstance(k, str) else "b:" + k.decode() for k in opts["state_keys"]]
    return start_script(tmp_path, SERVER, json.dumps({**opts, "state_keys": keys}))


def call(port: int, state: str | None = None) -> Any:
    extra = {} if state is None else {"requestState": state,
                                      "inputResponses": {"who": {"action": "accept", "content": {"name": "Ada"}}}}
    return modern_as(port, None, 1, "tools/call", {"name": "ask", "arguments": {}, **extra})[1]


def test_a_ring_opens_old_states_and_binds_the_audience(tmp_path: Any) -> None:
    proc, port = serve(tmp_path, state_keys=[OLD])
    try:
        sealed_old = call(port)["result"]["requestState"]
    finally:
        stop(proc)
    proc, port = serve(tmp_path, state_keys=[NEW, OLD])
    try:
        done = call(port, sealed_old)
        assert done["result"]["content"][0]["text"] == "hello Ada", done
        sealed_new = call(port)["result"]["requestState"]
    finally:
        stop(proc)
    proc, port = serve(tmp_path, state_keys=[OLD])
    try:
        refused = call(port, sealed_new)
        assert refused["error"] == {"code": -32602, "message": "Invalid or expired requestState"}, refused
    finally:
        stop(proc)
    proc, port = serve(tmp_path, state_keys=[NEW, OLD], state_audience="elsewhere")
    try:
        for state in (sealed_old, sealed_new):
            refused = call(port, state)
            assert refused["error"] == {"code": -32602, "message": "Invalid or expired requestState"}, refused
    finally:
        stop(proc)


def test_a_short_ring_key_fails_at_start_up() -> None:
    with pytest.raises(ValueError, match=r"state_keys\[1\] must be at least 32 bytes"):
        oxmcp.Server("keys", state_keys=[OLD, b"k" * 31])
    with pytest.raises(ValueError, match="state_keys and state_key are exclusive"):
        oxmcp.Server("keys", state_keys=[OLD], state_key=OLD)


MIRROR = """
import sys
from oxmcp.server.mcpserver import Context, MCPServer, RequestStateSecurity
from oxmcp.types import ElicitRequest, ElicitRequestFormParams, InputRequiredResult
mcp = MCPServer(sys.argv[2], request_state_security=RequestStateSecurity(keys=[sys.argv[3]]))
WHO = ElicitRequest(params=ElicitRequestFormParams(message="Name?", requested_schema={"type": "object",
                                                   "properties": {"name": {"type": "string"}}}))

@mcp.tool()
async def ask(ctx: Context) -> str | InputRequiredResult:
    if ctx.input_responses is None:
        return InputRequiredResult(input_requests={"who": WHO}, request_state="asked")
    return f"hello {ctx.input_responses['who'].content['name']}"

mcp.run("streamable-http", host="127.0.0.1", port=int(sys.argv[1]))
"""


def test_the_sdk_policy_is_the_core_ring_bound_to_the_server_name(tmp_path: Any) -> None:
    """mcp's `RequestStateSecurity(keys=[...])` on `MCPServer`: another key or another server name
    refuses the state, the same key and name open it."""
    states = []
    for name, key in (("billing", OLD), ("billing", OLD + "x"), ("billing-2", OLD)):
        proc, port = start_script(tmp_path, MIRROR, name, key)
        try:
            if not states:
                states.append(call(port)["result"]["requestState"])
                done = call(port, states[0])
                assert done["result"]["content"][0]["text"] == "hello Ada", done
            else:
                refused = call(port, states[0])
                assert refused["error"] == {"code": -32602, "message": "Invalid or expired requestState"}, refused
        finally:
            stop(proc)


def test_the_sdk_policy_refuses_a_short_key_with_its_words() -> None:
    from oxmcp.server.mcpserver import RequestStateSecurity

    with pytest.raises(ValueError) as e:
        RequestStateSecurity(keys=[b"hunter2"])
    assert str(e.value) == ("request-state keys must be at least 32 bytes of secret randomness; keys[0] is 7 bytes. "
                            'Generate one with: python -c "import secrets; print(secrets.token_hex(32))"')
