"""TLS serving over a real process: a test CA made here (the `openssl` CLI), a client that checks the
chain, HTTP/2 and HTTP/1.1 by ALPN, reload after the files are replaced, and a key that is not the
certificate's refused at start with a message that says so."""

from __future__ import annotations

import json
import shutil
import socket
import ssl
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from procs import META, free_port, stop

pytestmark = pytest.mark.skipif(shutil.which("openssl") is None, reason="needs the openssl CLI")

SERVER = """
import sys
from oxmcp import Server
server = Server("tls")
@server.tool
def test_simple_text() -> str:
    return "ok"
server.run("http", host="127.0.0.1", port=int(sys.argv[1]), tls_cert=sys.argv[2], tls_key=sys.argv[3])
"""


def openssl(*args: str, cwd: Path) -> None:
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True, timeout=60)


def leaf(d: Path, name: str, serial: int) -> None:
    """`name.pem`/`name.key`: a P-256 certificate for 127.0.0.1 signed by the test CA in `d`."""
    openssl("req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", f"{name}.key",
            "-subj", "/CN=127.0.0.1", "-out", f"{name}.csr", cwd=d)
    (d / "ext.cnf").write_text("subjectAltName=IP:127.0.0.1\n")
    openssl("x509", "-req", "-in", f"{name}.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-set_serial", str(serial),
            "-days", "2", "-extfile", "ext.cnf", "-out", f"{name}.pem", cwd=d)


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("pki")
    openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", "ca.key",
            "-subj", "/CN=oxmcp test CA", "-days", "2", "-out", "ca.pem", cwd=d)
    leaf(d, "a", 1001)
    leaf(d, "b", 2002)
    return d


def start(d: Path, cert: Path, key: Path) -> tuple[subprocess.Popen[bytes], int]:
    (d / "server.py").write_text(SERVER)
    port = free_port()
    proc = subprocess.Popen([sys.executable, str(d / "server.py"), str(port), str(cert), str(key)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 20
    while True:
        assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else ""
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return proc, port
        except OSError:
            assert time.monotonic() < deadline, "the server did not listen in time"
            time.sleep(0.02)


def handshake(port: int, ca: Path, alpn: list[str]) -> tuple[int, str | None]:
    """The served certificate's serial and the ALPN protocol chosen, with the chain checked."""
    ctx = ssl.create_default_context(cafile=str(ca))
    ctx.set_alpn_protocols(alpn)
    with socket.create_connection(("127.0.0.1", port)) as raw, ctx.wrap_socket(raw, server_hostname="127.0.0.1") as s:
        cert = s.getpeercert()
        assert cert is not None
        return int(cert["serialNumber"], 16), s.selected_alpn_protocol()


@pytest.fixture(scope="module")
def served(pki: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, int]]:
    live = tmp_path_factory.mktemp("live")
    shutil.copy(pki / "a.pem", live / "cert.pem")
    shutil.copy(pki / "a.key", live / "key.pem")
    proc, port = start(live, live / "cert.pem", live / "key.pem")
    try:
        yield live, port
    finally:
        stop(proc)


def curl_call(port: int, ca: Path, proto: str) -> subprocess.CompletedProcess[str]:
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                       "params": {"name": "test_simple_text", "arguments": {}, "_meta": META}})
    return subprocess.run(
        ["curl", "-sS", proto, "--cacert", str(ca), "-w", "\nversion=%{http_version}",
         "-H", "content-type: application/json", "-H", "accept: application/json, text/event-stream",
         "-H", "mcp-protocol-version: 2026-07-28", "-H", "mcp-method: tools/call", "-H", "mcp-name: test_simple_text",
         "--data-binary", body, f"https://127.0.0.1:{port}/mcp"], capture_output=True, text=True, timeout=30)


@pytest.mark.skipif(shutil.which("curl") is None, reason="needs curl")
@pytest.mark.parametrize(("proto", "version"), [("--http2", "2"), ("--http1.1", "1.1")])
def test_calls_over_tls_by_alpn(served: tuple[Path, int], pki: Path, proto: str, version: str) -> None:
    _, port = served
    r = curl_call(port, pki / "ca.pem", proto)
    assert f"version={version}" in r.stdout, r.stdout + r.stderr
    assert '"text":"ok"' in r.stdout.replace(" ", "")


def test_alpn_offers_h2_and_http11(served: tuple[Path, int], pki: Path) -> None:
    _, port = served
    assert handshake(port, pki / "ca.pem", ["h2", "http/1.1"])[1] == "h2"
    assert handshake(port, pki / "ca.pem", ["http/1.1"])[1] == "http/1.1"


def test_replaced_files_are_served_to_new_connections(served: tuple[Path, int], pki: Path) -> None:
    live, port = served
    assert handshake(port, pki / "ca.pem", ["http/1.1"])[0] == 1001
    shutil.copy(pki / "b.key", live / "key.pem.tmp")
    shutil.copy(pki / "b.pem", live / "cert.pem.tmp")
    (live / "key.pem.tmp").replace(live / "key.pem")
    (live / "cert.pem.tmp").replace(live / "cert.pem")
    deadline = time.monotonic() + 10
    while handshake(port, pki / "ca.pem", ["http/1.1"])[0] != 2002:
        assert time.monotonic() < deadline, "the new certificate was not served"
        time.sleep(0.2)


def test_a_key_that_is_not_the_certificates_is_refused_at_start(pki: Path, tmp_path: Path) -> None:
    (tmp_path / "server.py").write_text(SERVER)
    r = subprocess.run([sys.executable, str(tmp_path / "server.py"), str(free_port()), str(pki / "a.pem"),
                        str(pki / "b.key")], capture_output=True, text=True, timeout=30)
    assert r.returncode != 0
    assert "is not the private key of the certificate" in r.stderr, r.stderr[-2000:]
