"""``Server.run(read_stream, write_stream, ...)`` over message streams (anyio memory streams, an SSE
transport's, injected stdio): the core serves the connection as it serves stdio.

Each ``SessionMessage`` read is handed to the core as one JSON-RPC text; each message the core sends
(answers, notifications, requests to the client) is written as a ``SessionMessage``. Every rule is the
core's: the handshake, the session, limits, cancellation, server-to-client requests. An exception
read from the stream (a transport's parse error) is logged, as the SDK does, or raised with
``raise_exceptions``. The end of the read stream ends the connection: the core cancels the requests
still running and the write stream is closed.

The native layer completes its futures on an asyncio loop. Under trio (through anyio, as code written
for the SDK may run) the connection gets an asyncio loop of its own (``LoopThread``): the handlers run
there, and each wait for the core goes through a worker thread, so the trio loop never blocks.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from ..._loops import LoopThread, on_asyncio
from ...shared.message import encode, session_message

__all__ = ["serve_streams"]

_log = logging.getLogger("oxmcp")


async def serve_streams(core: Any, read_stream: Any, write_stream: Any, raise_exceptions: bool = False) -> None:
    if not hasattr(read_stream, "__aiter__") or not hasattr(write_stream, "send"):
        raise TypeError("Server.run(read, write, ...): the streams of oxmcp.server.stdio.stdio_server() or "
                        "SseServerTransport.connect_sse(), or message streams (anyio memory object streams of "
                        "SessionMessage: the read one iterable, the write one with send())")
    native = core._build_native()
    thread = None if on_asyncio() else LoopThread()
    connection, handle = native.open_messages(asyncio.get_running_loop() if thread is None else thread.loop)
    failure: list[BaseException] = []

    async def on_loop(call: Callable[[], Awaitable[Any]]) -> Any:
        if thread is None:
            return await call()

        async def run() -> Any:
            return await call()

        return await thread.run(run())

    async def pump_in() -> None:
        try:
            async for item in read_stream:
                if isinstance(item, Exception):
                    _log.error("the transport passed an error in place of a message", exc_info=item)
                    if raise_exceptions:
                        failure.append(item)
                        return
                    continue
                connection.send(encode(getattr(item, "message", item)))
        except Exception as exc:  # noqa: BLE001  a closed or broken read stream ends the connection
            if not _closed(exc):
                failure.append(exc)
        finally:
            connection.close()

    async def pump_out() -> None:
        try:
            while (line := await on_loop(connection.recv)) is not None:
                await write_stream.send(session_message(line))
        except Exception as exc:  # noqa: BLE001  the peer closed its end: nothing more can be sent
            if not _closed(exc):
                failure.append(exc)
            connection.close()

    if thread is None:
        inbound, outbound = asyncio.ensure_future(pump_in()), asyncio.ensure_future(pump_out())
        try:
            await asyncio.gather(inbound, outbound)
            await handle.wait()
        finally:
            connection.close()
            for task in (inbound, outbound):
                task.cancel()
            await asyncio.gather(inbound, outbound, return_exceptions=True)
            await _aclose(write_stream)
            await _aclose(read_stream)
    else:
        import anyio

        try:
            async with anyio.create_task_group() as tg:
                tg.start_soon(pump_in)
                tg.start_soon(pump_out)
            await on_loop(handle.wait)
        finally:
            connection.close()
            with anyio.CancelScope(shield=True):  # trio cancels every await of a cancelled scope
                await _aclose(write_stream)
                await _aclose(read_stream)
            thread.close()
    if failure:
        raise failure[0]


def _closed(exc: BaseException) -> bool:
    try:
        import anyio
    except ImportError:  # pragma: no cover
        return False
    return isinstance(exc, (anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream))


async def _aclose(stream: Any) -> None:
    close = getattr(stream, "aclose", None)
    if close is not None:
        try:
            await close()
        except Exception:  # noqa: BLE001,S110  already closed by its other end
            pass
