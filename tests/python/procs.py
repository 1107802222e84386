"""Server processes for the tests: a free loopback port, waiting until one listens, stopping it, and
a 2026-07-28 `tools/call` over HTTP."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_listening(port: int, proc: subprocess.Popen[bytes], timeout: float = 20) -> None:
    deadline = time.monotonic() + timeout
    while True:
        if proc.poll() is not None:
            err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
            raise AssertionError(f"the server exited with {proc.returncode}: {err}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            if time.monotonic() > deadline:
                proc.kill()
                raise AssertionError("the server did not listen in time") from None
            time.sleep(0.02)


def start_python_http(script: Path, env: dict[str, str] | None = None) -> tuple[subprocess.Popen[bytes], int]:
    """`python SCRIPT --http 127.0.0.1:PORT`, stderr piped, once it listens."""
    port = free_port()
    proc = subprocess.Popen([sys.executable, str(script), "--http", f"127.0.0.1:{port}"], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, env={**os.environ, **(env or {})})
    wait_listening(port, proc)
    return proc, port


def start_script(tmp_path: Path, source: str, *args: str) -> tuple[subprocess.Popen[bytes], int]:
    """Write `source` to a server script in `tmp_path` and run `python SCRIPT PORT ARGS...` once it
    listens on the free loopback PORT (stderr piped)."""
    script = tmp_path / "server.py"
    script.write_text(source)
    port = free_port()
    proc = subprocess.Popen([sys.executable, str(script), str(port), *args], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    wait_listening(port, proc)
    return proc, port


def stop(proc: subprocess.Popen[bytes], timeout: float = 10) -> int | None:
    """SIGTERM, then SIGKILL after `timeout`; the exit status (None if it had to be killed)."""
    if proc.poll() is not None:
        return proc.returncode
    proc.send_signal(signal.SIGTERM)
    try:
        return proc.wait(timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(5)
        return None


META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}


def tool_call(port: int, name: str, arguments: dict[str, Any], timeout: float = 30) -> dict[str, Any]:
    """POST one 2026-07-28 `tools/call` (with its mirrored headers) to /mcp; the parsed JSON-RPC answer."""
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                       "params": {"name": name, "arguments": arguments, "_meta": META}}).encode()
    req = urllib.request.Request(f"http://127.0.0.1:{port}/mcp", data=body, method="POST", headers={
        "Content-Type": "application/json", "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": name})
    with urllib.request.urlopen(req, timeout=timeout) as r:
        answer: dict[str, Any] = json.loads(r.read())
        return answer
