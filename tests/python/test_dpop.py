"""DPoP-bound access tokens through the ASGI mount: the core's rule (RFC 9449) is applied there as
on the built-in server: a bound token with a proof of this request is taken, a proof for another
method and a Bearer copy of the token are refused with a `DPoP` challenge, and a proof without the
server's nonce gets `use_dpop_nonce` and a `DPoP-Nonce` to retry with. Replicas sharing a Redis
share the used proof ids, so a proof replayed to another replica is refused there."""

from __future__ import annotations

import base64
import hashlib
import http.client
import json
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from procs import free_port, stop, wait_listening
from test_redis import start_redis

jwt = pytest.importorskip("jwt")
pytest.importorskip("uvicorn")
from cryptography.hazmat.primitives.asymmetric import ec, rsa

ISSUER = "https://auth.example.com"
RESOURCE = "https://mcp.example.com/mcp"

SERVER = """
import json, sys
import uvicorn
from oxmcp import Server

oauth = {"resource": sys.argv[2], "issuer": sys.argv[3], "jwks": json.loads(sys.argv[4]), "dpop": "required"}
extra = json.loads(sys.argv[5])
oauth.update(extra.pop("oauth", {}))
mcp = Server("dpop", oauth=oauth, **extra)

@mcp.tool()
def whoami() -> str:
    return "dpop"

uvicorn.run(mcp.asgi_app(), host="127.0.0.1", port=int(sys.argv[1]), log_level="warning")
"""


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


class Keys:
    """An issuer key, a client key, and a token the issuer bound to the client key."""

    def __init__(self) -> None:
        issuer_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        jwk = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(issuer_key.public_key()))
        jwk.update(kid="k1", alg="RS256")
        self.jwks = {"keys": [jwk]}
        self.client_key = ec.generate_private_key(ec.SECP256R1())
        cjwk = json.loads(jwt.algorithms.ECAlgorithm.to_jwk(self.client_key.public_key()))
        # RFC 7638: the required members, in lexicographic order, compact.
        self.members = {k: cjwk[k] for k in ("crv", "kty", "x", "y")}
        jkt = b64(hashlib.sha256(json.dumps(self.members, separators=(",", ":"), sort_keys=True).encode()).digest())
        self.now = int(time.time())
        claims = {"iss": ISSUER, "aud": RESOURCE, "sub": "py-user", "scope": "mcp:tools",
                  "iat": self.now, "exp": self.now + 300}
        self.token = jwt.encode({**claims, "cnf": {"jkt": jkt}}, issuer_key, algorithm="RS256",
                                headers={"kid": "k1"})
        self.unbound = jwt.encode(claims, issuer_key, algorithm="RS256", headers={"kid": "k1"})
        self.id_jag = jwt.encode(claims, issuer_key, algorithm="RS256", headers={"kid": "k1", "typ": "oauth-id-jag+jwt"})

    def proof(self, **claims: Any) -> str:
        body = {"htm": "POST", "htu": RESOURCE, "iat": self.now, "jti": str(uuid.uuid4()),
                "ath": b64(hashlib.sha256(self.token.encode()).digest()), **claims}
        return str(jwt.encode(body, self.client_key, algorithm="ES256",
                              headers={"typ": "dpop+jwt", "jwk": self.members}))

    def case_proof(self, case: dict[str, Any], token: str) -> str:
        """A proof of `case` (tests/config/dpop-cases.json) for a request carrying `token`."""
        body = {"htm": "POST", "htu": RESOURCE, "iat": int(time.time()) + case.get("iat_offset", 0),
                "jti": str(uuid.uuid4()),
                "ath": b64(hashlib.sha256(case.get("ath_of", token).encode()).digest()), **case.get("claims", {})}
        key, jwk, alg = self.client_key, dict(self.members), "ES256"
        how = case.get("key")
        if how in ("other_key", "thief"):
            key = ec.generate_private_key(ec.SECP256R1())
            if how == "thief":
                own = json.loads(jwt.algorithms.ECAlgorithm.to_jwk(key.public_key()))
                jwk = {k: own[k] for k in ("crv", "kty", "x", "y")}
        elif how == "private_jwk":
            jwk["d"] = "AAAA"
        header = {"typ": "dpop+jwt", "jwk": jwk, **case.get("header", {})}
        if how == "unsigned":
            head = b64(json.dumps({**header, "alg": "none"}).encode())
            return f"{head}.{b64(json.dumps(body).encode())}."
        if how == "hmac":
            header["jwk"] = {"kty": "oct", "k": "c2hhcmVk"}
            return str(jwt.encode(body, "shared-secret-of-32-bytes-length", algorithm="HS256", headers=header))
        return str(jwt.encode(body, key, algorithm=alg, headers=header))


def call(port: int, auth: str, dpop: str | list[str] | None) -> tuple[int, Any, dict[str, Any]]:
    """`tools/call whoami` with this Authorization and DPoP header(s): status, headers, JSON body."""
    meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {}}
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                       "params": {"name": "whoami", "arguments": {}, "_meta": meta}}).encode()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
    try:
        conn.putrequest("POST", "/mcp")
        for k, v in (("Content-Type", "application/json"), ("Accept", "application/json, text/event-stream"),
                     ("MCP-Protocol-Version", "2026-07-28"), ("Mcp-Method", "tools/call"),
                     ("Mcp-Name", "whoami"), ("Authorization", auth), ("Content-Length", str(len(body)))):
            conn.putheader(k, v)
        # http.client sends a repeated header as given, so two proofs are two DPoP headers.
        for p in [dpop] if isinstance(dpop, str) else dpop or []:
            conn.putheader("DPoP", p)
        conn.endheaders(body)
        r = conn.getresponse()
        return r.status, r.headers, json.loads(r.read())
    finally:
        conn.close()


@pytest.fixture
def serve(tmp_path: Path) -> Iterator[Callable[[Keys, dict[str, Any]], int]]:
    """Start an ASGI server with these keys and extra `Server` options; its port."""
    script = tmp_path / "server.py"
    script.write_text(SERVER)
    procs: list[subprocess.Popen[bytes]] = []

    def start(keys: Keys, extra: dict[str, Any]) -> int:
        port = free_port()
        proc = subprocess.Popen([sys.executable, str(script), str(port), RESOURCE, ISSUER, json.dumps(keys.jwks),
                                 json.dumps(extra)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        procs.append(proc)
        wait_listening(port, proc)
        return port

    yield start
    for p in procs:
        stop(p)


def test_the_asgi_mount_applies_the_dpop_rule(serve: Callable[[Keys, dict[str, Any]], int]) -> None:
    keys = Keys()
    port = serve(keys, {"oauth": {"dpop_nonce": True}})
    token = keys.token
    status, headers, body = call(port, f"DPoP {token}", keys.proof())
    assert status == 401 and body["error"] == "use_dpop_nonce", body
    assert headers["WWW-Authenticate"].startswith('DPoP error="use_dpop_nonce"')
    nonce = headers["DPoP-Nonce"]
    status, _, ok = call(port, f"DPoP {token}", keys.proof(nonce=nonce))
    assert status == 200, ok
    assert ok["result"]["content"][0]["text"] == "dpop"
    status, headers, body = call(port, f"DPoP {token}", keys.proof(htm="GET", nonce=nonce))
    assert status == 401 and body["error"] == "invalid_dpop_proof", body
    challenge = headers["WWW-Authenticate"]
    assert challenge.startswith('DPoP error="invalid_dpop_proof"') and 'algs="ES256 ' in challenge
    status, headers, body = call(port, f"Bearer {token}", None)
    challenge = headers["WWW-Authenticate"]
    assert status == 401 and challenge.startswith('DPoP error="invalid_token"'), (challenge, body)


def test_three_replicas_sharing_a_redis_refuse_a_proof_replayed_to_the_others(
        serve: Callable[[Keys, dict[str, Any]], int]) -> None:
    redis, redis_port = start_redis()
    try:
        keys = Keys()
        shared = {"redis_url": f"redis://127.0.0.1:{redis_port}/", "state_key": "dpop-test-state-key-0123456789"}
        a, b, c = serve(keys, shared), serve(keys, shared), serve(keys, shared)
        auth = f"DPoP {keys.token}"
        proof = keys.proof()
        assert call(a, auth, proof)[0] == 200
        for other in (b, c):
            status, _, body = call(other, auth, proof)
            assert status == 401 and body == {"error": "invalid_dpop_proof",
                                              "error_description": "The DPoP proof was used before"}, body
        assert call(c, auth, keys.proof())[0] == 200
    finally:
        stop(redis)


CASES = json.loads((Path(__file__).resolve().parents[1] / "config" / "dpop-cases.json").read_text())


def test_every_dpop_case_of_the_shared_table(serve: Callable[[Keys, dict[str, Any]], int]) -> None:
    """tests/config/dpop-cases.json through the ASGI mount: the same answers as the Rust server's."""
    keys = Keys()
    port = serve(keys, {"oauth": CASES["oauth"], **CASES["server"]})
    for case in CASES["cases"]:
        token = {"bound": keys.token, "unbound": keys.unbound, "id_jag": keys.id_jag}[case["token"]]
        auth = f"{case['scheme']} {token}"
        proof: str | list[str] | None = None
        if case["proof"] in ("good", "replayed"):
            proof = keys.case_proof(case, token)
        elif case["proof"] == "two":
            proof = [keys.case_proof(case, token), keys.case_proof(case, token)]
        if case["proof"] == "replayed":
            assert call(port, auth, proof)[0] == 200, case["name"]
        status, headers, body = call(port, auth, proof)
        want = case["expect"]
        assert status == want["status"], (case["name"], body)
        if status == 200:
            assert body["result"]["content"][0]["text"] == "dpop", (case["name"], body)
            continue
        assert {k: body.get(k) for k in ("error", "error_description")} == {
            "error": want["error"], "error_description": want["error_description"]}, case["name"]
        assert headers.get_all("WWW-Authenticate")[0].startswith(want["challenge"]), (case["name"], headers)

