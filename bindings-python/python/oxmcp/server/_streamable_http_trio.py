"""``StreamableHTTPSessionManager`` entered from trio (anyio's trio backend, as the SDK's apps and tests
may run): the native layer completes its futures on an asyncio loop, so the manager serves on one of its
own (``_loops.LoopThread``). The server's lifespan is held open there by one task for as long as
``run()`` is; each request is answered there, and its ASGI ``receive``/``send`` are called back on the
trio loop that made the request. On asyncio none of this runs."""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
from collections.abc import AsyncIterator, Coroutine
from typing import Any

#: Threads that carry calls back to the trio loop: a streamed answer holds one while it waits for the
#: client to leave.
_BRIDGE_THREADS = 64


@contextlib.asynccontextmanager
async def lifespan(manager: Any) -> AsyncIterator[None]:
    """Hold the server's lifespan open on the manager's own asyncio loop for the duration."""
    import anyio.to_thread

    from .._loops import LoopThread

    thread = LoopThread()
    thread.loop.set_default_executor(concurrent.futures.ThreadPoolExecutor(_BRIDGE_THREADS, "oxmcp-trio-bridge"))
    ready: concurrent.futures.Future[asyncio.Future[None]] = concurrent.futures.Future()

    async def hold() -> None:
        leave: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        try:
            async with manager._lifespan():
                ready.set_result(leave)
                await leave
        except BaseException as e:
            if not ready.done():
                ready.set_exception(e)
            raise

    held = asyncio.run_coroutine_threadsafe(hold(), thread.loop)
    try:
        leave = await anyio.to_thread.run_sync(ready.result)
    except BaseException:
        thread.close()
        raise
    manager._loop_thread = thread
    try:
        yield
    finally:
        manager._loop_thread = None
        thread.loop.call_soon_threadsafe(_settle, leave)
        try:
            await anyio.to_thread.run_sync(held.result)
        finally:
            thread.close()


def _settle(leave: asyncio.Future[None]) -> None:
    if not leave.done():
        leave.set_result(None)


async def on_loop(manager: Any, coro: Coroutine[Any, Any, None]) -> None:
    """Await ``coro`` on the loop the manager serves on."""
    if manager._loop_thread is None:
        await coro
    else:
        await manager._loop_thread.run(coro)


async def handle(manager: Any, scope: Any, receive: Any, send: Any) -> None:
    """Answer one request on the manager's loop, calling ``receive``/``send`` on the caller's (trio) loop."""
    from .._loops import calling_back

    receive_back, send_back = calling_back(receive, send)
    await manager._loop_thread.run(manager._handle(scope, receive_back, send_back))
