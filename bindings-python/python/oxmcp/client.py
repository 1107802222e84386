"""``mcp.client``: ``Client``, the SDK's in-process client, as servers use it in their own tests.

``async with Client(server) as client:`` talks to a server object in the same process (through the
core's dispatch, as stdio and HTTP do) and returns the SDK's result models (``oxmcp.types``), so
``result.content[0].text``, ``result.structured_content`` and ``(await client.list_tools()).tools``
read as with mcp 2.x. ``ClientSession`` (a client over a transport's streams) is not provided:
oxmcp is a server, so drive a server over stdio or HTTP with the official client instead.
"""

from __future__ import annotations

from typing import Any

from . import types
from ._client import Client as _Client
from ._errors import McpError as _CoreMcpError
from .shared.exceptions import McpError

__all__ = ["Client"]

# ``mcp.client`` is a package in the SDK: its submodules (``mcp.client.streamable_http``) resolve
# through the import hook (oxmcp._dropin), which needs the parent to be importable as a package.
__path__: list[str] = []


class Client(_Client):
    """``Client(server)``: a server object in this process; results as ``oxmcp.types`` models."""

    def __init__(self, server: Any, **kwargs: Any) -> None:
        core = getattr(server, "_core", server)  # the low-level Server serves through its core Server
        if not hasattr(core, "_build_native"):
            raise TypeError("oxmcp.client.Client(server): give a server object (FastMCP, MCPServer, Server); "
                            "oxmcp has no client for URLs or transports")
        for key in ("sampling_callback", "elicitation_callback", "list_roots_callback"):
            # This client answers no server-to-client request (it declares no sampling, elicitation
            # or roots capability), so a callback for one would never run: refused, not dropped.
            if kwargs.pop(key, None) is not None:
                raise TypeError(f"oxmcp.client.Client: {key} is not supported: the in-process client "
                                "answers no server-to-client request. Test that path with the official "
                                "mcp client over stdio or HTTP")
        for key in ("raise_exceptions", "read_timeout_seconds", "mode", "cache", "logging_callback",
                    "message_handler"):
            kwargs.pop(key, None)  # the SDK's options for a remote session; nothing to do in process
        super().__init__(core, **kwargs)

    async def __aenter__(self) -> Any:
        await super().__aenter__()
        if self.init_result is None:
            # The modern era has no handshake: what the SDK's client learns at connect, it learns here
            # from server/discover (the server's info, capabilities and instructions).
            found = await self.request("server/discover")
            self.init_result = {"protocolVersion": found.get("supportedVersions", ["2026-07-28"])[0],
                                "capabilities": found.get("capabilities", {}),
                                "serverInfo": found.get("_meta", {}).get("io.modelcontextprotocol/serverInfo", {}),
                                **({"instructions": found["instructions"]} if "instructions" in found else {})}
        return self

    async def initialize(self) -> Any:
        """The SDK session's handshake, which this client did when it was entered: its answer."""
        return types.InitializeResult.model_validate(self.init_result)

    @property
    def server_info(self) -> Any:
        """The server's ``Implementation`` (name, title, version ...), as the SDK's client has it."""
        return types.Implementation.model_validate((self.init_result or {}).get("serverInfo") or {})

    @property
    def server_capabilities(self) -> Any:
        """The capabilities the server declared (``ServerCapabilities``), as the SDK's client has them."""
        return types.ServerCapabilities.model_validate((self.init_result or {}).get("capabilities") or {})

    async def request(self, method: str, params: dict[str, Any] | None = None, **kwargs: Any) -> Any:
        """As ``oxmcp.Client.request``; an error answer raises the SDK's ``McpError`` (``MCPError``)."""
        try:
            return await super().request(method, params, **kwargs)
        except _CoreMcpError as exc:
            if isinstance(exc, McpError):
                raise
            raise McpError(exc.code, exc.message, exc.data) from exc

    async def list_tools(self, cursor: str | None = None) -> Any:  # type: ignore[override]
        return types.ListToolsResult.model_validate(await self.request("tools/list", _cursor(cursor)))

    async def call_tool(self, name: str, arguments: dict[str, Any] | None = None,  # type: ignore[override]
                        *args: Any, **kwargs: Any) -> Any:
        params: dict[str, Any] = {"name": name, "arguments": arguments or {}}
        return types.CallToolResult.model_validate(await self.request("tools/call", params))

    async def list_resources(self, cursor: str | None = None) -> Any:  # type: ignore[override]
        return types.ListResourcesResult.model_validate(await self.request("resources/list", _cursor(cursor)))

    async def list_resource_templates(self, cursor: str | None = None) -> Any:  # type: ignore[override]
        return types.ListResourceTemplatesResult.model_validate(
            await self.request("resources/templates/list", _cursor(cursor)))

    async def read_resource(self, uri: Any) -> Any:  # type: ignore[override]
        return types.ReadResourceResult.model_validate(await self.request("resources/read", {"uri": str(uri)}))

    async def list_prompts(self, cursor: str | None = None) -> Any:  # type: ignore[override]
        return types.ListPromptsResult.model_validate(await self.request("prompts/list", _cursor(cursor)))

    async def get_prompt(self, name: str, arguments: dict[str, str] | None = None) -> Any:  # type: ignore[override]
        params: dict[str, Any] = {"name": name}
        if arguments is not None:
            params["arguments"] = arguments
        return types.GetPromptResult.model_validate(await self.request("prompts/get", params))

    async def complete(self, ref: Any, argument: dict[str, str],  # type: ignore[override]
                       context_arguments: dict[str, str] | None = None) -> Any:
        """``completion/complete`` for ``ref`` (a prompt or resource template reference) and the
        ``{"name", "value"}`` argument; its ``CompleteResult``."""
        params: dict[str, Any] = {"ref": ref.model_dump(by_alias=True, exclude_none=True)
                                  if hasattr(ref, "model_dump") else ref, "argument": argument}
        if context_arguments is not None:
            params["context"] = {"arguments": context_arguments}
        return types.CompleteResult.model_validate(await self.request("completion/complete", params))


def _cursor(cursor: str | None) -> dict[str, Any]:
    return {} if cursor is None else {"cursor": cursor}


def __getattr__(name: str) -> Any:
    if name == "ClientSession":
        raise ImportError("oxmcp.client has no ClientSession: oxmcp is a server. Test the server in process "
                          "with oxmcp.client.Client(server), or drive it over stdio/HTTP with the official mcp client")
    raise AttributeError(f"module 'oxmcp.client' has no attribute {name!r}")
