"""The SDKs' names for JSON-RPC messages and the capability types the schema declares as open objects.

``JSONRPCResponse`` is a result response in both SDKs (the schema's ``JSONRPCResultResponse``; the
error is ``JSONRPCError``). ``jsonrpc_message_adapter`` (mcp 2.x) reads one message into its model,
chosen by the message's members (``method`` and ``id``: a request; ``method``: a notification;
``result``; ``error``), as the JSON-RPC spec tells them apart.

``JSONRPCMessage`` is a root model holding a message in mcp 1.x and the union of the message models
in mcp 2.x (``isinstance(message, JSONRPCMessage)``): here it is the root model, each message model is
also an instance of it, reads as one (``message.root`` is the message) and equals the root model
holding an equal message.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Discriminator, Tag, TypeAdapter

from ._generated import (
    JSONRPCErrorResponse,
    JSONRPCMessage,
    JSONRPCNotification,
    JSONRPCRequest,
    JSONRPCResultResponse,
)

__all__ = ["JSONRPCResponse", "SamplingToolsCapability", "jsonrpc_message_adapter", "message_kind"]

JSONRPCResponse = JSONRPCResultResponse
_MEMBERS = (JSONRPCRequest, JSONRPCNotification, JSONRPCResultResponse, JSONRPCErrorResponse)


class _MessageMeta(type(JSONRPCMessage)):  # type: ignore[misc]
    def __instancecheck__(cls, instance: Any) -> bool:
        return super().__instancecheck__(instance) or isinstance(instance, _MEMBERS)


JSONRPCMessage.__class__ = _MessageMeta  # type: ignore[assignment]


def _root(self: Any) -> Any:
    return self


def _equal(self: Any, other: Any) -> bool:
    if isinstance(other, JSONRPCMessage) and not isinstance(other, _MEMBERS):
        other = other.root
    return _MODEL_EQ(self, other)


_MODEL_EQ = JSONRPCRequest.__eq__
for _member in _MEMBERS:
    _member.root = property(_root)  # type: ignore[union-attr]
    _member.__eq__ = _equal  # type: ignore[method-assign,assignment]


class SamplingToolsCapability(dict):  # type: ignore[type-arg]
    """``sampling.tools``: the schema declares it as an open object, a dict."""


def message_kind(value: Any) -> str | None:
    """Which JSON-RPC message ``value`` (a dict or a model) is, by its members."""
    get = value.get if isinstance(value, dict) else (lambda k: getattr(value, k, None))
    if get("method") is not None:
        return "request" if get("id") is not None else "notification"
    if get("error") is not None:
        return "error"
    if get("result") is not None:
        return "result"
    return None


_Message = Annotated[
    Annotated[JSONRPCRequest, Tag("request")]
    | Annotated[JSONRPCNotification, Tag("notification")]
    | Annotated[JSONRPCResultResponse, Tag("result")]
    | Annotated[JSONRPCErrorResponse, Tag("error")],
    Discriminator(message_kind),
]

#: Reads (``validate_json`` / ``validate_python``) and writes (``dump_json``) one JSON-RPC message.
jsonrpc_message_adapter: TypeAdapter[Any] = TypeAdapter(_Message)
