"""OpenTelemetry from a Python server: with the standard OTEL_* variables set, the core exports each
request's span over OTLP/HTTP, continuing the caller's `_meta.traceparent`. The collector is a
small OTLP receiver on 127.0.0.1 in this test; the server is a real process over real HTTP.
"""

from __future__ import annotations

import http.server
import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


class Collector(http.server.ThreadingHTTPServer):
    """Keeps the body of every POST to /v1/traces (protobuf: ids appear as raw bytes)."""

    def __init__(self) -> None:
        self.bodies: list[bytes] = []
        self.got = threading.Event()
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802
                body = self.rfile.read(int(self.headers.get("content-length", 0)))
                if self.path == "/v1/traces":
                    outer.bodies.append(body)
                    outer.got.set()
                self.send_response(200)
                self.send_header("content-type", "application/x-protobuf")
                self.send_header("content-length", "0")
                self.end_headers()

            def log_message(self, *args: object) -> None:
                pass

        super().__init__(("127.0.0.1", 0), Handler)


def test_request_span_exported_with_the_callers_trace() -> None:
    collector = Collector()
    threading.Thread(target=collector.serve_forever, daemon=True).start()
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {**os.environ, "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": f"http://127.0.0.1:{collector.server_port}/v1/traces",
           "OTEL_SERVICE_NAME": "py-otel-test"}
    proc = subprocess.Popen([sys.executable, str(ROOT / "examples/python/everything.py"), "--http",
                             f"127.0.0.1:{port}"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    trace_id, parent_id = secrets.token_hex(16), secrets.token_hex(8)
    try:
        deadline = time.monotonic() + 20
        while True:
            assert proc.poll() is None, proc.stderr.read() if proc.stderr else "exited"
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                assert time.monotonic() < deadline, "the server did not listen"
                time.sleep(0.05)
        meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {},
                "traceparent": f"00-{trace_id}-{parent_id}-01", "tracestate": "vendor=abc"}
        body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                           "params": {"name": "test_simple_text", "arguments": {}, "_meta": meta}}).encode()
        req = urllib.request.Request(f"http://127.0.0.1:{port}/mcp", data=body, method="POST", headers={
            "content-type": "application/json", "accept": "application/json, text/event-stream",
            "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": "test_simple_text"})
        with urllib.request.urlopen(req, timeout=10) as r:
            assert json.loads(r.read())["result"]["content"][0]["type"] == "text"
    finally:
        # A graceful stop flushes the spans still queued.
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(15) == 0
    assert collector.got.wait(10), "no OTLP export arrived"
    collector.shutdown()
    data = b"".join(collector.bodies)
    assert bytes.fromhex(trace_id) in data, "the exported span continues the caller's trace"
    assert bytes.fromhex(parent_id) in data, "the caller's span is its parent"
    assert b"py-otel-test" in data and b"tools/call test_simple_text" in data and b"vendor=abc" in data
