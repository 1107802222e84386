"""stdio with fd 0 and 1 in non-blocking mode (tests/python/apps/nonblocking_stdio.py): the core's
reader waits for input instead of taking EAGAIN for the end of it, and its writer waits for room,
so the server answers several paced calls and answers larger than a pipe holds. The same case as
tests/node/stdio-host-streams.test.mjs."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

APP = Path(__file__).parent / "apps" / "nonblocking_stdio.py"


def test_non_blocking_stdin_and_stdout_keep_serving() -> None:
    proc = subprocess.Popen([sys.executable, str(APP)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    assert proc.stdin is not None and proc.stdout is not None

    def request(id_: int, method: str, params: dict[str, Any]) -> dict[str, Any]:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(json.dumps({"jsonrpc": "2.0", "id": id_, "method": method, "params": params}).encode() + b"\n")
        proc.stdin.flush()
        line = proc.stdout.readline()
        assert line, f"the server closed stdout; stderr: {proc.stderr.read().decode() if proc.stderr else ''}"
        msg = json.loads(line)
        assert msg["id"] == id_, msg
        return msg

    try:
        init = request(1, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                         "clientInfo": {"name": "t", "version": "0"}})
        assert init["result"]["serverInfo"]["name"] == "nonblocking-stdio"
        proc.stdin.write(b'{"jsonrpc": "2.0", "method": "notifications/initialized"}\n')
        proc.stdin.flush()
        for i in range(5):
            time.sleep(0.05)  # the reader finds the pipe empty each time
            r = request(10 + i, "tools/call", {"name": "add", "arguments": {"a": i, "b": 1}})
            assert r["result"]["content"][0]["text"] == str(i + 1)
        for kb in (256, 2048):
            r = request(20 + kb, "tools/call", {"name": "big", "arguments": {"kb": kb}})
            assert len(r["result"]["content"][0]["text"]) == kb * 1024
        r = request(99, "tools/call", {"name": "add", "arguments": {"a": 2, "b": 2}})
        assert r["result"]["content"][0]["text"] == "4"
        proc.stdin.close()
        assert proc.wait(timeout=10) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
