"""Process lifecycle: shutdown with work in flight, fast exit right after start or a call, fork.

Every wait is bounded; every server is a real subprocess.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from procs import free_port

ROOT = Path(__file__).resolve().parents[2]
APPS = Path(__file__).resolve().parent / "apps"
EXAMPLES = ROOT / "examples" / "python"
META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}



def call_msg(rid: int, name: str, arguments: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": rid, "method": "tools/call",
            "params": {"name": name, "arguments": arguments or {}, "_meta": META}}


def raw_post(port: int, msg: dict[str, Any]) -> socket.socket:
    """Send one modern request (tools/call, resources/read) over a raw socket and return the socket
    (response unread)."""
    body = json.dumps(msg).encode()
    name = msg["params"].get("name") or msg["params"]["uri"]
    head = (f"POST /mcp HTTP/1.1\r\nhost: 127.0.0.1:{port}\r\ncontent-type: application/json\r\n"
            f"accept: application/json, text/event-stream\r\nmcp-protocol-version: 2026-07-28\r\n"
            f"mcp-method: {msg['method']}\r\nmcp-name: {name}\r\ncontent-length: {len(body)}\r\n\r\n")
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    s.sendall(head.encode() + body)
    return s


def read_response(s: socket.socket) -> dict[str, Any]:
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = s.recv(65536)
        assert chunk, "connection closed before the response head"
        data += chunk
    head, _, rest = data.partition(b"\r\n\r\n")
    length = next(int(line.split(b":")[1]) for line in head.split(b"\r\n") if line.lower().startswith(b"content-length"))
    while len(rest) < length:
        chunk = s.recv(65536)
        assert chunk
        rest += chunk
    return json.loads(rest[:length])


def start_http(args: list[str], port: int, env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
    proc = subprocess.Popen([sys.executable, *args, "--http", f"127.0.0.1:{port}"], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, env=env)
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"server exited early: {proc.stderr.read().decode() if proc.stderr else ''}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return proc
        except OSError:
            time.sleep(0.02)
    proc.kill()
    raise AssertionError("server did not listen in time")


def wait_line(proc: subprocess.Popen[bytes], needle: str, timeout: float = 10) -> list[str]:
    """Read stderr lines until one contains `needle` (bounded)."""
    import selectors

    assert proc.stderr is not None
    sel = selectors.DefaultSelector()
    sel.register(proc.stderr, selectors.EVENT_READ)
    lines: list[str] = []
    deadline = time.monotonic() + timeout
    buf = b""
    while time.monotonic() < deadline:
        if not sel.select(timeout=max(0.0, deadline - time.monotonic())):
            break
        chunk = os.read(proc.stderr.fileno(), 4096)
        if not chunk:
            break
        buf += chunk
        *done, buf = buf.split(b"\n")
        lines += [d.decode() for d in done]
        if any(needle in line for line in lines):
            return lines
    raise AssertionError(f"no {needle!r} on stderr within {timeout}s; got {lines!r} {buf!r}")


def stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.kill()
        proc.wait(5)


# -- shutdown with a slow handler in flight -------------------------------------------------------

@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_signal_with_slow_async_handler_exits_within_drain(sig: int) -> None:
    """A long async handler in flight: the drain deadline cancels its task, exit 0 soon after."""
    port = free_port()
    proc = start_http([str(APPS / "slow.py")], port, env={**os.environ, "OXMCP_DRAIN_MS": "1000"})
    try:
        conn = raw_post(port, call_msg(1, "sleep_async", {"seconds": 60}))
        wait_line(proc, "started sleep_async")
        t0 = time.monotonic()
        proc.send_signal(sig)
        assert proc.wait(10) == 0
        elapsed = time.monotonic() - t0
        assert 0.9 < elapsed < 4.0, elapsed  # the drain deadline (1 s), then an exit (not the 60 s handler)
        assert proc.stderr is not None
        assert "cancelled sleep_async" in proc.stderr.read().decode()
        conn.close()
    finally:
        stop(proc)


def test_signal_with_slow_sync_handler_exits_within_drain() -> None:
    """A sync handler polling ctx.cancelled: the drain deadline sets it, and the process exits 0."""
    port = free_port()
    proc = start_http([str(APPS / "slow.py")], port, env={**os.environ, "OXMCP_DRAIN_MS": "1000"})
    try:
        conn = raw_post(port, call_msg(1, "sleep_sync", {"seconds": 60}))
        wait_line(proc, "started sleep_sync")
        t0 = time.monotonic()
        proc.send_signal(signal.SIGINT)
        assert proc.wait(10) == 0
        assert time.monotonic() - t0 < 4.0  # the drain deadline (1 s), not the 60 s handler
        assert proc.stderr is not None
        assert "cancelled sleep_sync" in proc.stderr.read().decode()
        conn.close()
    finally:
        stop(proc)


def test_client_disconnect_cancels_async_handler_over_http() -> None:
    """A real TCP client that goes away mid-request: the handler's asyncio task is cancelled."""
    port = free_port()
    proc = start_http([str(APPS / "slow.py")], port)
    try:
        conn = raw_post(port, call_msg(1, "sleep_async", {"seconds": 60}))
        wait_line(proc, "started sleep_async")
        conn.close()
        wait_line(proc, "cancelled sleep_async", timeout=5)
        # The server is still serving.
        with raw_post(port, call_msg(2, "add", {"a": 2, "b": 3})) as s:
            assert read_response(s)["result"]["structuredContent"] == {"result": 5}
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(10) == 0
    finally:
        stop(proc)


def read_msg(rid: int, uri: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": rid, "method": "resources/read", "params": {"uri": uri, "_meta": META}}


# What the abandoned request is, the line its handler prints when it runs, the call queued
# behind it (the dispatcher for async handlers, the one pool worker for sync ones), and whether a
# middleware (async) runs first.
ABANDONED = {
    "async tool": (call_msg(2, "sleep_async", {"seconds": 60}), "sleep_async", "mark", False),
    "sync tool": (call_msg(2, "sleep_sync", {"seconds": 60}), "sleep_sync", "mark_sync", False),
    "sync resource": (read_msg(2, "mem://counted"), "read counted", "mark_sync", False),
    "middleware": (call_msg(2, "add", {"a": 1, "b": 2}), "middleware saw add", "mark", True),
}


@pytest.mark.parametrize("kind", list(ABANDONED))
def test_client_disconnect_before_the_handler_starts_is_not_lost(kind: str) -> None:
    """The client goes away while its request still waits for its turn (another handler holds the
    GIL and the one pool worker): the cancellation must not be lost, so the handler never starts."""
    msg, runs, marker, middleware = ABANDONED[kind]
    port = free_port()
    env = {**os.environ, "SLOW_WORKERS": "1", **({"SLOW_MIDDLEWARE": "1"} if middleware else {})}
    proc = start_http([str(APPS / "slow.py")], port, env=env)
    try:
        hold = raw_post(port, call_msg(1, "hold_gil", {"seconds": 3}))
        lines = wait_line(proc, "started hold_gil")
        conn = raw_post(port, msg)
        time.sleep(0.3)  # the request reaches the core and waits for its turn
        conn.close()
        lines += wait_line(proc, "finished hold_gil")
        assert read_response(hold)["result"]["content"][0]["text"] == "held"
        hold.close()
        # Queued behind the abandoned request: once it prints, that request had its turn.
        with raw_post(port, call_msg(3, marker)) as s:
            assert read_response(s)["result"]["content"][0]["text"] == "marked"
        lines += wait_line(proc, "mark")
        assert not [line for line in lines if runs in line], lines
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(10) == 0
    finally:
        stop(proc)


# -- exiting fast: no native thread may be inside Python when the interpreter finalizes -----------

ROUNDS = int(os.environ.get("OXMCP_EXIT_ROUNDS", "30"))


def _http_round(after_call: bool, sig: int) -> tuple[int, str]:
    port = free_port()
    proc = start_http([str(APPS / "slow.py")], port)
    try:
        if after_call:
            # Several calls in flight on both kinds of handler; signal as the answers come back.
            socks = [raw_post(port, call_msg(i, "sleep_async" if i % 2 else "sleep_sync", {"seconds": 0}))
                     for i in range(1, 7)]
            read_response(socks[0])
        proc.send_signal(sig)
        rc = proc.wait(15)
        assert proc.stderr is not None
        return rc, proc.stderr.read().decode()
    finally:
        stop(proc)


def _stdio_round(after_call: bool, sig: int) -> tuple[int, str]:
    proc = subprocess.Popen([sys.executable, str(APPS / "slow.py")], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        assert proc.stdin is not None and proc.stdout is not None
        msgs = [call_msg(1, "add", {"a": 1, "b": 2})]
        if after_call:
            msgs += [call_msg(i, "sleep_async" if i % 2 else "sleep_sync", {"seconds": 0}) for i in range(2, 8)]
        proc.stdin.write("".join(json.dumps(m) + "\n" for m in msgs).encode())
        proc.stdin.flush()
        assert json.loads(proc.stdout.readline())["id"] is not None  # the process is serving
        proc.send_signal(sig)
        rc = proc.wait(15)
        assert proc.stderr is not None
        return rc, proc.stderr.read().decode()
    finally:
        stop(proc)


@pytest.mark.parametrize("transport", ["http", "stdio"])
def test_fast_exit_never_crashes(transport: str) -> None:
    """SIGTERM/SIGINT right after start and right after calls, many times: always exit 0, no crash."""
    run = _http_round if transport == "http" else _stdio_round
    failures = []
    deadline = time.monotonic() + 240
    for i in range(ROUNDS):
        assert time.monotonic() < deadline, f"only {i} rounds within the time box"
        rc, err = run(after_call=bool(i % 2), sig=signal.SIGTERM if i % 4 < 2 else signal.SIGINT)
        if rc != 0 or "Fatal Python error" in err or "panicked" in err:
            failures.append((i, rc, err[-800:]))
    assert not failures, failures


# -- fork ------------------------------------------------------------------------------------------

@pytest.mark.skipif(not hasattr(os, "fork"), reason="no os.fork on this platform")
@pytest.mark.parametrize("mode", ["before-use", "after-use"])
def test_fork_then_serve_and_call_in_child(mode: str) -> None:
    """After os.fork() (with the runtime and pool already running in the parent, or not yet),
    the child calls through the core in memory and serves HTTP; the parent still works."""
    proc = subprocess.run([sys.executable, str(APPS / "fork_check.py"), mode], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", proc.stdout + proc.stderr
