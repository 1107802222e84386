"""``mcp.client.streamable_http``: ``streamable_http_client(url)``, mcp 1.x's Streamable HTTP client
transport, for a ``ClientSession`` to talk to a server over real HTTP.

It yields ``(read_stream, write_stream, get_session_id)``: each message the session writes is POSTed to
``url`` (with the session's ``Mcp-Session-Id`` and negotiated ``Mcp-Protocol-Version`` once known), and
what the server answers (a JSON body, or the messages of the response's SSE stream: notifications,
the server's own requests, then the response) comes back on ``read_stream``, as do the messages of the
session's standalone ``GET`` stream, opened once the session is initialized. The session is ended
with ``DELETE`` on close. It needs ``httpx`` (as the SDK does); it is a client like any other, so the
server applies all its rules to it.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from datetime import timedelta
from typing import Any

import anyio

__all__ = ["GetSessionIdCallback", "sse_events", "streamable_http_client", "streamablehttp_client"]

GetSessionIdCallback = Callable[[], "str | None"]


def httpx_module() -> Any:
    try:
        import httpx
    except ImportError as exc:  # pragma: no cover - httpx comes with the SDK's test environments
        raise ImportError("oxmcp's HTTP client transports need httpx: pip install httpx") from exc
    return httpx


async def sse_events(response: Any) -> AsyncIterator[tuple[str, str]]:
    """The ``(event, data)`` pairs of a ``text/event-stream`` response."""
    event, data = "message", list[str]()
    async for line in response.aiter_lines():
        if not line:
            if data:
                yield event, "\n".join(data)
            event, data = "message", list[str]()
        elif line.startswith("event:"):
            event = line[6:].strip()
        elif line.startswith("data:"):
            data.append(line[5:].lstrip())
    if data:
        yield event, "\n".join(data)


async def emit(read_send: Any, message: Any) -> None:
    """A message from the server (a dict) onto the session's read stream, as a ``SessionMessage``."""
    from . import types
    from .shared.message import SessionMessage

    await read_send.send(SessionMessage(types.JSONRPCMessage.model_validate(message)))


class _Poster:
    """POSTs the session's messages to ``url`` and reads back what the server answers."""

    def __init__(self, client: Any, url: str, read_send: Any) -> None:
        self.client, self.url, self.read_send = client, url, read_send
        self.session_id: str | None = None
        self.version: str | None = None

    def headers(self) -> dict[str, str]:
        headers = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
        if self.session_id:
            headers["mcp-session-id"] = self.session_id
        if self.version:
            headers["mcp-protocol-version"] = self.version
        return headers

    async def post(self, message: dict[str, Any]) -> None:
        try:
            await self._post(message)
        except Exception as exc:  # noqa: BLE001 - the SDK hands a transport failure to the session
            with contextlib.suppress(anyio.ClosedResourceError, anyio.BrokenResourceError):
                if "id" in message and "method" in message:
                    await emit(self.read_send, {"jsonrpc": "2.0", "id": message["id"],
                                                "error": {"code": -32000, "message": str(exc)}})
                else:
                    await self.read_send.send(exc)

    async def _post(self, message: dict[str, Any]) -> None:
        is_request = "id" in message and "method" in message
        async with self.client.stream("POST", self.url, json=message, headers=self.headers()) as response:
            if response.status_code == 202:
                return
            if response.status_code >= 400:
                body = (await response.aread()).decode(errors="replace")
                reply = _json_or_none(body)
                if is_request:
                    error = (reply or {}).get("error") if isinstance(reply, dict) else None
                    if not isinstance(error, dict):
                        error = {"code": -32000, "message": f"HTTP {response.status_code}: {body[:200]}"}
                    await emit(self.read_send, {"jsonrpc": "2.0", "id": message["id"], "error": error})
                return
            if message.get("method") == "initialize":
                self.session_id = response.headers.get("mcp-session-id")
            if response.headers.get("content-type", "").startswith("text/event-stream"):
                async for _event, data in sse_events(response):
                    reply = _json_or_none(data)
                    if isinstance(reply, dict) and await self._deliver(reply, message):
                        return
            else:
                reply = _json_or_none((await response.aread()).decode())
                if isinstance(reply, dict):
                    await self._deliver(reply, message)

    async def _deliver(self, reply: dict[str, Any], request: dict[str, Any]) -> bool:
        """Emit one server message; whether it answers ``request``."""
        answers = "method" not in reply and reply.get("id") == request.get("id")
        if answers and request.get("method") == "initialize" and isinstance(reply.get("result"), dict):
            self.version = reply["result"].get("protocolVersion")
        await emit(self.read_send, reply)
        return answers


    async def listen(self) -> None:
        """The session's standalone stream (``GET``), opened once the session is initialized, as the
        SDK's client opens it: the server's messages that answer no request (list changes, requests
        outside a tool call) come back on it. A server that offers none (405) is left at that."""
        headers = {k: v for k, v in self.headers().items() if k != "content-type"}
        headers["accept"] = "text/event-stream"
        with contextlib.suppress(Exception):
            async with self.client.stream("GET", self.url, headers=headers) as response:
                if response.status_code != 200:
                    return
                async for _event, data in sse_events(response):
                    reply = _json_or_none(data)
                    if isinstance(reply, dict):
                        await emit(self.read_send, reply)


def _json_or_none(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return None


@asynccontextmanager
async def streamable_http_client(url: str, *, http_client: Any = None,
                                 terminate_on_close: bool = True) -> AsyncIterator[tuple[Any, Any, Any]]:
    """``(read_stream, write_stream, get_session_id)`` for a ``ClientSession`` talking to ``url``."""
    from ._client_streams import message_dict

    httpx = httpx_module()
    client = http_client or httpx.AsyncClient(timeout=httpx.Timeout(30, read=300), follow_redirects=False)
    read_send, read_recv = anyio.create_memory_object_stream[Any](0)
    write_send, write_recv = anyio.create_memory_object_stream[Any](0)
    poster = _Poster(client, url, read_send)

    async def writer() -> None:
        async with write_recv:
            async for item in write_recv:
                message = message_dict(item)
                if "id" in message and "method" in message:
                    tg.start_soon(poster.post, message)  # requests at once: one may wait on the session
                else:
                    await poster.post(message)
                    if message.get("method") == "notifications/initialized" and poster.session_id:
                        tg.start_soon(poster.listen)

    try:
        async with anyio.create_task_group() as tg:
            tg.start_soon(writer)
            try:
                yield read_recv, write_send, lambda: poster.session_id
            finally:
                if terminate_on_close and poster.session_id:
                    with anyio.CancelScope(shield=True), contextlib.suppress(Exception):
                        await client.delete(url, headers=poster.headers())
                tg.cancel_scope.cancel()
    finally:
        await read_send.aclose()
        await write_send.aclose()
        if http_client is None:
            await client.aclose()


@asynccontextmanager
async def streamablehttp_client(url: str, headers: dict[str, str] | None = None, timeout: float | timedelta = 30,
                                sse_read_timeout: float | timedelta = 300, terminate_on_close: bool = True,
                                httpx_client_factory: Any = None, auth: Any = None
                                ) -> AsyncIterator[tuple[Any, Any, Any]]:
    """mcp 1.x's older form: the HTTP client built from ``headers``, timeouts and ``auth``."""
    httpx = httpx_module()

    def seconds(value: float | timedelta) -> float:
        return value.total_seconds() if isinstance(value, timedelta) else value

    options = {"headers": headers, "timeout": httpx.Timeout(seconds(timeout), read=seconds(sse_read_timeout)),
               "auth": auth}
    client = httpx_client_factory(**options) if httpx_client_factory is not None else httpx.AsyncClient(**options)
    async with client, streamable_http_client(url, http_client=client,
                                              terminate_on_close=terminate_on_close) as streams:
        yield streams
