"""2026-07-28 (stateless) traffic through nginx round-robin over 3 replicas, with the official
Python client (`mcp.Client`) and the TS SDK client (ts_client.mjs). X-Upstream proves where each
request landed."""

from __future__ import annotations

import asyncio
from typing import Any

import mcp_types as types
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from clients import Recorder, ts_client
from cluster import Cluster

MODERN = "2026-07-28"


async def answer_name(_ctx: Any, _params: types.ElicitRequestParams) -> types.ElicitResult:
    return types.ElicitResult(action="accept", content={"name": "Ada"})


def modern_client(c: Cluster, rec: Recorder, **kw: Any) -> Client:
    transport = streamable_http_client(c.url, http_client=rec.http_client())
    return Client(transport, mode=MODERN, elicitation_callback=answer_name, **kw)


def direct_client(c: Cluster, i: int) -> Client:
    """A client of replica `i` itself, not through nginx."""
    return Client(streamable_http_client(c.direct_url(i), http_client=Recorder().http_client()), mode=MODERN,
                  elicitation_callback=answer_name)


def replicas(c: Cluster, upstreams: list[str]) -> list[int]:
    return [c.replica_of(u) for u in upstreams]


async def test_python_client_mrtr_retries_land_on_other_replicas(cluster: Cluster) -> None:
    """Each round of a multi-round MRTR call is a new POST; round-robin sends the retries (with the
    sealed requestState) to other replicas, which open it with the shared OXMCP_STATE_KEY."""
    rec = Recorder()
    async with modern_client(cluster, rec) as client:
        result = await asyncio.wait_for(client.call_tool("test_input_required_result_multi_round", {}), 60)
        assert result.is_error is False, result
        assert "Ada" in str(result.content)
        state = await asyncio.wait_for(client.call_tool("test_input_required_result_request_state", {}), 60)
        assert state.is_error is False and "state-ok" in str(state.content), state
    calls = replicas(cluster, rec.upstreams("tools/call"))
    assert len(calls) >= 5, rec.hops  # 3+ rounds, then 2 rounds
    assert len(set(calls)) >= 2, f"every round landed on one replica: {calls}"
    # Consecutive rounds of one call on different replicas (round-robin with no stickiness).
    assert any(a != b for a, b in zip(calls, calls[1:])), calls


def test_ts_client_mrtr_retries_land_on_other_replicas(cluster: Cluster) -> None:
    out = ts_client(cluster.url, "mrtr")
    assert out["isError"] is False, out
    assert "Ada" in out["text"], out
    calls = replicas(cluster, [u for m, u, _status in out["hops"] if m == "tools/call"])
    assert len(calls) >= 3, out
    assert len(set(calls)) >= 2, f"every round landed on one replica: {calls}"


async def test_replica_killed_mid_run_modern_calls_keep_succeeding(cluster: Cluster) -> None:
    """SIGKILL one replica between calls: nginx's `proxy_next_upstream error` sends the refused
    request to the next replica, so every call succeeds; afterwards only survivors answer."""
    rec = Recorder()
    victim = 1
    async with modern_client(cluster, rec) as client:
        for i in range(12):
            if i == 4:
                cluster.kill_replica(victim)
                mark = len(rec.hops)
            r = await asyncio.wait_for(client.call_tool("test_simple_text", {}), 20)
            assert r.is_error is False and "simple text" in str(r.content), (i, r)
    before = replicas(cluster, [h.upstream for h in rec.hops[:mark] if h.mcp_method == "tools/call"])
    assert victim in before, before
    after_hops = [h for h in rec.hops[mark:] if h.mcp_method == "tools/call"]
    assert len(after_hops) == 8 and all(h.status == 200 for h in after_hops), after_hops
    assert all(cluster.replica_of(h.upstream) != victim for h in after_hops), after_hops
    # nginx tried the dead replica at least once and moved on (X-Upstream lists both addresses).
    dead = f"127.0.0.1:{cluster.ports[victim]}"
    assert any(dead in h.upstream and "," in h.upstream for h in after_hops), [h.upstream for h in after_hops]


def test_every_replica_gives_the_same_catalog(cluster: Cluster) -> None:
    """The catalog digests (docs/CATALOG.md) are content, not process state: each replica, asked
    directly, gives the same digest for every definition and the same catalog digest."""
    import json
    import urllib.request

    def listed(i: int, method: str, key: str) -> tuple[str, list[tuple[str, str]]]:
        body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": {"_meta": {
            "io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientCapabilities": {}}}})
        req = urllib.request.Request(cluster.direct_url(i), data=body.encode(), method="POST", headers={
            "Content-Type": "application/json", "Accept": "application/json, text/event-stream",
            "MCP-Protocol-Version": MODERN, "Mcp-Method": method})
        with urllib.request.urlopen(req, timeout=20) as r:
            result = json.loads(r.read())["result"]
        items = [(d.get("name") or d["uri"], d["_meta"]["io.oxmcp/digest"]) for d in result[key]]
        return result["_meta"]["io.oxmcp/catalogDigest"], items

    for method, key in [("tools/list", "tools"), ("resources/list", "resources"), ("prompts/list", "prompts")]:
        answers = [listed(i, method, key) for i in range(len(cluster.ports))]
        assert len(answers) == 3 and answers[0][1], answers
        assert all(a == answers[0] for a in answers), (method, answers)
