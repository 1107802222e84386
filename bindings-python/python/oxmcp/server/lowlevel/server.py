"""The SDK's low-level ``Server`` (``mcp.server.lowlevel.Server``) on the core: mcp 1.x's decorator API,
and mcp 2.x's handlers given to the constructor (``Server(name, on_list_tools=f, ...)``, ``f(ctx, params)``).

    server = Server("example")

    @server.list_tools()
    async def list_tools() -> list[types.Tool]: ...

    @server.call_tool()
    async def call_tool(name: str, arguments: dict) -> list[types.TextContent]: ...

    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())

How it runs: the handlers are one link of the core's middleware chain (``core/src/server/
middleware.rs``), hooked on exactly the methods that have a handler, and answering them itself. The
core still does everything else (transports, eras, sessions, ``initialize``, MRTR, limits), so a
low-level server serves both eras: ``server.request_context.session.list_roots()`` is a
``roots/list`` request on a legacy session and an MRTR round on a modern request. Client
notifications of legacy sessions (progress, roots/list_changed, initialized) come through the core's
session hook (``NativeServer.on_session``, ``core/src/server/initiated.rs``) to ``_on_session``.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import contextvars
import dataclasses
import logging
from collections.abc import AsyncIterator, Callable
from typing import Any, ClassVar

from ..._compat_ctx import RequestContext
from ..._context import Context
from ..._errors import InputRequired, McpError, RequestCancelled
from ..middleware import native_next
from ._checks import error_result, problem, tool_result
from ._v2 import HandlerEntry, _CustomMethod, _v2_answer, on_native, serve_listen
from .helper_types import ReadResourceContents
from .request_handlers import LIST_KEYS, RequestHandlers, request_model, takes_argument

__all__ = ["NotificationOptions", "Server", "request_ctx"]

_log = logging.getLogger(__name__)

#: The request being handled (the SDK's ``request_ctx``).
request_ctx: contextvars.ContextVar[RequestContext] = contextvars.ContextVar("request_ctx")


class NotificationOptions:
    def __init__(self, prompts_changed: bool = False, resources_changed: bool = False,
                 tools_changed: bool = False) -> None:
        self.prompts_changed = prompts_changed
        self.resources_changed = resources_changed
        self.tools_changed = tools_changed


@contextlib.asynccontextmanager
async def lifespan(server: Any) -> AsyncIterator[dict[str, Any]]:
    yield {}


def _dump(value: Any) -> Any:
    if hasattr(value, "model_dump"):
        return value.model_dump(by_alias=True, exclude_none=True, mode="json")
    if isinstance(value, dict):
        return {k: _dump(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_dump(v) for v in value]
    return value


@dataclasses.dataclass(eq=False)
class _LLRequestContext(RequestContext):
    """The request being handled: mcp 1.x's ``RequestContext`` and mcp 2.x's ``ServerRequestContext``
    (``session``, ``lifespan_context``, ``protocol_version``, ``method``, ``params``, ``request_id``, ``meta``).
    A dataclass, as the SDK's: a middleware passes on ``dataclasses.replace(ctx, params=...)``."""

    _ctx: Any  # the handler's Context
    _lifespan: Any
    method: str = ""
    params: Any = None

    @property
    def lifespan_context(self) -> Any:
        return self._lifespan

    @property
    def protocol_version(self) -> str:
        return self._ctx.protocol_version


class _NativeSessionAdapter:
    """A legacy session outside any request (the core's ``NativeSession``), shaped as the SDK's
    ``ServerSession``: what a notification handler may send to the client that sent it."""

    def __init__(self, native: Any) -> None:
        self._native = native

    @property
    def session_id(self) -> str | None:
        return self._native.id

    @property
    def client_params(self) -> Any:
        from ..._compat_ctx import AttrDict

        return AttrDict({"clientInfo": self._native.client_info or {},
                         "capabilities": self._native.client_capabilities or {},
                         "protocolVersion": self._native.protocol_version})

    async def _request(self, method: str, params: Any) -> Any:
        from ..._compat_ctx import native_answer

        return await native_answer(lambda done: self._native.request(method, params, done))

    async def list_roots(self) -> Any:
        from ... import types

        return types.ListRootsResult.model_validate(await self._request("roots/list", None))

    async def create_message(self, messages: Any, *, max_tokens: int, system_prompt: str | None = None,
                             **kwargs: Any) -> Any:
        from ... import types

        body: dict[str, Any] = {"messages": _dump(list(messages)), "maxTokens": max_tokens}
        if system_prompt is not None:
            body["systemPrompt"] = system_prompt
        for k, v in kwargs.items():
            if v is not None and k != "related_request_id":
                body[_camel(k)] = _dump(v)
        return types.CreateMessageResult.model_validate(await self._request("sampling/createMessage", body))

    async def elicit(self, message: str, requestedSchema: dict[str, Any], related_request_id: Any = None) -> Any:
        from ... import types

        raw = await self._request("elicitation/create", {"mode": "form", "message": message,
                                                         "requestedSchema": requestedSchema})
        return types.ElicitResult.model_validate(raw)

    async def send_log_message(self, level: str, data: Any, logger: str | None = None,
                               related_request_id: Any = None) -> None:
        self._native.log(level, _dump(data), logger)

    async def send_resource_updated(self, uri: Any) -> None:
        self._native.notify("notifications/resources/updated", {"uri": str(uri)})

    async def send_ping(self) -> Any:
        return await self._request("ping", None)


class _NotificationContext:
    """What a mcp 2.x notification handler gets as ``ctx``: the sending session, outside any request."""

    request_id = None
    meta = None
    request = None

    def __init__(self, session: _NativeSessionAdapter, lifespan_context: Any, method: str, params: Any) -> None:
        self.session = session
        self.lifespan_context = lifespan_context
        self.method = method
        self.params = params

    @property
    def protocol_version(self) -> str:
        return self.session._native.protocol_version


def _attr(body: dict[str, Any]) -> Any:
    from ..._compat_ctx import AttrDict

    return AttrDict(body)


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(w[:1].upper() + w[1:] for w in rest)


def _method_of(cls: type) -> str | None:
    """The ``method`` literal of a notification class (``types.ProgressNotification`` → its method)."""
    import typing

    field = getattr(cls, "model_fields", {}).get("method")
    args = typing.get_args(field.annotation) if field is not None else ()
    return args[0] if args and isinstance(args[0], str) else None


def _types_named(names: dict[str, str]) -> dict[str, Any]:
    from ... import types

    return {method: getattr(types, n) for method, n in names.items() if hasattr(types, n)}


_NOTIFICATION_NAMES = {
    "notifications/initialized": "InitializedNotification",
    "notifications/progress": "ProgressNotification",
    "notifications/roots/list_changed": "RootsListChangedNotification",
    "notifications/cancelled": "CancelledNotification",
}
_PARAMS_NAMES = {
    "tools/list": "PaginatedRequestParams", "resources/list": "PaginatedRequestParams",
    "resources/templates/list": "PaginatedRequestParams", "prompts/list": "PaginatedRequestParams",
    "tools/call": "CallToolRequestParams", "resources/read": "ReadResourceRequestParams",
    "resources/subscribe": "SubscribeRequestParams", "resources/unsubscribe": "UnsubscribeRequestParams",
    "subscriptions/listen": "SubscriptionsListenRequestParams",
    "prompts/get": "GetPromptRequestParams", "completion/complete": "CompleteRequestParams",
    "logging/setLevel": "SetLevelRequestParams", "notifications/progress": "ProgressNotificationParams",
    "notifications/roots/list_changed": "NotificationParams", "notifications/initialized": "NotificationParams",
}
_SPEC_METHODS = set(_PARAMS_NAMES) | {"ping", "server/discover"}


class _LazyTypes(dict):  # type: ignore[type-arg]
    """``method → types class``, resolved on first use (``oxmcp.types`` imports pydantic models)."""

    def __init__(self, names: dict[str, str]) -> None:
        super().__init__()
        self._names = names

    def get(self, key: Any, default: Any = None) -> Any:
        if not self and self._names:
            self.update(_types_named(self._names))
        return super().get(key, default)


_NOTIFICATION_TYPES = _LazyTypes(_NOTIFICATION_NAMES)
_PARAMS_TYPES = _LazyTypes(_PARAMS_NAMES)


def _params_model(method: str, params: Any) -> Any:
    """mcp 2.x hands handlers a params model (absent params validate as ``{}``)."""
    from ..._compat_ctx import AttrDict

    cls = _PARAMS_TYPES.get(method)
    data = params if isinstance(params, dict) else {}
    if cls is not None:
        # A shape the generated model refuses is handed over as the dict.
        with contextlib.suppress(Exception):
            return cls.model_validate(data)
    return AttrDict(data)


class Server:
    """``Server(name, version=None, instructions=None, lifespan=...)`` with the SDK's decorators."""

    def __class_getitem__(cls, item: Any) -> type[Server]:
        """``Server[LifespanT]``: the SDK's class is generic in its lifespan value; the same class here."""
        return cls

    def __init__(self, name: str, version: str | None = None, instructions: str | None = None,
                 lifespan: Callable[[Server], Any] = lifespan, *, website_url: str | None = None,
                 icons: list[Any] | None = None, title: str | None = None, description: str | None = None,
                 cache_hints: Any = None, get_tool_input_schema: Any = None, middleware: Any = (),
                 **options: Any) -> None:
        from ..._server import Server as CoreServer

        # mcp 2.x's constructor-registered handlers (`on_list_tools=...`, `(ctx, params)` signatures).
        handlers_v2 = {k: options.pop(k) for k in list(options) if k.startswith("on_")}
        self.name = name
        self.instructions = instructions
        self.lifespan = lifespan
        self.request_handlers: dict[Any, Callable[..., Any]] = RequestHandlers(self)
        #: Client notifications: mcp 1.x keys them by type (``types.ProgressNotification``); a method
        #: string works as well. See ``_on_session``.
        self.notification_handlers: dict[Any, Callable[..., Any]] = {}
        self._v2: dict[str, Callable[..., Any]] = {}
        #: mcp 2.x: the params models given to ``add_request_handler``, and the methods outside the spec.
        self._params_types: dict[str, Any] = {}
        self._custom: dict[str, HandlerEntry] = {}
        #: The ``ListenHandler`` whose bus feeds the core's ``subscriptions/listen`` streams, if given.
        self._listen: Any = None
        self._listen_unsubscribe: Callable[[], None] = lambda: None
        self._tool_cache: dict[str, Any] = {}
        self._validate_input = True
        self._lifespan_value: Any = None
        self._live = 0  # run()s in progress (HTTP+SSE serves one per stream)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        # serverInfo.version when none is given, as the SDKs do: mcp 1.x reports its own package's
        # version (see oxmcp._versions); mcp 2.x's constructor-style Server reports "" (it never substitutes).
        from ..._versions import framework_version

        if version is None:
            version = "" if handlers_v2 else framework_version("mcp", major="1")
        self.version = version
        # The SDK lists what its handlers return: no digests of oxmcp's catalog in it.
        options.setdefault("catalog_digests", False)
        self._core = CoreServer(name, version, instructions=instructions, title=title,
                                website_url=website_url, icons=[_dump(i) for i in icons] if icons else None,
                                **options)
        if description is not None:
            self._core.info["description"] = description
        #: mcp 2.x: the tools' input schemas by name, which the core's ``Mcp-Param-*`` check of a
        #: 2026-07-28 HTTP ``tools/call`` asks instead of the last ``tools/list`` answer.
        self.get_tool_input_schema = get_tool_input_schema
        self._core._native_hooks.append(lambda native: on_native(self, native))
        # Capabilities answered from Python with nothing registered in the core (see _set_handler).
        self._declared: list[str] = []
        self._core._declare = self._declared
        from .._lowlevel_link import LowLevelLink

        self._link = LowLevelLink(self)
        self._core._middleware.append(self._link)
        from .._context_middleware import MiddlewareList

        #: mcp 2.x's context-tier middleware, ``fn(ctx, call_next)`` around every request.
        self.middleware = MiddlewareList(self._core, lambda: self._lifespan_value, middleware)
        for key, func in handlers_v2.items():
            self._add_v2(key, func)

    # -- the SDK's decorators ---------------------------------------------------------------------
    def _register(self, method: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        def decorator(func: Callable[..., Any]) -> Callable[..., Any]:
            if not callable(func):
                raise TypeError(f"@server.{method}: decorate a function (use @server.x(), with parentheses)")
            self._set_handler(method, func)
            return func
        return decorator

    def _set_handler(self, method: str, func: Callable[..., Any]) -> None:
        self.request_handlers[method] = func
        kind = method.split("/", 1)[0]
        # The core keeps what it owns for these (resources/subscribe's table) only for a declared capability.
        if kind in ("resources", "prompts") and kind not in self._declared:
            self._declared.append(kind)

    def list_tools(self) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        return self._register("tools/list")

    def call_tool(self, *, validate_input: bool = True) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        """mcp 1.x: ``handler(name, arguments)``. As in the SDK, a call's arguments are checked against
        the tool's listed ``inputSchema`` first (``validate_input``), and a structured result against
        its ``outputSchema``, by the core's JSON Schema check."""
        self._validate_input = validate_input
        return self._register("tools/call")

    def list_resources(self) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        return self._register("resources/list")

    def list_resource_templates(self) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        return self._register("resources/templates/list")

    def read_resource(self) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        return self._register("resources/read")

    def subscribe_resource(self) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        return self._register("resources/subscribe")

    def unsubscribe_resource(self) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        return self._register("resources/unsubscribe")

    def list_prompts(self) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        return self._register("prompts/list")

    def get_prompt(self) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        return self._register("prompts/get")

    def completion(self) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        return self._register("completion/complete")

    def set_logging_level(self) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        return self._register("logging/setLevel")

    def progress_notification(self) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        """Client → server ``notifications/progress``: ``func(progress_token, progress, total, message)``."""
        from ... import types

        def decorator(func: Callable[..., Any]) -> Callable[..., Any]:
            async def handler(notify: Any) -> None:
                p = notify.params
                await func(p.progressToken, p.progress, p.total, p.message)

            self.notification_handlers[types.ProgressNotification] = handler
            return func
        return decorator

    # -- mcp 2.x: handlers given to the constructor, or added by method ------------------------------------
    _V2_METHODS: ClassVar[dict[str, str]] = {
        "on_list_tools": "tools/list", "on_call_tool": "tools/call", "on_list_resources": "resources/list",
        "on_list_resource_templates": "resources/templates/list", "on_read_resource": "resources/read",
        "on_subscribe_resource": "resources/subscribe", "on_unsubscribe_resource": "resources/unsubscribe",
        "on_list_prompts": "prompts/list", "on_get_prompt": "prompts/get", "on_completion": "completion/complete",
        "on_set_logging_level": "logging/setLevel", "on_ping": "ping",
        "on_roots_list_changed": "notifications/roots/list_changed", "on_progress": "notifications/progress",
        "on_subscriptions_listen": "subscriptions/listen",
    }

    def _add_v2(self, key: str, func: Callable[..., Any]) -> None:
        method = self._V2_METHODS.get(key)
        if method is None:
            raise TypeError(f"Server(): unknown handler keyword {key!r}")
        if func is None or method == "ping":  # the core answers ping itself
            return
        if method.startswith("notifications/"):
            self.add_notification_handler(method, None, func)
        else:
            self.add_request_handler(method, None, func)

    def add_request_handler(self, method: str, params_type: Any, handler: Callable[..., Any]) -> None:
        """mcp 2.x: ``handler(ctx, params)`` for ``method``, its params validated against
        ``params_type``. A method outside the spec is registered with the core, which serves it
        (``core/src/server/methods.rs``) and refuses a name it keeps (ValueError, its text)."""
        if method == "initialize":
            raise ValueError("'initialize' is handled by the server runner and cannot be overridden; "
                             "use Server.middleware to observe or wrap initialization")
        if method == "subscriptions/listen":
            serve_listen(self, handler)
            return
        if method not in _SPEC_METHODS:
            from ... import _oxmcp

            _oxmcp.check_method_name(method)
            self._custom[method] = HandlerEntry(params_type, handler)
            if self._core._native is not None:
                self._core._native.add_method(method, _CustomMethod(self, method), True)
            return
        self._v2[method] = handler
        self._params_types[method] = params_type
        if method in ("ping", "server/discover"):
            return
        self._set_handler(method, handler)

    def add_notification_handler(self, method: str, params_type: Any, handler: Callable[..., Any]) -> None:
        """mcp 2.x: ``handler(ctx, params)`` for a client notification (legacy sessions)."""
        self._v2[method] = handler
        self.notification_handlers[method] = handler

    def get_request_handler(self, method: str) -> HandlerEntry | None:
        """The handler of ``method`` and the params model it validates against, as the SDK's."""
        if method == "subscriptions/listen" and self._listen is not None:
            return HandlerEntry(_PARAMS_TYPES.get(method), self._listen)
        if method in self._custom:
            return self._custom[method]
        handler = self.request_handlers.get(method)
        if handler is None:
            return None
        return HandlerEntry(self._params_types.get(method) or _PARAMS_TYPES.get(method), handler)

    def get_notification_handler(self, method: str) -> Any:
        return self.notification_handlers.get(method)

    # -- capabilities -------------------------------------------------------------------------------
    def get_capabilities(self, notification_options: NotificationOptions | None = None,
                         experimental_capabilities: dict[str, dict[str, Any]] | None = None) -> Any:
        from ... import types

        n = notification_options or NotificationOptions()
        h = self.request_handlers
        caps: dict[str, Any] = {}
        if "prompts/list" in h:
            caps["prompts"] = types.PromptsCapability(listChanged=n.prompts_changed)
        if "resources/list" in h:
            caps["resources"] = types.ResourcesCapability(subscribe="resources/subscribe" in h,
                                                          listChanged=n.resources_changed)
        if "tools/list" in h:
            caps["tools"] = types.ToolsCapability(listChanged=n.tools_changed)
        if "logging/setLevel" in h:
            caps["logging"] = types.LoggingCapability()
        if "completion/complete" in h:
            caps["completions"] = types.CompletionsCapability()
        # mcp 2.x leaves `experimental` out unless given; mcp 1.x declares it empty.
        experimental = experimental_capabilities if self._v2 or self._custom else experimental_capabilities or {}
        return types.ServerCapabilities(experimental=experimental, **caps)

    def create_initialization_options(self, notification_options: NotificationOptions | None = None,
                                      experimental_capabilities: dict[str, dict[str, Any]] | None = None) -> Any:
        from ..models import InitializationOptions

        return InitializationOptions(server_name=self.name, server_version=self._core.version,
                                     capabilities=self.get_capabilities(notification_options,
                                                                        experimental_capabilities),
                                     instructions=self.instructions)

    # -- the request being handled ---------------------------------------------------------------------
    @property
    def request_context(self) -> RequestContext:
        """``request_id``, ``meta``, ``session`` and ``lifespan_context`` of the request being handled.
        Raises ``LookupError`` outside a request, as the SDK does."""
        return request_ctx.get()

    # -- running ---------------------------------------------------------------------------------------
    @contextlib.asynccontextmanager
    async def _running(self, loop: Any = None) -> AsyncIterator[None]:
        from ..._loops import on_asyncio

        native = self._core._build_native()
        if not on_asyncio() and self.notification_handlers:
            # The core hands client notifications to the server's asyncio loop; there is none here.
            raise RuntimeError("Server.run() on trio: the server's notification handlers need asyncio")
        self._loop = asyncio.get_running_loop() if on_asyncio() else None
        if self.notification_handlers:
            native.on_session(self._on_session)
        async with self.lifespan(self) as value:
            # HTTP+SSE streams each run() at once, each in its own lifespan, as the SDK's: the value is
            # cleared when the last one ends.
            self._live += 1
            self._lifespan_value = value
            try:
                yield
            finally:
                self._live -= 1
                if not self._live:
                    self._lifespan_value = None

    async def run(self, read_stream: Any, write_stream: Any, initialization_options: Any = None,
                  raise_exceptions: bool = False, stateless: bool = False) -> None:
        """Serve until the client goes away: the process's stdio (``stdio_server()``), an HTTP+SSE stream
        (``SseServerTransport.connect_sse()``), or any pair of message streams (``SessionMessage``s)."""
        from ..sse import SseStream
        from ..stdio import StdioStream

        sse = isinstance(read_stream, SseStream) and isinstance(write_stream, SseStream) \
            and read_stream.connection is write_stream.connection
        stdio = isinstance(read_stream, StdioStream) and isinstance(write_stream, StdioStream)
        if sse:
            # Before the core server is built (by the first stream): the transport's options are its.
            read_stream.connection.transport._bind(self._core)
            if self._core._native is not None:
                # Streams after the first: the core already reports what the first run() gave it.
                async with self._running():
                    await read_stream.connection.serve(self._core)
                return
        if initialization_options is not None:
            # As the SDK: the options given to run() are what initialize reports.
            o = initialization_options
            self._core.name = getattr(o, "server_name", None) or self._core.name
            if getattr(o, "server_version", None) is not None:
                self._core.version = o.server_version
            for key, attr in (("instructions", "instructions"), ("website_url", "website_url")):
                if getattr(o, key, None):
                    setattr(self._core, attr, getattr(o, key))
            if getattr(o, "icons", None):
                self._core.icons = [_dump(i) for i in o.icons]
        self._link.capabilities = _dump(getattr(initialization_options, "capabilities", None)
                                        or self.get_capabilities())
        async with self._running():
            if sse:
                await read_stream.connection.serve(self._core)
            elif stdio:
                await self._core.run_async("stdio")
            else:
                from ._streams import serve_streams

                await serve_streams(self._core, read_stream, write_stream, raise_exceptions)

    async def _handle_message(self, message: Any, session: Any, lifespan_context: Any,
                              raise_exceptions: bool = False) -> None:
        """One item of a ``ServerSession``'s ``incoming_messages``, for this server's core."""
        from ..session import handle_message
        await handle_message(self, message, session, lifespan_context, raise_exceptions)

    async def _handle_request(self, message: Any, req: Any, session: Any, lifespan_context: Any,
                              raise_exceptions: bool) -> None:
        """A request given as a ``RequestResponder``, handed to this server's core with its id."""
        await session._deliver(self, {**_dump(req), "jsonrpc": "2.0", "id": message.request_id})

    def streamable_http_app(self, path: str = "/mcp", *, streamable_http_path: str | None = None,
                            **kwargs: Any) -> Any:
        """An ASGI (Starlette) app serving this server at ``path`` (mcp 2.x: ``streamable_http_path``).

        The SDK's keywords are given to the core's mount, which checks them (an unknown one, or a bad
        value, is refused with the core's text): ``max_request_body_size`` (``max_body_bytes``),
        ``max_sessions``, ``session_idle_timeout`` (seconds), ``stateless_http``, ``transport_security``
        (its allowed hosts and origins), ``custom_starlette_routes`` and ``debug``. ``json_response``,
        ``event_store``, ``retry_interval`` and ``host`` configure what the core always does (JSON or
        SSE per request, its own resumable streams; ``host`` only picks the SDK's default security).
        ``auth``, ``token_verifier`` and ``auth_server_provider`` are refused: a server that asked
        for auth must not serve without it (use the core's ``tokens=``/``oauth=`` options).
        """
        path = streamable_http_path or path
        for key in ("auth", "token_verifier", "auth_server_provider"):
            if kwargs.pop(key, None) is not None:
                raise TypeError(f"streamable_http_app(): {key}= is not supported by oxmcp; give the server "
                                "the core's tokens= or oauth= options (docs/OPTIONS.md) instead")
        for key in ("json_response", "event_store", "retry_interval", "host"):
            kwargs.pop(key, None)
        routes = list(kwargs.pop("custom_starlette_routes", None) or ())
        debug = bool(kwargs.pop("debug", False))
        server_options: dict[str, Any] = {}
        if kwargs.pop("stateless_http", False):
            server_options["legacy_stateless"] = True
        from ..._session_options import session_options

        server_options.update(session_options(kwargs, "streamable_http_app"))
        listen: dict[str, Any] = {}
        if "max_request_body_size" in kwargs:
            listen["max_body_bytes"] = kwargs.pop("max_request_body_size")
        ts = kwargs.pop("transport_security", None)
        if ts is not None:
            for key in ("allowed_hosts", "allowed_origins"):
                if getattr(ts, key, None):
                    listen[key] = list(getattr(ts, key))
        # What is left is the core's to judge: a listener option it knows is the mount's; anything
        # else is refused with its text (TypeError for an unknown name).
        listen.update(kwargs)
        from ... import _oxmcp

        _oxmcp.check_listen_options({**self._core.options, **server_options}, listen)
        if server_options and self._core._native is not None:
            raise RuntimeError("streamable_http_app(): call it before the server starts serving")
        self._core.options.update(server_options)
        self._core._mount_options(listen)
        from starlette.applications import Starlette
        from starlette.routing import Route

        from ..._asgi import AsgiApp

        server = self

        @contextlib.asynccontextmanager
        async def life(app: Any) -> AsyncIterator[None]:
            server._core._build_native().set_loop(asyncio.get_running_loop())
            async with server._running():
                yield

        routes.append(Route(path, endpoint=AsgiApp(self._core, path), methods=["GET", "POST", "DELETE"]))
        return Starlette(routes=routes, lifespan=life, debug=debug)

    # -- client notifications (legacy sessions; the core's session hook) --------------------------------
    def _notification_handler(self, method: str) -> tuple[Callable[..., Any], Any] | None:
        """The handler for ``method`` and the type it is keyed by (a notification class, or the method)."""
        for key, handler in self.notification_handlers.items():
            if key == method:
                return handler, None
            if isinstance(key, type) and _method_of(key) == method:
                return handler, key
        return None

    def _on_session(self, session: Any, method: str, params: Any) -> None:
        """The core's session listener (on the dispatcher thread): run the handler on the server's loop.
        ``resources/subscribe``/``unsubscribe`` are requests the low-level handler already answered."""
        found = None if method.startswith("resources/") else self._notification_handler(method)
        loop = self._loop
        if found is None or loop is None or loop.is_closed():
            return
        loop.call_soon_threadsafe(self._start_notification, found, session, method, params)

    def _start_notification(self, found: tuple[Callable[..., Any], Any], session: Any, method: str,
                            params: Any) -> None:
        task = asyncio.ensure_future(self._run_notification(found, session, method, params))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _run_notification(self, found: tuple[Callable[..., Any], Any], session: Any, method: str,
                                params: Any) -> None:
        handler, key = found
        params = params if isinstance(params, dict) else {}
        try:
            if method in self._v2:  # mcp 2.x: handler(ctx, params)
                ctx = _NotificationContext(_NativeSessionAdapter(session), self._lifespan_value, method, params)
                await handler(ctx, _params_model(method, params))
            else:  # mcp 1.x: handler(notification)
                cls = key or _NOTIFICATION_TYPES.get(method)
                body: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
                if params:
                    body["params"] = params
                await handler(cls.model_validate(body) if cls is not None else _attr(body))
        except Exception as exc:  # as the SDK: logged, never sent
            import logging

            logging.getLogger("oxmcp").error("notification handler for %s raised", method, exc_info=exc)

    # -- what a handler's return value means (the SDK's rules) -----------------------------------------
    async def _invoke(self, method: str, params: dict[str, Any], ctx: Context) -> Any:
        handler = self.request_handlers[method]
        rc = _LLRequestContext(ctx, self._lifespan_value, method, params)
        token = request_ctx.set(rc)
        try:
            if method in self._v2:  # mcp 2.x: handler(ctx, params) -> the result model
                out = await _v2_answer(handler, rc, method, params, ctx.era == "modern")
                body = _dump(out) if out is not None else {}
                if method == "tools/list":
                    self._tool_cache = {t["name"]: t for t in body.get("tools", [])}
                return body
            return await self._answer_v1(method, handler, params)
        finally:
            request_ctx.reset(token)

    async def _answer_v1(self, method: str, handler: Callable[..., Any], params: dict[str, Any],
                         request: Any = None) -> Any:
        """An mcp 1.x handler's answer as the result's wire body. A list handler that takes a
        parameter gets the request (``ListToolsRequest``, with its cursor), as 1.x passes it."""
        if method == "tools/call":
            name, arguments = params.get("name"), params.get("arguments") or {}
            try:
                tool = await self._listed_tool(name)
                if tool is not None and self._validate_input:
                    found = problem(tool.get("inputSchema") or {}, arguments)
                    if found is not None:
                        return error_result(f"Input validation error: {found}")
                out = await handler(name, arguments)
            except (InputRequired, RequestCancelled):
                raise
            except Exception as exc:  # noqa: BLE001  the SDK's rule: any exception is an isError result
                return error_result(str(exc))
            return self._checked_output(tool, out)
        if method in LIST_KEYS:
            if takes_argument(handler):
                out = await handler(request if request is not None else request_model(method, params))
            else:
                out = await handler()
            key = LIST_KEYS[method]
            # A list of items, or (1.x with pagination) the whole result.
            body = _dump(out) if hasattr(out, "model_dump") else {key: _dump(list(out))}
            if method == "tools/list":
                self._tool_cache = {t["name"]: t for t in body.get(key, [])}
            return body
        if method == "resources/read":
            uri = params.get("uri")
            return {"contents": _contents(uri, await handler(_AnyUrl(uri)))}
        if method == "prompts/get":
            return _dump(await handler(params.get("name"), params.get("arguments")))
        if method == "completion/complete":
            from ... import types

            ref = params.get("ref") or {}
            ref_model = (types.PromptReference(**ref) if ref.get("type") == "ref/prompt"
                         else types.ResourceTemplateReference(**ref))
            arg = types.CompletionArgument(**(params.get("argument") or {}))
            context = params.get("context")
            completion = await handler(ref_model, arg, types.CompletionContext(**context) if context else None)
            body = _dump(completion) if completion is not None else {"values": [], "total": None, "hasMore": None}
            return {"completion": {k: v for k, v in body.items() if v is not None}}
        if method in ("resources/subscribe", "resources/unsubscribe"):
            await handler(_AnyUrl(params.get("uri")))
            return {}
        if method == "logging/setLevel":
            await handler(params.get("level"))
            return {}
        raise McpError(-32601, "Method not found", method)

    async def _listed_tool(self, name: Any) -> dict[str, Any] | None:
        """The tool as the last ``tools/list`` listed it, listing again on a miss (the SDK's cache)."""
        if name not in self._tool_cache and "tools/list" in self.request_handlers:
            await self._answer_v1("tools/list", self.request_handlers["tools/list"], {})
        if name not in self._tool_cache:
            _log.warning("Tool '%s' not listed, no validation will be performed", name)
        return self._tool_cache.get(name)

    def _checked_output(self, tool: dict[str, Any] | None, out: Any) -> dict[str, Any]:
        """The call's result; for a result the SDK builds (not a ``CallToolResult`` given whole), its
        structured part checked against the listed ``outputSchema``, as mcp 1.x does."""
        result = tool_result(out, _dump)
        given_whole = hasattr(out, "model_dump") and hasattr(out, "content") and not hasattr(out, "type")
        schema = (tool or {}).get("outputSchema")
        if schema is None or given_whole or result.get("isError"):
            return result
        if "structuredContent" not in result:
            return error_result("Output validation error: outputSchema defined but no structured output returned")
        found = problem(schema, result["structuredContent"])
        return result if found is None else error_result(f"Output validation error: {found}")


class _AnyUrl(str):
    """The URI handed to ``read_resource``: a ``str`` (the SDK gives a pydantic ``AnyUrl``; ``str(uri)``
    and string operations behave the same)."""

    @property
    def scheme(self) -> str:
        return self.split(":", 1)[0]

    @property
    def path(self) -> str:
        rest = self.split("://", 1)[-1]
        return "/" + rest.split("/", 1)[1] if "/" in rest else ""

    @property
    def host(self) -> str:
        return self.split("://", 1)[-1].split("/", 1)[0]


def _contents(uri: Any, value: Any) -> list[dict[str, Any]]:
    def one(content: Any, mime: str | None, meta: Any = None) -> dict[str, Any]:
        if isinstance(content, bytes):
            out = {"uri": uri, "mimeType": mime or "application/octet-stream",
                   "blob": base64.b64encode(content).decode()}
        else:
            out = {"uri": uri, "mimeType": mime or "text/plain", "text": str(content)}
        if meta:
            out["_meta"] = meta
        return out

    if isinstance(value, (str, bytes)):
        return [one(value, None)]
    items = []
    for item in value:
        if isinstance(item, ReadResourceContents) or hasattr(item, "content"):
            items.append(one(item.content, getattr(item, "mime_type", None), getattr(item, "meta", None)))
        else:
            items.append(_dump(item))
    return items


__all__ += ["native_next"]
