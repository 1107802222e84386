"""The 2024-11-05 HTTP+SSE transport across replicas: the stream (`GET /sse`) is held by replica A while
its POSTs land on B and C (addressed directly, no balancer in the way). The official client's
`sse_client` drives a session whose POSTs a pinning transport sends elsewhere: the answers, progress
notifications and a sampling request reach the client down A's stream, and the client's answer to
the sampling request, POSTed to a third replica, reaches the handler. Another caller's POST to the
stream is 404 on every replica, and so is any POST once the stream has closed or A has died."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

import httpx2
from cluster import Cluster

ALICE, BOB = "alice-token-0123456789", "bob-token-0123456789"
ENV = {
    "OXMCP_SSE": "1",
    "OXMCP_TOKENS": f"alice={ALICE},bob={BOB}",
    # Streams renew their record in Redis every keep-alive; a dead replica's lapse in 1 s.
    "OXMCP_KEEP_ALIVE_MS": "300",
}


def bearer(token: str) -> dict[str, str]:
    return {"authorization": f"Bearer {token}"}


class Pin(httpx2.AsyncBaseTransport):
    """Sends each POST to replica B (requests) or C (`initialize`, notifications and the client's
    answers), whatever the endpoint event named; the GET stays where it was sent."""

    def __init__(self, b: int, c: int) -> None:
        self.inner = httpx2.AsyncHTTPTransport()
        self.b, self.c = b, c
        self.posts: list[tuple[int, str]] = []

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        if request.method == "POST":
            body = json.loads(request.content)
            method = body.get("method", "(response)")
            port = self.b if "id" in body and "method" in body and method != "initialize" else self.c
            request.url = request.url.copy_with(port=port)
            request.headers["host"] = f"127.0.0.1:{port}"
            self.posts.append((port, method))
        return await self.inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self.inner.aclose()


async def post(port: int, stream: str, msg: dict[str, Any], token: str) -> int:
    async with httpx2.AsyncClient(timeout=10) as h:
        r = await h.post(f"http://127.0.0.1:{port}/messages?session_id={stream}", json=msg, headers=bearer(token))
        return r.status_code


async def until_gone(ports: list[int], stream: str, within: float) -> None:
    """Every replica answers a POST for `stream` 404 within `within` seconds."""
    ping = {"jsonrpc": "2.0", "id": 99, "method": "ping"}
    deadline = time.monotonic() + within
    for port in ports:
        while (status := await post(port, stream, ping, ALICE)) != 404:
            assert time.monotonic() < deadline, f"replica on {port} still answers {status} for stream {stream}"
            await asyncio.sleep(0.1)


async def session_across_replicas(c: Cluster) -> None:
    from mcp import ClientSession
    from mcp.client.sse import sse_client
    from mcp.types import CreateMessageResult, TextContent

    a, b, cc = c.ports
    pin = Pin(b, cc)
    streams: list[str] = []
    progress: list[float] = []

    def factory(headers: Any = None, timeout: Any = None, auth: Any = None) -> httpx2.AsyncClient:
        return httpx2.AsyncClient(headers=headers, timeout=timeout, auth=auth, transport=pin)

    async def sampling(_ctx: Any, params: Any) -> CreateMessageResult:
        text = params.messages[0].content.text
        return CreateMessageResult(role="assistant", model="m", content=TextContent(type="text", text=f"<{text}>"))

    async def on_progress(p: float, total: float | None, message: str | None) -> None:
        progress.append(p)

    async with (
        sse_client(f"http://127.0.0.1:{a}/sse", headers=bearer(ALICE), httpx_client_factory=factory,
                   on_session_created=streams.append) as (read, write),
        ClientSession(read, write, sampling_callback=sampling) as s,
    ):
        await asyncio.wait_for(s.initialize(), 20)
        tools = await asyncio.wait_for(s.list_tools(), 20)
        assert {"test_simple_text", "test_tool_with_progress", "test_sampling"} <= {t.name for t in tools.tools}
        r = await asyncio.wait_for(s.call_tool("test_tool_with_progress", {}, progress_callback=on_progress), 20)
        assert r.is_error is False, r
        assert progress[-1] == 100 and len(progress) >= 2, progress
        r = await asyncio.wait_for(s.call_tool("test_sampling", {"prompt": "hello"}), 30)
        assert r.is_error is False and "<hello>" in str(r.content), r

        # Every POST landed on B or C, the sampling answer on C while B ran the call.
        assert {p for p, _ in pin.posts} == {b, cc}, pin.posts
        assert (b, "tools/call") in pin.posts and (cc, "(response)") in pin.posts, pin.posts
        [stream] = streams
        # Another caller's POST to the stream is 404 wherever it lands; so is an unknown stream.
        ping = {"jsonrpc": "2.0", "id": 7, "method": "ping"}
        for port in (a, b, cc):
            assert await post(port, stream, ping, BOB) == 404
            assert await post(port, "0" * 32, ping, ALICE) == 404
    # The stream closed: its record is gone, on every replica.
    await until_gone([a, b, cc], stream, 5)


async def test_sse_stream_on_one_replica_posts_on_the_others(lang: str, tmp_path: Path) -> None:
    with Cluster(lang, tmp_path / "cluster", env=ENV) as c:
        await session_across_replicas(c)

        # A dies: the POSTs of its stream (and so its session) get 404 on the survivors.
        a, b, cc = c.ports
        async with (
            httpx2.AsyncClient(timeout=httpx2.Timeout(10, read=30)) as h,
            h.stream("GET", f"http://127.0.0.1:{a}/sse", headers=bearer(ALICE)) as resp,
        ):
            assert resp.status_code == 200
            lines = resp.aiter_lines()
            endpoint = ""
            while not endpoint.startswith("data: "):
                endpoint = await asyncio.wait_for(lines.__anext__(), 10)
            stream = endpoint.split("session_id=")[1]

            async def answer() -> Any:
                while not (line := await asyncio.wait_for(lines.__anext__(), 10)).startswith("data: "):
                    pass
                return json.loads(line[6:])

            # initialize on B, ping on C: both answers come down A's stream.
            init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": "2024-11-05", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
            assert await post(b, stream, init, ALICE) == 202
            assert (await answer())["result"]["protocolVersion"] == "2024-11-05"
            assert await post(cc, stream, {"jsonrpc": "2.0", "id": 2, "method": "ping"}, ALICE) == 202
            assert await answer() == {"jsonrpc": "2.0", "id": 2, "result": {}}
            c.kill_replica(0)
        await until_gone([b, cc], stream, 5)
