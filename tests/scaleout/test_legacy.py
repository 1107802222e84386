"""A 2025-11-25 session through nginx round-robin (no stickiness): its calls, the answers to the
server's elicitation requests and its cancellations land on different replicas, and the session
continues on a survivor when a replica dies (shared SessionStore + forwarding through Redis)."""

from __future__ import annotations

import asyncio
import re
import time
from typing import Any

import anyio
import mcp_types as types
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from clients import Recorder
from cluster import Cluster

ANSI = re.compile(r"\x1b\[[0-9;]*m")


async def answer(_ctx: Any, _params: types.ElicitRequestParams) -> types.ElicitResult:
    return types.ElicitResult(action="accept", content={"name": "Ada", "username": "ada", "email": "ada@example.com"})


def legacy_client(c: Cluster, rec: Recorder) -> Client:
    return Client(streamable_http_client(c.url, http_client=rec.http_client()), mode="legacy",
                  elicitation_callback=answer)


def ran_on(c: Cluster, rec: Recorder, tool: str) -> int:
    return c.replica_of(next(h.upstream for h in reversed(rec.hops) if h.mcp_method == "tools/call" and h.name == tool))


async def test_python_legacy_session_calls_answers_and_cancels_cross_replicas(cluster: Cluster) -> None:
    rec = Recorder()
    async with legacy_client(cluster, rec) as client:
        for _ in range(3):
            r = await asyncio.wait_for(client.call_tool("test_simple_text", {}), 20)
            assert r.is_error is False, r
        calls = [cluster.replica_of(h.upstream) for h in rec.hops if h.mcp_method == "tools/call"]
        assert len(set(calls)) >= 2, calls

        # Elicitation: the request goes out on the stream of the replica running the handler; the
        # client's answer is a new POST, which round-robin sends elsewhere (forwarded via Redis).
        crossed = 0
        for _ in range(3):
            mark = len(rec.hops)
            r = await asyncio.wait_for(client.call_tool("test_elicitation", {"message": "Who are you?"}), 30)
            assert r.is_error is False and "accept" in str(r.content), r
            await asyncio.sleep(0.3)  # the answer POST's 202 may be recorded after the result arrives
            runner = ran_on(cluster, rec, "test_elicitation")
            answers = [cluster.replica_of(h.upstream) for h in rec.hops[mark:] if h.mcp_method == "(response)"]
            assert answers, rec.hops[mark:]
            crossed += any(a != runner for a in answers)
        assert crossed, "every elicitation answer landed on the replica running the call"

        # Cancellation: notifications/cancelled lands elsewhere and still stops the running handler.
        mark = len(rec.hops)
        with anyio.move_on_after(1.5):
            await client.call_tool("slow_compute", {"seconds": 6})
        await asyncio.sleep(0.5)
        runner = ran_on(cluster, rec, "slow_compute")
        cancels = [cluster.replica_of(h.upstream) for h in rec.hops[mark:] if h.mcp_method == "notifications/cancelled"]
        assert cancels, rec.hops[mark:]
        deadline = time.monotonic() + 5
        pattern = re.compile(r'name=slow_compute .*outcome="cancelled"')
        while not pattern.search(ANSI.sub("", cluster.replica_log(runner))):
            assert time.monotonic() < deadline, f"replica {runner} never cancelled slow_compute (cancel sent to {cancels})"
            await asyncio.sleep(0.1)
        # The session goes on.
        r = await asyncio.wait_for(client.call_tool("test_simple_text", {}), 20)
        assert r.is_error is False


async def test_legacy_session_continues_on_a_survivor(cluster: Cluster) -> None:
    rec = Recorder()
    async with legacy_client(cluster, rec) as client:
        for _ in range(3):
            assert (await asyncio.wait_for(client.call_tool("test_simple_text", {}), 20)).is_error is False
        victim = cluster.replica_of(rec.hops[0].upstream)  # the replica that answered initialize
        cluster.kill_replica(victim)
        mark = len(rec.hops)
        for _ in range(6):
            r = await asyncio.wait_for(client.call_tool("test_simple_text", {}), 20)
            assert r.is_error is False, r
        after = [h for h in rec.hops[mark:] if h.mcp_method == "tools/call"]
        assert all(h.status == 200 and cluster.replica_of(h.upstream) != victim for h in after), after
