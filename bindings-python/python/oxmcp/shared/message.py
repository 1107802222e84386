"""``mcp.shared.message``: ``SessionMessage``, a JSON-RPC message with its transport's metadata, as the
items of the streams a ``ClientSession`` (or a server's ``run``) reads and writes."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from ..types import JSONRPCMessage

__all__ = ["ClientMessageMetadata", "MessageMetadata", "ResumptionToken", "ServerMessageMetadata",
           "SessionMessage"]

ResumptionToken = str
ResumptionTokenUpdateCallback = Callable[[ResumptionToken], Awaitable[None]]
CloseSSEStreamCallback = Callable[[], Awaitable[None]]


@dataclass
class ClientMessageMetadata:
    """What a client's message carries for its transport (resumption)."""

    resumption_token: ResumptionToken | None = None
    on_resumption_token_update: Callable[[ResumptionToken], Awaitable[None]] | None = None


@dataclass
class ServerMessageMetadata:
    """What a server's message carries for its transport (the request it relates to)."""

    related_request_id: Any = None
    request_context: object | None = None
    close_sse_stream: CloseSSEStreamCallback | None = None
    close_standalone_sse_stream: CloseSSEStreamCallback | None = None


MessageMetadata = ClientMessageMetadata | ServerMessageMetadata | None


@dataclass
class SessionMessage:
    """A JSON-RPC message (``JSONRPCMessage``) and its metadata."""

    message: JSONRPCMessage
    metadata: MessageMetadata = None
