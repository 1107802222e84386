"""``mcp.server.streamable_http``: the Streamable HTTP transport's header names and content types.

On oxmcp the transport is the core's (sessions, SSE, resumption); a server mounts it through
``StreamableHTTPSessionManager`` or ``Server.streamable_http_app()``. The SDK's per-session
``StreamableHTTPServerTransport`` is the SDK's machinery behind that manager: it is named here so
that a module importing it loads, and constructing one says where its job went.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "CONTENT_TYPE_JSON", "CONTENT_TYPE_SSE", "LAST_EVENT_ID_HEADER", "MCP_PROTOCOL_VERSION_HEADER",
    "MCP_SESSION_ID_HEADER", "EventStore", "StreamableHTTPServerTransport",
]

MCP_SESSION_ID_HEADER = "mcp-session-id"
MCP_PROTOCOL_VERSION_HEADER = "mcp-protocol-version"
LAST_EVENT_ID_HEADER = "last-event-id"
CONTENT_TYPE_JSON = "application/json"
CONTENT_TYPE_SSE = "text/event-stream"


class StreamableHTTPServerTransport:
    """Refused: oxmcp's Streamable HTTP sessions are the core's. Serve a server with
    ``StreamableHTTPSessionManager(server).handle_request`` or ``server.streamable_http_app()``."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise TypeError("StreamableHTTPServerTransport is not provided by oxmcp: the core runs Streamable HTTP "
                        "sessions; mount StreamableHTTPSessionManager(server).handle_request or "
                        "server.streamable_http_app() instead")


class EventStore:
    """The SDK's base class for a resumption event store. A subclass may be given as
    ``event_store=``; oxmcp accepts it and does not call it, because the core keeps the events of
    its own streams for resumption (``Last-Event-ID``)."""

    async def store_event(self, stream_id: str, message: Any) -> str:
        raise NotImplementedError

    async def replay_events_after(self, last_event_id: str, send_callback: Any) -> str | None:
        raise NotImplementedError
