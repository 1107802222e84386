"""The MCP Inspector's CLI as a client of the Rust and Python everything servers: it lists the tools
and calls one over the 2024-11-05 HTTP+SSE transport (`--transport sse`), Streamable HTTP and stdio.
One HTTP server per language serves both HTTP transports; the Inspector starts the stdio one itself.
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


def inspector(tmp: Path, *args: str) -> Any:
    """One Inspector CLI run; its result (`--format json` prints `{"result": ...}`). Its catalog and client config stay in `tmp`."""
    env = {**os.environ, "MCP_CATALOG_PATH": str(tmp / "catalog.json"),
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
