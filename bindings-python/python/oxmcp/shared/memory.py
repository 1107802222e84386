"""``mcp.shared.memory``: ``create_connected_server_and_client_session(server)``, the SDK's in-memory client.

The SDK runs the server and a ``ClientSession`` over a pair of memory streams; oxmcp's in-process
client (``oxmcp.client.Client``) speaks to the server through the core's dispatch instead, with the
same calls and result models (``list_tools()``, ``call_tool(...)`` → ``CallToolResult``...). It is
initialized when yielded, as the SDK's session is. The callbacks of a client (sampling, roots,
elicitation) are refused by that client, since it answers no server-to-client request.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

__all__ = ["create_connected_server_and_client_session"]


@asynccontextmanager
async def create_connected_server_and_client_session(server: Any, read_timeout_seconds: Any = None,
                                                     **kwargs: Any) -> AsyncIterator[Any]:
    from ..client import Client

    client_info = kwargs.pop("client_info", None)
    if client_info is not None and hasattr(client_info, "model_dump"):
        kwargs["client_info"] = client_info.model_dump(by_alias=True, exclude_none=True)
    async with Client(server, **kwargs) as client:
        yield client
