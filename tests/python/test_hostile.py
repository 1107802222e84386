"""The shared hostile-input corpus (tests/hostile/corpus.json) against the Python everything server
over real HTTP: every case answered with its status and JSON-RPC code, no handler run for any of
them (the audit log, OXMCP_LOG=oxmcp::audit=info as JSON lines on stderr, shows only the good
call that follows), and the server still serving afterwards.
"""

from __future__ import annotations

import json
import queue
import select
import socket
import threading
import time
from typing import Any

from procs import ROOT, start_python_http, stop

CORPUS = json.loads((ROOT / "tests" / "hostile" / "corpus.json").read_text())


def body_of(form: dict[str, Any]) -> bytes:
    """A case's body, as the corpus's `body_forms` describe."""
    call = lambda id_: CORPUS["call_template"].replace("$ID", id_)
    if "text" in form:
        return form["text"].encode()
    if "hex" in form:
        return bytes.fromhex(form["hex"])
    if "repeat" in form:
        return "".join(chunk.replace("$CALL", call("1")) * n for chunk, n in form["repeat"]).encode()
    out = call(form["call"])
    x = "x" * form.get("x", 0)
    for old, new in form.get("replace", []):
        assert old in out, old
        out = out.replace(old, new.replace("$X", x), 1)
    return (out + form.get("append", "")).encode()


def post(port: int, headers: dict[str, str], body: bytes) -> tuple[int, bytes]:
    """One POST on its own connection. A body over the 4 MiB cap is refused from its
    Content-Length alone, so for such a body the answer is read before the body is sent."""
    with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
        host = "" if any(k.lower() == "host" for k in headers) else f"Host: 127.0.0.1:{port}\r\n"
        head = f"POST /mcp HTTP/1.1\r\n{host}Connection: close\r\nContent-Length: {len(body)}\r\n"
        head += "".join(f"{k}: {v}\r\n" for k, v in headers.items()) + "\r\n"
        s.sendall(head.encode())
        if len(body) <= 4 << 20 or not select.select([s], [], [], 2)[0]:
            s.sendall(body)
        raw = b""
        while chunk := s.recv(65536):
            raw += chunk
    head_bytes, _, payload = raw.partition(b"\r\n\r\n")
    status = int(head_bytes.split(b" ", 2)[1])
    if b"transfer-encoding: chunked" in head_bytes.lower():
        out = b""
        while True:
            size, _, payload = payload.partition(b"\r\n")
            n = int(size, 16)
            if n == 0:
                break
            out, payload = out + payload[:n], payload[n + 2:]
        payload = out
    return status, payload


def test_corpus_against_the_python_server() -> None:
    proc, port = start_python_http(ROOT / "examples/python/everything.py",
                                   {"OXMCP_LOG": "warn,oxmcp::audit=info", "OXMCP_LOG_FORMAT": "json"})
    lines: queue.Queue[str] = queue.Queue()
    assert proc.stderr is not None
    stderr = proc.stderr
    threading.Thread(target=lambda: [lines.put(raw.decode(errors="replace")) for raw in stderr],
                     daemon=True).start()
    try:
        for case in CORPUS["cases"]:
            headers = {**CORPUS["default_headers"], **case.get("headers", {})}
            status, answer = post(port, headers, body_of(case["body"]))
            assert status == case["status"], (case["name"], status, answer[:300])
            if "code" in case:
                assert json.loads(answer)["error"]["code"] == case["code"], (case["name"], answer[:300])
        # The good call: answered, and the only one in the audit log.
        status, answer = post(port, CORPUS["default_headers"],
                              CORPUS["call_template"].replace("$ID", "424242").encode())
        assert status == 200, answer
        assert json.loads(answer)["result"]["content"][0]["type"] == "text"
        audit = []
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                line = lines.get(timeout=0.5)
            except queue.Empty:
                continue
            if '"oxmcp::audit"' in line:
                audit.append(json.loads(line))
                if "424242" in line:
                    break
        assert len(audit) == 1, audit
        assert audit[0]["fields"]["name"] == "test_simple_text"
        assert audit[0]["fields"]["outcome"] == "ok"
    finally:
        assert stop(proc) == 0
