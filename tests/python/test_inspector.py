"""The MCP Inspector's CLI as a client of the Rust and Python everything servers: it lists the tools
and calls one over the 2024-11-05 HTTP+SSE transport (`--transport sse`), Streamable HTTP and stdio.
One HTTP server per language serves both HTTP transports; the Inspector starts the stdio one itself.
It also calls the Rust server over TLS, and through an HTTP/2 hop.
(tests/node/inspector.test.mjs does the same against the Node server.)"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from procs import ROOT, free_port, stop, wait_listening

INSPECTOR = ROOT / ".cache" / "tools" / "inspector" / "node_modules" / ".bin" / "mcp-inspector"


def _rust_everything() -> Path:
    target = Path(os.environ.get("CARGO_TARGET_DIR") or ROOT / "target")
    subprocess.run(["cargo", "build", "-q", "-p", "oxmcp-examples", "--bin", "everything"], cwd=ROOT, check=True,
                   timeout=900)
    return target / "debug" / "everything"


def _command(lang: str) -> list[str]:
    if lang == "rust":
        return [str(_rust_everything())]
    return [sys.executable, str(ROOT / "examples" / "python" / "everything.py")]


def inspector(tmp: Path, *args: str, env: dict[str, str] | None = None) -> Any:
    """One Inspector CLI run; its result (`--format json` prints `{"result": ...}`). Its catalog and client config stay in `tmp`."""
    env = {**os.environ, **(env or {}), "MCP_CATALOG_PATH": str(tmp / "catalog.json"),
           "MCP_CLIENT_CONFIG_PATH": str(tmp / "client.json")}
    p = subprocess.run([str(INSPECTOR), "--cli", *args, "--format", "json", "-q"], capture_output=True, text=True,
                       timeout=60, env=env, cwd=tmp, check=False)
    assert p.returncode == 0, f"inspector {' '.join(args)} exited {p.returncode}:\n{p.stdout}\n{p.stderr}"
    return json.loads(p.stdout)["result"]


@pytest.mark.parametrize("lang", ["rust", "python"])
def test_the_inspector_lists_and_calls_over_sse_http_and_stdio(lang: str, tmp_path: Path) -> None:
    assert INSPECTOR.exists(), f"{INSPECTOR} missing: run scripts/setup.sh"
    cmd = _command(lang)
    port = free_port()
    server = subprocess.Popen([*cmd, "--http", f"127.0.0.1:{port}"], stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, env={**os.environ, "OXMCP_SSE": "1"})
    try:
        wait_listening(port, server, timeout=60)
        targets = {
            "sse": [f"http://127.0.0.1:{port}/sse", "--transport", "sse"],
            "http": [f"http://127.0.0.1:{port}/mcp", "--transport", "http"],
            "stdio": [*cmd, "--transport", "stdio"],
        }
        runs = [(t, m) for t in targets for m in ("tools/list", "tools/call")]

        def run(t: str, m: str) -> Any:
            d = tmp_path / f"{t}-{m.replace('/', '-')}"
            d.mkdir()
            extra = ["--tool-name", "test_simple_text"] if m == "tools/call" else []
            return inspector(d, *targets[t], "--method", m, *extra)

        # Node's start-up is most of each run's time: three at once.
        with ThreadPoolExecutor(3) as pool:
            results = dict(zip(runs, pool.map(lambda r: run(*r), runs)))
    finally:
        stop(server)
    for t in targets:
        names = {tool["name"] for tool in results[(t, "tools/list")]["tools"]}
        assert {"test_simple_text", "test_sampling", "test_tool_with_progress"} <= names, (t, names)
        assert results[(t, "tools/call")]["content"] == [
            {"type": "text", "text": "This is a simple text response for testing."}], (t, results[(t, "tools/call")])


def _pki(d: Path) -> tuple[Path, Path, Path]:
    """A test CA and a P-256 certificate for 127.0.0.1 signed by it (the openssl CLI)."""
    def ssl(*args: str) -> None:
        subprocess.run(["openssl", *args], cwd=d, check=True, capture_output=True, timeout=60)

    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"]
    ssl("req", "-x509", *ec, "-keyout", "ca.key", "-subj", "/CN=oxmcp inspector test CA", "-days", "2", "-out", "ca.pem")
    ssl("req", "-new", *ec, "-keyout", "leaf.key", "-subj", "/CN=127.0.0.1", "-out", "leaf.csr")
    (d / "ext.cnf").write_text("subjectAltName=IP:127.0.0.1\n")
    ssl("x509", "-req", "-in", "leaf.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-set_serial", "7", "-days", "2",
        "-extfile", "ext.cnf", "-out", "leaf.pem")
    return d / "ca.pem", d / "leaf.pem", d / "leaf.key"


def test_the_inspector_calls_over_tls_and_through_an_http2_hop(tmp_path: Path) -> None:
    # TLS: the Rust server with a certificate of a test CA the Inspector's Node trusts
    # (NODE_EXTRA_CA_CERTS). HTTP/2: the Inspector's client speaks HTTP/1.1 only (Node's fetch), so
    # it reaches the server through tests/conformance/h2-proxy.mjs, whose upstream is one h2c
    # connection, as a client behind an HTTP/2 proxy does.
    assert INSPECTOR.exists(), f"{INSPECTOR} missing: run scripts/setup.sh"
    cmd = _command("rust")
    ca, cert, key = _pki(tmp_path)
    tls_port, plain_port = free_port(), free_port()
    tls_server = subprocess.Popen([*cmd, "--http", f"127.0.0.1:{tls_port}"], stdout=subprocess.DEVNULL,
                                  stderr=subprocess.PIPE,
                                  env={**os.environ, "OXMCP_TLS_CERT": str(cert), "OXMCP_TLS_KEY": str(key)})
    plain_server = subprocess.Popen([*cmd, "--http", f"127.0.0.1:{plain_port}"], stdout=subprocess.DEVNULL,
                                    stderr=subprocess.PIPE)
    hop = subprocess.Popen(["node", str(ROOT / "tests/conformance/h2-proxy.mjs"), f"http://127.0.0.1:{plain_port}"],
                           stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = hop.stdout.readline() if hop.stdout else ""
        assert line.startswith("listening "), line
        hop_port = int(line.split()[1])
        wait_listening(tls_port, tls_server, timeout=60)
        wait_listening(plain_port, plain_server, timeout=60)
        targets = {"tls": f"https://127.0.0.1:{tls_port}/mcp", "h2": f"http://127.0.0.1:{hop_port}/mcp"}

        def run(t: str) -> Any:
            d = tmp_path / t
            d.mkdir()
            return inspector(d, targets[t], "--transport", "http", "--method", "tools/call",
                             "--tool-name", "test_simple_text", env={"NODE_EXTRA_CA_CERTS": str(ca)})

        with ThreadPoolExecutor(2) as pool:
            results = dict(zip(targets, pool.map(run, targets)))
    finally:
        for p in (hop, tls_server, plain_server):
            stop(p)
    for t, r in results.items():
        assert r["content"] == [{"type": "text", "text": "This is a simple text response for testing."}], (t, r)


TS_SSE_CLIENT = """
import path from 'node:path';
import { pathToFileURL } from 'node:url';
const [sdkDir, ...urls] = process.argv.slice(1);
const sdk = (p) => import(pathToFileURL(path.join(sdkDir, p)).href);
const { Client } = await sdk('client/index.js');
const { SSEClientTransport } = await sdk('client/sse.js');
const out = [];
for (const url of urls) {
  const client = new Client({ name: 'ts-sse', version: '1' });
  await client.connect(new SSEClientTransport(new URL(url)));
  const names = (await client.listTools()).tools.map((t) => t.name);
  const call = await client.callTool({ name: 'test_simple_text', arguments: {} });
  out.push({ url, names, content: call.content });
  await client.close();
}
console.log(JSON.stringify(out));
"""


def test_the_ts_sdk_v1_sse_client_against_the_rust_and_python_servers(tmp_path: Path) -> None:
    # The TS SDK v1 `SSEClientTransport` (.cache/peers-node) over the 2024-11-05 transport; against
    # the Node server it runs in tests/node/sdk-sse.test.mjs.
    sdk = ROOT / ".cache" / "peers-node" / "node_modules" / "@modelcontextprotocol" / "sdk" / "dist" / "esm"
    assert (sdk / "client" / "sse.js").exists(), f"{sdk} missing: run scripts/setup.sh"
    servers, urls = [], []
    try:
        for lang in ("rust", "python"):
            port = free_port()
            servers.append(subprocess.Popen([*_command(lang), "--http", f"127.0.0.1:{port}"], stdout=subprocess.DEVNULL,
                                            stderr=subprocess.PIPE, env={**os.environ, "OXMCP_SSE": "1"}))
            urls.append(f"http://127.0.0.1:{port}/sse")
            wait_listening(port, servers[-1], timeout=60)
        p = subprocess.run(["node", "--input-type=module", "-e", TS_SSE_CLIENT, str(sdk), *urls], capture_output=True,
                           text=True, timeout=60, cwd=tmp_path, check=False)
    finally:
        for s in servers:
            stop(s)
    assert p.returncode == 0, p.stderr
    results = json.loads(p.stdout)
    assert [r["url"] for r in results] == urls
    for r in results:
        assert {"test_simple_text", "test_sampling"} <= set(r["names"]), r
        assert r["content"] == [{"type": "text", "text": "This is a simple text response for testing."}], r
