"""``mcp.shared.message``: ``SessionMessage``, one JSON-RPC message on a transport's stream, with the
transport's metadata.

``message`` is the message's model (``JSONRPCRequest``, ...), as in mcp 2.x; it also reads as mcp
1.x's ``JSONRPCMessage`` root model does (``.root``, equal to ``JSONRPCMessage(root=...)``).
``session_message(text)`` reads a message off the wire.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

__all__ = ["ClientMessageMetadata", "MessageMetadata", "ServerMessageMetadata", "SessionMessage",
           "encode", "session_message"]

ResumptionToken = str
ResumptionTokenUpdateCallback = Callable[[ResumptionToken], Awaitable[None]]
CloseSSEStreamCallback = Callable[[], Awaitable[None]]


@dataclass
class ClientMessageMetadata:
    """A client message's metadata."""

    resumption_token: ResumptionToken | None = None
    on_resumption_token_update: Callable[[ResumptionToken], Awaitable[None]] | None = None
    headers: dict[str, str] | None = None


@dataclass
class ServerMessageMetadata:
    """A server message's metadata: the request it belongs to, the transport's request object."""

    related_request_id: Any = None
    request_context: Any = None
    close_sse_stream: CloseSSEStreamCallback | None = None
    close_standalone_sse_stream: CloseSSEStreamCallback | None = None
    on_request_unanswered: Callable[[], Awaitable[None]] | None = None
    can_send_request: bool = True


MessageMetadata = ClientMessageMetadata | ServerMessageMetadata | None


@dataclass
class SessionMessage:
    """One message and its metadata."""

    message: Any
    metadata: MessageMetadata = None


def session_message(data: bytes | str, metadata: MessageMetadata = None) -> SessionMessage:
    """A message read off the wire (one JSON text). Raises pydantic's ``ValidationError`` for a text
    that is no JSON-RPC message."""
    from ..types import jsonrpc_message_adapter

    return SessionMessage(jsonrpc_message_adapter.validate_json(data), metadata)


def encode(message: Any) -> bytes:
    """The wire text of a message (a model, a root model, or a dict)."""
    import json

    if hasattr(message, "model_dump_json"):
        return message.model_dump_json(by_alias=True, exclude_none=True).encode()
    return json.dumps(message, separators=(",", ":")).encode()
