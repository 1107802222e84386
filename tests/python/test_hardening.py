"""Issue 11 (the security review) against the Python everything server over real HTTP: the
findings that are not plain corpus cases (those are in tests/hostile/corpus.json). The same
checks run against the Rust server (tests/it/hardening.rs) and the Node one
(tests/node/hardening.test.mjs).
"""

from __future__ import annotations

import http.client
import json
import os
import subprocess
import sys
import threading
import time
from typing import Any

from procs import ROOT, free_port, start_python_http, stop

EVERYTHING = ROOT / "examples/python/everything.py"
MODERN = "2026-07-28"


def post(port: int, body: Any, headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], Any]:
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        c.request("POST", "/mcp", json.dumps(body).encode(),
                  {"content-type": "application/json", "accept": "application/json, text/event-stream",
                   **(headers or {})})
        r = c.getresponse()
        raw = r.read()
        return r.status, {k.lower(): v for k, v in r.getheaders()}, json.loads(raw) if raw else None
    finally:
        c.close()


def modern(port: int, id_: Any, method: str, params: dict[str, Any]) -> tuple[int, Any]:
    params = {**params, "_meta": {"io.modelcontextprotocol/protocolVersion": MODERN,
                                  "io.modelcontextprotocol/clientCapabilities": {}}}
    h = {"mcp-protocol-version": MODERN, "mcp-method": method}
    if method == "resources/read":
        h["mcp-name"] = params["uri"]
    status, _, body = post(port, {"jsonrpc": "2.0", "id": id_, "method": method, "params": params}, h)
    return status, body


def legacy_session(port: int) -> dict[str, str]:
    status, h, body = post(port, {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}})
    assert status == 200, body
    headers = {"mcp-session-id": h["mcp-session-id"], "mcp-protocol-version": "2025-06-18"}
    status, _, _ = post(port, {"jsonrpc": "2.0", "method": "notifications/initialized"}, headers)
    assert status == 202
    return headers


def test_long_uris_are_refused_at_once_and_ping_stays_prompt() -> None:
    """Finding 2: over the 8 KiB cap, -32602 before any template is tried; ping stays prompt."""
    proc, port = start_python_http(EVERYTHING)
    try:
        session = legacy_session(port)
        long = "test://template/" + "a" * (512 * 1024) + "/dat"
        errors: list[str] = []

        def flood() -> None:
            for j in range(5):
                _, _, body = post(port, {"jsonrpc": "2.0", "id": j, "method": "resources/read",
                                         "params": {"uri": long}}, session)
                if body["error"]["code"] != -32602 or "URI too long" not in body["error"]["message"]:
                    errors.append(json.dumps(body)[:300])

        floods = [threading.Thread(target=flood) for _ in range(4)]
        for t in floods:
            t.start()
        for k in range(10):
            t0 = time.monotonic()
            status, _, body = post(port, {"jsonrpc": "2.0", "id": f"ping{k}", "method": "ping"}, session)
            assert status == 200, body
            assert time.monotonic() - t0 < 2, "ping waited behind the long URIs"
        for t in floods:
            t.join(60)
        assert not errors, errors
        under = "test://template/" + "a" * (8 * 1024 - 40) + "/dat"
        t0 = time.monotonic()
        _, _, body = post(port, {"jsonrpc": "2.0", "id": "under", "method": "resources/read",
                                 "params": {"uri": under}}, session)
        assert body["error"]["code"] == -32002, body
        assert time.monotonic() - t0 < 2
        status, _, body = post(port, {"jsonrpc": "2.0", "id": "ok", "method": "resources/read",
                                      "params": {"uri": "test://template/42/data"}}, session)
        assert status == 200 and body["result"]["contents"], body
    finally:
        assert stop(proc) == 0


def test_template_values_cannot_walk_out_of_the_template() -> None:
    """Finding 12: `%2F`, `%5C` and dot segments in a {var} match no template."""
    proc, port = start_python_http(EVERYTHING)
    try:
        for uri in ["test://template/..%2F..%2Fetc%2Fpasswd/data", "test://template/%2E%2E/data",
                    "test://template/a%5C..%5Cb/data", "test://template/../data"]:
            _, body = modern(port, uri, "resources/read", {"uri": uri})
            assert body["error"]["message"] == "Resource not found", (uri, body)
            assert "result" not in body
        status, body = modern(port, "ok", "resources/read", {"uri": "test://template/a%20b/data"})
        assert status == 200 and "a b" in json.dumps(body), body
    finally:
        assert stop(proc) == 0


def test_forged_log_lines_stay_inside_their_field() -> None:
    """Finding 6: CR/LF in a request-derived field never starts a new log line (text and JSON)."""
    forged = 'nope\r\nFORGED oxmcp::audit: auth caller="admin" outcome="ok"'
    for fmt in ["text", "json"]:
        proc, port = start_python_http(EVERYTHING, {"OXMCP_LOG": "warn,oxmcp::audit=info", "OXMCP_LOG_FORMAT": fmt})
        try:
            session = legacy_session(port)
            status, _, _ = post(port, {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                                       "params": {"name": forged, "arguments": {}}}, session)
            assert status == 200
        finally:
            stop(proc)
        assert proc.stderr is not None
        lines = proc.stderr.read().decode(errors="replace").splitlines()
        hits = [line for line in lines if "FORGED" in line]
        assert hits, lines
        assert not any(line.startswith("FORGED") for line in lines), (fmt, hits)
        if fmt == "json":
            assert json.loads(hits[0])["fields"]["name"] == forged
        else:
            assert "name=nope\\r\\nFORGED" in hits[0], hits


def test_non_loopback_bind_needs_allowed_hosts() -> None:
    """Finding 13: a non-loopback bind without allowed_hosts refuses to start, naming the option."""
    proc = subprocess.run([sys.executable, str(EVERYTHING), "--http", f"0.0.0.0:{free_port()}"],
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=30,
                          env={k: v for k, v in os.environ.items() if not k.startswith("OXMCP_ALLOW")})
    err = proc.stderr.decode(errors="replace")
    assert proc.returncode != 0, err
    assert "allowed_hosts" in err and "allow_any_host" in err, err


def test_failed_authentications_are_limited_per_client_address() -> None:
    """Finding 11: 10 refused tokens per address, then 429 + Retry-After before any token is
    checked (the right one too); another address (127.0.0.2) is still served."""
    port = free_port()
    proc = subprocess.Popen([sys.executable, str(ROOT / "tests/python/apps/secure.py"), "--http", f"127.0.0.1:{port}"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        from procs import wait_listening
        wait_listening(port, proc)

        def tools_list(source: str, token: str | None) -> tuple[int, dict[str, str]]:
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=30, source_address=(source, 0))
            try:
                h = {"content-type": "application/json", "accept": "application/json, text/event-stream",
                     "mcp-protocol-version": MODERN, "mcp-method": "tools/list"}
                if token:
                    h["authorization"] = f"Bearer {token}"
                c.request("POST", "/mcp", json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {
                    "_meta": {"io.modelcontextprotocol/protocolVersion": MODERN,
                              "io.modelcontextprotocol/clientCapabilities": {}}}}).encode(), h)
                r = c.getresponse()
                r.read()
                return r.status, {k.lower(): v for k, v in r.getheaders()}
            finally:
                c.close()

        for _ in range(12):
            assert tools_list("127.0.0.1", None)[0] == 401  # no token: not a failure
        for i in range(10):
            assert tools_list("127.0.0.1", f"guess{i}")[0] == 401
        status, headers = tools_list("127.0.0.1", "guess-more")
        assert status == 429
        assert 1 <= int(headers["retry-after"]) <= 10
        assert tools_list("127.0.0.1", "alice-token")[0] == 429
        assert tools_list("127.0.0.2", "alice-token")[0] == 200
    finally:
        stop(proc)


def start_secure() -> tuple[subprocess.Popen[bytes], int]:
    port = free_port()
    proc = subprocess.Popen([sys.executable, str(ROOT / "tests/python/apps/secure.py"), "--http", f"127.0.0.1:{port}"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    from procs import wait_listening
    wait_listening(port, proc)
    return proc, port


def test_batches_are_charged_per_element() -> None:
    """Finding 5: a 2025-03-26 batch costs one rate-limit token per element (carol: 0.5/s, burst 3)."""
    proc, port = start_secure()
    try:
        batch = [{"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": {"name": "whoami", "arguments": {}}}
                 for i in range(10)]
        status, headers, body = post(port, batch, {"authorization": "Bearer carol-token"})
        assert status == 429, body
        assert "retry-after" in headers
        over = [{"jsonrpc": "2.0", "id": i, "method": "ping"} for i in range(101)]
        status, _, body = post(port, over, {"authorization": "Bearer root-token"})
        assert status == 400 and body["error"]["code"] == -32600, body
    finally:
        stop(proc)


def test_a_session_is_bound_to_its_creator() -> None:
    """Finding 8: another valid token using alice's session gets 404 (POST, GET, DELETE)."""
    proc, port = start_secure()
    try:
        status, h, body = post(port, {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}},
            {"authorization": "Bearer alice-token"})
        assert status == 200, body
        sid = h["mcp-session-id"]
        alice = {"authorization": "Bearer alice-token", "mcp-session-id": sid, "mcp-protocol-version": "2025-11-25"}
        bob = {**alice, "authorization": "Bearer bob-token"}
        assert post(port, {"jsonrpc": "2.0", "method": "notifications/initialized"}, alice)[0] == 202
        ping = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
        assert post(port, ping, bob)[0] == 404
        for method in ["GET", "DELETE"]:
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            c.request(method, "/mcp", headers={**bob, "accept": "text/event-stream"})
            r = c.getresponse()
            assert r.status == 404, (method, r.status)
            c.close()
        assert post(port, ping, alice)[0] == 200
    finally:
        stop(proc)
