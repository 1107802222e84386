"""DPoP-bound access tokens through the ASGI mount: the core's rule (RFC 9449) is applied there as
on the built-in server: a bound token with a proof of this request is taken, a proof for another
method and a Bearer copy of the token are refused with a `DPoP` challenge, and a proof without the
server's nonce gets `use_dpop_nonce` and a `DPoP-Nonce` to retry with."""

from __future__ import annotations

import base64
import hashlib
import json
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path
from typing import Any

import pytest

from procs import free_port, stop, wait_listening

jwt = pytest.importorskip("jwt")
pytest.importorskip("uvicorn")
from cryptography.hazmat.primitives.asymmetric import ec, rsa  # noqa: E402

ISSUER = "https://auth.example.com"
RESOURCE = "https://mcp.example.com/mcp"

SERVER = """
import json, sys
import uvicorn
from oxmcp import Server

mcp = Server("dpop", oauth={"resource": sys.argv[2], "issuer": sys.argv[3], "jwks": json.loads(sys.argv[4]),
                            "dpop": "required", "dpop_nonce": True})

@mcp.tool()
def whoami() -> str:
    return "dpop"

uvicorn.run(mcp.asgi_app(), host="127.0.0.1", port=int(sys.argv[1]), log_level="warning")
"""


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def test_the_asgi_mount_applies_the_dpop_rule(tmp_path: Path) -> None:
    issuer_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    jwk = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(issuer_key.public_key()))
    jwk.update(kid="k1", alg="RS256")
    client_key = ec.generate_private_key(ec.SECP256R1())
    cjwk = json.loads(jwt.algorithms.ECAlgorithm.to_jwk(client_key.public_key()))
    # RFC 7638: the required members, in lexicographic order, compact.
    members = {k: cjwk[k] for k in ("crv", "kty", "x", "y")}
    jkt = b64(hashlib.sha256(json.dumps(members, separators=(",", ":"), sort_keys=True).encode()).digest())
    now = int(time.time())
    token = jwt.encode({"iss": ISSUER, "aud": RESOURCE, "sub": "py-user", "scope": "mcp:tools", "iat": now,
                        "exp": now + 300, "cnf": {"jkt": jkt}}, issuer_key, algorithm="RS256", headers={"kid": "k1"})

    def proof(**claims: Any) -> str:
        body = {"htm": "POST", "htu": RESOURCE, "iat": now, "jti": str(uuid.uuid4()),
                "ath": b64(hashlib.sha256(token.encode()).digest()), **claims}
        return str(jwt.encode(body, client_key, algorithm="ES256", headers={"typ": "dpop+jwt", "jwk": members}))

    script = tmp_path / "server.py"
    script.write_text(SERVER)
    port = free_port()
    proc = subprocess.Popen([sys.executable, str(script), str(port), RESOURCE, ISSUER, json.dumps({"keys": [jwk]})],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        wait_listening(port, proc)

        def call(auth: str, dpop: str | None) -> tuple[int, Any, dict[str, Any]]:
            headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
                       "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "whoami",
                       "Authorization": auth}
            if dpop:
                headers["DPoP"] = dpop
            meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                    "io.modelcontextprotocol/clientCapabilities": {}}
            body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                               "params": {"name": "whoami", "arguments": {}, "_meta": meta}}).encode()
            req = urllib.request.Request(f"http://127.0.0.1:{port}/mcp", data=body, method="POST", headers=headers)
            try:
                with urllib.request.urlopen(req, timeout=20) as r:
                    return r.status, r.headers, json.loads(r.read())
            except urllib.error.HTTPError as e:
                return e.code, e.headers, json.loads(e.read())

        status, headers, body = call(f"DPoP {token}", proof())
        assert status == 401 and body["error"] == "use_dpop_nonce", body
        assert headers["WWW-Authenticate"].startswith('DPoP error="use_dpop_nonce"')
        nonce = headers["DPoP-Nonce"]
        status, _, ok = call(f"DPoP {token}", proof(nonce=nonce))
        assert status == 200, ok
        assert ok["result"]["content"][0]["text"] == "dpop"
        status, headers, body = call(f"DPoP {token}", proof(htm="GET", nonce=nonce))
        assert status == 401 and body["error"] == "invalid_dpop_proof", body
        challenge = headers["WWW-Authenticate"]
        assert challenge.startswith('DPoP error="invalid_dpop_proof"') and 'algs="ES256 ' in challenge
        status, headers, body = call(f"Bearer {token}", None)
        challenge = headers["WWW-Authenticate"]
        assert status == 401 and challenge.startswith('DPoP error="invalid_token"'), (challenge, body)
    finally:
        stop(proc)
