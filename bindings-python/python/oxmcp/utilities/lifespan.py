"""``fastmcp.utilities.lifespan``: ``combine_lifespans``, several lifespans as one (a FastAPI app's
and the MCP app's, say)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import AbstractAsyncContextManager, AsyncExitStack, asynccontextmanager
from typing import Any

__all__ = ["combine_lifespans"]


def combine_lifespans(
    *lifespans: Callable[[Any], AbstractAsyncContextManager[Mapping[str, Any] | None]],
) -> Callable[[Any], AbstractAsyncContextManager[dict[str, Any]]]:
    """One lifespan entering ``lifespans`` in order and leaving them in reverse; its value merges what
    they yield (a ``None``, as a FastAPI lifespan yields, adds nothing; a later key wins)."""

    @asynccontextmanager
    async def combined(app: Any) -> AsyncIterator[dict[str, Any]]:
        merged: dict[str, Any] = {}
        async with AsyncExitStack() as stack:
            for each in lifespans:
                value = await stack.enter_async_context(each(app))
                if value is not None:
                    merged.update(value)
            yield merged

    return combined
