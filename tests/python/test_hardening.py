"""The security rules against the Python everything server over real HTTP: those that are not
plain corpus cases (those are in tests/hostile/corpus.json). The same
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
from pathlib import Path
from typing import Any

import pytest
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
    """Over the 8 KiB cap, -32602 before any template is tried; ping stays prompt."""
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
            # 5 s, not 2: this client's four flooding threads share its GIL with json.dumps of 512 KiB
            # bodies, which a loaded CI machine slows down on the client side.
            assert time.monotonic() - t0 < 5, "ping waited behind the long URIs"
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
    """`%2F`, `%5C` and dot segments in a {var} match no template."""
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
    """CR/LF in a request-derived field never starts a new log line (text and JSON)."""
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
    """A non-loopback bind without allowed_hosts refuses to start, naming the option."""
    proc = subprocess.run([sys.executable, str(EVERYTHING), "--http", f"0.0.0.0:{free_port()}"],
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=30,
                          env={k: v for k, v in os.environ.items() if not k.startswith("OXMCP_ALLOW")})
    err = proc.stderr.decode(errors="replace")
    assert proc.returncode != 0, err
    assert "allowed_hosts" in err and "allow_any_host" in err, err


def test_failed_authentications_are_limited_per_client_address() -> None:
    """10 refused tokens per address, then 429 + Retry-After before any token is
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


def tools_list_from(port: int, source: str, token: str | None,
                    extra: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
    """A modern tools/list POST from the source address `source` (any 127.x is this machine)."""
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=30, source_address=(source, 0))
    try:
        h = {"content-type": "application/json", "accept": "application/json, text/event-stream",
             "mcp-protocol-version": MODERN, "mcp-method": "tools/list", **(extra or {})}
        if token:
            h["authorization"] = f"Bearer {token}"
        c.request("POST", "/mcp", json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {
            "_meta": {"io.modelcontextprotocol/protocolVersion": MODERN,
                      "io.modelcontextprotocol/clientCapabilities": {}}}}).encode(), h)
        r = c.getresponse()
        return r.status, {k.lower(): v for k, v in r.getheaders()}, r.read()
    finally:
        c.close()


def start_secure_with(env: dict[str, str]) -> tuple[subprocess.Popen[bytes], int]:
    port = free_port()
    proc = subprocess.Popen([sys.executable, str(ROOT / "tests/python/apps/secure.py"), "--http", f"127.0.0.1:{port}"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env={**os.environ, **env})
    from procs import wait_listening
    wait_listening(port, proc)
    return proc, port


def test_behind_a_trusted_proxy_each_forwarded_client_has_its_own_failed_authentication_limit() -> None:
    """trusted_proxies: a forwarded client that guessed 10 tokens waits; another one behind the
    same proxy is served. An untrusted peer's X-Forwarded-For is ignored."""
    proc, port = start_secure_with({"OXMCP_TEST_TRUSTED_PROXIES": '["127.0.0.1"]'})
    try:
        def fwd(ip: str) -> dict[str, str]:
            return {"x-forwarded-for": ip}
        for i in range(10):
            assert tools_list_from(port, "127.0.0.1", f"g{i}", fwd("203.0.113.5"))[0] == 401
        assert tools_list_from(port, "127.0.0.1", "alice-token", fwd("203.0.113.5"))[0] == 429
        assert tools_list_from(port, "127.0.0.1", "alice-token", fwd("203.0.113.6"))[0] == 200
        for i in range(10):
            assert tools_list_from(port, "127.0.0.2", f"g{i}", fwd(f"198.51.100.{i}"))[0] == 401
        status, _, body = tools_list_from(port, "127.0.0.2", "alice-token", fwd("198.51.100.99"))
        assert status == 429 and json.loads(body)["error"]["code"] == -31429
    finally:
        stop(proc)


def test_connections_past_the_per_client_cap_are_refused_while_another_client_is_served() -> None:
    import socket
    proc, port = start_secure_with({"OXMCP_TEST_MAX_CONNECTIONS_PER_CLIENT": "2"})
    held: list[socket.socket] = []
    try:
        # Two connections the server has served (a keep-alive /healthz answered 200), held open;
        # one refused because the server has not yet let go of the start-up probe's is retried.
        deadline = time.monotonic() + 5
        while len(held) < 2:
            c = socket.create_connection(("127.0.0.1", port), source_address=("127.0.0.1", 0))
            c.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            out = b""
            while not out.endswith(b"}"):
                chunk = c.recv(4096)
                if not chunk:
                    break
                out += chunk
            if out.startswith(b"HTTP/1.1 200"):
                held.append(c)
            else:
                c.close()
                assert time.monotonic() < deadline, out
                time.sleep(0.05)
        status, headers, body = tools_list_from(port, "127.0.0.1", "alice-token")
        assert status == 429, body
        assert json.loads(body)["error"]["code"] == -31429 and "retry-after" in headers
        assert tools_list_from(port, "127.0.0.2", "alice-token")[0] == 200
    finally:
        for c in held:
            c.close()
        stop(proc)


def start_secure() -> tuple[subprocess.Popen[bytes], int]:
    port = free_port()
    proc = subprocess.Popen([sys.executable, str(ROOT / "tests/python/apps/secure.py"), "--http", f"127.0.0.1:{port}"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    from procs import wait_listening
    wait_listening(port, proc)
    return proc, port


def test_batches_are_charged_per_element() -> None:
    """A 2025-03-26 batch costs one rate-limit token per element (carol: 0.05/s, burst 3)."""
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
    """Another valid token using alice's session gets 404 (POST, GET, DELETE)."""
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


# -- the call pipeline's rules (hidden templates, subscriptions, listen slots, Mcp-Param-*
# headers, MRTR state) and the plain-http JWKS warning, replayed from the Rust server's
# tests (tests/it/hardening_calls.rs, tests/it/hardening.rs) against the Python everything server:
# alice has allow-lists, bob sees everything.

TOKENS = json.dumps({
    "alice": {"tokens": ["alice-tok"],
              "tools": ["test_simple_text", "test_input_required_result_multi_round"],
              "resources": ["test://static-text"]},
    "bob": {"tokens": ["bob-tok"]},
})
QUIET = 0.4


def start_with_tokens(extra: dict[str, str] | None = None) -> tuple[subprocess.Popen[bytes], int]:
    return start_python_http(EVERYTHING, {"OXMCP_TOKENS": TOKENS, **(extra or {})})


def modern_as(port: int, token: str | None, id_: Any, method: str, params: dict[str, Any],
              headers: dict[str, str] | None = None, caps: dict[str, Any] | None = None) -> tuple[int, Any]:
    """A 2026-07-28 request as `token` (the Rust harness's modern_request)."""
    params = {**params, "_meta": {"io.modelcontextprotocol/protocolVersion": MODERN,
                                  "io.modelcontextprotocol/clientCapabilities": caps or {"elicitation": {}}}}
    h = {"mcp-protocol-version": MODERN, "mcp-method": method, **(headers or {})}
    if method in ("tools/call", "prompts/get", "resources/read") and (params.get("name") or params.get("uri")):
        h["mcp-name"] = params.get("name") or params["uri"]
    if token:
        h["authorization"] = f"Bearer {token}"
    status, _, body = post(port, {"jsonrpc": "2.0", "id": id_, "method": method, "params": params}, h)
    return status, body


def shape(status: int, body: Any, name: str) -> tuple[int, Any, str]:
    """A refusal with the URI or name in it replaced, for comparing two refusals."""
    err = (body or {}).get("error") or {}
    return status, err.get("code"), str(err.get("message", "")).replace(name, "NAME")


class Stream:
    """An SSE response read event by event (listen POST or legacy GET)."""

    def __init__(self, port: int, method: str, headers: dict[str, str], body: Any = None) -> None:
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
        data = json.dumps(body).encode() if body is not None else None
        self.conn.request(method, "/mcp", data, {"content-type": "application/json",
                                                "accept": "application/json, text/event-stream", **headers})
        self.resp = self.conn.getresponse()
        self.status = self.resp.status

    def next(self, timeout: float = 10) -> Any:
        """The next event's JSON, or None when nothing comes within `timeout`."""
        assert self.conn.sock is not None
        self.conn.sock.settimeout(timeout)
        try:
            while line := self.resp.readline():
                if line.startswith(b"data:") and line[5:].strip():
                    return json.loads(line[5:])
        except TimeoutError:
            return None
        return None

    def close(self) -> None:
        self.conn.close()


def listen_as(port: int, token: str, id_: str, notifications: dict[str, Any]) -> Stream:
    params = {"notifications": notifications,
              "_meta": {"io.modelcontextprotocol/protocolVersion": MODERN,
                        "io.modelcontextprotocol/clientCapabilities": {}}}
    return Stream(port, "POST", {"mcp-protocol-version": MODERN, "mcp-method": "subscriptions/listen",
                                 "authorization": f"Bearer {token}"},
                  {"jsonrpc": "2.0", "id": id_, "method": "subscriptions/listen", "params": params})


def legacy_as(port: int, token: str) -> dict[str, str]:
    auth = {"authorization": f"Bearer {token}"}
    status, h, body = post(port, {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "h", "version": "0"}}}, auth)
    assert status == 200, body
    session = {**auth, "mcp-session-id": h["mcp-session-id"], "mcp-protocol-version": "2025-11-25"}
    assert post(port, {"jsonrpc": "2.0", "method": "notifications/initialized"}, session)[0] == 202
    return session


def trigger_update(port: int) -> None:
    status, body = modern_as(port, "bob-tok", "t", "tools/call",
                             {"name": "test_trigger_resource_update", "arguments": {}})
    assert status == 200 and "result" in body, body


def test_completion_of_a_hidden_resource_template_is_an_unknown_resource() -> None:
    """Completion/complete on a hidden template is refused exactly as an unknown one."""
    proc, port = start_with_tokens()
    try:
        def complete(token: str, uri: str) -> tuple[int, Any]:
            return modern_as(port, token, 1, "completion/complete",
                             {"ref": {"type": "ref/resource", "uri": uri}, "argument": {"name": "id", "value": "1"}})
        hidden, none = "test://template/{id}/data", "test://no-such/{id}"
        h, n = complete("alice-tok", hidden), complete("alice-tok", none)
        assert "result" not in h[1], h
        assert shape(*h, hidden) == shape(*n, none), (h, n)
        b = complete("bob-tok", hidden)
        assert b[0] == 200 and isinstance(b[1]["result"]["completion"]["values"], list), b
    finally:
        assert stop(proc) == 0


def test_subscriptions_never_deliver_hidden_resources() -> None:
    """Listen (exact URI and a `test:` prefix) and legacy subscribe + GET deliver
    nothing hidden; bob, who may see the resource, gets the update."""
    proc, port = start_with_tokens()
    streams: list[Stream] = []
    try:
        exact = listen_as(port, "alice-tok", "exact", {"resourceSubscriptions": ["test://watched-resource"]})
        prefix = listen_as(port, "alice-tok", "prefix", {"resourceSubscriptions": ["test:"]})
        bobs = listen_as(port, "bob-tok", "bob", {"resourceSubscriptions": ["test://watched-resource"]})
        streams += [exact, prefix, bobs]
        for st in streams:
            assert st.status == 200
            assert st.next()["method"] == "notifications/subscriptions/acknowledged"
        trigger_update(port)
        assert bobs.next()["params"]["uri"] == "test://watched-resource"
        assert exact.next(QUIET) is None, "a hidden URI was delivered"
        assert prefix.next(QUIET) is None, "a prefix reached a hidden URI"

        session = legacy_as(port, "alice-tok")
        get = Stream(port, "GET", {**session, "accept": "text/event-stream"})
        streams.append(get)
        assert get.status == 200

        def subscribe(uri: str) -> tuple[int, str]:
            status, _, body = post(port, {"jsonrpc": "2.0", "id": 1, "method": "resources/subscribe",
                                          "params": {"uri": uri}}, session)
            return status, json.dumps(body).replace(uri, "U")
        assert subscribe("test://watched-resource") == subscribe("test://no-such"), \
            "a hidden URI is answered as an unknown one"
        trigger_update(port)
        assert get.next(QUIET) is None, "the GET stream got a hidden update"
    finally:
        for st in streams:
            st.close()
        assert stop(proc) == 0


def test_listen_slots_are_capped_per_caller() -> None:
    """One caller cannot take every listen slot; another caller still gets one."""
    proc, port = start_with_tokens({"OXMCP_MAX_LISTENERS_PER_CALLER": "2"})
    streams: list[Stream] = []
    try:
        for i in range(2):
            st = listen_as(port, "alice-tok", f"a{i}", {"toolsListChanged": True})
            streams.append(st)
            assert st.status == 200
            assert st.next() is not None
        third = listen_as(port, "alice-tok", "a2", {"toolsListChanged": True})
        streams.append(third)
        assert third.status == 503, "a third stream for alice"
        other = listen_as(port, "bob-tok", "b0", {"toolsListChanged": True})
        streams.append(other)
        assert other.status == 200, "bob still gets a slot"
        assert other.next() is not None
    finally:
        for st in streams:
            st.close()
        assert stop(proc) == 0


def test_param_headers_of_a_hidden_tool_reveal_nothing() -> None:
    """The Mcp-Param-* checks of a hidden tool are not run: the refusal is the one for
    an unknown tool, not a -32020; bob, who sees the tool, gets the -32020."""
    proc, port = start_with_tokens()
    try:
        def call(token: str, name: str) -> tuple[int, Any]:
            return modern_as(port, token, 1, "tools/call", {"name": name, "arguments": {"region": "eu"}},
                             {"mcp-param-region": "us"})
        hidden, unknown = call("alice-tok", "test_custom_header"), call("alice-tok", "no_such_tool")
        assert hidden[1].get("error", {}).get("code") != -32020, hidden
        assert shape(*hidden, "test_custom_header") == shape(*unknown, "no_such_tool"), (hidden, unknown)
        b = call("bob-tok", "test_custom_header")
        assert b[1]["error"]["code"] == -32020, b
    finally:
        assert stop(proc) == 0


def test_mrtr_state_is_bound_to_the_arguments_and_unreadable() -> None:
    """RequestState is bound to the call's arguments and the keys asked for, and
    the answers sealed in it are not readable."""
    import base64
    proc, port = start_python_http(EVERYTHING)
    try:
        name = "test_input_required_result_multi_round"

        def call(id_: int, args: dict[str, Any], extra: dict[str, Any] | None = None) -> tuple[int, Any]:
            return modern_as(port, None, id_, "tools/call", {"name": name, "arguments": args, **(extra or {})})

        def asked(body: Any) -> str:
            keys = list(body["result"]["inputRequests"])
            assert len(keys) == 1, body
            return keys[0]
        _, r1 = call(1, {"topic": "a"})
        first = asked(r1)
        answer = {first: {"action": "accept", "content": {"name": "Ada Lovelace"}}}
        _, r2 = call(2, {"topic": "a"}, {"inputResponses": answer, "requestState": r1["result"]["requestState"]})
        second, s2 = asked(r2), r2["result"]["requestState"]
        raw = base64.urlsafe_b64decode(s2.split(".")[0] + "=" * (-len(s2.split(".")[0]) % 4))
        assert b"Ada" not in raw, "the answer is readable in requestState"
        # Other arguments: refused.
        _, r = call(3, {"topic": "b"}, {"inputResponses": {second: {"action": "accept", "content": {"name": "x"}}},
                                        "requestState": s2})
        assert r["error"]["code"] == -32602, r
        assert r["error"]["message"] == "Invalid or expired requestState", r
        # An answer nobody asked for is ignored: it cannot overwrite the one sealed in the state.
        _, r = call(4, {"topic": "a"}, {"inputResponses": {first: {"action": "accept", "content": {"name": "Eve"}},
                                                           second: {"action": "accept", "content": {"name": "Bo"}}},
                                        "requestState": s2})
        assert r["result"]["resultType"] == "complete", r
        text = r["result"]["content"][0]["text"]
        assert "Ada" in text and "Eve" not in text, text
    finally:
        assert stop(proc) == 0


def test_plain_http_jwks_off_loopback_is_warned_about() -> None:
    """A plain-http JWKS URL to a non-loopback host is warned about at start-up; a
    loopback one is not."""
    script = (
        "import sys\nfrom oxmcp import Server\n"
        "s = Server('jwks', oauth={'resource': 'https://mcp.example.com/mcp', 'issuer': 'https://idp.example.invalid',"
        " 'jwks_url': sys.argv[1]})\n"
        "s.run('http', host='127.0.0.1', port=int(sys.argv[2]))\n"
    )
    for url, warned in [("http://idp.example.invalid/jwks.json", True), ("http://127.0.0.1:9/jwks.json", False)]:
        port = free_port()
        proc = subprocess.Popen([sys.executable, "-c", script, url, str(port)], stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE, env={**os.environ, "OXMCP_LOG": "warn"})
        from procs import wait_listening
        wait_listening(port, proc)
        stop(proc)
        assert proc.stderr is not None
        err = proc.stderr.read().decode(errors="replace")
        assert ("JWKS URL is plain http" in err) == warned, (url, err)


def test_the_everything_example_has_no_fixed_state_key() -> None:
    """Without OXMCP_STATE_KEY the core makes a random per-process MRTR key and warns; a fixed
    fallback in the example would be a key everyone knows."""
    script = str(ROOT / "examples" / "python" / "everything.py")
    env = {k: v for k, v in os.environ.items() if k != "OXMCP_STATE_KEY"}
    bare = subprocess.run([sys.executable, script], env=env, input=b"", capture_output=True, timeout=30)
    assert b"no MRTR state key configured" in bare.stderr
    keyed = subprocess.run([sys.executable, script], env={**env, "OXMCP_STATE_KEY": "k" * 32}, input=b"",
                           capture_output=True, timeout=30)
    assert b"no MRTR state key configured" not in keyed.stderr


UPLOAD_SERVER = '''
import sys
from oxmcp import Server

server = Server("upload", tokens={"alice": "alice-token"})

@server.tool
def add(a: int, b: int) -> int:
    return a + b

if __name__ == "__main__":
    port = int(sys.argv[1])
    if sys.argv[2] == "asgi":
        import uvicorn
        uvicorn.run(server.asgi_app(), host="127.0.0.1", port=port, log_level="warning")
    else:
        server.run("http", host="127.0.0.1", port=port)
'''


@pytest.mark.parametrize("mount", ["native", "asgi"])
def test_uploads_without_a_token_get_401_from_their_head(tmp_path: Path, mount: str) -> None:
    """Uploads that announce 4 MiB, send 64 KiB and stall, with no token: each is answered 401 at
    once from its head, its body unread (the built-in listener and the ASGI mount under uvicorn);
    the right token is then served."""
    import socket

    from procs import start_script

    proc, port = start_script(tmp_path, UPLOAD_SERVER, mount)
    try:
        started = time.monotonic()
        socks = []
        for _ in range(10):
            c = socket.create_connection(("127.0.0.1", port))
            c.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\ncontent-type: application/json\r\n"
                      b"accept: application/json, text/event-stream\r\ncontent-length: 4194304\r\n\r\n")
            c.sendall(b" " * 65536)
            socks.append(c)
        for c in socks:
            c.settimeout(10)
            out = b""
            while b"\r\n\r\n" not in out:
                chunk = c.recv(4096)
                if not chunk:
                    break
                out += chunk
            assert out.startswith(b"HTTP/1.1 401"), out
            c.close()
        assert time.monotonic() - started < 10
        assert tools_list_from(port, "127.0.0.1", "alice-token")[0] == 200
    finally:
        stop(proc)
