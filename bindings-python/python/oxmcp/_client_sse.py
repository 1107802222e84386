"""``mcp.client.sse``: ``sse_client(url)``, the SDK's HTTP+SSE client transport (the 2024-11-05
transport), for a ``ClientSession`` to talk to a server over real HTTP.

It opens the server's event stream (``GET url``), learns from its ``endpoint`` event where to POST
(on the same origin only, as the SDK checks), then yields ``(read_stream, write_stream)``: each
message the session writes is POSTed there, and each ``message`` event comes back on ``read_stream``.
It needs ``httpx``, as the SDK does.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any
from urllib.parse import parse_qs, urljoin, urlparse

import anyio

from ._client_http import emit, httpx_module, sse_events

__all__ = ["sse_client"]


@asynccontextmanager
async def sse_client(url: str, headers: dict[str, Any] | None = None, timeout: float = 5,
                     sse_read_timeout: float = 300, httpx_client_factory: Any = None, auth: Any = None,
                     on_session_created: Callable[[str], None] | None = None) -> AsyncIterator[tuple[Any, Any]]:
    from ._client_streams import message_dict

    httpx = httpx_module()
    options = {"headers": headers, "timeout": httpx.Timeout(timeout, read=sse_read_timeout), "auth": auth}
    client = httpx_client_factory(**options) if httpx_client_factory is not None else httpx.AsyncClient(**options)
    read_send, read_recv = anyio.create_memory_object_stream[Any](0)
    write_send, write_recv = anyio.create_memory_object_stream[Any](0)
    async with client, client.stream("GET", url, headers={"accept": "text/event-stream"}) as response:
        response.raise_for_status()
        events = sse_events(response)
        endpoint = None
        async for event, data in events:
            if event == "endpoint":
                endpoint = urljoin(url, data)
                break
        if endpoint is None:
            raise ConnectionError(f"{url}: the event stream ended before its endpoint event")
        if urlparse(endpoint)[:2] != urlparse(url)[:2]:
            raise ValueError(f"Endpoint origin does not match connection origin: {endpoint}")
        session_id = next(iter(parse_qs(urlparse(endpoint).query).get("session_id", [])), None)
        if on_session_created is not None and session_id:
            on_session_created(session_id)

        async def reader() -> None:
            with contextlib.suppress(anyio.ClosedResourceError, anyio.BrokenResourceError):
                async for event, data in events:
                    if event == "message":
                        try:
                            await emit(read_send, json.loads(data))
                        except ValueError as exc:
                            await read_send.send(exc)

        async def writer() -> None:
            async with write_recv:
                async for item in write_recv:
                    try:
                        posted = await client.post(endpoint, json=message_dict(item))
                        posted.raise_for_status()
                    except Exception as exc:  # noqa: BLE001 - the SDK hands a transport failure to the session
                        with contextlib.suppress(anyio.ClosedResourceError, anyio.BrokenResourceError):
                            await read_send.send(exc)

        try:
            async with anyio.create_task_group() as tg:
                tg.start_soon(reader)
                tg.start_soon(writer)
                try:
                    yield read_recv, write_send
                finally:
                    tg.cancel_scope.cancel()
        finally:
            await read_send.aclose()
            await write_send.aclose()
