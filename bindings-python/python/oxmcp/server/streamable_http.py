"""``mcp.server.streamable_http``: the Streamable HTTP transport's header names, content types and the
per-session transport.

On oxmcp the transport is the core's: it opens and ends sessions, checks every request, streams the
answers and resumes them. A ``StreamableHTTPServerTransport`` here is what
``StreamableHTTPSessionManager`` holds for one session (or for one request that opens none): it hands
that session's requests to the core and keeps the response streams it is relaying, so that
``terminate()`` closes them. The SDK's other way to run it, ``connect()`` with ``Server.run()`` on its
streams, has no counterpart: the core runs each session's messages itself.
"""

from __future__ import annotations

import math
import re
from collections.abc import Awaitable, Callable
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

# The SDK's rule for a session ID: visible ASCII only.
_SESSION_ID = re.compile(r"[\x21-\x7E]+")

Endpoint = Callable[[dict[str, Any], Any, Any, dict[int, Any]], Awaitable[None]]


class StreamableHTTPServerTransport:
    """The transport of one Streamable HTTP session, served by the core.

    ``mcp_session_id`` is the session's ID (None until the core opens the session, and for a stateless
    request). ``is_terminated`` tells whether ``terminate()`` ran; ``_request_streams`` holds the
    response streams being relayed. The other arguments are the SDK's and configure what the core
    does itself (JSON or SSE per request, its own resumable streams, the mount's security settings)."""

    def __init__(self, mcp_session_id: str | None, is_json_response_enabled: bool = False,
                 event_store: Any = None, security_settings: Any = None, retry_interval: int | None = None,
                 idle_timeout: float | None = None) -> None:
        if mcp_session_id is not None and not _SESSION_ID.fullmatch(mcp_session_id):
            raise ValueError("Session ID must only contain visible ASCII characters (0x21-0x7E)")
        if idle_timeout is not None and not (math.isfinite(idle_timeout) and idle_timeout > 0):
            raise ValueError("idle_timeout must be a positive, finite number of seconds")
        self.mcp_session_id = mcp_session_id
        self.is_json_response_enabled = is_json_response_enabled
        self._event_store = event_store
        self._security_settings = security_settings
        self._retry_interval = retry_interval
        self._idle_timeout = idle_timeout
        #: The SDK's idle cancel scope; the core expires idle sessions itself, so there is none.
        self.idle_scope: Any = None
        self._request_streams: dict[int, Any] = {}
        self._terminated = False
        #: The core's endpoint that serves this transport's requests (set by the session manager).
        self._endpoint: Endpoint | None = None

    @property
    def is_terminated(self) -> bool:
        return self._terminated

    async def handle_request(self, scope: Any, receive: Any, send: Any) -> None:
        """Serve one request of this session: the core checks and answers it."""
        if self._endpoint is None:
            raise RuntimeError("StreamableHTTPServerTransport.handle_request(): on oxmcp a transport serves "
                               "requests only for the StreamableHTTPSessionManager that created it; mount "
                               "StreamableHTTPSessionManager(server).handle_request instead")
        await self._endpoint(scope, receive, send, self._request_streams)

    async def terminate(self) -> None:
        """Mark the transport ended and close the response streams it is relaying. The session itself is
        the core's: it ends with the client's DELETE or when it expires."""
        self._terminated = True
        streams = list(self._request_streams.values())
        self._request_streams.clear()
        for stream in streams:
            await stream.close()

    def connect(self) -> Any:
        raise TypeError("StreamableHTTPServerTransport.connect() is not provided by oxmcp: the core runs each "
                        "session's messages itself; mount StreamableHTTPSessionManager(server).handle_request "
                        "or server.streamable_http_app() instead of Server.run() on the transport's streams")


class EventStore:
    """The SDK's base class for a resumption event store. A subclass may be given as
    ``event_store=``; oxmcp accepts it and does not call it, because the core keeps the events of
    its own streams for resumption (``Last-Event-ID``)."""

    async def store_event(self, stream_id: str, message: Any) -> str:
        raise NotImplementedError

    async def replay_events_after(self, last_event_id: str, send_callback: Any) -> str | None:
        raise NotImplementedError
