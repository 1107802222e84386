"""``mcp.shared.memory``: a server object and a ``ClientSession`` connected by memory streams.

``create_connected_server_and_client_session(server, ...)`` yields an initialized
``ClientSession`` (``mcp.client.session``) whose messages the server's core answers in this process
over the streams (``oxmcp.server.lowlevel._streams``), as it answers a stdio caller. The callbacks
(sampling, elicitation, roots, logging, message handler) answer the server's requests and
notifications, as with the SDK.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio

__all__ = ["create_client_server_memory_streams", "create_connected_server_and_client_session"]


@asynccontextmanager
async def create_client_server_memory_streams() -> AsyncIterator[tuple[tuple[Any, Any], tuple[Any, Any]]]:
    """Two pairs of memory streams: ``(client_streams, server_streams)``, each ``(read, write)``."""
    server_to_client_send, server_to_client_receive = anyio.create_memory_object_stream[Any](1)
    client_to_server_send, client_to_server_receive = anyio.create_memory_object_stream[Any](1)
    async with server_to_client_receive, client_to_server_send, client_to_server_receive, server_to_client_send:
        yield (server_to_client_receive, client_to_server_send), (client_to_server_receive, server_to_client_send)


async def _serve(server: Any, read_stream: Any, write_stream: Any, raise_exceptions: bool) -> None:
    if hasattr(server, "_core") and hasattr(server, "run"):
        # The low-level Server: run() serves memory streams within its lifespan, as the SDK's does.
        await server.run(read_stream, write_stream, server.create_initialization_options(),
                         raise_exceptions=raise_exceptions)
        return
    from ..server.lowlevel._streams import serve_streams

    await serve_streams(server, read_stream, write_stream, raise_exceptions)


@asynccontextmanager
async def create_connected_server_and_client_session(
        server: Any, read_timeout_seconds: Any = None, sampling_callback: Any = None,
        list_roots_callback: Any = None, logging_callback: Any = None, message_handler: Any = None,
        client_info: Any = None, raise_exceptions: bool = False, elicitation_callback: Any = None,
) -> AsyncIterator[Any]:
    from .._client_session import ClientSession

    async with create_client_server_memory_streams() as (client_streams, server_streams), \
            anyio.create_task_group() as tg:
        tg.start_soon(_serve, server, *server_streams, raise_exceptions)
        try:
            async with ClientSession(*client_streams, read_timeout_seconds=read_timeout_seconds,
                                     sampling_callback=sampling_callback, list_roots_callback=list_roots_callback,
                                     logging_callback=logging_callback, message_handler=message_handler,
                                     client_info=client_info, elicitation_callback=elicitation_callback) as session:
                await session.initialize()
                yield session
        finally:
            tg.cancel_scope.cancel()
