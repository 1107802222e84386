"""``mcp.server._streamable_http_modern`` of mcp 2.x: ``handle_modern_request``, the ASGI entry for one
2026-07-28 POST (no ``initialize``, no ``Mcp-Session-Id``: one JSON-RPC request in, one answer out).

The request is the core's from its first byte: the endpoint is the server's core mounted sessionless,
with the ``security_settings``' hosts and origins as its listener options, so the validation ladder
(the ``Mcp-Method``/``Mcp-Name``/``Mcp-Param-*`` cross-checks, the ``_meta`` envelope, the supported
versions), the dispatch, and the JSON or SSE answer are what every other transport of oxmcp gets. The
``lifespan_state`` the caller entered is the value handlers see as ``ctx.lifespan_context`` for the
request. The core's guard refusals are worded as the SDK words them (the manager's ``_SdkAnswer``).

The SDK's per-request dispatch context (``_SingleExchangeDispatchContext``) and its exception-to-wire
helper (``_to_jsonrpc_response``) have no counterpart: the request's context and the mapping of a
handler's exception are the core's. Their names refuse to be used, with the reason.
"""

from __future__ import annotations

import contextlib
import json
import logging
from collections.abc import Iterator
from typing import Any, Final, NoReturn

from .streamable_http_manager import _SdkAnswer
from .transport_security import listener_options

__all__ = ["handle_modern_request"]

logger = logging.getLogger(__name__)

_CORE_ONLY = ("{name}: the per-request {what} of a 2026-07-28 POST is the oxmcp core's; "
              "serve the request with handle_modern_request (or StreamableHTTPSessionManager)")


async def handle_modern_request(app: Any, security_settings: Any, json_response: bool, lifespan_state: Any,
                                scope: Any, receive: Any, send: Any) -> None:
    """Answer one 2026-07-28 HTTP request for the low-level server ``app`` through its core."""
    endpoint = _endpoint(app, security_settings)
    answer = _SdkAnswer(_BodyWording(send).send, scope.get("method", ""), opening=False,
                        json_response=json_response)
    from .._loops import on_asyncio

    with _lifespan_value(app, lifespan_state):
        if on_asyncio():
            await endpoint.serve(scope, receive, answer.send)
            return
        await _on_loop_thread(app, endpoint, scope, receive, answer.send)


class _BodyWording:
    """The core's refusal of a body that is not one request or notification (``id: null``), worded as
    the SDK's modern entry words it: one text for every such body (a batch, a posted response, a
    malformed envelope) and a bare ``Parse error``. The refusal, its code and status are the core's."""

    _TEXT: Final = {-32600: "Body must be a single JSON-RPC request or notification object",
                    -32700: "Parse error"}

    def __init__(self, send: Any) -> None:
        self._send = send
        self._held: dict[str, Any] | None = None

    async def send(self, message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start" and message["status"] == 400:
            self._held = message
            return
        if message["type"] == "http.response.body" and self._held is not None:
            start, self._held = self._held, None
            body = self._reworded(message.get("body", b""))
            if body is not None:
                start = {**start, "headers": [(k, v) for k, v in start.get("headers", [])
                                              if k.lower() != b"content-length"]}
                message = {**message, "body": body}
            await self._send(start)
        await self._send(message)

    def _reworded(self, body: bytes) -> bytes | None:
        try:
            answer = json.loads(body)
        except ValueError:
            return None
        error = answer.get("error") if isinstance(answer, dict) else None
        if not isinstance(error, dict) or answer.get("id") is not None or error.get("code") not in self._TEXT:
            return None
        text = self._TEXT[error["code"]]
        return json.dumps({"jsonrpc": "2.0", "id": None, "error": {"code": error["code"], "message": text}},
                          separators=(",", ":")).encode()


def _endpoint(app: Any, security_settings: Any) -> Any:
    """The core endpoint of ``app`` for these settings: mounted once, sessionless. A second call with
    other settings is refused (the mount's options are fixed once the core serves)."""
    listen = {"sessionless": True, **listener_options(security_settings)}
    mounted = getattr(app, "_modern_mount", None)
    if mounted is not None:
        if mounted[0] != listen:
            raise RuntimeError("handle_modern_request: this server is already served with other "
                               f"security settings ({mounted[0]!r}); one server has one set")
        return mounted[1]
    core = app._core if hasattr(app, "_core") else app
    from .. import _oxmcp
    from .._asgi import AsgiApp

    _oxmcp.check_listen_options(core.options, listen)
    core._mount_options(listen)
    endpoint = AsgiApp(core)
    app._modern_mount = (listen, endpoint)
    return endpoint


@contextlib.contextmanager
def _lifespan_value(app: Any, value: Any) -> Iterator[None]:
    """``value`` as the server's lifespan value while the request is served (the caller holds the
    lifespan open, as the SDK's manager does)."""
    if not hasattr(app, "_live"):
        yield
        return
    app._live += 1
    app._lifespan_value = value
    try:
        yield
    finally:
        app._live -= 1
        if not app._live:
            app._lifespan_value = None


async def _on_loop_thread(app: Any, endpoint: Any, scope: Any, receive: Any, send: Any) -> None:
    """On trio (through anyio): the native layer completes its futures on an asyncio loop, so the
    request is answered on one of the server's own, calling ``receive``/``send`` back on the caller's
    loop. The requests in flight at once share that loop (the core's server has one); it ends with
    the last of them."""
    from .._loops import LoopThread, calling_back

    receive_back, send_back = calling_back(receive, send)

    thread, users = getattr(app, "_modern_loop", None) or (LoopThread(), 0)
    app._modern_loop = (thread, users + 1)
    try:
        await thread.run(endpoint.serve(scope, receive_back, send_back))
    finally:
        thread, users = app._modern_loop
        if users == 1:
            app._modern_loop = None
            thread.close()
        else:
            app._modern_loop = (thread, users - 1)


def _to_jsonrpc_response(request_id: Any, coro: Any) -> NoReturn:
    """Refused: a handler's exception is mapped to its JSON-RPC error by the core."""
    close = getattr(coro, "close", None)
    if close is not None:
        close()
    raise NotImplementedError(_CORE_ONLY.format(name="_to_jsonrpc_response", what="exception-to-wire mapping"))


class _SingleExchangeDispatchContext:
    """Refused: the dispatch context of a 2026-07-28 request is the core's."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise NotImplementedError(_CORE_ONLY.format(name="_SingleExchangeDispatchContext",
                                                    what="dispatch context"))
