"""A method outside the spec, as mcp 2.x's low-level ``Server`` serves one
(``server.add_request_handler("bookshop/reindex", ReindexParams, reindex)``): the core dispatches it
to the handler (``core/src/server/methods.rs``) after the rules every request passes, its params
validated against the given model; a method no one registered stays -32601, and a method the core
serves itself cannot be taken (the core's text). The same server file runs on mcp 2.3.0 and,
unchanged, on oxmcp (``oxmcp run``), over real stdio in both eras, and on oxmcp over real HTTP.
tests/node/lowlevel-custom-method.test.mjs runs the same cases on Node's low-level Server."""

from __future__ import annotations

import json
import os
import subprocess
import textwrap
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import oxmcp
import pytest
from procs import META, start_script, stop

ROOT = Path(__file__).resolve().parents[2]
PEER_V2 = ROOT / ".cache" / "peers-py" / "v2" / "bin" / "python"  # mcp 2.3.0
OXMCP_PATH = str(Path(oxmcp.__file__).resolve().parents[1])

HANDLERS = """
from mcp.server import Server
from mcp.types import ListToolsResult, RequestParams
from pydantic import BaseModel

class ReindexParams(RequestParams):
    full: bool = False
    shelf: str = "all"

class ReindexResult(BaseModel):
    indexed: int
    full: bool
    shelf: str

async def list_tools(ctx, params):
    return ListToolsResult(tools=[])

async def reindex(ctx, params: ReindexParams) -> ReindexResult:
    return ReindexResult(indexed=3, full=params.full, shelf=params.shelf)

server = Server("bookshop", on_list_tools=list_tools)
server.add_request_handler("bookshop/reindex", ReindexParams, reindex)
"""

STDIO = HANDLERS + """
import anyio
from mcp.server.stdio import stdio_server

async def main():
    async with stdio_server() as (r, w):
        await server.run(r, w, server.create_initialization_options())

anyio.run(main)
"""

HTTP = HANDLERS + """
import sys
import uvicorn

uvicorn.run(server.streamable_http_app(), host="127.0.0.1", port=int(sys.argv[1]), log_level="warning")
"""

LEGACY = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}


def _requests(modern: bool) -> list[dict[str, Any]]:
    meta = {"_meta": META} if modern else {}
    calls = [("bookshop/reindex", {"full": True}), ("bookshop/reindex", {}),
             ("bookshop/reindex", {"full": "not a bool"}), ("bookshop/burn", {})]
    out = [{"jsonrpc": "2.0", "id": i + 2, "method": m, "params": {**p, **meta}} for i, (m, p) in enumerate(calls)]
    if modern:
        return out
    return [{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": LEGACY},
            {"jsonrpc": "2.0", "method": "notifications/initialized"}, *out]


def _over_stdio(argv: list[str], modern: bool) -> dict[int, Any]:
    """The answers, by id, of a real stdio server process to the requests, sent one at a time."""
    env = {**os.environ, "PYTHONPATH": OXMCP_PATH, "PYTHONUNBUFFERED": "1"}
    env.pop("VIRTUAL_ENV", None)
    proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
    assert proc.stdin is not None and proc.stdout is not None
    answers: dict[int, Any] = {}
    try:
        for msg in _requests(modern):
            proc.stdin.write(json.dumps(msg).encode() + b"\n")
            proc.stdin.flush()
            if "id" not in msg:
                continue
            while True:
                line = json.loads(proc.stdout.readline())
                if line.get("id") == msg["id"]:
                    answers[msg["id"]] = line.get("result", line.get("error"))
                    break
    finally:
        proc.stdin.close()
        proc.wait(timeout=20)
    return answers


def _shape(answers: dict[int, Any]) -> dict[int, Any]:
    """What the test compares: a result's own members (no serverInfo stamp), an error's code."""
    out = {}
    for i, a in answers.items():
        if i == 1:
            continue
        if "code" in a and "message" in a:
            out[i] = ("error", a["code"])
        else:
            out[i] = {k: v for k, v in a.items() if k != "_meta"}
    return out


@pytest.mark.parametrize("modern", [True, False], ids=["2026-07-28", "legacy"])
def test_a_custom_method_is_served_as_on_the_sdk_over_stdio(tmp_path: Path, modern: bool) -> None:
    assert PEER_V2.exists(), f"{PEER_V2} missing: run scripts/setup.sh"
    server = tmp_path / "server.py"
    server.write_text(textwrap.dedent(STDIO))
    original = _shape(_over_stdio([str(PEER_V2), str(server)], modern))
    ported = _shape(_over_stdio([str(PEER_V2), "-m", "oxmcp", "run", str(server)], modern))
    result = {"indexed": 3, "full": True, "shelf": "all"}
    if modern:
        result["resultType"] = "complete"
    assert original[2] == result, original
    assert original[3] == {**result, "full": False}
    assert original[4] == ("error", -32602) and original[5] == ("error", -32601)
    assert ported == original


def _post(port: int, method: str, params: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": {**params, "_meta": META}}).encode()
    h = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
         "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": method}
    req = urllib.request.Request(f"http://127.0.0.1:{port}/mcp", data=body, method="POST", headers=h)
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


def test_a_custom_method_is_served_over_http(tmp_path: Path) -> None:
    proc, port = start_script(tmp_path, HTTP.replace("from mcp.", "from oxmcp."))
    try:
        status, ok = _post(port, "bookshop/reindex", {"shelf": "sf"})
        assert status == 200 and ok["result"]["indexed"] == 3 and ok["result"]["shelf"] == "sf", ok
        status, bad = _post(port, "bookshop/reindex", {"full": []})
        assert bad["error"]["code"] == -32602, bad
        status, unknown = _post(port, "bookshop/burn", {})
        assert unknown["error"]["code"] == -32601, unknown
    finally:
        stop(proc)


def test_a_method_the_core_serves_cannot_be_taken() -> None:
    from oxmcp.server.lowlevel import Server

    server = Server("bookshop")

    async def handler(ctx: Any, params: Any) -> dict[str, Any]:
        return {}

    for method in ("tasks/get", "tasks/result", "skills/list", "notifications/cancelled", "rpc.x"):
        with pytest.raises(ValueError, match="invalid method name"):
            server.add_request_handler(method, None, handler)
    with pytest.raises(ValueError, match="the core serves"):
        server.add_request_handler("oxmcp/tools/search", None, handler)
    # The core's listen streams take a ListenHandler's bus (test_lowlevel_listen.py), not a handler.
    with pytest.raises(TypeError, match="ListenHandler"):
        server.add_request_handler("subscriptions/listen", None, handler)
    server.add_request_handler("bookshop/reindex", dict, handler)
    entry = server.get_request_handler("bookshop/reindex")
    assert entry is not None and entry.params_type is dict and entry.handler is handler
    assert server.get_request_handler("bookshop/burn") is None
