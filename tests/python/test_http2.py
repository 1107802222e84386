"""HTTP/2 on the Streamable HTTP port (h2c by prior knowledge), over a real process: curl's HTTP/2
(nghttp2) for calls, many calls multiplexed on one connection, and raw frames for the stream-limit
and rapid-reset probes, after which the server must still answer."""

from __future__ import annotations

import json
import shutil
import socket
import struct
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from procs import META, ROOT, start_python_http, stop

pytestmark = pytest.mark.skipif(
    shutil.which("curl") is None
    or "HTTP2" not in subprocess.run(["curl", "--version"], capture_output=True, text=True).stdout,
    reason="needs curl built with HTTP/2 (nghttp2)",
)

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"


@pytest.fixture(scope="module")
def port() -> Iterator[int]:
    proc, p = start_python_http(ROOT / "examples" / "python" / "everything.py")
    try:
        yield p
    finally:
        stop(proc)


def call_body(name: str, rid: int = 1) -> str:
    return json.dumps({"jsonrpc": "2.0", "id": rid, "method": "tools/call",
                       "params": {"name": name, "arguments": {}, "_meta": META}})


def curl(port: int, *extra: str, body: str | None = None, host: str | None = None) -> subprocess.CompletedProcess[str]:
    args = ["curl", "-sS", "--http2-prior-knowledge", "-H", "content-type: application/json",
            "-H", "accept: application/json, text/event-stream", "-H", "mcp-protocol-version: 2026-07-28",
            "-H", "mcp-method: tools/call", "-H", "mcp-name: test_simple_text"]
    if host:
        args += ["-H", f"host: {host}"]
    args += ["--data-binary", body or call_body("test_simple_text"), *extra]
    return subprocess.run(args, capture_output=True, text=True, timeout=60)


def answers(out: str) -> list[dict[str, Any]]:
    """The JSON-RPC answers in curl's output (JSON or SSE `data:` lines; one per transfer)."""
    found = []
    for line in out.splitlines():
        line = line.removeprefix("data:").strip()
        if line.startswith("{") and '"jsonrpc"' in line:
            found.append(json.loads(line[: line.rindex("}") + 1]))
    return found


def test_a_call_over_h2c(port: int) -> None:
    r = curl(port, "-w", "\nversion=%{http_version}", f"http://127.0.0.1:{port}/mcp")
    assert "version=2" in r.stdout, r.stdout + r.stderr
    (a,) = answers(r.stdout)
    assert a["result"]["content"][0]["text"] == "This is a simple text response for testing."


def test_authority_is_checked_as_host(port: int) -> None:
    # curl sends a custom Host as `:authority` over HTTP/2: the DNS-rebinding guard must see it.
    # A request with no body (the listen GET): the guard refuses from the head. A refused POST whose
    # body is still on its way may be reset once answered (RFC 9113 §8.1 allows it), which curl
    # 7.88 can report as a framing error instead of the 403.
    r = subprocess.run(["curl", "-sS", "--http2-prior-knowledge", "-H", "accept: text/event-stream",
                        "-H", "host: evil.example", "-w", "\nstatus=%{http_code}", f"http://127.0.0.1:{port}/mcp"],
                       capture_output=True, text=True, timeout=60)
    assert "status=403" in r.stdout, (r.stdout, r.stderr)


def frame(kind: int, flags: int, stream: int, payload: bytes = b"") -> bytes:
    return struct.pack(">I", len(payload))[1:] + bytes([kind, flags]) + struct.pack(">I", stream) + payload


def headers_block(port: int) -> bytes:
    # HPACK: :method POST (static 3), :scheme http (6), then literals with indexed names.
    def lit(index: int, value: bytes) -> bytes:
        return bytes([index, len(value)]) + value
    return b"\x83\x86" + lit(4, b"/mcp") + lit(1, f"127.0.0.1:{port}".encode())


def read_frames(sock: socket.socket, until: float = 2.0) -> list[tuple[int, int, int, bytes]]:
    """Frames the server sent until it goes quiet (or closes)."""
    sock.settimeout(until)
    buf = b""
    try:
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                break
            buf += chunk
            sock.settimeout(0.3)
    except TimeoutError:
        pass
    out = []
    while len(buf) >= 9:
        n = int.from_bytes(buf[:3], "big")
        kind, flags, stream = buf[3], buf[4], int.from_bytes(buf[5:9], "big") & 0x7FFFFFFF
        out.append((kind, flags, stream, buf[9 : 9 + n]))
        buf = buf[9 + n :]
    return out


def call_block(port: int) -> bytes:
    """A `tools/call` request's header block: indexed names where the static table has them,
    literal new names for the MCP headers (HPACK, no Huffman)."""
    def new(name: bytes, value: bytes) -> bytes:
        return b"\x00" + bytes([len(name)]) + name + bytes([len(value)]) + value
    return (headers_block(port) + bytes([0x0F, 31 - 15, 16]) + b"application/json"
            + new(b"accept", b"application/json, text/event-stream")
            + new(b"mcp-protocol-version", b"2026-07-28") + new(b"mcp-method", b"tools/call")
            + new(b"mcp-name", b"test_simple_text"))


def test_hundred_concurrent_calls_on_one_connection(port: int) -> None:
    with socket.create_connection(("127.0.0.1", port)) as s:
        s.sendall(PREFACE + frame(4, 0, 0))
        block = call_block(port)
        ids = [2 * i + 1 for i in range(100)]
        # All 100 requests written before any answer is read: they run concurrently.
        s.sendall(b"".join(frame(1, 0x4, sid, block) + frame(0, 0x1, sid, call_body("test_simple_text", sid).encode())
                           for sid in ids))
        bodies: dict[int, bytes] = {}
        ended: set[int] = set()
        s.settimeout(30)
        buf = b""
        while len(ended) < 100:
            chunk = s.recv(65536)
            assert chunk, f"connection closed after {len(ended)} answers"
            buf += chunk
            while len(buf) >= 9 and len(buf) >= 9 + int.from_bytes(buf[:3], "big"):
                n = int.from_bytes(buf[:3], "big")
                kind, flags, sid = buf[3], buf[4], int.from_bytes(buf[5:9], "big") & 0x7FFFFFFF
                payload, buf = buf[9 : 9 + n], buf[9 + n :]
                if kind == 4 and not flags & 1:
                    s.sendall(frame(4, 1, 0))  # SETTINGS ACK
                if kind == 0:
                    bodies[sid] = bodies.get(sid, b"") + payload
                if kind in (0, 1) and flags & 1:
                    ended.add(sid)
                assert kind != 3, f"stream {sid} reset"
    for sid in ids:
        (a,) = answers(bodies[sid].decode())
        assert a["id"] == sid and a["result"]["content"][0]["text"].startswith("This is a simple text")


def test_streams_past_the_limit_are_refused_and_the_server_serves_on(port: int) -> None:
    with socket.create_connection(("127.0.0.1", port)) as s:
        s.sendall(PREFACE + frame(4, 0, 0))
        block = headers_block(port)
        # 150 requests whose bodies never come (no END_STREAM): each stays open.
        s.sendall(b"".join(frame(1, 0x4, 2 * i + 1, block) for i in range(150)))
        frames = read_frames(s)
    settings = next(f for f in frames if f[0] == 4 and not f[1] & 1)[3]
    advertised = {int.from_bytes(settings[i : i + 2], "big"): int.from_bytes(settings[i + 2 : i + 6], "big")
                  for i in range(0, len(settings), 6)}
    assert advertised.get(3) == 100  # SETTINGS_MAX_CONCURRENT_STREAMS
    refused = [f for f in frames if f[0] == 3 and int.from_bytes(f[3], "big") == 7]  # REFUSED_STREAM
    assert len(refused) == 50, [(f[0], f[2]) for f in frames][:20]
    assert "result" in answers(curl(port, f"http://127.0.0.1:{port}/mcp").stdout)[0]


def test_a_rapid_reset_flood_closes_the_connection_and_the_server_serves_on(port: int) -> None:
    with socket.create_connection(("127.0.0.1", port)) as s:
        s.sendall(PREFACE + frame(4, 0, 0))
        block = headers_block(port)
        flood = b"".join(frame(1, 0x4, 2 * i + 1, block) + frame(3, 0, 2 * i + 1, struct.pack(">I", 8))
                         for i in range(1000))
        try:
            s.sendall(flood)
        except OSError:
            pass  # the server may close the connection before the flood is written
        frames = read_frames(s)
    # GOAWAY with ENHANCE_YOUR_CALM (11): the flood ended the connection.
    goaway = [f for f in frames if f[0] == 7]
    assert goaway and int.from_bytes(goaway[0][3][4:8], "big") == 11, [(f[0], f[2]) for f in frames][-5:]
    assert "result" in answers(curl(port, f"http://127.0.0.1:{port}/mcp").stdout)[0]


def test_http2_can_be_turned_off(tmp_path: Path) -> None:
    from procs import start_script

    src = (
        "import sys\nfrom oxmcp import Server\n"
        "server = Server('t')\n"
        "@server.tool\ndef test_simple_text() -> str:\n    return 'ok'\n"
        "server.run('http', host='127.0.0.1', port=int(sys.argv[1]), http2=False)\n"
    )
    proc, p = start_script(tmp_path, src)
    try:
        r = curl(p, "-w", "\nversion=%{http_version}", f"http://127.0.0.1:{p}/mcp")
        assert "version=2" not in r.stdout
    finally:
        stop(proc)


def test_a_refused_post_whose_body_is_arriving_gets_its_answer(port: int) -> None:
    # The DNS-rebinding guard refuses from the head. The body (100 kB: more than HTTP/2's initial
    # window, so the client waits for the server to read before it can send the rest) is read before
    # the 403 is sent, so the stream ends cleanly rather than reset under a client still sending.
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"pad": "x" * 100_000}})
    for _ in range(3):
        r = curl(port, "-w", "\nstatus=%{http_code}", f"http://127.0.0.1:{port}/mcp", body=body, host="evil.example")
        assert "status=403" in r.stdout and r.returncode == 0, (r.stdout, r.stderr)


def test_a_connection_over_the_cap_is_refused_in_http2(tmp_path: Path) -> None:
    from procs import start_script

    src = (
        "import sys\nfrom oxmcp import Server\n"
        "server = Server('t')\n"
        "@server.tool\ndef test_simple_text() -> str:\n    return 'ok'\n"
        "server.run('http', host='127.0.0.1', port=int(sys.argv[1]), max_connections=1)\n"
    )
    proc, p = start_script(tmp_path, src)
    try:
        # One connection served and kept alive holds the one place (the start-up probe may hold it
        # for a moment: then this one is refused, and tried again).
        import time

        deadline = time.monotonic() + 10
        while True:
            held = socket.create_connection(("127.0.0.1", p))
            held.sendall(f"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:{p}\r\n\r\n".encode())
            held.settimeout(10)
            if held.recv(4096).startswith(b"HTTP/1.1 200"):
                break
            held.close()
            assert time.monotonic() < deadline, "no connection was served"
        with held:
            r = curl(p, "-i", "-w", "\nversion=%{http_version} status=%{http_code}", f"http://127.0.0.1:{p}/mcp")
        assert "version=2 status=503" in r.stdout, (r.stdout, r.stderr)
        assert "retry-after" in r.stdout.lower() and "-31503" in r.stdout, r.stdout
    finally:
        stop(proc)


def test_an_upgrade_to_h2c_is_declined_and_served_in_http11(port: int) -> None:
    # `curl --http2` on http:// asks `Upgrade: h2c`; the server ignores it (RFC 9110 §7.8) and answers
    # the request in HTTP/1.1, so the client gets its answer either way (prior knowledge gets HTTP/2).
    args = ["curl", "-sS", "-v", "--http2", "-H", "content-type: application/json",
            "-H", "accept: application/json, text/event-stream", "-H", "mcp-protocol-version: 2026-07-28",
            "-H", "mcp-method: tools/call", "-H", "mcp-name: test_simple_text", "--data-binary",
            call_body("test_simple_text"), "-w", "\nversion=%{http_version}", f"http://127.0.0.1:{port}/mcp"]
    r = subprocess.run(args, capture_output=True, text=True, timeout=60)
    assert "Upgrade: h2c" in r.stderr, r.stderr
    assert "version=1.1" in r.stdout and "101" not in r.stderr.split("< HTTP/1.1 ")[1][:3], (r.stdout, r.stderr)
    (a,) = answers(r.stdout)
    assert a["result"]["content"][0]["text"].startswith("This is a simple text")
