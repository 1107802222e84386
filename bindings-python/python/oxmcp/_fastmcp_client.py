"""``fastmcp.Client`` under the import hook: FastMCP's in-process client, over the core's dispatch.

``async with Client(server) as client:`` talks to a server object in this process, as FastMCP's
``Client(mcp)`` does, through the same core dispatch as stdio and HTTP. It answers with FastMCP's
shapes: ``call_tool`` gives a :class:`CallToolResult` (``content``, ``structured_content``,
``meta``, ``data``, ``is_error``) and raises :class:`~oxmcp.ToolError` on an ``isError`` result;
the ``list_*`` calls give lists of the SDK's models; a JSON-RPC error is raised as
``mcp.MCPError``. The models are ``mcp_types``' when that package is installed (FastMCP's own
model package), else ``oxmcp.types``.

A client for a URL or a transport object is not provided: oxmcp is a server (drive it over stdio or
HTTP with FastMCP's own client).
"""

from __future__ import annotations

import logging
import sys
from dataclasses import dataclass
from typing import Any

from typing_extensions import Self

from ._client import Client as _Client
from ._errors import McpError, ToolError

__all__ = ["CallToolResult", "Client", "model_types"]

_log = logging.getLogger("fastmcp.client")
#: FastMCP's bound on the pages one list_*() call follows.
_MAX_PAGES = 250


def model_types() -> Any:
    """The module whose models FastMCP's client returns: ``mcp_types`` when installed."""
    try:
        import mcp_types

        return mcp_types
    except ImportError:
        from . import types

        return types


@dataclass
class CallToolResult:
    """FastMCP's parsed tool result: ``data`` is the structured value (unwrapped from ``result``)."""

    content: list[Any]
    structured_content: dict[str, Any] | None
    meta: dict[str, Any] | None
    data: Any = None
    is_error: bool = False


# Keywords of FastMCP's Client that configure a remote session; in process they have nothing to do.
_SESSION_ONLY = ("timeout", "init_timeout", "client_info", "message_handler",
                 "progress_handler", "auto_initialize", "verify", "name")
# Callbacks answering a server-to-client request: this client answers none, so one given would never
# run. Refused, not dropped.
_CALLBACKS = ("sampling_handler", "elicitation_handler", "roots", "sampling_capabilities")


class Client(_Client):
    """``Client(server)``: FastMCP's client, for a server object in this process."""

    def __init__(self, transport: Any, **kwargs: Any) -> None:
        core = getattr(transport, "_core", transport)
        if not hasattr(core, "_build_native"):
            raise TypeError("fastmcp.Client(...) under oxmcp takes a server object (FastMCP, MCPServer, "
                            "Server) and talks to it in process; oxmcp has no client for URLs, files or "
                            "transports")
        for key in _CALLBACKS:
            if kwargs.pop(key, None) is not None:
                raise TypeError(f"fastmcp.Client: {key} is not supported by oxmcp's in-process client: it "
                                "answers no server-to-client request. Test that path with FastMCP's client "
                                "over stdio or HTTP")
        self.name = kwargs.pop("name", None) or "fastmcp-client"
        #: FastMCP's ``mode=``: "legacy" opens an ``initialize`` session; "auto" or a modern version
        #: speaks 2026-07-28 (the server always offers it).
        self.mode = kwargs.pop("mode", "auto")
        #: FastMCP's ``log_handler``: awaited with each log message a request brought
        #: (``notifications/message``'s params: ``.level``, ``.data``, ``.logger``).
        self._log_handler = kwargs.pop("log_handler", None)
        self._seen_notifications = 0
        # FastMCP's client opts every modern request into log messages at the most permissive level
        # (the server's own level filters them), so a client receives every log, as in legacy sessions.
        kwargs.setdefault("log_level", "debug")
        for key in _SESSION_ONLY:
            kwargs.pop(key, None)
        super().__init__(core, **kwargs)
        self._output_schemas: dict[str, dict[str, Any] | None] = {}

    def is_connected(self) -> bool:
        return self._native is not None

    async def __aenter__(self) -> Self:
        # FastMCP's in-process transport runs the server's lifespan while a client is connected
        # (entered once for overlapping clients, left with the last one).
        running = getattr(self.server, "_lifespan_running", None)
        self._lifespan_cm = running() if running is not None else None
        if self._lifespan_cm is not None:
            await self._lifespan_cm.__aenter__()
        try:
            await super().__aenter__()
        except BaseException:
            await self.__aexit__(*sys.exc_info())
            raise
        if self.mode == "legacy" and self.init_result is None:
            await self._handshake()
        # What the server says of itself (capabilities, serverInfo, instructions): FastMCP's client
        # has it from the connection's start.
        self._server: dict[str, Any] = self.init_result if self.init_result is not None \
            else await self.request("server/discover")
        return self

    async def __aexit__(self, *exc: object) -> None:
        await super().__aexit__(*exc)
        cm, self._lifespan_cm = self._lifespan_cm, None
        if cm is not None:
            await cm.__aexit__(*exc)  # type: ignore[arg-type]

    @property
    def protocol_version(self) -> str:
        return str(self.initialize_result.protocol_version)

    async def set_logging_level(self, level: str) -> None:
        """``logging/setLevel``: a legacy session's; the 2026-07-28 era has no session to keep it in."""
        if self._session is None:
            raise RuntimeError("logging/setLevel is not available on MCP 2026-07-28 connections; the method "
                               "requires per-session server state that the modern protocol does not have. "
                               "Filter incoming log messages by level in your log_handler instead.")
        await self.request("logging/setLevel", {"level": level})

    def _server_info(self) -> dict[str, Any]:
        # The modern era carries serverInfo in the result's _meta.
        return (self._server.get("serverInfo")
                or (self._server.get("_meta") or {}).get("io.modelcontextprotocol/serverInfo") or {})

    @property
    def server_capabilities(self) -> Any:
        return model_types().ServerCapabilities.model_validate(self._server.get("capabilities") or {})

    @property
    def session(self) -> Any:
        """What FastMCP's tests read of the session: ``server_info`` and ``server_capabilities``."""
        from types import SimpleNamespace

        t = model_types()
        return SimpleNamespace(server_info=t.Implementation.model_validate(self._server_info()),
                               server_capabilities=self.server_capabilities)

    @property
    def initialize_result(self) -> Any:
        t = model_types()
        return t.InitializeResult.model_validate({"protocolVersion": self._server.get("protocolVersion")
                                                  or (self._server.get("supportedVersions") or ["2026-07-28"])[0],
                                                  "capabilities": self._server.get("capabilities") or {},
                                                  "serverInfo": self._server_info(),
                                                  "instructions": self._server.get("instructions")})

    async def request(self, method: str, params: dict[str, Any] | None = None, **kwargs: Any) -> Any:
        try:
            return await self._request(method, params, **kwargs)
        finally:
            await self._deliver_logs()

    async def _deliver_logs(self) -> None:
        new, self._seen_notifications = self.notifications[self._seen_notifications:], len(self.notifications)
        if self._log_handler is None:
            return
        for note in new:
            if note.get("method") == "notifications/message":
                await self._log_handler(model_types().LoggingMessageNotificationParams.model_validate(
                    note.get("params") or {}))

    async def _request(self, method: str, params: dict[str, Any] | None = None, **kwargs: Any) -> Any:
        try:
            return await super().request(method, params, **kwargs)
        except McpError as exc:
            from .shared.exceptions import MCPError

            if isinstance(exc, MCPError):
                raise
            raise MCPError(exc.code, exc.message, exc.data) from None

    # -- tools --------------------------------------------------------------------------------------
    async def list_tools_mcp(self, *, cursor: str | None = None, cache_mode: str = "use") -> Any:
        # cache_mode is FastMCP's response cache, which this client does not keep: every call asks.
        result = model_types().ListToolsResult.model_validate(await self.request("tools/list", _cursor(cursor)))
        for tool in result.tools:
            self._output_schemas[tool.name] = tool.output_schema
        return result

    async def list_tools(self, max_pages: int = _MAX_PAGES, *,  # type: ignore[override]
                         cache_mode: str = "use") -> list[Any]:
        return await self._all_pages("list_tools", "tools", max_pages, cache_mode=cache_mode)

    async def call_tool_mcp(self, name: str, arguments: dict[str, Any] | None = None, *,
                            meta: dict[str, Any] | None = None, **_: Any) -> Any:
        params: dict[str, Any] = {"name": name, "arguments": arguments or {}}
        if meta:
            params["_meta"] = dict(meta)
        return model_types().CallToolResult.model_validate(await self.request("tools/call", params))

    async def call_tool(self, name: str, arguments: dict[str, Any] | None = None, *,  # type: ignore[override]
                        raise_on_error: bool = True, meta: dict[str, Any] | None = None,
                        **kwargs: Any) -> CallToolResult:
        result = await self.call_tool_mcp(name, arguments, meta=meta, **kwargs)
        if result.is_error and raise_on_error:
            first: Any = result.content[0] if result.content else None
            raise ToolError(first.text if getattr(first, "type", None) == "text"
                            else f"Tool '{name}' returned an error")
        data = None
        if result.structured_content is not None and not result.is_error:
            if name not in self._output_schemas:
                await self.list_tools()
            schema = self._output_schemas.get(name) or {}
            wrapped = bool(((result.meta or {}).get("fastmcp") or {}).get("wrap_result")) \
                or bool(schema.get("x-fastmcp-wrap-result"))
            data = result.structured_content.get("result") if wrapped else result.structured_content
        return CallToolResult(content=list(result.content), structured_content=result.structured_content,
                              meta=result.meta, data=data, is_error=bool(result.is_error))

    # -- resources ----------------------------------------------------------------------------------
    async def list_resources_mcp(self, *, cursor: str | None = None) -> Any:
        return model_types().ListResourcesResult.model_validate(
            await self.request("resources/list", _cursor(cursor)))

    async def list_resources(self, max_pages: int = _MAX_PAGES) -> list[Any]:  # type: ignore[override]
        return await self._all_pages("list_resources", "resources", max_pages)

    async def list_resource_templates_mcp(self, *, cursor: str | None = None) -> Any:
        return model_types().ListResourceTemplatesResult.model_validate(
            await self.request("resources/templates/list", _cursor(cursor)))

    async def list_resource_templates(self, max_pages: int = _MAX_PAGES) -> list[Any]:  # type: ignore[override]
        return await self._all_pages("list_resource_templates", "resource_templates", max_pages)

    async def read_resource_mcp(self, uri: Any, *, meta: dict[str, Any] | None = None) -> Any:
        params: dict[str, Any] = {"uri": str(uri)}
        if meta:
            params["_meta"] = dict(meta)
        return model_types().ReadResourceResult.model_validate(await self.request("resources/read", params))

    async def read_resource(self, uri: Any, *, meta: dict[str, Any] | None = None, **_: Any) -> list[Any]:  # type: ignore[override]
        return list((await self.read_resource_mcp(uri, meta=meta)).contents)

    # -- prompts ------------------------------------------------------------------------------------
    async def list_prompts_mcp(self, *, cursor: str | None = None) -> Any:
        return model_types().ListPromptsResult.model_validate(await self.request("prompts/list", _cursor(cursor)))

    async def list_prompts(self, max_pages: int = _MAX_PAGES) -> list[Any]:  # type: ignore[override]
        return await self._all_pages("list_prompts", "prompts", max_pages)

    async def get_prompt_mcp(self, name: str, arguments: dict[str, Any] | None = None, *,
                             meta: dict[str, Any] | None = None, **_: Any) -> Any:
        params: dict[str, Any] = {"name": name}
        if arguments:
            # Prompt arguments travel as strings: FastMCP's client sends other values as JSON.
            params["arguments"] = {k: v if isinstance(v, str) else _json(v) for k, v in arguments.items()}
        if meta:
            params["_meta"] = dict(meta)
        return model_types().GetPromptResult.model_validate(await self.request("prompts/get", params))

    async def get_prompt(self, name: str, arguments: dict[str, Any] | None = None, **kwargs: Any) -> Any:  # type: ignore[override]
        return await self.get_prompt_mcp(name, arguments, **kwargs)

    # -- completion, ping -----------------------------------------------------------------------------
    async def complete_mcp(self, ref: Any, argument: dict[str, str], context_arguments: dict[str, Any] | None = None,
                           **_: Any) -> Any:
        if hasattr(ref, "model_dump"):
            ref = ref.model_dump(by_alias=True, exclude_none=True, mode="json")
        params: dict[str, Any] = {"ref": ref, "argument": dict(argument)}
        if context_arguments:
            params["context"] = {"arguments": dict(context_arguments)}
        return model_types().CompleteResult.model_validate(await self.request("completion/complete", params))

    async def complete(self, ref: Any, argument: dict[str, str],  # type: ignore[override]
                       context_arguments: dict[str, Any] | None = None, **kwargs: Any) -> Any:
        return (await self.complete_mcp(ref, argument, context_arguments, **kwargs)).completion

    async def ping(self) -> bool:
        await self.request("ping")
        return True

    async def _all_pages(self, method: str, field: str, max_pages: int, **kwargs: Any) -> list[Any]:
        """Every page of ``method`` (FastMCP's auto-pagination): an empty cursor is a cursor, a cursor
        seen before ends the walk (a server cycling its cursors), and more than ``max_pages`` pages
        is an error."""
        out: list[Any] = []
        cursor: str | None = None
        seen: set[str] = set()
        for _ in range(max_pages):
            page = await getattr(self, f"{method}_mcp")(cursor=cursor, **kwargs)
            out.extend(getattr(page, field))
            if page.next_cursor is None:
                return out
            if page.next_cursor in seen:
                _log.warning("[%s] Server returned duplicate pagination cursor %r for %s; stopping pagination",
                             self.name, page.next_cursor, method)
                return out
            seen.add(page.next_cursor)
            cursor = page.next_cursor
        raise RuntimeError(f"[{self.name}] Reached auto-pagination limit ({max_pages} pages) for {method}. "
                           f"Use {method}_mcp() with cursor for manual pagination, or increase max_pages.")


def _json(value: Any) -> str:
    import pydantic_core

    return pydantic_core.to_json(value).decode()


def _cursor(cursor: str | None) -> dict[str, Any]:
    return {} if cursor is None else {"cursor": cursor}


