"""mcp 2.x's side of the low-level ``Server``: handlers with their params models (``HandlerEntry``),
methods outside the spec served by the core (``_CustomMethod``), ``get_tool_input_schema`` as the
core asks it, ``on_subscriptions_listen`` (a ``ListenHandler``'s bus feeding the core's streams), and
how a handler's failure is answered (``_v2_answer``)."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections.abc import Callable
from typing import Any

from ..._errors import InputRequired, RequestCancelled

__all__ = ["HandlerEntry", "on_native", "serve_listen"]

_log = logging.getLogger(__name__)


@dataclasses.dataclass(frozen=True)
class HandlerEntry:
    """A registered handler and the params model its params are validated against (mcp 2.x)."""

    params_type: Any
    handler: Callable[..., Any]


class _CustomMethod:
    """A method outside the spec, as the core's handler of it: the params validated against the
    registered model (-32602 "Invalid request parameters" when they do not fit, as the SDK), then
    ``handler(ctx, params)``; its result dumped as the SDK dumps it."""

    is_async = True

    def __init__(self, server: Any, method: str) -> None:
        self.server = server
        self.method = method

    def call_sync(self, payload: Any, native_ctx: Any = None) -> tuple[str, Any]:  # pragma: no cover
        return asyncio.run(self.call_async(payload, native_ctx))

    async def call_async(self, payload: Any, native_ctx: Any = None) -> tuple[str, Any]:
        from ..._context import Context
        from ..middleware import failed_link
        from .server import _dump, _LLRequestContext, request_ctx

        server, method = self.server, self.method
        params = dict(payload or {})
        try:
            entry = server._custom[method]
            ctx = Context(native_ctx, server._core)
            rc = _LLRequestContext(ctx, server._lifespan_value, method, params)
            token = request_ctx.set(rc)
            try:
                out = await _v2_answer(entry.handler, rc, method, params, ctx.era == "modern", entry.params_type)
            finally:
                request_ctx.reset(token)
            return ("ok", _dump(out) if out is not None else {})
        except (InputRequired, RequestCancelled, Exception) as exc:  # noqa: BLE001  each is an answer
            return failed_link(exc, f"handler for {method}")


def _schema_lookup(lookup: Callable[[str], Any]) -> Callable[[str], Any]:
    """``get_tool_input_schema`` as the core asks it: the schema as a dict, or None; when it raises,
    the error is logged and the call is served unchecked, as the SDK does."""

    def looked_up(name: str) -> Any:
        try:
            schema = lookup(name)
        except Exception:  # noqa: BLE001  the SDK fails open: a raising lookup leaves the call unchecked
            _log.exception("Mcp-Param header validation skipped: get_tool_input_schema raised")
            return None
        from .server import _dump

        return _dump(schema)

    return looked_up


def on_native(server: Any, native: Any) -> None:
    """The core server is built: it serves the methods outside the spec and asks the lookup."""
    for method in server._custom:
        native.add_method(method, _CustomMethod(server, method), True)
    if server.get_tool_input_schema is not None:
        native.set_tool_schema_lookup(_schema_lookup(server.get_tool_input_schema))


def serve_listen(self: Any, handler: Any) -> None:
    """``subscriptions/listen`` is the core's: a ``ListenHandler`` gives it its bus and limit
    (``server/subscriptions.py``); any other handler would answer for the core's streams."""
    from ..subscriptions import ListenHandler

    if not isinstance(handler, ListenHandler):
        raise TypeError("subscriptions/listen is served by oxmcp's core (its streams, filters and limits): "
                        "give the server a ListenHandler(bus), whose bus feeds the core's streams")
    if self._core._native is not None:
        raise RuntimeError("on_subscriptions_listen: set it before the server starts serving")
    if self._listen is not None:
        self._listen_unsubscribe()
    self._core.options["max_listeners"] = handler.max_subscriptions
    self._listen = handler
    self._listen_unsubscribe = handler._feed(lambda: self._core._native)


async def _v2_answer(handler: Callable[..., Any], rc: Any, method: str, params: dict[str, Any], modern: bool,
                     params_type: Any = None) -> Any:
    """An mcp 2.x handler's result, its failures mapped as that SDK maps them: an ``McpError`` as
    raised; a pydantic ``ValidationError`` (the params, or the handler's own parsing) as -32602
    "Invalid request parameters"; on a 2026-07-28 request, any other exception as -32603 "Internal
    server error", its text only in the server's log, so a handler's internals never reach the
    client. A handshake-era request's failure keeps its text, as the SDK's stream dispatcher does."""
    import pydantic

    from ..._errors import McpError
    from .server import _params_model

    try:
        if params_type is not None and hasattr(params_type, "model_validate"):
            typed = params_type.model_validate(params, by_name=False)
        else:
            typed = _params_model(method, params)
        return await handler(rc, typed)
    except (McpError, InputRequired, RequestCancelled):
        raise
    except pydantic.ValidationError:
        raise McpError(-32602, "Invalid request parameters", "") from None
    except Exception:
        if not modern:
            raise
        _log.exception("handler for %r raised", method)
        raise McpError(-32603, "Internal server error") from None
