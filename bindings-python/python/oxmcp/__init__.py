"""oxmcp: write MCP servers with decorators; the Rust core serves them.

    from oxmcp import Server

    server = Server("demo")

    @server.tool
    def add(a: int, b: int) -> int:
        "Add two integers."
        return a + b

    server.run()            # stdio; server.run(transport="http", port=8000) for Streamable HTTP
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._apps import RESOURCE_MIME_TYPE
from ._context import Context, ElicitResult
from ._discovery import prompt, resource, resource_template, tool
from ._errors import (
    DefinitionError,
    InputRequired,
    McpError,
    OxmcpError,
    PromptError,
    RequestCancelled,
    ResourceError,
    ToolError,
)
from ._fastmcp import FastMCP, require_scopes
from ._mcpserver import MCPServer
from ._results import (
    Audio,
    EmbeddedResource,
    File,
    Image,
    Message,
    ResourceContents,
    ResourceLink,
    Text,
    ToolResult,
)
from ._server import Server
from .skills import Skill

if TYPE_CHECKING:
    from ._client import Client

__all__ = [
    "RESOURCE_MIME_TYPE",
    "Audio",
    "Client",
    "Context",
    "DefinitionError",
    "ElicitResult",
    "EmbeddedResource",
    "FastMCP",
    "File",
    "Image",
    "InputRequired",
    "MCPServer",
    "McpError",
    "Message",
    "OxmcpError",
    "PromptError",
    "RequestCancelled",
    "ResourceContents",
    "ResourceError",
    "ResourceLink",
    "Server",
    "Skill",
    "Text",
    "ToolError",
    "ToolResult",
    "prompt",
    "require_scopes",
    "resource",
    "resource_template",
    "tool",
]

__version__ = "0.1.0"


_SDK_CLIENT_NAMES = frozenset(("ClientSessionGroup", "StdioServerParameters", "stdio_client"))
_SUBMODULES = frozenset(("types", "server", "shared", "client", "exceptions", "prompts", "tools", "utilities"))


def __getattr__(name: str) -> Any:
    # The in-memory client needs the native module; import it on first use only.
    if name == "Client":
        from ._client import Client

        return Client
    if name in _SUBMODULES:  # `import mcp` then `mcp.types.X` (under `oxmcp run`, `mcp` is this package)
        import importlib

        return importlib.import_module(f"{__name__}.{name}")
    if name == "stdio_server":  # `from mcp import stdio_server`
        from .server.stdio import stdio_server

        return stdio_server
    if name == "ClientSession":  # `from mcp import ClientSession`: the SDK's, over message streams
        from ._client_session import ClientSession

        return ClientSession
    if name in _SDK_CLIENT_NAMES:
        raise ImportError(f"oxmcp has no {name}: oxmcp is a server. Test a server in process with "
                          "oxmcp.client.Client(server), or drive it over stdio/HTTP with the official mcp client")
    raise AttributeError(f"module 'oxmcp' has no attribute {name!r}")
