"""OpenTelemetry from a Python server: with the standard OTEL_* variables set, the core exports each
request's span over OTLP/HTTP, continuing the caller's `_meta.traceparent`. The collector is a
small OTLP receiver on 127.0.0.1 in this test; the server is a real process over real HTTP.
"""

from __future__ import annotations

import http.server
import json
import secrets
import threading
import urllib.request

from procs import ROOT, start_python_http, stop


class Collector(http.server.ThreadingHTTPServer):
    """Keeps the body of every POST to /v1/traces (protobuf: ids appear as raw bytes)."""

    def __init__(self) -> None:
        self.bodies: list[bytes] = []
        self.got = threading.Event()
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:
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
    proc, port = start_python_http(ROOT / "examples/python/everything.py", {
        "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": f"http://127.0.0.1:{collector.server_port}/v1/traces",
        "OTEL_SERVICE_NAME": "py-otel-test"})
    trace_id, parent_id = secrets.token_hex(16), secrets.token_hex(8)
    try:
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
        assert stop(proc, 15) == 0
    assert collector.got.wait(10), "no OTLP export arrived"
    collector.shutdown()
    data = b"".join(collector.bodies)
    assert bytes.fromhex(trace_id) in data, "the exported span continues the caller's trace"
    assert bytes.fromhex(parent_id) in data, "the caller's span is its parent"
    assert b"py-otel-test" in data and b"tools/call test_simple_text" in data and b"vendor=abc" in data
    # The MCP semantic conventions' attributes, by key and value (OTLP protobuf keeps them as text).
    for text in (b"mcp.method.name", b"tools/call", b"gen_ai.tool.name", b"test_simple_text",
                 b"gen_ai.operation.name", b"execute_tool"):
        assert text in data, text
