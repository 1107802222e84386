"""Bounds on what a caller can make the server hold, from Python over real HTTP: the same core rule
and error as in Rust (tests/it/http_legacy.rs) and Node (tests/node/bounds.test.mjs)."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

from procs import free_port, stop, wait_listening
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
    script = tmp_path / "server.py"
    script.write_text(SERVER)
    port = free_port()
    proc = subprocess.Popen([sys.executable, str(script), str(port)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    try:
        wait_listening(port, proc)
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
