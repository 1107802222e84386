"""``fastmcp.server.middleware.rate_limiting``: FastMCP's rate limiting middleware on the core's limits.

    mcp.add_middleware(RateLimitingMiddleware(max_requests_per_second=10, burst_capacity=20))
    mcp.add_middleware(SlidingWindowRateLimitingMiddleware(max_requests=100, window_minutes=1))

Each limiter is one of the core's single-key limits (``oxmcp.limits::TokenBucket`` and
``SlidingWindow``): this module only picks the key (``get_client_id(context)``, else one shared
``"global"`` key, as FastMCP does), reads the monotonic clock the way FastMCP does (``time.monotonic``),
and turns a refusal into FastMCP's error, ``RateLimitError`` (JSON-RPC -32000 with FastMCP's text),
which the client receives as that error. A request over the limit never reaches the rest of the chain.
"""

from __future__ import annotations

import inspect
import time
import warnings
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from typing import Any, Generic, TypeVar

from ..._oxmcp import NativeSlidingWindow, NativeTokenBucket
from ...exceptions import FastMCPDeprecationWarning
from ...shared.exceptions import McpError
from . import CallNext, Middleware, MiddlewareContext

__all__ = [
    "RateLimitError",
    "RateLimitingMiddleware",
    "SlidingWindowRateLimiter",
    "SlidingWindowRateLimitingMiddleware",
    "TokenBucketRateLimiter",
]

L = TypeVar("L", "TokenBucketRateLimiter", "SlidingWindowRateLimiter")
ClientId = Callable[[MiddlewareContext], str] | Callable[[MiddlewareContext], Awaitable[str]]


class RateLimitError(McpError):
    """The error a request over the limit ends with: JSON-RPC -32000."""

    def __init__(self, message: str = "Rate limit exceeded") -> None:
        super().__init__(code=-32000, message=message)


class TokenBucketRateLimiter:
    """``capacity`` tokens, refilled at ``refill_rate`` per second; each request takes one."""

    def __init__(self, capacity: float, refill_rate: float) -> None:
        self.capacity = capacity
        self.refill_rate = refill_rate
        self._native = NativeTokenBucket(float(capacity), float(refill_rate), time.monotonic())

    @property
    def tokens(self) -> float:
        return self._native.tokens

    @tokens.setter
    def tokens(self, value: float) -> None:
        self._native.tokens = float(value)

    @property
    def last_refill(self) -> float:
        """The ``time.monotonic()`` reading of the last refill."""
        return self._native.at

    @last_refill.setter
    def last_refill(self, value: float) -> None:
        self._native.at = float(value)

    def _take(self, tokens: float = 1) -> bool:
        return self._native.take(float(tokens), time.monotonic())

    async def consume(self, tokens: int = 1) -> bool:
        """Take ``tokens`` (all or none); ``False`` when the bucket holds fewer."""
        return self._take(tokens)


class SlidingWindowRateLimiter:
    """At most ``max_requests`` in any ``window_seconds``."""

    def __init__(self, max_requests: int, window_seconds: float) -> None:
        self.max_requests = max_requests
        self.window_seconds = window_seconds
        self._native = NativeSlidingWindow(int(max_requests), float(window_seconds))

    @property
    def requests(self) -> Any:
        """The admitted requests still counted (``len()`` of it)."""
        return self._native

    def _take(self) -> bool:
        return self._native.allow(time.monotonic())

    async def is_allowed(self) -> bool:
        return self._take()


class _PerClientLimiterCache(Generic[L]):
    """One limiter per client id, made on first use (``limiters``). A limiter unused for
    ``idle_timeout`` seconds is in its initial state again (a full bucket, an empty window), so it
    is forgotten: at most a few of the least recently used are looked at per request, so a stream of
    new ids cannot grow the table without bound and no request scans it whole. One still in use by
    a request is kept. ``idle_timeout=None``: never forgotten (a bucket that does not refill)."""

    SWEEP = 64

    def __init__(self, factory: Callable[[], L], *, idle_timeout: float | None) -> None:
        self._factory: Callable[[], L] = factory
        self._idle_timeout = idle_timeout
        self.limiters: dict[str, L] = {}
        self._used: OrderedDict[str, float] = OrderedDict()
        self._in_use: dict[str, int] = {}

    def _sweep(self, now: float) -> None:
        if self._idle_timeout is None:
            return
        for _ in range(min(self.SWEEP, len(self._used))):
            client_id, used = next(iter(self._used.items()))
            if self._in_use.get(client_id):
                self._used[client_id] = now
                self._used.move_to_end(client_id)
            elif used < now - self._idle_timeout:
                del self._used[client_id]
                self.limiters.pop(client_id, None)
            else:
                break

    def _touch(self, client_id: str, now: float) -> None:
        self._used[client_id] = now
        self._used.move_to_end(client_id)

    async def acquire(self, client_id: str) -> L:
        """The limiter of ``client_id``, held in use until :meth:`release`."""
        now = time.monotonic()
        self._sweep(now)
        limiter = self.limiters.get(client_id)
        if limiter is None:
            limiter = self.limiters[client_id] = self._factory()
        self._touch(client_id, now)
        self._in_use[client_id] = self._in_use.get(client_id, 0) + 1
        return limiter

    async def release(self, client_id: str) -> None:
        self._touch(client_id, time.monotonic())
        left = self._in_use.pop(client_id, 0) - 1
        if left > 0:
            self._in_use[client_id] = left

    async def take(self, client_id: str) -> bool:
        """Charge one request to ``client_id``'s limiter: admitted or not."""
        limiter = await self.acquire(client_id)
        try:
            return limiter._take()
        finally:
            await self.release(client_id)


async def _client_id(get_client_id: ClientId | None, context: MiddlewareContext) -> str:
    if get_client_id is None:
        return "global"
    client_id = get_client_id(context)
    if inspect.isawaitable(client_id):
        client_id = await client_id
    return client_id  # type: ignore[return-value]


class RateLimitingMiddleware(Middleware):
    """A token bucket per client id (``get_client_id``; without it one bucket for everyone), or
    one for the whole server (``global_limit=True``). ``burst_capacity`` defaults to twice the
    rate (at least 1 for a positive rate; 0 for a rate of 0, which refuses every request)."""

    def __init__(self, max_requests_per_second: float = 10.0, burst_capacity: float | None = None,
                 get_client_id: ClientId | None = None, global_limit: bool = False) -> None:
        if burst_capacity is not None and burst_capacity < 1:
            if max_requests_per_second > 0:
                instead = "Pass burst_capacity=1 for no bursting beyond the steady rate."
            else:
                instead = ("To reject every request, omit burst_capacity: with max_requests_per_second=0 "
                           "the default capacity is 0.")
            warnings.warn(
                f"RateLimitingMiddleware(burst_capacity={burst_capacity!r}) is deprecated and will raise a "
                "ValueError in FastMCP 5: a bucket of less than one token admits no request, so 0 falls back "
                f"to the default and other values refuse every request. {instead}",
                FastMCPDeprecationWarning,
                stacklevel=2,
            )
        default = int(max_requests_per_second * 2)
        if max_requests_per_second > 0:
            default = max(1, default)
        self.max_requests_per_second = max_requests_per_second
        self.burst_capacity = burst_capacity or default
        self.get_client_id = get_client_id
        self.global_limit = global_limit
        # A bucket unused for capacity / rate seconds is full again; one that does not refill may
        # stay empty for ever, so it is kept.
        idle: float | None = None
        if self.burst_capacity <= 0:
            idle = 0
        elif max_requests_per_second > 0:
            idle = self.burst_capacity / max_requests_per_second
        self._limiters: _PerClientLimiterCache[TokenBucketRateLimiter] = _PerClientLimiterCache(
            self._bucket, idle_timeout=idle)
        self.limiters = self._limiters.limiters
        if global_limit:
            self.global_limiter = self._bucket()

    def _bucket(self) -> TokenBucketRateLimiter:
        return TokenBucketRateLimiter(self.burst_capacity, self.max_requests_per_second)

    async def _get_client_identifier(self, context: MiddlewareContext) -> str:
        return await _client_id(self.get_client_id, context)

    async def on_request(self, context: MiddlewareContext, call_next: CallNext) -> Any:
        if self.global_limit:
            if not self.global_limiter._take():
                raise RateLimitError("Global rate limit exceeded")
        else:
            client_id = await self._get_client_identifier(context)
            if not await self._limiters.take(client_id):
                raise RateLimitError(f"Rate limit exceeded for client: {client_id}")
        return await call_next(context)


class SlidingWindowRateLimitingMiddleware(Middleware):
    """At most ``max_requests`` per ``window_minutes`` per client id (``get_client_id``; without it
    one window for everyone)."""

    def __init__(self, max_requests: int, window_minutes: int = 1,
                 get_client_id: ClientId | None = None) -> None:
        self.max_requests = max_requests
        self.window_seconds = window_minutes * 60
        self.get_client_id = get_client_id
        self._limiters: _PerClientLimiterCache[SlidingWindowRateLimiter] = _PerClientLimiterCache(
            lambda: SlidingWindowRateLimiter(self.max_requests, self.window_seconds),
            idle_timeout=max(0, self.window_seconds))
        self.limiters = self._limiters.limiters

    async def _get_client_identifier(self, context: MiddlewareContext) -> str:
        return await _client_id(self.get_client_id, context)

    async def on_request(self, context: MiddlewareContext, call_next: CallNext) -> Any:
        client_id = await self._get_client_identifier(context)
        if not await self._limiters.take(client_id):
            raise RateLimitError(f"Rate limit exceeded: {self.max_requests} requests per "
                                 f"{self.window_seconds // 60} minutes for client: {client_id}")
        return await call_next(context)
