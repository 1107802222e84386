"""Redis over TLS with an ACL user: a redis-server started here with `--tls-port` and a test CA, a
replica that reaches it by `rediss://user:password@` with `redis_tls_ca`, and a wrong password whose
errors and logs never show it."""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from procs import ROOT, free_port, start_python_http, stop
from test_redis import request, simple_call
from test_tls import leaf, openssl

EVERYTHING = ROOT / "examples" / "python" / "everything.py"
PASSWORD = "s3cret-Pw-7741"
STATE_KEY = "python-redis-tls-state-key-01234"



pytestmark = pytest.mark.skipif(shutil.which("redis-server") is None or shutil.which("openssl") is None,
                                reason="needs redis-server and openssl")


@pytest.fixture(scope="module")
def redis_tls(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[int, Path]]:
    d = tmp_path_factory.mktemp("redis-pki")
    openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", "ca.key",
            "-subj", "/CN=oxmcp redis test CA", "-days", "2", "-out", "ca.pem", cwd=d)
    leaf(d, "redis", 7)
    port = free_port()
    proc = subprocess.Popen(
        [shutil.which("redis-server") or "redis-server", "--port", "0", "--tls-port", str(port), "--bind", "127.0.0.1",
         "--tls-cert-file", str(d / "redis.pem"), "--tls-key-file", str(d / "redis.key"),
         "--tls-ca-cert-file", str(d / "ca.pem"), "--tls-auth-clients", "no", "--save", "", "--appendonly", "no",
         "--user", "default", "off", "--user", "alice", "on", f">{PASSWORD}", "~*", "&*", "+@all"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 10
    while True:
        if proc.poll() is not None:
            out = proc.stdout.read().decode() if proc.stdout else ""
            pytest.fail(f"redis-server with --tls-port did not start (built without TLS?): {out[-500:]}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            break
        except OSError:
            assert time.monotonic() < deadline, "redis-server did not listen"
            time.sleep(0.02)
    try:
        yield port, d
    finally:
        proc.kill()
        proc.wait(5)


def readyz(port: int, want: str) -> str:
    deadline = time.monotonic() + 10
    while True:
        got = request(port, "GET", "/readyz")[1]["redis"]
        if got == want or time.monotonic() > deadline:
            return str(got)
        time.sleep(0.1)


def test_a_replica_over_rediss_with_an_acl_user(redis_tls: tuple[int, Path]) -> None:
    rport, d = redis_tls
    server, port = start_python_http(EVERYTHING, {
        "OXMCP_REDIS_URL": f"rediss://alice:{PASSWORD}@127.0.0.1:{rport}/", "OXMCP_REDIS_TLS_CA": str(d / "ca.pem"),
        "OXMCP_STATE_KEY": STATE_KEY})
    try:
        for _ in range(3):
            status, body = simple_call(port)
            assert status == 200 and body["result"]["content"][0]["type"] == "text", body
        ready = readyz(port, "up")
    finally:
        stop(server)
        err = server.stderr.read().decode() if server.stderr else ""
    assert ready == "up", err[-3000:]
    assert PASSWORD not in err


def test_a_wrong_password_is_never_shown(redis_tls: tuple[int, Path]) -> None:
    rport, d = redis_tls
    wrong = "Wr0ng-pass-5512"
    server, port = start_python_http(EVERYTHING, {
        "OXMCP_REDIS_URL": f"rediss://alice:{wrong}@127.0.0.1:{rport}/", "OXMCP_REDIS_TLS_CA": str(d / "ca.pem"),
        "OXMCP_STATE_KEY": STATE_KEY, "OXMCP_LOG": "debug"})
    try:
        assert readyz(port, "down") == "down"
    finally:
        stop(server)
        err = server.stderr.read().decode() if server.stderr else ""
    assert "alice" in err or "redis" in err.lower()
    assert wrong not in err


def test_a_url_error_never_shows_the_password() -> None:
    import oxmcp

    with pytest.raises(ValueError) as e:
        oxmcp.Server("r", "1", redis_url="rediss://alice:Top-s3cret@127.0.0.1:notaport/", state_key=STATE_KEY)
    assert "Top-s3cret" not in str(e.value) and "redis_url" in str(e.value)
