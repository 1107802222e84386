"""A server served over message streams (anyio memory streams, an SSE transport's, a ``ServerSession``'s):
the one way a server object in this process is served to a client over streams of ``SessionMessage``.

``Server.run(read_stream, write_stream, ...)``, ``create_connected_server_and_client_session(server)``
(a FastMCP, MCPServer or low-level server) and a ``ServerSession`` built over streams all come here: the
core serves the connection as it serves stdio (its rules for a connection over message streams: the
handshake, the session, limits, cancellation, server-to-client requests). Each ``SessionMessage`` read is
handed to the core as one JSON-RPC text; each message the core sends is written as a ``SessionMessage``.
An exception read from the stream (a transport's parse error) is logged, as the SDK does, or raised with
``raise_exceptions``. The end of the read stream ends the connection: the core cancels the requests
still running and the write stream is closed.

The native layer completes its futures on an asyncio loop. Under trio (through anyio, as code written for
the SDK may run) the connection gets an asyncio loop of its own (``LoopThread``), and each wait for the
core goes through a worker thread, so the trio loop never blocks.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Coroutine, Iterator
from typing import Any

from ..._loops import LoopThread, on_asyncio
from ...shared.message import encode, session_message

__all__ = ["MessageLink", "serve_streams"]

_log = logging.getLogger("oxmcp")


class MessageLink:
    """One connection to a server object's core over message streams: ``send`` a client message in,
    ``pump_out`` writes what the core sends, ``close_input`` is the end of the client's messages."""

    def __init__(self, server: Any) -> None:
        core = getattr(server, "_core", server)  # the low-level Server serves through its core Server
        if not hasattr(core, "_build_native"):
            raise TypeError("serve over message streams: give a server object (FastMCP, MCPServer, Server)")
        self._thread = None if on_asyncio() else LoopThread()
        loop = asyncio.get_running_loop() if self._thread is None else self._thread.loop
        try:
            self._connection, self._handle = core._build_native().open_messages(loop)
        except BaseException:
            self._close_thread()
            raise

    def send(self, item: Any) -> None:
        """One client message (a ``SessionMessage``, a model or a dict) for the core."""
        self._connection.send(encode(getattr(item, "message", item)))

    async def pump_out(self, write_stream: Any) -> None:
        """Write each message the core sends, until it ends the connection."""
        while (line := await self._on_loop(self._connection.recv)) is not None:
            await write_stream.send(session_message(line))

    def close_input(self) -> None:
        self._connection.close()

    async def wait(self) -> None:
        """Until the core has ended the connection."""
        await self._on_loop(self._handle.wait)

    def close(self) -> None:
        self._connection.close()
        self._close_thread()

    async def _on_loop(self, call: Callable[[], Awaitable[Any]]) -> Any:
        if self._thread is None:
            return await call()

        async def on_thread() -> Any:
            return await call()

        return await self._thread.run(on_thread())

    def _close_thread(self) -> None:
        if self._thread is not None:
            self._thread.close()
            self._thread = None


async def serve_streams(server: Any, read_stream: Any, write_stream: Any, raise_exceptions: bool = False) -> None:
    """Serve ``server`` to the client at the other end of the streams until it closes its end; then close
    both, as the SDK's server does."""
    if not hasattr(read_stream, "__aiter__") or not hasattr(write_stream, "send"):
        raise TypeError("Server.run(read, write, ...): the streams of oxmcp.server.stdio.stdio_server() or "
                        "SseServerTransport.connect_sse(), or message streams (anyio memory object streams of "
                        "SessionMessage: the read one iterable, the write one with send())")
    link = MessageLink(server)
    failure: list[BaseException] = []

    async def pump_in() -> None:
        try:
            async for item in read_stream:
                if isinstance(item, Exception):
                    _log.error("the transport passed an error in place of a message", exc_info=item)
                    if raise_exceptions:
                        failure.append(item)
                        return
                    continue
                link.send(item)
        except Exception as exc:  # noqa: BLE001  a closed or broken read stream ends the connection
            if not _closed(exc):
                failure.append(exc)
        finally:
            link.close_input()

    async def pump_out() -> None:
        try:
            await link.pump_out(write_stream)
        except Exception as exc:  # noqa: BLE001  the peer closed its end: nothing more can be sent
            if not _closed(exc):
                failure.append(exc)
            link.close_input()

    try:
        await _both(pump_in(), pump_out())
        await link.wait()
    finally:
        with _shielded():
            link.close()
            await _aclose(write_stream)
            await _aclose(read_stream)
    if failure:
        raise failure[0]


async def _both(first: Coroutine[Any, Any, None], second: Coroutine[Any, Any, None]) -> None:
    """Run both to their end; cancelling the caller cancels both."""
    if on_asyncio():
        tasks = (asyncio.ensure_future(first), asyncio.ensure_future(second))
        try:
            await asyncio.gather(*tasks)
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
        return
    import anyio

    async def run(coro: Coroutine[Any, Any, None]) -> None:
        await coro

    async with anyio.create_task_group() as tg:
        tg.start_soon(run, first)
        tg.start_soon(run, second)


@contextlib.contextmanager
def _shielded() -> Iterator[None]:
    """The closing awaits run even when the caller was cancelled (trio cancels every await in a cancelled
    scope; asyncio's cancellation is delivered once)."""
    if on_asyncio():
        yield
        return
    import anyio

    with anyio.CancelScope(shield=True):
        yield


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
