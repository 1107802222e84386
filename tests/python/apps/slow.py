"""A server with handlers that outlive a request, for the shutdown and disconnect tests.

    python slow.py [--http HOST:PORT]     (OXMCP_DRAIN_MS sets the drain deadline,
                                           SLOW_WORKERS the sync pool's size,
                                           SLOW_MIDDLEWARE=1 a middleware on tools/call)

It prints ``started <tool>`` / ``cancelled <tool>`` / ``finished <tool>`` on stderr.
"""

import asyncio
import ctypes
import os
import sys
import time
from typing import Any

from oxmcp import Context, Server
from oxmcp.server.middleware import Middleware, MiddlewareContext

server = Server("slow", drain_timeout_ms=int(os.environ.get("OXMCP_DRAIN_MS", "5000")),
                max_workers=int(os.environ.get("SLOW_WORKERS", "0")) or None)


def note(what: str) -> None:
    print(what, file=sys.stderr, flush=True)


@server.tool
async def sleep_async(seconds: float = 60) -> str:
    """Sleep on the loop; report cancellation."""
    note("started sleep_async")
    try:
        await asyncio.sleep(seconds)
    except asyncio.CancelledError:
        note("cancelled sleep_async")
        raise
    note("finished sleep_async")
    return "slept"


@server.tool
def sleep_sync(seconds: float, ctx: Context) -> str:
    """Sleep on a pool thread, polling ctx.cancelled."""
    note("started sleep_sync")
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if ctx.cancelled:
            note("cancelled sleep_sync")
            return "cancelled"
        time.sleep(0.01)
    note("finished sleep_sync")
    return "slept"


@server.tool
def hold_gil(seconds: float) -> str:
    """Hold the GIL for `seconds` in one C call (a ctypes.PyDLL call keeps it): no other Python
    code, the dispatcher's included, runs meanwhile."""
    note("started hold_gil")
    ctypes.PyDLL(None).usleep(int(seconds * 1_000_000))
    note("finished hold_gil")
    return "held"


@server.tool
async def mark() -> str:
    """Print `mark` from the loop: what the dispatcher queued before this call has run by then."""
    note("mark")
    return "marked"


@server.tool
def mark_sync() -> str:
    """`mark`, from the sync pool: with one worker, what it queued before this call has run."""
    note("mark")
    return "marked"


@server.resource("mem://counted")
def counted() -> str:
    """A sync read that says when it runs."""
    note("read counted")
    return "counted"


@server.tool
def add(a: int, b: int) -> int:
    return a + b


if os.environ.get("SLOW_MIDDLEWARE"):
    class Noting(Middleware):
        async def on_call_tool(self, context: MiddlewareContext, call_next: Any) -> Any:
            note(f"middleware saw {context.message.name}")
            return await call_next(context)

    server.add_middleware(Noting())


if __name__ == "__main__":
    server.main()
