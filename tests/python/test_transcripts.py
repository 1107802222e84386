"""The golden JSON-RPC transcripts (tests/transcripts/*.json) replayed against the Python
everything-server (examples/python/everything.py), over Streamable HTTP and stdio, a fresh
process per file and transport. Format and matching rules: tests/transcripts/README.md; the
Rust replayer is tests/it/transcripts.rs, and this one follows it rule for rule.
"""

from __future__ import annotations

import copy
import http.client
import json
import os
import selectors
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
TRANSCRIPTS = ROOT / "tests" / "transcripts"
EVERYTHING = ROOT / "examples" / "python" / "everything.py"
MODERN_KEY = "io.modelcontextprotocol/protocolVersion"
EXCHANGE_KEYS = {"request", "response", "notifications", "match", "http", "comment"}


def load(path: Path) -> dict[str, Any]:
    t = json.loads(path.read_text())
    assert t["exchanges"], path
    for ex in t["exchanges"]:
        assert set(ex) <= EXCHANGE_KEYS, (path.name, sorted(ex))
    return t


FILES = sorted(TRANSCRIPTS.glob("*.json"))
CASES = [(p.stem, transport) for p in FILES for transport in load(p)["transports"]]


# -- matching "for meaning" --------------------------------------------------------------------------

def normalize(v: Any) -> Any:
    if isinstance(v, dict):
        out = {}
        for k, x in v.items():
            if k in ("serverInfo", "instructions"):
                continue
            if k == "_meta" and isinstance(x, dict):
                x = {mk: mv for mk, mv in x.items() if mk != "io.modelcontextprotocol/serverInfo"}
                if not x:
                    continue
            if k == "requestState" and isinstance(x, str):
                x = "<requestState>"
            out[k] = normalize(x)
        return out
    if isinstance(v, list):
        return [normalize(x) for x in v]
    return v


def _scalar_equal(e: Any, a: Any) -> bool:
    # JSON equality: 1 and 1.0 differ, and so do true and 1 (Python's == says otherwise).
    kind = lambda x: "bool" if isinstance(x, bool) else type(x).__name__
    return kind(e) == kind(a) and e == a


def match(expected: Any, actual: Any, subset: bool, path: str = "") -> str | None:
    """None when `actual` matches `expected`; otherwise where and why not."""
    if expected == "<any>":
        return None
    if isinstance(expected, dict) and isinstance(actual, dict):
        if not subset:
            extra = [k for k in actual if k not in expected]
            if extra:
                return f"{path}/{extra[0]}: unexpected key"
        for k, ev in expected.items():
            if k not in actual:
                return f"{path}/{k}: missing"
            err = match(ev, actual[k], subset, f"{path}/{k}")
            if err:
                return err
        return None
    if isinstance(expected, list) and isinstance(actual, list):
        if not subset:
            if len(expected) != len(actual):
                return f"{path}: {len(actual)} elements, expected {len(expected)}"
            for i, (ev, av) in enumerate(zip(expected, actual)):
                err = match(ev, av, False, f"{path}/{i}")
                if err:
                    return err
            return None
        rest = iter(actual)
        for i, ev in enumerate(expected):
            if not any(match(ev, av, True) is None for av in rest):
                return f"{path}/{i}: no matching element for {json.dumps(ev)}"
        return None
    if isinstance(expected, (dict, list)) or isinstance(actual, (dict, list)) or not _scalar_equal(expected, actual):
        return f"{path}: expected {json.dumps(expected)}, got {json.dumps(actual)}"
    return None


def check(name: str, transport: str, i: int, ex: dict[str, Any], actual: Any, what: str, expected: Any) -> None:
    e, a = normalize(expected), normalize(actual)
    err = match(e, a, ex.get("match") == "subset")
    assert err is None, (f"{name} over {transport}, exchange #{i} ({what}): {err}\n  request:  "
                         f"{json.dumps(ex['request'])}\n  expected: {json.dumps(e)}\n  actual:   {json.dumps(a)}")


def substitute(v: Any, state: str | None) -> Any:
    if v == "<requestState>":
        assert state is not None, "<requestState> used before any response carried one"
        return state
    if isinstance(v, dict):
        return {k: substitute(x, state) for k, x in v.items()}
    if isinstance(v, list):
        return [substitute(x, state) for x in v]
    return v


def last_state(msg: Any, state: str | None) -> str | None:
    if isinstance(msg, dict) and isinstance(msg.get("result"), dict):
        rs = msg["result"].get("requestState")
        if isinstance(rs, str):
            return rs
    return state


# -- the matcher itself (the same cases as the Rust replayer's) ------------------------------------------

def test_the_matcher_itself() -> None:
    assert match({"a": 1}, {"a": 1}, False) is None
    assert match({"a": 1}, {"a": 1, "b": 2}, False) is not None
    assert match({"a": 1}, {"a": 1, "b": 2}, True) is None
    assert match({"a": 1}, {"a": 2}, True) is not None
    assert match([1, 3], [1, 2, 3], True) is None
    assert match([3, 1], [1, 2, 3], True) is not None
    assert match([1, 3], [1, 2, 3], False) is not None
    assert match({"x": "<any>"}, {"x": [1]}, False) is None
    assert match({"x": "<any>"}, {}, False) is not None
    assert match({"x": 1}, {"x": 1.0}, False) is not None
    assert match({"x": 1}, {"x": True}, False) is not None
    v = {"result": {"requestState": "abc", "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "x"}},
                    "serverInfo": {}, "instructions": "i"}}
    assert normalize(v) == {"result": {"requestState": "<requestState>"}}


def test_every_transcript_is_replayed() -> None:
    assert [p.stem for p in FILES] == ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28", "stdio",
                                        "tool-search"]
    assert {name for name, _ in CASES} == {p.stem for p in FILES}


# -- HTTP -------------------------------------------------------------------------------------------


def start_http(env: dict[str, str]) -> tuple[subprocess.Popen[bytes], int]:
    port = free_port()
    proc = subprocess.Popen([sys.executable, str(EVERYTHING), "--http", f"127.0.0.1:{port}"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env={**os.environ, **env})
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"server exited early: {proc.stderr.read().decode() if proc.stderr else ''}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return proc, port
        except OSError:
            time.sleep(0.02)
    proc.kill()
    raise AssertionError("server did not listen in time")


def stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)


def replay_http(name: str, t: dict[str, Any]) -> None:
    proc, port = start_http(t.get("env", {}))
    try:
        session: str | None = None
        initialized = False
        state: str | None = None
        for i, ex in enumerate(t["exchanges"]):
            req = substitute(copy.deepcopy(ex["request"]), state)
            first = (req[0] if req else {}) if isinstance(req, list) else req
            method = first.get("method", "")
            params = first.get("params") or {}
            modern = (params.get("_meta") or {}).get(MODERN_KEY)
            headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
            if modern is not None:
                headers["MCP-Protocol-Version"] = modern
                headers["Mcp-Method"] = method
                n = params.get("name") if method in ("tools/call", "prompts/get") else \
                    params.get("uri") if method == "resources/read" else None
                if isinstance(n, str):
                    headers["Mcp-Name"] = n
            elif initialized:
                if session is not None:
                    headers["Mcp-Session-Id"] = session
                if t["protocolVersion"] >= "2025-06-18":
                    headers["MCP-Protocol-Version"] = t["protocolVersion"]
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=15)
            try:
                conn.request("POST", "/mcp", body=json.dumps(req).encode(), headers=headers)
                resp = conn.getresponse()
                body = resp.read().decode()
                status, ctype, sid = resp.status, resp.getheader("content-type") or "", resp.getheader("mcp-session-id")
            finally:
                conn.close()
            expected_status = (ex.get("http") or {}).get("status", 202 if ex["response"] is None else 200)
            assert status == expected_status, f"{name} over http, exchange #{i}: status {status}\n  request: {req}\n  body: {body}"
            if ex["response"] is None:
                assert body == "", f"{name} over http, exchange #{i}: a 202 has no body: {body}"
                continue
            if ctype.startswith("text/event-stream"):
                msgs = [json.loads(line[5:].strip()) for line in body.splitlines() if line.startswith("data:")]
            else:
                msgs = [json.loads(body)] if body else []
            assert msgs, f"{name} over http, exchange #{i}: no response"
            last = msgs.pop()
            check(name, "http", i, ex, last, "response", ex["response"])
            if "notifications" in ex:
                check(name, "http", i, ex, msgs, "notifications", ex["notifications"])
            if method == "initialize":
                session = sid
                initialized = True
            state = last_state(last, state)
    finally:
        stop(proc)


# -- stdio ------------------------------------------------------------------------------------------

class StdioServer:
    def __init__(self, env: dict[str, str]) -> None:
        self.proc = subprocess.Popen([sys.executable, str(EVERYTHING)], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, env={**os.environ, **env})
        assert self.proc.stdout is not None
        self.sel = selectors.DefaultSelector()
        self.sel.register(self.proc.stdout, selectors.EVENT_READ)
        self.buf = b""

    def send(self, msg: Any) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write((json.dumps(msg) + "\n").encode())
        self.proc.stdin.flush()

    def recv_within(self, seconds: float) -> Any | None:
        assert self.proc.stdout is not None
        deadline = time.monotonic() + seconds
        while b"\n" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0 or not self.sel.select(timeout=left):
                return None
            chunk = os.read(self.proc.stdout.fileno(), 65536)
            if not chunk:
                return None
            self.buf += chunk
        line, _, self.buf = self.buf.partition(b"\n")
        return json.loads(line)

    def recv(self) -> Any:
        m = self.recv_within(15)
        assert m is not None, "no message from the server within 15 s"
        return m

    def eof_exit(self, seconds: float) -> int:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        return self.proc.wait(seconds)

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(5)


def replay_stdio(name: str, t: dict[str, Any]) -> None:
    s = StdioServer(t.get("env", {}))
    try:
        state: str | None = None
        for i, ex in enumerate(t["exchanges"]):
            req = substitute(copy.deepcopy(ex["request"]), state)
            s.send(req)
            if ex["response"] is None:
                continue
            notes = []
            while True:
                m = s.recv()
                done = isinstance(m, list) if isinstance(req, list) else \
                    isinstance(m, dict) and "method" not in m and m.get("id") == req.get("id")
                if done:
                    break
                assert isinstance(m, dict) and "method" in m and "id" not in m, \
                    f"{name} over stdio, exchange #{i}: unexpected message {m}"
                notes.append(m)
            check(name, "stdio", i, ex, m, "response", ex["response"])
            if "notifications" in ex:
                check(name, "stdio", i, ex, notes, "notifications", ex["notifications"])
            state = last_state(m, state)
        extra = s.recv_within(0.2)
        assert extra is None, f"{name}: a message after the last exchange: {extra}"
        assert s.eof_exit(10) == 0
    finally:
        s.kill()


@pytest.mark.parametrize(("name", "transport"), CASES, ids=[f"{n}-{t}" for n, t in CASES])
def test_transcript(name: str, transport: str) -> None:
    t = load(TRANSCRIPTS / f"{name}.json")
    (replay_http if transport == "http" else replay_stdio)(name, t)


@pytest.mark.parametrize("transport", ["http", "stdio"])
def test_the_replayer_catches_a_difference(transport: str) -> None:
    """A transcript altered in one expected value fails at that exchange (the replay is not vacuous)."""
    t = load(TRANSCRIPTS / "2026-07-28.json")
    i = next(i for i, ex in enumerate(t["exchanges"])
             if (ex["request"].get("params") or {}).get("name") == "test_simple_text")
    t["exchanges"][i]["response"]["result"]["content"][0]["text"] = "something else"
    t["exchanges"] = t["exchanges"][: i + 1]
    with pytest.raises(AssertionError, match=f"exchange #{i} \\(response\\): /result/content/0/text"):
        (replay_http if transport == "http" else replay_stdio)("altered", t)
