"""Awaiting oxmcp from an event loop that is not asyncio's (trio, through anyio).

The native layer completes its futures on an asyncio loop. Code written for the ``mcp`` SDK runs under
anyio, so on trio as well: there, the in-process client drives the native layer on an asyncio loop
of its own (one thread per client, for the client's lifetime) and waits for each answer from a worker
thread, so the trio loop never blocks. Under asyncio nothing changes: the caller's loop is used.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import threading
from collections.abc import Awaitable, Callable, Coroutine, Iterator
from typing import Any, TypeVar

T = TypeVar("T")

__all__ = ["LoopThread", "answer_on_thread", "calling_back", "on_asyncio", "run_sync", "shared_thread"]


def on_asyncio() -> bool:
    """Whether the caller runs on an asyncio loop."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


async def run_sync(fn: Callable[[], T]) -> T:
    """``fn()`` on a worker thread, awaited on whichever loop the caller runs (asyncio or, via anyio,
    trio). anyio's worker when anyio is installed (code written for the SDK may call back into the
    loop with ``anyio.from_thread``), else asyncio's."""
    try:
        import anyio.to_thread
    except ImportError:
        if not on_asyncio():
            raise
        return await asyncio.to_thread(fn)
    return await anyio.to_thread.run_sync(fn)


def calling_back(receive: Any, send: Any) -> tuple[Callable[[], Coroutine[Any, Any, Any]],
                                                   Callable[[Any], Coroutine[Any, Any, None]]]:
    """An ASGI ``receive``/``send`` pair of a trio caller, as a request answered on a ``LoopThread``
    awaits them: each call goes back to the caller's trio loop (``anyio.from_thread``), waited on a
    worker thread so the answering loop never blocks. Called on the trio loop."""
    import functools

    import anyio.from_thread
    import anyio.lowlevel

    token = anyio.lowlevel.current_token()

    async def back(fn: Any, *args: Any) -> Any:
        call = functools.partial(anyio.from_thread.run, fn, *args, token=token)
        return await asyncio.get_running_loop().run_in_executor(None, call)

    async def receive_back() -> Any:
        return await back(receive)

    async def send_back(message: Any) -> None:
        await back(send, message)

    return receive_back, send_back


#: Threads that carry calls back to a trio loop (``calling_back``): a streamed answer holds one while it
#: waits for its client to leave, so the loop's default executor (a handful of threads) is too small.
_BRIDGE_THREADS = 64


@contextlib.contextmanager
def shared_thread(owner: Any) -> Iterator[LoopThread]:
    """The ``LoopThread`` that serves ``owner`` (a server object) to trio callers. The native server
    completes its futures on one asyncio loop, so the requests, streams and session managers of one
    server active at once share one; it is closed when the last of them ends."""
    held = getattr(owner, "_oxmcp_loop_thread", None)
    if held is None:
        thread = LoopThread()
        thread.loop.set_default_executor(concurrent.futures.ThreadPoolExecutor(_BRIDGE_THREADS,
                                                                               "oxmcp-trio-bridge"))
        held = [thread, 0]
        owner._oxmcp_loop_thread = held
    held[1] += 1
    try:
        yield held[0]
    finally:
        held[1] -= 1
        if held[1] == 0:
            owner._oxmcp_loop_thread = None
            held[0].close()


async def answer_on_thread(owner: Any, answer: Callable[[Any, Any], Awaitable[None]], receive: Any,
                           send: Any) -> None:
    """Answer an ASGI request of a trio caller on ``owner``'s ``shared_thread``: ``answer(receive,
    send)`` runs on that asyncio loop, its ``receive``/``send`` called back on the caller's loop."""
    receive_back, send_back = calling_back(receive, send)

    async def on_thread() -> None:
        await answer(receive_back, send_back)

    with shared_thread(owner) as thread:
        await thread.run(on_thread())


class LoopThread:
    """An asyncio loop running on its own daemon thread, for a caller on another kind of loop."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, name="oxmcp-asyncio", daemon=True)
        self._thread.start()

    async def run(self, coro: Coroutine[Any, Any, T]) -> T:
        """Run ``coro`` on this loop; the caller's loop waits on a worker thread (cancellable)."""
        import anyio.to_thread

        future = asyncio.run_coroutine_threadsafe(coro, self.loop)
        try:
            return await anyio.to_thread.run_sync(future.result, abandon_on_cancel=True)
        except BaseException:
            future.cancel()
            raise

    def close(self) -> None:
        """Stop the loop once the work still on it has ended: each pending task is cancelled and
        awaited first, so no coroutine handed to ``run`` is dropped unstarted when the loop closes."""
        if threading.current_thread() is not self._thread and self.loop.is_running():
            settled = asyncio.run_coroutine_threadsafe(_cancel_the_rest(), self.loop)
            try:
                settled.result(timeout=_SETTLE_S)
            except Exception:  # noqa: BLE001  a task that will not end is left to the closing loop
                settled.cancel()
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join()
        self.loop.close()


_SETTLE_S = 5.0
"""How long ``LoopThread.close`` waits for the cancelled tasks to end."""


async def _cancel_the_rest() -> None:
    this = asyncio.current_task()
    rest = [t for t in asyncio.all_tasks() if t is not this]
    for task in rest:
        task.cancel()
    await asyncio.gather(*rest, return_exceptions=True)
