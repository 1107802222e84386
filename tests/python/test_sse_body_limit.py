"""A message POSTed to the HTTP+SSE transport over the body limit is refused with 413 before the stream
its ``session_id`` names is looked up (as the SDKs' body-limit middleware refuses it before their
transport runs): the SDK's ``sse_app(max_request_body_size=...)`` served by uvicorn over real HTTP on
127.0.0.1, where the app reads the body and the core answers (tests/node/sse-body-limit.test.mjs holds
the core's own listener to the same)."""

from __future__ import annotations

import urllib.error
import urllib.request
from pathlib import Path

from procs import start_script, stop

MOUNTED = '''
import sys
import uvicorn
from oxmcp.server.mcpserver import MCPServer

app = MCPServer("limits").sse_app(max_request_body_size=8)
uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning")
'''

UNKNOWN = "12345678123456781234567812345678"


def _post(port: int, path: str, body: bytes) -> int:
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}?session_id={UNKNOWN}", data=body,
                                     method="POST", headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return int(response.status)
    except urllib.error.HTTPError as e:
        return e.code


def test_a_message_over_the_limit_is_refused_before_the_session_lookup(tmp_path: Path) -> None:
    proc, port = start_script(tmp_path, MOUNTED)
    try:
        assert _post(port, "/messages/", b"123456789") == 413  # over the limit: no session is looked up
        assert _post(port, "/messages/", b"{}") == 404  # within it: the unknown session
    finally:
        stop(proc)
