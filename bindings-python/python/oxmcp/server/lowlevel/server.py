"""The SDK's low-level ``Server`` (``mcp.server.lowlevel.Server``, mcp 1.x's decorator API) on the core.

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
``roots/list`` request on a legacy session and an MRTR round on a modern request.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import contextvars
import json
from typing import Any, AsyncIterator, Callable, Iterable

from ..._compat_ctx import RequestContext
from ..._context import Context
from ..._errors import InputRequired, McpError, RequestCancelled
from ..middleware import native_next
from .helper_types import ReadResourceContents

__all__ = ["NotificationOptions", "Server", "request_ctx"]

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


class _LLRequestContext(RequestContext):
    def __init__(self, ctx: Context, lifespan_context: Any) -> None:
        super().__init__(ctx)
        self._lifespan = lifespan_context

    @property
    def lifespan_context(self) -> Any:
        return self._lifespan


class Server:
    """``Server(name, version=None, instructions=None, lifespan=...)`` with the SDK's decorators."""

    def __init__(self, name: str, version: str | None = None, instructions: str | None = None,
                 lifespan: Callable[["Server"], Any] = lifespan, *, website_url: str | None = None,
                 icons: list[Any] | None = None, title: str | None = None, **options: Any) -> None:
        from ..._server import Server as CoreServer

        self.name = name
        self.version = version
        self.instructions = instructions
        self.lifespan = lifespan
        self.request_handlers: dict[str, Callable[..., Any]] = {}
        self.notification_handlers: dict[str, Callable[..., Any]] = {}
        self._tool_cache: dict[str, Any] = {}
        self._lifespan_value: Any = None
        # The SDK reports the installed `mcp` version when none is given; oxmcp reports its own.
        from ... import __version__

        self._core = CoreServer(name, version or __version__, instructions=instructions, title=title,
                                website_url=website_url, icons=[_dump(i) for i in icons] if icons else None,
                                **options)
        from .._lowlevel_link import LowLevelLink

        self._link = LowLevelLink(self)
        self._core._middleware.append(self._link)

    # -- the SDK's decorators ---------------------------------------------------------------------
    def _register(self, method: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        def decorator(func: Callable[..., Any]) -> Callable[..., Any]:
            if not callable(func):
                raise TypeError(f"@server.{method}: decorate a function (use @server.x(), with parentheses)")
            self.request_handlers[method] = func
            return func
        return decorator

    def list_tools(self) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        return self._register("tools/list")

    def call_tool(self, *, validate_input: bool = True) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
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
        """Client → server ``notifications/progress``: registered, but client notifications are not routed
        to Python by oxmcp yet (see docs/COMPATIBILITY.md)."""
        def decorator(func: Callable[..., Any]) -> Callable[..., Any]:
            self.notification_handlers["notifications/progress"] = func
            return func
        return decorator

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
        return types.ServerCapabilities(experimental=experimental_capabilities or {}, **caps)

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
        self._core._build_native()
        async with self.lifespan(self) as value:
            self._lifespan_value = value
            try:
                yield
            finally:
                self._lifespan_value = None

    async def run(self, read_stream: Any, write_stream: Any, initialization_options: Any = None,
                  raise_exceptions: bool = False, stateless: bool = False) -> None:
        """Serve until the client goes away. The streams must come from ``oxmcp.server.stdio.stdio_server()``."""
        from ..stdio import StdioStream

        if not (isinstance(read_stream, StdioStream) and isinstance(write_stream, StdioStream)):
            raise TypeError("Server.run(read, write, ...): oxmcp serves the streams of "
                            "oxmcp.server.stdio.stdio_server(); for HTTP use "
                            "oxmcp.server.streamable_http_manager.StreamableHTTPSessionManager")
        if initialization_options is not None and getattr(initialization_options, "instructions", None):
            self._core.instructions = initialization_options.instructions
        self._link.capabilities = _dump(getattr(initialization_options, "capabilities", None)
                                        or self.get_capabilities())
        async with self._running():
            await self._core.run_async("stdio")

    def streamable_http_app(self, path: str = "/mcp", **kwargs: Any) -> Any:
        """An ASGI (Starlette) app serving this server at ``path``."""
        from starlette.applications import Starlette
        from starlette.routing import Route

        from ..._asgi import AsgiApp

        server = self

        @contextlib.asynccontextmanager
        async def life(app: Any) -> AsyncIterator[None]:
            server._core._build_native().set_loop(asyncio.get_running_loop())
            async with server._running():
                yield

        return Starlette(routes=[Route(path, endpoint=AsgiApp(self._core, path), methods=["GET", "POST", "DELETE"])],
                         lifespan=life)

    # -- what a handler's return value means (the SDK's rules) -----------------------------------------
    async def _invoke(self, method: str, params: dict[str, Any], ctx: Context) -> Any:
        handler = self.request_handlers[method]
        token = request_ctx.set(_LLRequestContext(ctx, self._lifespan_value))
        try:
            if method == "tools/call":
                try:
                    out = await handler(params.get("name"), params.get("arguments") or {})
                except (InputRequired, RequestCancelled):
                    raise
                except Exception as exc:  # noqa: BLE001  the SDK's rule: any exception is an isError result
                    return {"content": [{"type": "text", "text": str(exc)}], "isError": True}
                return self._tool_result(out)
            if method == "tools/list":
                tools = await handler()
                listed = _dump(list(tools))
                self._tool_cache = {t["name"]: t for t in listed}
                return {"tools": listed}
            if method == "resources/list":
                return {"resources": _dump(list(await handler()))}
            if method == "resources/templates/list":
                return {"resourceTemplates": _dump(list(await handler()))}
            if method == "resources/read":
                uri = params.get("uri")
                return {"contents": _contents(uri, await handler(_AnyUrl(uri)))}
            if method == "prompts/list":
                return {"prompts": _dump(list(await handler()))}
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
            raise McpError(-32601, f"Method not found: {method}")
        finally:
            request_ctx.reset(token)

    def _tool_result(self, out: Any) -> dict[str, Any]:
        if hasattr(out, "model_dump") and hasattr(out, "content") and not hasattr(out, "type"):
            return _dump(out)  # a CallToolResult
        structured: Any = None
        if isinstance(out, tuple) and len(out) == 2:
            unstructured, structured = out
        elif isinstance(out, dict):
            unstructured, structured = [{"type": "text", "text": json.dumps(out, indent=2)}], out
        elif isinstance(out, Iterable) and not isinstance(out, (str, bytes)):
            unstructured = out
        else:
            return {"content": [{"type": "text", "text": f"Unexpected return type from tool: {type(out).__name__}"}],
                    "isError": True}
        result: dict[str, Any] = {"content": _dump(list(unstructured)), "isError": False}
        if structured is not None:
            result["structuredContent"] = _dump(structured)
        return result


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
