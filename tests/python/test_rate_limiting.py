"""FastMCP's rate limiting middleware on the core's limits: the refusal is FastMCP's error
(-32000 with its text) as the client receives it, and a refused request never runs its tool."""

from __future__ import annotations

import pytest

from oxmcp import Client, FastMCP, McpError
from oxmcp.server.middleware.rate_limiting import (
    RateLimitingMiddleware,
    SlidingWindowRateLimitingMiddleware,
    TokenBucketRateLimiter,
)


def _server(middleware: object) -> tuple[FastMCP, list[int]]:
    mcp = FastMCP("limited")
    ran: list[int] = []

    @mcp.tool
    def work(n: int) -> int:
        ran.append(n)
        return n

    mcp.add_middleware(middleware)
    return mcp, ran


async def _until_refused(client: Client, tries: int = 20) -> tuple[int, McpError]:
    for i in range(tries):
        try:
            await client.call_tool("work", {"n": i})
        except McpError as e:
            return i, e
    raise AssertionError("never refused")


@pytest.mark.parametrize(("middleware", "text"), [
    (RateLimitingMiddleware(max_requests_per_second=0.001, burst_capacity=4, get_client_id=lambda ctx: "k"),
     "Rate limit exceeded for client: k"),
    (RateLimitingMiddleware(max_requests_per_second=0.001, burst_capacity=4, global_limit=True),
     "Global rate limit exceeded"),
    (SlidingWindowRateLimitingMiddleware(max_requests=4), "Rate limit exceeded: 4 requests per 1 minutes for client: global"),
])
async def test_a_request_over_the_limit_gets_fastmcps_error_and_runs_nothing(middleware: object, text: str) -> None:
    mcp, ran = _server(middleware)
    async with Client(mcp) as client:
        refused_at, err = await _until_refused(client)
        assert (err.code, err.message) == (-32000, text)
        assert ran == list(range(refused_at)), "the refused call never reached the tool"
        with pytest.raises(McpError):
            await client.call_tool("work", {"n": 99})
    assert 99 not in ran


async def test_a_refilled_bucket_admits_again() -> None:
    middleware = RateLimitingMiddleware(max_requests_per_second=10, burst_capacity=2)
    mcp, _ = _server(middleware)
    async with Client(mcp) as client:
        await _until_refused(client)
        for bucket in middleware.limiters.values():
            bucket.last_refill -= 0.2  # 2 tokens' worth of elapsed time, without sleeping
        assert (await client.call_tool("work", {"n": 7}))["content"][0]["text"] == "7"


def test_the_bucket_is_the_cores_on_the_monotonic_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    import types

    now = [100.0]
    monkeypatch.setattr("oxmcp.server.middleware.rate_limiting.time", types.SimpleNamespace(monotonic=lambda: now[0]))
    b = TokenBucketRateLimiter(capacity=3, refill_rate=1.0)
    assert [b._take() for _ in range(4)] == [True, True, True, False]
    assert b.tokens == 0 and b.last_refill == 100.0
    now[0] += 1.5
    assert b._take() and not b._take()
    assert RateLimitingMiddleware(max_requests_per_second=0).burst_capacity == 0
    assert not TokenBucketRateLimiter(capacity=0, refill_rate=0)._take()
