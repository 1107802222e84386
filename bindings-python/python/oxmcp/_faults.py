"""What a tool raised, for the FastMCP middleware of the same request.

FastMCP runs a tool inside its middleware chain, so a middleware sees the tool's exception (a
``ToolError`` chained to what the tool raised) and may retry, log, count or translate it. On
oxmcp the chain is the core's and the tool's exception becomes its ``isError`` result there; a
middleware link that wants the exception watches the request (by the core's request key, which
its link and the tool's handler share) while the rest of the chain runs, and the tool's handler
notes what it raised for every watcher of its request.
"""

from __future__ import annotations

from typing import Any

__all__ = ["note", "release", "watch"]

#: Request key → the slots of the links watching it (innermost last).
_WATCHED: dict[int, list[list[BaseException]]] = {}


def watch(key: int) -> list[BaseException]:
    slot: list[BaseException] = []
    _WATCHED.setdefault(key, []).append(slot)
    return slot


def release(key: int, slot: list[BaseException]) -> None:
    slots = _WATCHED.get(key)
    if slots is None:
        return
    slots[:] = [s for s in slots if s is not slot]
    if not slots:
        del _WATCHED[key]


def note(native_ctx: Any, exc: BaseException, raised: Any) -> None:
    """Record ``raised()`` (what the framework raises for ``exc``) for the links watching this
    request. Nothing is computed when no link watches any request."""
    if not _WATCHED or native_ctx is None or native_ctx.cancelled:
        # (A handler that outlived its request, say past its timeout, has nothing to tell: the
        # request was answered, and its key may already be another request's.)
        return
    slots = _WATCHED.get(getattr(native_ctx, "request_key", None))  # type: ignore[arg-type]
    if slots:
        error = raised(exc)
        for slot in slots:
            slot.append(error)
