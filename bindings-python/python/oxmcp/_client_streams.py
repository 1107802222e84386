"""Message-stream helpers the in-process clients and sessions share: a ``SessionMessage``'s JSON-RPC
message as a dict, and one message sent on a write stream."""

from __future__ import annotations

import contextlib
from typing import Any

import anyio

__all__ = ["emit_to", "message_dict"]


def message_dict(item: Any) -> dict[str, Any]:
    message = getattr(item, "message", item)
    message = getattr(message, "root", message)
    if hasattr(message, "model_dump"):
        return message.model_dump(by_alias=True, exclude_none=True, mode="json")  # type: ignore[no-any-return]
    return dict(message)


async def emit_to(write_stream: Any, message: dict[str, Any]) -> None:
    """Send one JSON-RPC message (a dict) on ``write_stream`` as a ``SessionMessage``."""
    from . import types
    from .shared.message import SessionMessage

    with contextlib.suppress(anyio.ClosedResourceError, anyio.BrokenResourceError):
        await write_stream.send(SessionMessage(types.JSONRPCMessage.model_validate(message)))
