"""``mcp.shared.transport_context`` of mcp 2.x: ``TransportContext``, what a transport tells the layers
above it about one inbound message (its kind, whether the request can be answered with a request of
the server's, its HTTP headers). A plain value; in oxmcp the same facts are the core's request context
(``ctx.transport``, ``ctx.http_request``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

__all__ = ["TransportContext"]


@dataclass(kw_only=True, frozen=True)
class TransportContext:
    """The transport's metadata for one inbound message (immutable)."""

    kind: str
    """The transport: ``"stdio"``, ``"streamable-http"``, ..."""
    can_send_request: bool
    """Whether a request of the server's can reach the client from this message's channel."""
    headers: Mapping[str, str] | None = None
    """The request's HTTP headers (``None`` on stdio)."""
