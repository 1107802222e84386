"""A server with handlers that outlive a request, for the shutdown and disconnect tests.

    python slow.py [--http HOST:PORT]     (OXMCP_DRAIN_MS sets the drain deadline)

It prints ``started <tool>`` / ``cancelled <tool>`` / ``finished <tool>`` on stderr.
"""

import asyncio
import os
import sys
import time

from oxmcp import Context, Server

server = Server("slow", drain_timeout_ms=int(os.environ.get("OXMCP_DRAIN_MS", "5000")))


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
def add(a: int, b: int) -> int:
    return a + b


if __name__ == "__main__":
    server.main()
