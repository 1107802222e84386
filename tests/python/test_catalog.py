"""Catalog digests from Python over real HTTP: the shared fixture gives the digests Rust and Node
give (tests/config/catalog-digests.json), a client holding the catalog digest gets the short
unchanged answer, and ``catalog_signing_key`` signs it. The rules are the core's
(core/tests/security/catalog.rs, docs/CATALOG.md)."""

from __future__ import annotations

import base64
import json
import subprocess
import sys
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric import ed25519 as crypto
from procs import META, ROOT, free_port, stop, wait_listening

CONFIG = ROOT / "tests" / "config"

SERVER = """
import json, sys
from oxmcp import Server

fixture = json.load(open(sys.argv[1]))
options = json.loads(sys.argv[3])
server = Server("fixture", "1.0.0", **options)
server.add_tools([{"fn": lambda **kw: "ok", "name": t["name"], "title": t.get("title"),
                   "description": t.get("description"), "input_schema": t["inputSchema"],
                   "output_schema": t.get("outputSchema"), "annotations": t.get("annotations"),
                   "meta": t.get("_meta")} for t in fixture["tools"]])
for r in fixture["resources"]:
    server.add_resource(lambda: "x", r["uri"], name=r["name"], title=r.get("title"),
                        description=r.get("description"), mime_type=r.get("mimeType"))
server.run("http", host="127.0.0.1", port=int(sys.argv[2]))
"""

# The Ed25519 key with 32 bytes of 9 as its seed, as `openssl genpkey -algorithm ed25519` writes it.
KEY_PEM = ("-----BEGIN PRIVATE KEY-----\n"
           + base64.b64encode(bytes.fromhex("302e020100300506032b657004220420") + bytes([9] * 32)).decode()
           + "\n-----END PRIVATE KEY-----\n")


def start(tmp: Path, options: dict[str, Any]) -> tuple[subprocess.Popen[bytes], int]:
    script = tmp / "server.py"
    script.write_text(SERVER)
    port = free_port()
    proc = subprocess.Popen([sys.executable, str(script), str(CONFIG / "catalog-fixture.json"), str(port),
                             json.dumps(options)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    wait_listening(port, proc, timeout=60)
    return proc, port


def post(port: int, method: str, meta: dict[str, Any] | None = None,
         headers: dict[str, str] | None = None) -> tuple[dict[str, Any], Any]:
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method,
                       "params": {"_meta": {**META, **(meta or {})}}}).encode()
    req = urllib.request.Request(f"http://127.0.0.1:{port}/mcp", data=body, method="POST", headers={
        "Content-Type": "application/json", "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": method, **(headers or {})})
    with urllib.request.urlopen(req, timeout=30) as r:
        return json.loads(r.read())["result"], r.headers


@pytest.fixture(scope="module")
def signed(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    tmp = tmp_path_factory.mktemp("catalog")
    key = tmp / "catalog.pem"
    key.write_text(KEY_PEM)
    proc, port = start(tmp, {"catalog_signing_key": str(key)})
    yield port
    stop(proc)


def test_the_shared_fixture_has_the_committed_digests(signed: int) -> None:
    got = {}
    for method, key in [("tools/list", "tools"), ("resources/list", "resources")]:
        result, _ = post(signed, method)
        ident = "name" if key == "tools" else "uri"
        got[key] = {"catalogDigest": result["_meta"]["io.oxmcp/catalogDigest"],
                    "items": {d[ident]: d["_meta"]["io.oxmcp/digest"] for d in result[key]}}
    assert got == json.loads((CONFIG / "catalog-digests.json").read_text())


def test_unchanged_answer_and_etag(signed: int) -> None:
    full, headers = post(signed, "tools/list")
    digest = full["_meta"]["io.oxmcp/catalogDigest"]
    assert headers["ETag"] == f'"{digest}"'
    for meta, extra in [({"io.oxmcp/ifNoneMatch": digest}, {}), ({}, {"If-None-Match": f'"{digest}"'})]:
        short, _ = post(signed, "tools/list", meta, extra)
        assert short["tools"] == []
        assert short["_meta"]["io.oxmcp/unchanged"] is True
        assert short["_meta"]["io.oxmcp/catalogDigest"] == digest
    other, _ = post(signed, "tools/list", {"io.oxmcp/ifNoneMatch": "sha256:00"})
    assert len(other["tools"]) == 3


def test_the_signature_verifies_with_the_key(signed: int) -> None:
    result, _ = post(signed, "resources/list")
    meta = result["_meta"]
    unb64 = lambda s: base64.urlsafe_b64decode(s.removeprefix("ed25519:") + "==")
    public = crypto.Ed25519PublicKey.from_public_bytes(unb64(meta["io.oxmcp/catalogKey"]))
    public.verify(unb64(meta["io.oxmcp/catalogSignature"]), meta["io.oxmcp/catalogDigest"].encode())
    with pytest.raises(InvalidSignature):
        public.verify(unb64(meta["io.oxmcp/catalogSignature"]), b"sha256:00")
