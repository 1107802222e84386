"""A server object in this process, served over a pair of message streams (the SDK's memory transport).

``serve_streams(server, read_stream, write_stream)`` reads the client's messages (``SessionMessage``)
and hands each to the server's core through its HTTP handler, without a socket, as the in-process
``Client`` does: the core admits, dispatches and answers it as any HTTP caller's, so its rules (auth,
allow-lists, limits) all apply. Everything the core answers on a request's stream (notifications,
its own requests for input, the response) goes back on ``write_stream``; the client's answers to the
server's requests come in as messages like any other.

The era is the client's: an ``initialize`` request opens a legacy session (its id and version are sent
with every later message); without one, each request is a modern (2026-07-28) request.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from typing import Any

import anyio
from typing_extensions import Self

from ._client import PROTOCOL_VERSION
from ._loops import LoopThread, on_asyncio

__all__ = ["CoreLink", "message_dict", "serve_streams"]


def message_dict(item: Any) -> dict[str, Any]:
    message = getattr(item, "message", item)
    message = getattr(message, "root", message)
    if hasattr(message, "model_dump"):
        return message.model_dump(by_alias=True, exclude_none=True, mode="json")  # type: ignore[no-any-return]
    return dict(message)


class CoreLink:
    """One client's connection to a server object's core; messages out go to ``write_stream``."""

    def __init__(self, server: Any, write_stream: Any, path: str = "/mcp") -> None:
        self._core = getattr(server, "_core", server)  # the low-level Server serves through its core Server
        if not hasattr(self._core, "_build_native"):
            raise TypeError("serve_streams(server, ...): give a server object (FastMCP, MCPServer, Server)")
        self._write = write_stream
        self._path = path
        self._native: Any = None
        self._loop_thread: LoopThread | None = None
        #: The legacy session's id and negotiated version (None: no ``initialize`` yet, the modern era).
        self._session: str | None = None
        self._version: str | None = None

    async def __aenter__(self) -> Self:
        self._native = self._core._build_native()
        if on_asyncio():
            self._native.set_loop(asyncio.get_running_loop())
        else:
            self._loop_thread = LoopThread()
            self._native.set_loop(self._loop_thread.loop)
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self._session:
            with anyio.CancelScope(shield=True), contextlib.suppress(Exception):  # the session may be gone
                await self._call("DELETE", self._headers(None), b"")
        if self._loop_thread is not None:
            self._loop_thread.close()
            self._loop_thread = None

    async def _call(self, method: str, headers: list[tuple[str, str]], body: bytes) -> Any:
        native, path = self._native, self._path

        async def call() -> Any:
            return await native.handle_http(method, path, headers, body)

        if self._loop_thread is None:
            return await call()
        return await self._loop_thread.run(call())

    async def _next(self, stream: Any) -> Any:
        async def call() -> Any:
            return await stream.next()

        if self._loop_thread is None:
            return await call()
        return await self._loop_thread.run(call())

    def _headers(self, message: dict[str, Any] | None) -> list[tuple[str, str]]:
        headers = [("content-type", "application/json"), ("accept", "application/json, text/event-stream"),
                   ("host", "localhost")]
        method = (message or {}).get("method")
        if method == "initialize":
            return headers
        if self._session is not None:
            headers.append(("mcp-protocol-version", self._version or PROTOCOL_VERSION))
            if self._session:
                headers.append(("mcp-session-id", self._session))
            return headers
        headers.append(("mcp-protocol-version", PROTOCOL_VERSION))
        if method:
            headers.append(("mcp-method", str(method)))
            params = (message or {}).get("params") or {}
            name = params.get("name") if method in ("tools/call", "prompts/get") else \
                params.get("uri") if method == "resources/read" else None
            if isinstance(name, str):
                headers.append(("mcp-name", name))
        return headers

    async def _emit(self, message: dict[str, Any]) -> None:
        await self.emit_to(self._write, message)

    @staticmethod
    async def emit_to(write_stream: Any, message: dict[str, Any]) -> None:
        """Send one JSON-RPC message (a dict) on ``write_stream`` as a ``SessionMessage``."""
        from . import types
        from .shared.message import SessionMessage

        with contextlib.suppress(anyio.ClosedResourceError, anyio.BrokenResourceError):
            await write_stream.send(SessionMessage(types.JSONRPCMessage.model_validate(message)))

    async def deliver(self, message: dict[str, Any]) -> None:
        """Hand one client message to the core; emit what it answers."""
        is_request = "method" in message and "id" in message
        status, reply_headers, body, stream = await self._call("POST", self._headers(message),
                                                                json.dumps(message).encode())
        if message.get("method") == "initialize":
            self._session = next((str(v) for k, v in reply_headers if str(k).lower() == "mcp-session-id"), "")
        answered = False
        if stream is not None:
            buf = b""
            while True:
                chunk = await self._next(stream)
                if chunk is None:
                    break
                buf += chunk
                *events, buf = buf.replace(b"\r\n", b"\n").split(b"\n\n")
                for event in events:
                    data = b"\n".join(line[5:].lstrip() for line in event.split(b"\n") if line.startswith(b"data:"))
                    if data:
                        answered |= await self._forward(json.loads(data), message)
        elif body:
            answered = await self._forward(json.loads(body), message)
        if is_request and not answered:
            await self._emit({"jsonrpc": "2.0", "id": message["id"],
                              "error": {"code": -32603, "message": f"no response (HTTP {status})"}})

    async def _forward(self, reply: Any, request: dict[str, Any]) -> bool:
        """Emit one message the core sent; whether it answered ``request``."""
        if not isinstance(reply, dict) or ("jsonrpc" not in reply and "error" in reply):
            # Not JSON-RPC: an HTTP-level refusal (a 401 from auth), given to the request as an error.
            if "id" not in request:
                return False
            error = reply.get("error") if isinstance(reply, dict) else reply
            text = f"{error}: {reply.get('error_description', '')}".rstrip(": ") if isinstance(reply, dict) else str(error)
            await self._emit({"jsonrpc": "2.0", "id": request["id"], "error": {"code": -32603, "message": text}})
            return True
        answers = ("result" in reply or "error" in reply) and "method" not in reply
        if answers and "id" in request:
            if reply.get("id") is None:
                reply = {**reply, "id": request["id"]}
            if request.get("method") == "initialize" and "result" in reply:
                self._version = reply["result"].get("protocolVersion")
        await self._emit(reply)
        return bool(answers)


async def serve_streams(server: Any, read_stream: Any, write_stream: Any) -> None:
    """Serve ``server`` to the client at the other end of the streams until it closes them; then close
    both, as the SDK's server does."""
    async with read_stream, write_stream, CoreLink(server, write_stream) as link, anyio.create_task_group() as tg:
        with contextlib.suppress(anyio.ClosedResourceError, anyio.EndOfStream):  # the client's end closed
            async for item in read_stream:
                if isinstance(item, Exception):
                    continue
                message = message_dict(item)
                if "method" in message and "id" in message:
                    tg.start_soon(link.deliver, message)  # requests run at once: one may wait on the client
                else:
                    await link.deliver(message)
