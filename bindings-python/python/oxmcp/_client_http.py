"""``mcp.client.streamable_http``: the SDK's Streamable HTTP client transport, which oxmcp does not
provide (oxmcp is a server; its ``Client`` talks to a server object in the same process).
``streamable_http_client()`` says so when called, so a module importing it still loads."""

from __future__ import annotations

from typing import Any

__all__ = ["streamable_http_client"]


def streamable_http_client(url: str, *args: Any, **kwargs: Any) -> Any:
    raise TypeError(f"streamable_http_client({url!r}): oxmcp has no client for URLs or transports (it is a "
                    "server); drive an oxmcp server over HTTP with the official mcp client, or use "
                    "oxmcp.client.Client(server) in process")
