"""``MCPServer`` (mcp 2.x) and mcp 1.x's ``FastMCP``: oxmcp's ``FastMCP`` with the ``mcp`` SDK's rules.

The SDK's defaults (masked crash texts, ``description: ""``, the name "mcp-server"), its component
objects (``add_resource(FunctionResource(...))``), its decorator rules, its ``ResourceSecurity`` on
template values, and the options oxmcp refuses rather than ignore (a subscriptions bus, ``Resolve``).
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Callable
from typing import Any

import pydantic_core as _pydantic_core

from ._context import Context as _Context
from ._errors import ResourceError, ToolError
from ._fastmcp import FastMCP, _dump
from ._handlers import TemplateMismatch, template_variables
from ._refusals import sdk_refusal
from ._reword import RewordingLink, missing_arguments_text
from .server.streamable_http_manager import DEFAULT_MAX_SESSIONS, DEFAULT_SESSION_IDLE_TIMEOUT
from .server.transport_security import DEFAULT_MAX_REQUEST_BODY_SIZE

__all__ = ["LegacyFastMCP", "MCPServer"]

_log = logging.getLogger("oxmcp")
#: The logger the SDK's MCPServer writes its handler failures to (servers filter and test by it).
_sdk_log = logging.getLogger("mcp.server.mcpserver.server")
_SERVER_INFO = "io.modelcontextprotocol/serverInfo"


def _sdk_json(value: Any) -> str:
    return _pydantic_core.to_json(value, fallback=str, indent=2).decode()


class MCPServer(FastMCP):
    """``mcp`` 2.x's ``MCPServer`` (and ``mcp.server.fastmcp.FastMCP`` of 1.x): the same server with
    that SDK's defaults: unexpected exceptions masked as ``Error executing tool name``, ``description: ""``
    for undocumented tools, resources and prompts, the name defaulting to "mcp-server"."""

    _error_prefix = "Error executing tool {name}"
    _fastmcp_log_data = False
    _default_mask = True  # the SDK shows ToolError text only; other exceptions are masked
    _tool_errors_reach_middleware = False
    _prompt_error_prefix = None
    _tool_timeout_texts = None
    _template_policy = True  # mcp 2.x's ResourceSecurity on template values
    _template_params_subset = False  # the SDKs' templates name exactly the function's parameters
    _contents_meta = True  # a read's contents carry the resource's `_meta`
    _session_manager: Any = None  # streamable_http_app()'s, mcp 2.x's MCPServer.session_manager
    #: A resource function's dict, list or number is read as the SDKs write it: JSON indented by 2.
    _resource_json = staticmethod(_sdk_json)  # type: ignore[assignment]
    #: Which return annotations get an output schema: the SDK's func_metadata rule of this
    #: generation (_schema.py; mcp 2.x gives content annotations none, 1.x describes them too).
    _sdk_output_rule: int | None = 2
    #: A function's ``InputRequiredResult`` is an input round of the core (_rounds.py).
    _relays_input_required = True
    #: mcp 2.x's rules where 1.x's differ: a completion handler's crash worded and logged as 2.x does
    #: (server/_completion_link.py), a Resource object's read() checked to give str or bytes.
    _sdk2 = True

    @property
    def _context_class(self) -> Any:
        """The ``Context`` a function of this server gets: mcp 2.x's (``ctx.mcp_server``, ...)."""
        from .server.mcpserver.context import Context

        return Context

    def __init__(self, name: str | None = None, instructions: str | None = None, **kwargs: Any) -> None:
        bus = kwargs.get("subscriptions")
        #: The SDK's event bus given as ``subscriptions=``: ``ctx.notify_*`` publish to it, and each event
        #: it carries becomes the core's notification (as a ``ListenHandler``'s bus feeds a low-level
        #: server's), which the core sends to the listen streams that asked for it.
        self._subscription_bus = None if bus is None or isinstance(bus, bool) else bus
        if self._subscription_bus is not None:
            from .server.subscriptions import ListenHandler

            if not callable(getattr(bus, "publish", None)) or not callable(getattr(bus, "subscribe", None)):
                raise TypeError("MCPServer(subscriptions=...): give a SubscriptionBus (publish, subscribe), "
                                "or True/False")
            ListenHandler(bus)._feed(lambda: self._native)
        from .server.mcpserver.resources import DEFAULT_RESOURCE_SECURITY

        #: Whether ``subscriptions/listen`` is served (the SDK's ``subscriptions=False`` turns it off).
        self._listen_served = bus is not False
        self._completion_handler = False

        # The SDK's checks on template values (a path climbing above its base, absolute paths, NUL
        # bytes), handed to the core, which screens each template's values by them.
        self._resource_security = kwargs.get("resource_security") or DEFAULT_RESOURCE_SECURITY
        self._resource_policies: dict[str, Any] = {}
        extensions = list(kwargs.pop("extensions", None) or ())
        self._warn_duplicate_tools = kwargs.get("warn_on_duplicate_tools", True) is not False
        resources = list(kwargs.pop("resources", None) or ())
        # mcp 2.x's `middleware=` is the context tier (`fn(ctx, call_next)`), not FastMCP's classes.
        context_middleware = kwargs.pop("middleware", None) or ()
        icons = kwargs.get("icons")
        from .server.auth._link import take_auth

        # auth=AuthSettings(...) with token_verifier=: the core's oauth options and its verifier hook.
        self._token_verifier_entry = take_auth(kwargs)
        super().__init__(name, instructions, **kwargs)
        self._sdk_icons = list(icons) if icons else None  # as given (the SDK's Icon models)
        from .server._context_middleware import MiddlewareList

        self._context_middleware = MiddlewareList(self, lambda: self.lifespan_context, context_middleware)
        self._middleware.append(_SdkNotFoundText(self))
        self.dependencies: list[str] = list(kwargs.get("dependencies") or ())
        from .server.mcpserver.settings import Settings

        given = {k: v for k, v in kwargs.items() if k in Settings.model_fields and k != "dependencies"}
        self._sdk_settings = Settings(**given, dependencies=self.dependencies)
        for resource in resources:  # the SDK's seeded components
            self.add_resource(resource)
        if extensions:  # SEP-2133 extensions (server/_extension_link.py)
            from .server._extension_link import apply_extensions

            link = apply_extensions(self, extensions)
            if link is not None:
                self._middleware.append(link)

    # The SDK's tool-failure texts and records, on its server module's logger: a ToolError is an
    # anticipated failure (INFO, no traceback), anything else a crash (ERROR, with its traceback).
    _argument_refusal = sdk_refusal  # the words of a refusal of a tool's arguments

    def _tool_error_anticipated(self, name: str, exc: BaseException | str) -> str:
        text = f"Error executing tool {name}: {exc}"
        _sdk_log.info("Tool %r failed: %r", name, text)
        return text

    def _tool_arguments_rejected(self, name: str, exc: Any, text: str) -> str:
        """Arguments the tool's model refused: the model's to correct, logged at INFO with the names of
        the fields only (the values are the caller's data)."""
        fields = sorted({".".join(str(part) for part in err["loc"]) for err in exc.errors()})
        _sdk_log.info("Tool %r rejected arguments: %r", name, fields)
        return f"Error executing tool {name}: {text}"

    def _log_tool_crash(self, name: str, exc: BaseException) -> None:
        _sdk_log.error("Tool %r raised an unexpected exception", name, exc_info=exc)

    def _resource_failed(self, uri: str, exc: BaseException, template: bool) -> Any:
        """A resource function's failure as the SDK answers it: ``ResourceNotFoundError`` is -32602,
        another ``ResourceError`` -32603 with its text (both logged at INFO), a crash -32603
        "Error reading resource <uri>" ("Error creating resource from template <uri>" for a
        template; logged at ERROR with its traceback); ``data`` names the URI."""
        from .server.mcpserver.exceptions import ResourceNotFoundError, UnexpectedResourceError

        if isinstance(exc, ResourceError) and not isinstance(exc, UnexpectedResourceError):
            _sdk_log.info("Resource %r failed: %r", uri, str(exc))
            code = -32602 if isinstance(exc, ResourceNotFoundError) else -32603
            return ("mcp_error", (code, str(exc), {"uri": uri}))
        text = "Error creating resource from template" if template else "Error reading resource"
        if not isinstance(exc, UnexpectedResourceError):  # the SDK's wrapper, chained to the crash
            wrapped = UnexpectedResourceError(f"{text} {uri}")
            wrapped.__cause__, exc = exc, wrapped
        _sdk_log.error("Resource %r raised an unexpected exception", uri, exc_info=exc)
        return ("mcp_error", (-32603, f"{text} {uri}", {"uri": uri}))

    def _build_native(self) -> Any:
        native = super()._build_native()
        native.declare_exactly(self._sdk_capabilities())
        return native

    def _sdk_capabilities(self) -> dict[str, Any]:
        """What the SDK's ``MCPServer`` declares: tools, resources and prompts, whose change flags
        say whether ``subscriptions/listen`` is served; completions once a completion handler is
        set; no logging (it registers no ``logging/setLevel`` handler)."""
        on = self._listen_served
        caps: dict[str, Any] = {"prompts": {"listChanged": on}, "resources": {"subscribe": on, "listChanged": on},
                                "tools": {"listChanged": on}}
        if self._completion_handler or self._completions:
            caps["completions"] = {}
        return caps

    @property
    def settings(self) -> Any:
        """The settings the server was built with, as mcp 2.x's ``Settings`` reads them."""
        return self._sdk_settings

    @property
    def icons(self) -> Any:
        """The server's icons as given (the wire's copy is in ``info``)."""
        return getattr(self, "_sdk_icons", None) or self._wire_icons

    @icons.setter
    def icons(self, value: Any) -> None:
        self._wire_icons = value
        self._sdk_icons = None

    @property
    def info(self) -> dict[str, Any]:
        out = dict(super().info)
        if self._wire_icons is not None:
            out["icons"] = self._wire_icons
        return out

    def __class_getitem__(cls, item: Any) -> Any:
        return cls  # ``MCPServer[AppState]`` in a lifespan's annotation, as with the SDK's generic class

    async def run_stdio_async(self) -> None:
        """Serve over stdio on the running loop, as the SDK's ``run_stdio_async``."""
        await self.run_async("stdio")

    async def run_streamable_http_async(self, **kwargs: Any) -> None:
        """Serve Streamable HTTP on the running loop; the SDK's keywords are ``run_async``'s."""
        await self.run_async("streamable-http", **kwargs)

    async def run_sse_async(self, mount_path: str | None = None, **kwargs: Any) -> None:
        """Serve the 2024-11-05 HTTP+SSE transport (beside Streamable HTTP) on the running loop."""
        if mount_path is not None:
            kwargs["mount_path"] = mount_path
        await self.run_async("sse", **kwargs)

    def streamable_http_app(self, *, streamable_http_path: str = "/mcp",  # type: ignore[override]
                            json_response: bool = False, stateless_http: bool = False, event_store: Any = None,
                            retry_interval: int | None = None,
                            max_request_body_size: int = DEFAULT_MAX_REQUEST_BODY_SIZE,
                            session_idle_timeout: float | None = DEFAULT_SESSION_IDLE_TIMEOUT,
                            max_sessions: int | None = DEFAULT_MAX_SESSIONS,
                            transport_security: Any = None, host: str = "127.0.0.1") -> Any:
        """The SDK's Streamable HTTP app, with its keywords: the MCP endpoint at ``streamable_http_path``
        inside the app (``"/"`` for an app mounted at the endpoint's own path), served while
        ``session_manager.run()`` is entered (the app's own lifespan, or a host app's that mounts it).
        Without ``transport_security`` the core's Host rule applies (the loopback names). The body cap
        and the session limits are the core's options; ``None`` is the SDK's "no limit", which the
        core reads as its session cap and an idle period of a year."""
        from ._asgi import AsgiApp
        from ._mcp_session_manager import ServerSessionManager
        from .server.streamable_http_manager import NO_IDLE_TIMEOUT

        manager = ServerSessionManager(
            self, json_response=json_response, stateless=stateless_http, event_store=event_store,
            retry_interval=retry_interval, session_idle_timeout=session_idle_timeout, max_sessions=max_sessions,
            max_request_body_size=max_request_body_size, security_settings=transport_security)
        kwargs: dict[str, Any] = {"event_store": event_store, "retry_interval": retry_interval,
                                  "transport_security": transport_security}
        if max_request_body_size != DEFAULT_MAX_REQUEST_BODY_SIZE:
            kwargs["max_body_bytes"] = max_request_body_size
        if session_idle_timeout != DEFAULT_SESSION_IDLE_TIMEOUT:
            kwargs["session_idle_timeout"] = NO_IDLE_TIMEOUT if session_idle_timeout is None else session_idle_timeout
        if max_sessions is not None and max_sessions != DEFAULT_MAX_SESSIONS:
            kwargs["max_sessions"] = max_sessions
        app = self.http_app(path=streamable_http_path, json_response=json_response,
                            stateless_http=stateless_http, **kwargs)
        # The SDK's order: the MCP endpoint, then the custom routes.
        # (A protected resource's metadata route is an AsgiApp too, routed by the core.)
        (endpoint,) = [r for r in app.router.routes
                       if isinstance(getattr(r, "endpoint", None), AsgiApp) and not r.endpoint.routed]
        endpoint.endpoint.gate = manager.check_running
        app.router.routes.remove(endpoint)
        app.router.routes.insert(0, endpoint)
        app.router.lifespan_context = lambda _app: manager.run()
        self._session_manager = manager
        return app

    @property
    def session_manager(self) -> Any:
        """What serves the app ``streamable_http_app()`` returned: a host app's lifespan enters its
        ``run()``. Only after ``streamable_http_app()``, as the SDK's."""
        if self._session_manager is None:
            raise RuntimeError("Session manager can only be accessed after calling streamable_http_app(). "
                               "The session manager is created lazily to avoid unnecessary initialization.")
        return self._session_manager

    def sse_app(self, *, sse_path: str = "/sse", message_path: str = "/messages/",  # type: ignore[override]
                max_request_body_size: int | None = None, transport_security: Any = None,
                host: str = "127.0.0.1") -> Any:
        """The SDK's HTTP+SSE app: ``GET sse_path`` and a mount at ``message_path``. Its host guard is
        the SDK's: ``transport_security`` as given, else the loopback names for a loopback ``host``."""
        from .server.transport_security import loopback_settings

        options: dict[str, Any] = {}
        if max_request_body_size is not None:
            options["max_body_bytes"] = max_request_body_size
        return self._sdk_sse_app(sse_path, message_path, transport_security or loopback_settings(host), options)

    def _sdk_sse_app(self, sse_path: str, message_path: str, transport_security: Any, options: dict[str, Any],
                     prefix: str = "") -> Any:
        """``Route(sse_path)`` and ``Mount(message_path)`` as the SDK lays them out, then the custom routes;
        ``prefix`` is announced before the messages path when no mount gives one (mcp 1.x's ``mount_path``)."""
        from starlette.routing import Mount, Route

        from ._asgi import AsgiApp
        from .server.transport_security import listener_options

        if self._native is not None:
            raise RuntimeError("sse_app(): call it before the server starts serving")
        self._mount_options({**listener_options(transport_security), **options})
        self.options.update(sse=True, sse_path=sse_path, messages_path=message_path)
        app = AsgiApp(self, sse_path, routed=True)
        routes: list[Any] = [Route(sse_path, endpoint=_Rooted(app, "", prefix), methods=["GET"]),
                             Mount(message_path.rstrip("/"), app=_Rooted(app, message_path.rstrip("/"), prefix))]
        routes += [Route(p, endpoint=fn, methods=m, name=n) for p, m, fn, n in self._custom_routes]
        return self._starlette(routes, None)

    @property
    def _lowlevel_server(self) -> Any:
        """mcp 2.x's low-level server under this one: on oxmcp, this server (``server/_lowlevel_view.py``)."""
        from .server._lowlevel_view import LowLevelView

        return LowLevelView(self)

    @property
    def middleware(self) -> list[Any]:
        """The context-tier middleware around every request, outermost first: append
        ``async fn(ctx, call_next)`` before the server runs (mcp 2.x's ``ServerMiddleware``)."""
        return self._context_middleware

    def remove_tool(self, name: str) -> None:  # type: ignore[override]
        """Remove a tool; an unknown name raises ``ToolError`` ("Unknown tool: ..."), as in the SDK."""
        if not super().remove_tool(name):
            raise ToolError(f"Unknown tool: {name}")

    def remove_prompt(self, name: str) -> None:  # type: ignore[override]
        """Remove a prompt; an unknown name raises ``ValueError`` ("Unknown prompt: ..."), as in the SDK."""
        if not super().remove_prompt(name):
            raise ValueError(f"Unknown prompt: {name}")

    def add_tool(self, fn: Any, **kwargs: Any) -> Any:  # type: ignore[override]
        from .server.mcpserver.resolve import with_resolvers
        from .server.mcpserver.tools import Tool

        if isinstance(fn, Tool):  # an SDK component (``MCPServer(tools=[Tool.from_function(...)])``)
            kwargs = {"name": fn.name, "title": fn.title, "description": fn.description, "icons": fn.icons,
                      "annotations": fn.annotations, "meta": fn.meta, **kwargs}
            fn = fn.fn
        fn = with_resolvers(fn)
        # The SDK's tool manager keeps the first of two tools by one name, with a warning.
        existing = self._tools.get(str(kwargs.get("name") or getattr(fn, "__name__", "")))
        if existing is not None and not kwargs.get("replace") and existing.origin is None and self._origin is None:
            if self._warn_duplicate_tools:
                _log.warning("Tool already exists: %s", existing.name)
            return existing
        return super().add_tool(fn, **kwargs)

    def _prepare_tool(self, fn: Any, kwargs: dict[str, Any]) -> tuple[Any, dict[str, Any]] | None:
        from .server.mcpserver.resolve import with_resolvers

        return super()._prepare_tool(with_resolvers(fn), kwargs)

    @classmethod
    def generate_name(cls, name: str | None = None) -> str:
        return name or "mcp-server"

    # The SDK answers a tool without an output schema with content only, and marks no wrapped result.
    _structured_objects = False
    _fastmcp_wrap_meta = False
    _prompt_schema_notes = False

    @staticmethod
    def _default_version() -> str:
        return ""

    def _adapt_tool(self, entry: Any) -> None:
        # Before the tool is registered, so that one added while serving is listed so too: the
        # schemas and description as the SDK writes them (server/mcpserver/sdk_schema.py).
        from .server.mcpserver.sdk_schema import adapt

        adapt(entry)
        _check_headers(entry.name, entry.info.input_schema)
        if not entry.info.description:
            entry.info.description = ""  # the SDK lists a tool without a docstring with description ""

    @staticmethod
    def _tool_content(value: Any) -> list[dict[str, Any]] | None:
        """The content blocks the SDK makes of a tool's return value (server/mcpserver/sdk_schema.py)."""
        from .server.mcpserver.sdk_schema import content_of

        return content_of(value)

    # The SDK's decorators take their options positionally (``@mcp.tool("name")``) and refuse to be
    # applied uncalled (``@mcp.tool``), which would otherwise register the wrong thing.
    def tool(self, name: Any = None, **kwargs: Any) -> Any:  # type: ignore[override]
        if callable(name):
            raise TypeError("The @tool decorator was used incorrectly. Did you forget to call it? "
                            "Use @tool() instead of @tool")
        if name is not None:
            kwargs["name"] = name
        return super().tool(**kwargs)

    def resource(self, uri: Any, **kwargs: Any) -> Any:  # type: ignore[override]
        if callable(uri):
            raise TypeError("The @resource decorator was used incorrectly. Did you forget to call it? "
                            "Use @resource('uri') instead of @resource")
        security = kwargs.pop("security", None)
        if self._template_policy:  # mcp 2.x parses the template when it is given
            _parse_template(uri)
        deco = super().resource(uri, **kwargs)

        def apply(fn: Any) -> Any:
            _check_resource_function(uri, fn, self._template_policy)
            if security is not None:
                self._resource_policies[uri] = security
            return deco(fn)

        return apply

    def prompt(self, name: Any = None, **kwargs: Any) -> Any:  # type: ignore[override]
        if callable(name):
            raise TypeError("The @prompt decorator was used incorrectly. Did you forget to call it? "
                            "Use @prompt() instead of @prompt")
        if name is not None:
            kwargs["name"] = name
        return super().prompt(**kwargs)

    def add_resource(self, fn: Any, uri: str | None = None, **kwargs: Any) -> Any:  # type: ignore[override]
        if uri is None and not kwargs and _is_resource_object(fn):
            return self._add_resource_object(fn)
        if uri is None:
            raise TypeError("add_resource(fn, uri, ...) or add_resource(resource): give the URI, or a Resource object")
        if kwargs.get("mime_type") is None:
            kwargs["mime_type"] = "text/plain"  # the SDK's Resource default
        variables = set(template_variables(uri))
        policy = kwargs.pop("security", None) or self._resource_policies.pop(uri, None) or self._resource_security
        if variables and self._template_policy:
            kwargs["screen"] = policy.screen()  # the core screens the values, as the SDK's manager does
        try:
            entry = super().add_resource(fn, uri, **kwargs)
        except TemplateMismatch as exc:
            if variables or not self._template_policy:
                raise
            # mcp 2.x's wording for a static URI whose function takes parameters.
            raise TemplateMismatch(f"Resource {uri!r} has no URI template variables, but the handler declares "
                                   f"parameters: {exc}") from exc
        if not entry.info.description:
            entry.info.description = ""
        return entry

    def _add_resource_object(self, resource: Any) -> Any:
        """The SDK's ``add_resource(FunctionResource(...))``: registered with the core like a decorated
        static resource, whose function is the object's ``read()``."""
        checked = self._sdk2

        async def read() -> Any:
            content = await resource.read()
            if checked and not isinstance(content, (str, bytes)):
                raise TypeError(f"Resource.read() must return str or bytes, not {type(content).__name__}")
            return content

        read.__name__ = str(resource.name or resource.uri)
        entry = self.add_resource(read, str(resource.uri), name=resource.name, title=resource.title,
                                 description=resource.description, mime_type=resource.mime_type,
                                 icons=[_dump(i) for i in resource.icons] if resource.icons else None,
                                 annotations=_dump(resource.annotations) if resource.annotations else None,
                                 meta=resource.meta)
        if resource.description is None:
            entry.info.description = None  # listed as the object has it (a decorated one gets "")
        return entry

    def add_prompt(self, fn: Any, **kwargs: Any) -> Any:  # type: ignore[override]
        entry = super().add_prompt(fn, **kwargs)
        if not entry.info.description:
            entry.info.description = ""
        return entry

    # The SDK's managers, which real servers reach into: views over this server's registry.
    _resources_module = "oxmcp.server.mcpserver.resources"

    @property
    def _tool_manager(self) -> Any:
        from .server.mcpserver.tools import ToolManager

        return ToolManager(self)

    @property
    def _resource_manager(self) -> Any:
        import importlib

        from .server.mcpserver.managers import ResourceManager

        return ResourceManager(self, importlib.import_module(self._resources_module))

    @property
    def _prompt_manager(self) -> Any:
        from .server.mcpserver.managers import PromptManager

        return PromptManager(self)

    # -- the SDK's in-process calls on the server itself (``await mcp.call_tool(...)`` in self-tests;
    # ``list_*`` and ``_mcp_server`` are FastMCP's) ------------------------------------------------------
    async def call_tool(self, name: str, arguments: dict[str, Any] | None = None,  # type: ignore[override]
                        context: Any = None) -> Any:
        """The tool's ``CallToolResult`` (or its ``InputRequiredResult``), called in process as the
        SDK calls it: a failure raises ``ToolError`` / ``UnexpectedToolError`` chained to its cause."""
        from .server.mcpserver._direct import call_tool

        return await call_tool(self, name, arguments, context)

    async def read_resource(self, uri: Any, context: Any = None) -> Any:
        """The resource's contents (``.content``, ``.mime_type``), or the ``InputRequiredResult`` its
        template returned, read in process as the SDK reads it (its exceptions raised as they are)."""
        from .server.mcpserver._direct import read_resource

        return await read_resource(self, str(uri), context)

    async def _sdk_context_read(self, uri: str, context: Any) -> Any:
        """``ctx.read_resource``: the contents only; an ``InputRequiredResult`` is refused."""
        from .types import InputRequiredResult

        result = await self.read_resource(uri, context)
        if isinstance(result, InputRequiredResult):
            raise RuntimeError("Resource returned InputRequiredResult; ctx.read_resource() only returns content "  # noqa: TRY004
                               "— use MCPServer.read_resource(uri, context) to receive and forward it.")
        return result

    @staticmethod
    def _check_tool_value(entry: Any, value: Any) -> None:
        from .server.mcpserver.sdk_schema import check_value

        check_value(entry, value)

    @staticmethod
    def _sdk_tool_failed(name: str, exc: BaseException) -> str:
        from .server.mcpserver._direct import tool_failure

        return tool_failure(name, exc)

    async def _call_tool_through_core(self, name: str, arguments: dict[str, Any] | None = None) -> Any:
        """The tool's ``CallToolResult``, through the core as a client's call; a failed call raises
        ``ToolError`` with its text."""
        from .client import Client
        from .types import CallToolResult

        async with Client(self) as client:
            result = await client.call_tool(name, arguments or {})
        if result.isError:
            raise ToolError(" ".join(getattr(c, "text", "") for c in result.content) or f"tool {name} failed")
        # The tool's result as its handler formed it: the serving's own `_meta` (serverInfo) is
        # stamped on the wire, not part of what the SDK's in-process call returns.
        meta = {k: v for k, v in (result.field_meta or {}).items() if k != _SERVER_INFO} or None
        return CallToolResult(_meta=meta, content=result.content, structuredContent=result.structuredContent,
                              isError=result.isError)

    async def get_prompt(self, name: str, arguments: dict[str, Any] | None = None, context: Any = None) -> Any:
        from .client import Client

        async with Client(self) as client:
            return await client.get_prompt(name, arguments)

    def completion(self, *, prompt: str | None = None, resource: str | None = None,  # type: ignore[override]
                   argument: str | None = None) -> Callable[[Any], Any]:
        """The SDK's ``@mcp.completion()``: one ``async handler(ref, argument, context)`` for every
        completion request; with ``prompt=``/``resource=`` and ``argument=``, oxmcp's per-argument form."""
        if prompt is not None or resource is not None or argument is not None:
            if argument is None:
                raise TypeError("completion(prompt=..., argument=...): name the argument to complete")
            return super().completion(prompt=prompt, resource=resource, argument=argument)

        def deco(fn: Any) -> Any:
            if not inspect.iscoroutinefunction(fn):
                raise TypeError("@mcp.completion(): decorate an async function (ref, argument, context)")
            from .server._completion_link import CompletionLink

            link = CompletionLink(fn, sdk_failures=self._sdk2)
            with self._lock:
                self._middleware.append(link)
                self._completion_handler = True
                if self._native is not None:
                    self._native.add_middleware(link, True, link.hooks())
                    self._native.declare_exactly(self._sdk_capabilities())
            return fn
        return deco


class LegacyFastMCP(MCPServer):
    """``mcp.server.fastmcp.FastMCP`` of mcp 1.x (``from oxmcp.server.fastmcp import FastMCP``): MCPServer's
    rules, with 1.x's unmasked tool errors and its constructor-held HTTP settings."""

    _default_mask = False
    _handshake_only = True
    _sdk_output_rule = 1
    _template_policy = False  # mcp 1.x has no ResourceSecurity: its templates take any one-segment value
    _resource_failed = None  # type: ignore[assignment]  # mcp 1.x answers a resource's failure as oxmcp does
    # mcp 1.x's words for a prompt that fails: its low-level server answers any exception of a handler
    # with code 0 (its ErrorData default; the spec allows any integer) and the text unmasked.
    _prompt_error_prefix = "Error rendering prompt {name}"  # type: ignore[assignment]
    _prompt_error_code = 0
    _resources_module = "oxmcp.server.fastmcp.resources"
    def streamable_http_app(self) -> Any:  # type: ignore[override]
        """mcp 1.x's: the path and options are the settings'; ``session_manager`` reads them back and
        its ``run()`` serves the app where a host app mounts it."""
        from ._mcp_session_manager import ServerSessionManager

        app = FastMCP.streamable_http_app(self)
        s = self._settings
        given = s.model_fields_set  # what is not given reads back as the SDK's defaults, the core's too
        self._session_manager = ServerSessionManager(
            self, json_response=s.json_response, stateless=s.stateless_http, event_store=None, retry_interval=None,
            session_idle_timeout=(s.session_idle_timeout if "session_idle_timeout" in given
                                  else DEFAULT_SESSION_IDLE_TIMEOUT),
            max_sessions=s.max_sessions if "max_sessions" in given else DEFAULT_MAX_SESSIONS,
            max_request_body_size=s.max_request_body_size, security_settings=s.transport_security)
        return app

    def __init__(self, name: str | None = None, instructions: str | None = None, **kwargs: Any) -> None:
        from .server.fastmcp.settings import Settings
        from .server.transport_security import loopback_settings

        given = {k: v for k, v in kwargs.items() if k in Settings.model_fields and v is not None}
        # Settings the SDK reads when it builds its apps, not server options.
        for key in ("mount_path", "max_request_body_size", "session_idle_timeout", "max_sessions"):
            kwargs.pop(key, None)
        super().__init__(name, instructions, **kwargs)
        if given.get("transport_security") is None:
            # The SDK's default for a loopback host; the core guards loopback servers so already.
            given["transport_security"] = loopback_settings(given.get("host", "127.0.0.1"))
        given["dependencies"] = list(given.get("dependencies") or ())
        self._settings = Settings(**given)

    def _sdk_capabilities(self) -> dict[str, Any]:
        # mcp 1.x speaks the handshake era only: its change flags are NotificationOptions' (all
        # off by default), and it serves no resources/subscribe.
        caps = super()._sdk_capabilities()
        for value in caps.values():
            for key in ("listChanged", "subscribe"):
                if key in value:
                    value[key] = False
        caps["experimental"] = {}  # its low-level server's create_initialization_options() always sends it
        return caps

    @property
    def _mcp_server(self) -> Any:
        """mcp 1.x's low-level server under this one: on oxmcp, this server (``server/_lowlevel_view.py``)."""
        return self._lowlevel_server

    @property
    def settings(self) -> Any:
        """The server's settings as mcp 1.x's ``Settings`` (``mcp.settings.port``, ``.transport_security``)."""
        return self._settings

    @staticmethod
    def _normalize_path(mount_path: str, endpoint: str) -> str:
        """``endpoint`` under ``mount_path`` (``"/github", "messages/"`` → ``"/github/messages/"``)."""
        if mount_path == "/":
            return endpoint
        return mount_path.removesuffix("/") + "/" + endpoint.removeprefix("/")

    def sse_app(self, mount_path: str | None = None) -> Any:  # type: ignore[override]
        """mcp 1.x's HTTP+SSE app, from the settings: ``GET sse_path`` and a mount at ``message_path``;
        the endpoint event names the messages path under ``mount_path`` (the settings' or this one) when
        the request comes through no mount of its own."""
        settings = self._settings
        if mount_path is not None:
            settings.mount_path = mount_path
        endpoint = self._normalize_path(settings.mount_path, settings.message_path)
        prefix = endpoint.removesuffix(settings.message_path) if endpoint.endswith(settings.message_path) else ""
        # The body cap is the core's unless given (the SDK's default, 4 MiB, is the core's too).
        options = ({"max_body_bytes": settings.max_request_body_size}
                   if "max_request_body_size" in settings.model_fields_set else {})
        return self._sdk_sse_app(settings.sse_path, settings.message_path, settings.transport_security,
                                 options, prefix=prefix.rstrip("/"))

    @classmethod
    def generate_name(cls, name: str | None = None) -> str:
        return name or "FastMCP"

    _relays_input_required = False  # mcp 1.x has no input_required results
    _sdk2 = False
    _context_class = _Context  # mcp 1.x's Context is oxmcp's
    _sdk_context_read = None  # type: ignore[assignment]  # mcp 1.x reads through oxmcp's own in-process read
    _sdk_tool_failed = None  # type: ignore[assignment]  # mcp 1.x words failures unmasked (_tool_error_text)

    async def read_resource(self, uri: Any, context: Any = None) -> Any:
        """The resource's contents (``.content``, ``.mime_type``), as ``ctx.read_resource`` reads them."""
        return await self.read_resource_contents(str(uri))

    async def call_tool(self, name: str, arguments: dict[str, Any] | None = None,  # type: ignore[override]
                        context: Any = None) -> Any:
        """mcp 1.x's answer: the content blocks, with the structured result beside them when there is one."""
        result = await self._call_tool_through_core(name, arguments)
        if result.structuredContent is not None:
            return result.content, result.structuredContent
        return result.content

    @staticmethod
    def _default_version() -> str:
        # mcp 1.x's FastMCP takes no version and reports its framework's (the `mcp` package's).
        from ._versions import framework_version

        return framework_version("mcp", major="1")


class _Rooted:
    """The SSE app under one of its routes: the request's ``root_path`` is the app's own (a mount at
    the messages path adds that path to it, which is taken off), or ``prefix`` when it has none."""

    def __init__(self, app: Any, mounted: str, prefix: str) -> None:
        self.app, self.mounted, self.prefix = app, mounted, prefix

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        root = str(scope.get("root_path", ""))
        if self.mounted and root.endswith(self.mounted):
            root = root[: -len(self.mounted)]
        await self.app({**scope, "root_path": root or self.prefix}, receive, send)


class _SdkNotFoundText(RewordingLink):
    """A link of the core's chain on ``resources/read`` and ``prompts/get``: two of the core's
    -32602 answers worded as the SDK words them. Not found (the same for a URI no resource has and
    for a template value refused) is "Unknown resource: <uri>"; a prompt's missing arguments are
    "Missing required arguments: {...}" (all of them). Codes, data and every other answer pass."""

    def hooks(self) -> list[str]:
        return ["prompts/get", "resources/read"]

    def _code(self, exc: Any, method: Any) -> int:
        # mcp 1.x answers any failure of prompts/get (an unknown prompt, missing arguments) with code 0.
        return 0 if method == "prompts/get" and getattr(self.server, "_prompt_error_code", None) == 0 else int(exc.code)

    def _message(self, exc: Any, params: dict[str, Any]) -> str:
        if exc.code == -32602 and exc.message == "Resource not found":
            return f"Unknown resource: {params.get('uri')}"
        return missing_arguments_text(self.server, exc, params) or str(exc.message)
        if exc.message == "Resource not found":
            return f"Unknown resource: {params.get('uri')}"
        prompt = self.server._prompts.get(str(params.get("name")))
        if prompt is not None and str(exc.message).startswith("Missing required argument: "):
            given = params.get("arguments") or {}
            missing = {a["name"] for a in prompt.arguments if a.get("required") and a["name"] not in given}
            return f"Missing required arguments: {missing}"
        return str(exc.message)


def _parse_template(uri: str) -> None:
    """A URI with template syntax is parsed when it is given, as the SDK parses it: a malformed or
    ambiguous one raises ``InvalidUriTemplate`` (``UriTemplate.parse``, the core's parser)."""
    if "{" not in uri and "}" not in uri:
        return
    from .shared.uri_template import UriTemplate

    UriTemplate.parse(uri)


def _check_resource_function(uri: str, fn: Any, sdk2: bool) -> None:
    """The SDK's checks of a decorated resource function against its URI, when it is decorated: a
    parameter bound to a query variable (``{?x}``, ``{&x}``) needs a default, since a client may
    leave it out; a static URI takes no Context (mcp 2.x)."""
    import re

    from ._schema import analyze_function

    if not sdk2:
        return
    try:
        info = analyze_function(fn, output_schema=False)
        sig = inspect.signature(fn)
    except Exception:  # noqa: BLE001  the registration reports a function it cannot take
        return
    query = {v.split(":")[0].rstrip("*") for op, body in re.findall(r"\{([?&])([^}]*)\}", uri) for v in body.split(",")}
    missing = sorted(n for n in query if n in sig.parameters and sig.parameters[n].default is inspect.Parameter.empty)
    if missing:
        raise ValueError(f"Resource {uri!r}: query parameter(s) {missing} have no default value. A client may omit "
                         "a {?...}/{&...} query parameter, so the matching handler parameter must declare a default.")
    if not template_variables(uri) and info.context_param is not None:
        raise ValueError(f"Resource {uri!r} has no URI template variables, but the handler declares a Context "
                         "parameter. Context injection for static resources is not supported. Add a template "
                         "variable to the URI or remove the Context parameter.")


def _check_headers(name: str, schema: dict[str, Any]) -> None:
    """The core's rule on ``x-mcp-header`` annotations, applied when the tool is added (as the SDK
    refuses it, with ``InvalidSignature`` in its wording) rather than when the server starts."""
    from ._oxmcp import tool_header_violation
    from .server.mcpserver.exceptions import InvalidSignature

    found = tool_header_violation(schema)
    if found is None:
        return
    kind, path, detail = found
    where = repr(".".join(path))
    reason = {
        "root": "x-mcp-header found at a schema position not reachable via a pure `properties` chain",
        "not_string": f"property {where}: x-mcp-header must be a string, not {type(detail).__name__}",
        "not_token": f"property {where}: x-mcp-header {detail!r} is not an RFC 9110 token",
        "type_not_string": f"property {where}: x-mcp-header is only permitted on integer/string/boolean "
                           f"properties (the type keyword is {type(detail).__name__}, not a string)",
        "not_primitive": f"property {where}: x-mcp-header is only permitted on integer/string/boolean "
                         f"properties (got {detail!r})",
    }.get(kind) or (f"x-mcp-header {detail[0]!r} on property {where} duplicates property "
                    f"{'.'.join(detail[1])!r}")
    raise InvalidSignature(f"Tool {name!r} has an invalid x-mcp-header annotation: {reason}")


def _is_resource_object(value: Any) -> bool:
    """An SDK resource component (``mcp.server.fastmcp.resources.Resource`` and its kind): read by ``read()``."""
    from .server.fastmcp.resources import Resource
    from .server.mcpserver.resources import Resource as Resource2

    return isinstance(value, (Resource, Resource2))
