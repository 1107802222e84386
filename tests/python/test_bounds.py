"""Bounds on what a caller can make the server hold, from Python over real HTTP: the same core rule
and error as in Rust (tests/it/http_legacy.rs) and Node (tests/node/bounds.test.mjs)."""

from __future__ import annotations

from typing import Any

from procs import start_script, stop
from test_access_everywhere import Http

SERVER = """
import sys
from oxmcp import Server
mcp = Server("bounds", max_subscriptions=2)

@mcp.resource("test://r/{i}")
def r(i: str) -> str:
    return i

mcp.run("http", host="127.0.0.1", port=int(sys.argv[1]))
"""


def test_subscriptions_are_bounded_per_session(tmp_path: Any) -> None:
    proc, port = start_script(tmp_path, SERVER)
    try:
        c = Http(port, "")
        c.initialize()
        for i in range(2):
            assert "result" in c.post("resources/subscribe", {"uri": f"test://r/{i}"}, modern=False)
        over = c.post("resources/subscribe", {"uri": "test://r/2"}, modern=False)
        assert over["error"]["code"] == -32602, over
        assert "Too many subscriptions" in over["error"]["message"]
        assert "result" in c.post("resources/subscribe", {"uri": "test://r/0"}, modern=False), "held already"
        long = c.post("resources/subscribe", {"uri": "test://" + "x" * 9000}, modern=False)
        assert long["error"]["code"] == -32602 and "URI too long" in long["error"]["message"]
        assert "result" in c.post("ping", {}, modern=False)
    finally:
        stop(proc)


TASKS_SERVER = """
import sys
from oxmcp import Server
mcp = Server("listen-bounds", max_listen_task_ids=3)

@mcp.tool(task=True)
async def job() -> str:
    return "done"

mcp.run("http", host="127.0.0.1", port=int(sys.argv[1]))
"""


def test_task_ids_per_listen_are_bounded(tmp_path: Any) -> None:
    import http.client
    import json

    proc, port = start_script(tmp_path, TASKS_SERVER)
    try:
        meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {"extensions": {"io.modelcontextprotocol/tasks": {}}}}

        def listen(n: int) -> tuple[int, str]:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            body = {"jsonrpc": "2.0", "id": 1, "method": "subscriptions/listen",
                    "params": {"notifications": {"taskIds": [f"t{i}" for i in range(n)]}, "_meta": meta}}
            conn.request("POST", "/mcp", json.dumps(body), {
                "content-type": "application/json", "accept": "application/json, text/event-stream",
                "mcp-protocol-version": "2026-07-28", "mcp-method": "subscriptions/listen"})
            r = conn.getresponse()
            first = r.readline().decode() if r.getheader("content-type", "").startswith("text/event-stream") \
                else r.read().decode()
            conn.close()
            return r.status, first

        status, text = listen(4)
        assert '"code":-32602' in text.replace(" ", "") and "Too many taskIds" in text, (status, text)
        status, text = listen(3)
        assert status == 200 and "error" not in text, text
    finally:
        stop(proc)
