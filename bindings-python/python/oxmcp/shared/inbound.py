"""``mcp.shared.inbound``: the names of the HTTP headers a 2026-07-28 request carries.

The checks on them (a header that disagrees with the body is refused with -32020 and HTTP 400)
are the core's; these are only the names.
"""

from __future__ import annotations

from typing import Final

__all__ = ["MCP_METHOD_HEADER", "MCP_NAME_HEADER", "MCP_PARAM_HEADER_PREFIX", "MCP_PROTOCOL_VERSION_HEADER"]

MCP_PROTOCOL_VERSION_HEADER: Final = "mcp-protocol-version"
MCP_METHOD_HEADER: Final = "mcp-method"
MCP_NAME_HEADER: Final = "mcp-name"
MCP_PARAM_HEADER_PREFIX: Final = "Mcp-Param-"
