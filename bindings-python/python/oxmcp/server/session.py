"""``mcp.server.session``: ``ServerSession``.

Within a handler it is the session of the request (``Context[ServerSession, T]``, ``ctx.session``):
notifications and requests to the client. Built over a pair of message streams
(``ServerSession(read_stream, write_stream, init_options)``, as the SDK's tests build it), it carries
the client's messages to a low-level server's core: ``async for message in session.incoming_messages:
await server._handle_message(message, session, ...)`` hands each to the core over one connection
(``oxmcp.server.lowlevel._streams.MessageLink``), which answers it as it answers a stdio caller.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from types import TracebackType
from typing import Any

import anyio
from typing_extensions import Self

from .._compat_ctx import Session

__all__ = ["ServerSession"]


class ServerSession(Session):
    """The SDK's ``ServerSession``: a request's session, or a session over message streams."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if len(args) == 1 and not kwargs:
            super().__init__(args[0])  # a request's native context
            return
        names = ("read_stream", "write_stream", "init_options", "stateless")
        given = {**dict(zip(names, args, strict=False)), **kwargs}
        super().__init__(None)
        self._read = given["read_stream"]
        self._write = given["write_stream"]
        self._init_options = given.get("init_options")
        self._link: Any = None
        self._tg: Any = None

    async def __aenter__(self) -> Self:
        self._tg = anyio.create_task_group()
        await self._tg.__aenter__()
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> bool | None:
        self._tg.cancel_scope.cancel()
        try:
            return await self._tg.__aexit__(exc_type, exc, tb)  # type: ignore[no-any-return]
        finally:
            if self._link is not None:
                self._link.close()

    async def send_log_message(self, level: str, data: Any, logger: str | None = None,
                               related_request_id: Any = None) -> None:
        if self._ctx is not None:
            await super().send_log_message(level, data, logger, related_request_id)
            return
        # Over message streams: a notifications/message to the client.
        from .._client_streams import emit_to

        params = {"level": level, "data": data, **({"logger": logger} if logger is not None else {})}
        await emit_to(self._write, {"jsonrpc": "2.0", "method": "notifications/message", "params": params})

    @property
    def incoming_messages(self) -> AsyncIterator[Any]:
        """The client's messages, for the server's ``_handle_message``."""
        return self._incoming()

    async def _incoming(self) -> AsyncIterator[Any]:
        with contextlib.suppress(anyio.ClosedResourceError, anyio.EndOfStream):  # the client's end closed
            async for item in self._read:
                yield item

    async def _deliver(self, server: Any, item: Any) -> None:
        """Hand one client message to ``server``'s core; what the core sends goes to the write stream."""
        from .lowlevel._streams import MessageLink

        if isinstance(item, Exception):
            return
        if self._link is None:
            self._link = MessageLink(server)
            self._tg.start_soon(self._pump_out, self._link)
        self._link.send(item)

    async def _pump_out(self, link: Any) -> None:
        with contextlib.suppress(anyio.ClosedResourceError, anyio.BrokenResourceError):  # the client's end closed
            await link.pump_out(self._write)


async def handle_message(server: Any, message: Any, session: Any, lifespan_context: Any,
                         raise_exceptions: bool) -> None:
    """The SDK's low-level ``Server._handle_message``: a transport's exception is logged to the client
    (and raised with ``raise_exceptions``); a request given as a ``RequestResponder`` goes to the
    server's ``_handle_request``; any other message goes to the server's core."""
    from ..shared.session import RequestResponder

    if isinstance(message, Exception):
        await session.send_log_message(level="error", data="Internal Server Error",
                                       logger="mcp.server.exception_handler")
        if raise_exceptions:
            raise message
        return
    if isinstance(message, RequestResponder):
        request = getattr(message.request, "root", message.request)
        await server._handle_request(message, request, session, lifespan_context, raise_exceptions)
        return
    await session._deliver(server, message)
