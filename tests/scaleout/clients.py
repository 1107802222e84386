"""The official clients through the balancer, with a record of which replica answered each request.

Python: `mcp.Client` over `streamable_http_client` with our own httpx client, whose response hook
keeps (Mcp-Method header or JSON-RPC method, X-Upstream) per request. Node: tests/scaleout/ts_client.mjs
(the TS SDK client), run as a child process that prints one JSON object.
"""

from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx2

HERE = Path(__file__).resolve().parent


@dataclass
class Hop:
    http_method: str
    mcp_method: str
    status: int
    upstream: str
    name: str = ""  # params.name of a tools/call


@dataclass
class Recorder:
    hops: list[Hop] = field(default_factory=list)

    async def on_response(self, response: httpx2.Response) -> None:
        rq = response.request
        method, name = rq.headers.get("mcp-method", ""), rq.headers.get("mcp-name", "")
        if rq.method == "POST" and not (method and name):
            try:
                body = json.loads(rq.content or b"{}")
                if isinstance(body, dict):
                    method = method or body.get("method", "(response)")
                    name = name or str((body.get("params") or {}).get("name", ""))
                else:
                    method = "(batch)"
            except (ValueError, httpx2.RequestNotRead):
                method = method or "?"
        self.hops.append(Hop(rq.method, method or rq.method, response.status_code,
                             response.headers.get("x-upstream", ""), name))

    def http_client(self) -> httpx2.AsyncClient:
        return httpx2.AsyncClient(timeout=httpx2.Timeout(30, read=300), event_hooks={"response": [self.on_response]})

    def upstreams(self, mcp_method: str) -> list[str]:
        return [h.upstream for h in self.hops if h.mcp_method == mcp_method]


def ts_client(url: str, scenario: str, *args: str, timeout: float = 90) -> dict[str, Any]:
    """Run one scenario of ts_client.mjs; its last stdout line is a JSON object."""
    p = subprocess.run(["node", str(HERE / "ts_client.mjs"), scenario, url, *args], capture_output=True, text=True,
                       timeout=timeout, cwd=HERE.parents[1])
    lines = [x for x in p.stdout.splitlines() if x.startswith("{")]
    if p.returncode != 0 or not lines:
        raise AssertionError(f"ts_client.mjs {scenario} exited {p.returncode}:\n{p.stdout}\n{p.stderr}")
    return dict(json.loads(lines[-1]))
