"""FastMCP-shaped middleware on the core's interceptor chain (``fastmcp.server.middleware``).

    class Timing(Middleware):
        async def on_call_tool(self, context, call_next):
            result = await call_next(context)
            ...
            return result

    server.add_middleware(Timing())          # or FastMCP(..., middleware=[Timing()])

Each middleware is one link of the core's chain (``core/src/server/middleware.rs``), hooked only on
the methods it overrides a hook for: ``on_call_tool`` → ``tools/call``, ``on_list_tools`` →
``tools/list``, ... A middleware that overrides ``on_message``/``on_request``/``__call__`` sees every
request. Requests that no middleware hooks never call into Python.

``call_next(context)`` runs the rest of the chain (then the core) with ``context.message``, which a
middleware may change. Results are what FastMCP's middleware sees in spirit: the list hooks get and
return a list of components (dicts with attribute access), the other hooks a result dict with
attribute access. Raise ``ToolError`` (``tools/call``: an ``isError`` result) or ``McpError`` (a
JSON-RPC error) to refuse a request.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import Awaitable, Iterator
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Any, Protocol, TypeVar

from ... import _faults
from ..._compat_ctx import AttrDict
from ..._context import Context, settled_by_core
from ..._errors import InputRequired, McpError, OxmcpError, RequestCancelled
from ..._results import ToolResult, error_result

__all__ = ["CallNext", "Middleware", "MiddlewareContext", "install"]

T_co = TypeVar("T_co", covariant=True)
R_co = TypeVar("R_co", covariant=True)


class CallNext(Protocol[T_co, R_co]):
    """``call_next(context)``: the rest of the chain (generic, ``CallNext[T, R]``, as FastMCP's)."""

    def __call__(self, context: MiddlewareContext) -> Awaitable[R_co]: ...

#: Method → hook name; and for list methods, the key of the list in the result.
HOOKS = {
    "initialize": "on_initialize",
    "tools/call": "on_call_tool",
    "tools/list": "on_list_tools",
    "resources/read": "on_read_resource",
    "resources/list": "on_list_resources",
    "resources/templates/list": "on_list_resource_templates",
    "prompts/get": "on_get_prompt",
    "prompts/list": "on_list_prompts",
}
LIST_KEYS = {"tools/list": "tools", "resources/list": "resources", "resources/templates/list": "resourceTemplates",
             "prompts/list": "prompts"}


@dataclass(frozen=True)
class MiddlewareContext:
    """One request as a middleware sees it: ``message`` (the params: ``.name``, ``.arguments``,
    ``.uri``; the SDK's params model on a FastMCP server, as FastMCP's), ``method``, ``fastmcp_context`` (the handler ``Context``: caller, era,
    logging, ...), ``source``, ``type``, ``timestamp``."""

    message: Any
    method: str | None = None
    fastmcp_context: Context | None = None
    source: str = "client"
    type: str = "request"
    timestamp: float = field(default_factory=time.time)

    def copy(self, **kwargs: Any) -> MiddlewareContext:
        return replace(self, **kwargs)

    def __class_getitem__(cls, item: Any) -> Any:
        # FastMCP's MiddlewareContext[T] (the message type) in hook annotations.
        return cls


class Middleware:
    """Base class: override the hooks you need; each default just calls ``call_next``."""

    async def __call__(self, context: MiddlewareContext, call_next: CallNext) -> Any:
        handler: CallNext = call_next
        hook = HOOKS.get(context.method or "")
        if hook is not None:
            handler = partial(getattr(self, hook), call_next=handler)
        handler = partial(self.on_request, call_next=handler)
        handler = partial(self.on_message, call_next=handler)
        return await handler(context)

    async def on_message(self, context: MiddlewareContext, call_next: CallNext) -> Any:
        return await call_next(context)

    async def on_request(self, context: MiddlewareContext, call_next: CallNext) -> Any:
        return await call_next(context)

    async def on_initialize(self, context: MiddlewareContext, call_next: CallNext) -> Any:
        return await call_next(context)

    async def on_call_tool(self, context: MiddlewareContext, call_next: CallNext) -> Any:
        return await call_next(context)

    async def on_read_resource(self, context: MiddlewareContext, call_next: CallNext) -> Any:
        return await call_next(context)

    async def on_get_prompt(self, context: MiddlewareContext, call_next: CallNext) -> Any:
        return await call_next(context)

    async def on_list_tools(self, context: MiddlewareContext, call_next: CallNext) -> Any:
        return await call_next(context)

    async def on_list_resources(self, context: MiddlewareContext, call_next: CallNext) -> Any:
        return await call_next(context)

    async def on_list_resource_templates(self, context: MiddlewareContext, call_next: CallNext) -> Any:
        return await call_next(context)

    async def on_list_prompts(self, context: MiddlewareContext, call_next: CallNext) -> Any:
        return await call_next(context)


#: The ``_meta`` key of a server's own in-process request that skips its Python middleware
#: (FastMCP's ``call_tool(..., run_middleware=False)``), and the one-use tokens in flight: a token
#: is a secret of this process, so no client can name one.
SKIP_KEY = "io.oxmcp/skipMiddleware"
_SKIP_TOKENS: set[str] = set()


@contextlib.contextmanager
def skipping_middleware() -> Iterator[dict[str, str]]:
    """The ``_meta`` of an in-process request that the server's Python middleware lets through
    untouched, valid for the block."""
    token = secrets.token_hex(16)
    _SKIP_TOKENS.add(token)
    try:
        yield {SKIP_KEY: token}
    finally:
        _SKIP_TOKENS.discard(token)


def _skips(native_ctx: Any) -> bool:
    # (The request's `_meta` is read only while such a request is in flight.)
    if not _SKIP_TOKENS or native_ctx is None:
        return False
    meta = native_ctx.meta
    return isinstance(meta, dict) and meta.get(SKIP_KEY) in _SKIP_TOKENS


def hooked_methods(mw: Any) -> list[str] | None:
    """The methods ``mw`` needs to see (None: all of them)."""
    cls = type(mw)
    if not isinstance(mw, Middleware):
        return None  # a plain ``async (context, call_next)`` callable sees everything
    if cls.__getattribute__ is not object.__getattribute__ or hasattr(cls, "__getattr__"):
        return None  # hooks looked up dynamically: any of them may be there
    for name in ("__call__", "on_message", "on_request"):
        if getattr(cls, name) is not getattr(Middleware, name):
            return None
    return [m for m, hook in HOOKS.items() if getattr(cls, hook) is not getattr(Middleware, hook)]


def failed_link(exc: BaseException, what: str) -> tuple[str, Any]:
    """What a link of the core's chain answers for what its Python code raised: an MRTR round, a
    cancellation, the JSON-RPC error an ``McpError`` carries, else an internal error (logged as
    ``what`` raised)."""
    if isinstance(exc, InputRequired):
        return ("input_required", exc.args[0] if exc.args else None)
    if isinstance(exc, RequestCancelled):
        return ("cancelled", None)
    if isinstance(exc, McpError):
        return ("mcp_error", (exc.code, exc.message, exc.data))
    logging.getLogger("oxmcp").error("%s raised", what, exc_info=exc)
    return ("mcp_error", (-32603, str(exc), None))


async def native_next(native_ctx: Any, params: dict[str, Any]) -> Any:
    """Run the rest of the core's chain; the raw result dict, or raise its error."""
    return await settled_by_core(lambda settle: native_ctx.call_next(params, settle), None)


#: The request models FastMCP hands the list hooks (the other hooks get the params).
_LIST_REQUESTS = {"tools/list": "ListToolsRequest", "resources/list": "ListResourcesRequest",
                  "resources/templates/list": "ListResourceTemplatesRequest", "prompts/list": "ListPromptsRequest"}


#: The params model FastMCP hands its middleware for a call, a read and a prompt.
_PARAMS = {"tools/call": "CallToolRequestParams", "resources/read": "ReadResourceRequestParams",
           "prompts/get": "GetPromptRequestParams"}


def _message(method: str, params: dict[str, Any], server: Any) -> Any:
    """What a middleware gets as ``context.message``: for a list method the request as the SDK's
    model (``ListToolsRequest``), as FastMCP hands it; on a FastMCP server, for a call, read or
    prompt its params as the SDK's model (``CallToolRequestParams``), as FastMCP hands them; else
    the params (a dict with attribute access)."""
    from ... import types
    from ..._fastmcp import FastMCP

    name = _LIST_REQUESTS.get(method)
    model = _PARAMS.get(method) if isinstance(server, FastMCP) else None
    with contextlib.suppress(Exception):  # params the model does not take: the params as they are
        if name is not None:
            return getattr(types, name).model_validate({"method": method, "params": params or None})
        if model is not None:
            return getattr(types, model).model_validate(params)
    return AttrDict(params)


class _Listed(AttrDict):
    """A listed component as a middleware sees it: the definition (attribute access), and ``tags``,
    the FastMCP tags it was registered with (not part of the definition)."""

    tags: frozenset[str] = frozenset()


#: The registry kind and the key field of each list's items.
_LISTED_BY = {"tools/list": ("tool", "name"), "prompts/list": ("prompt", "name"),
              "resources/list": ("resource", "uri"), "resources/templates/list": ("resource", "uriTemplate")}


def _to_view(method: str, raw: Any, server: Any = None) -> Any:
    key = LIST_KEYS.get(method)
    if key is not None and isinstance(raw, dict):
        tags = getattr(server, "_component_tags", None) or {}
        kind, field = _LISTED_BY[method]
        out = []
        for item in raw.get(key, []):
            view = _Listed(item)
            found = tags.get((kind, item.get(field)))
            if found:
                view.tags = found
            out.append(view)
        return out
    return AttrDict(raw) if isinstance(raw, dict) else raw


def _from_view(method: str, value: Any, raw: dict[str, Any] | None) -> Any:
    key = LIST_KEYS.get(method)
    if key is not None and isinstance(value, (list, tuple)):
        out = dict(raw or {})
        out[key] = [_plain(v) for v in value]
        return out
    if isinstance(value, ToolResult):
        return value.to_dict()
    return _plain(value)


def _plain(value: Any) -> Any:
    if hasattr(value, "model_dump"):
        return value.model_dump(by_alias=True, exclude_none=True, mode="json")
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


class MiddlewareEntry:
    """The native chain's link for one Python middleware (the ``call_async`` protocol of ``_handlers``)."""

    is_async = True

    def __init__(self, middleware: Any, server: Any) -> None:
        self.middleware = middleware
        self.server = server

    async def _next(self, native_ctx: Any, method: str, params: dict[str, Any]) -> Any:
        """The rest of the chain. On a server whose middleware sees a tool's exception (FastMCP's
        rule, ``_tool_errors_reach_middleware``), a ``tools/call`` that ends in an ``isError``
        result raises what the tool raised (``_faults``), or, for arguments the tool refused, the
        ``ValidationError`` FastMCP raises."""
        key = getattr(native_ctx, "request_key", None)
        if key is None or not getattr(self.server, "_tool_errors_reach_middleware", False):
            return await native_next(native_ctx, params)
        if method == "prompts/get":
            return await self._prompt_next(native_ctx, params)
        if method != "tools/call":
            return await native_next(native_ctx, params)
        slot = _faults.watch(key)
        try:
            raw = await native_next(native_ctx, params)
        finally:
            _faults.release(key, slot)
        if isinstance(raw, dict) and raw.get("isError"):
            if slot:
                raise slot[-1]
            text = next((b.get("text", "") for b in raw.get("content") or () if b.get("type") == "text"), "")
            if text.startswith(f"Invalid arguments for tool {params.get('name')}"):
                from ...exceptions import ValidationError

                raise ValidationError(text)
        return raw

    async def _prompt_next(self, native_ctx: Any, params: dict[str, Any]) -> Any:
        """``prompts/get`` with FastMCP's ``ValidationError`` for missing arguments (all of them, in
        its words), which its middleware sees and maps to -32602."""
        try:
            return await native_next(native_ctx, params)
        except McpError as exc:
            prompt = getattr(self.server, "_prompts", {}).get(str(params.get("name")))
            if exc.code != -32602 or prompt is None or not str(exc.message).startswith("Missing required argument"):
                raise
            from ...exceptions import ValidationError

            given = params.get("arguments") or {}
            missing = {a["name"] for a in prompt.arguments if a.get("required") and a["name"] not in given}
            raise ValidationError(f"Missing required arguments: {missing}") from None

    def call_sync(self, payload: Any, native_ctx: Any = None) -> tuple[str, Any]:  # pragma: no cover
        return asyncio.run(self.call_async(payload, native_ctx))

    async def call_async(self, payload: Any, native_ctx: Any = None) -> tuple[str, Any]:
        method = payload["method"]
        params = dict(payload.get("params") or {})
        if _skips(native_ctx):
            try:
                return ("ok", await native_next(native_ctx, params))
            except McpError as exc:
                return ("mcp_error", (exc.code, exc.message, exc.data))
        ctx = Context(native_ctx, self.server)
        last_raw: dict[str, Any] = {}

        async def final(c: MiddlewareContext) -> Any:
            msg = c.message
            p = dict(msg) if isinstance(msg, dict) else _plain(msg)
            if method in LIST_KEYS and not isinstance(msg, dict):  # the whole request: its params go on
                p = dict(p.get("params") or {})
            raw = await self._next(native_ctx, method, p)
            last_raw.clear()
            if isinstance(raw, dict):
                last_raw.update(raw)
            return _to_view(method, raw, self.server)

        mctx = MiddlewareContext(message=_message(method, params, self.server), method=method,
                                 fastmcp_context=ctx)
        try:
            value = await self.middleware(mctx, final)
            return ("ok", _from_view(method, value, last_raw))
        except InputRequired as exc:
            return ("input_required", exc.args[0] if exc.args else None)
        except (RequestCancelled, asyncio.CancelledError):
            return ("cancelled", None)
        except McpError as exc:
            return ("mcp_error", (exc.code, exc.message, exc.data))
        except OxmcpError as exc:  # a ToolError, or FastMCP's ValidationError, NotFoundError, ...
            if method == "tools/call":
                return ("ok", error_result(str(exc)))
            invalid = type(exc).__name__ in ("ValidationError", "NotFoundError", "DisabledError")
            return ("mcp_error", (-32602 if invalid else -32603, str(exc), None))
        except Exception as exc:
            import logging

            logging.getLogger("oxmcp").error("middleware %r raised", self.middleware, exc_info=exc)
            # The core words it ("Internal error in middleware", with the message when shown).
            shown = not getattr(self.server, "mask_error_details", True)
            return ("internal", str(exc) if shown else None)


def install(server: Any, middleware: Any) -> None:
    """Add ``middleware`` to ``server``'s chain (now, or when its native core is built)."""
    entry = MiddlewareEntry(middleware, server)
    with server._lock:
        server._middleware.append(entry)
        if server._native is not None:
            server._native.add_middleware(entry, True, hooked_methods(middleware))


def __getattr__(name: str) -> Any:
    # FastMCP's package exports AuthMiddleware beside Middleware; it lives in its own module.
    if name == "AuthMiddleware":
        from .authorization import AuthMiddleware

        return AuthMiddleware
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
