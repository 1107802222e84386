"""``fastmcp.server.lifespan``: composable server lifespans (``@lifespan``, ``a | b``).

A lifespan is what ``FastMCP(lifespan=...)`` takes: a callable of the server giving an async
context manager whose value is the lifespan context (``ctx.lifespan_context``). ``@lifespan`` makes
one of an async generator function; ``a | b`` enters ``a`` then ``b``, leaves them in reverse, and
merges their dicts (the right one wins on a shared key). ``ContextManagerLifespan`` wraps an
``@asynccontextmanager`` function so that it composes too.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any

__all__ = ["ComposedLifespan", "ContextManagerLifespan", "Lifespan", "lifespan"]


class Lifespan:
    """An async generator function ``fn(server)`` as a composable lifespan (its yield: a dict or None)."""

    def __init__(self, fn: Callable[[Any], Any]) -> None:
        self._fn = fn

    def _enter(self, server: Any) -> AbstractAsyncContextManager[Any]:
        return asynccontextmanager(self._fn)(server)

    @asynccontextmanager
    async def __call__(self, server: Any) -> AsyncIterator[dict[str, Any]]:
        async with self._enter(server) as value:
            yield {} if value is None else value

    def __or__(self, other: Lifespan) -> ComposedLifespan:
        if not isinstance(other, Lifespan):
            raise TypeError(f"Cannot compose Lifespan with {type(other).__name__}. "
                            "Use @lifespan decorator or wrap with ContextManagerLifespan().")
        return ComposedLifespan(self, other)


class ContextManagerLifespan(Lifespan):
    """A function already returning an async context manager (``@asynccontextmanager``), composable."""

    def _enter(self, server: Any) -> AbstractAsyncContextManager[Any]:
        return self._fn(server)  # type: ignore[no-any-return]


class ComposedLifespan(Lifespan):
    """``left | right``: both entered in that order, left in reverse, their dicts merged."""

    def __init__(self, left: Lifespan, right: Lifespan) -> None:
        self._left, self._right = left, right

    @asynccontextmanager
    async def __call__(self, server: Any) -> AsyncIterator[dict[str, Any]]:
        async with self._left(server) as first, self._right(server) as second:
            yield {**first, **second}


def lifespan(fn: Callable[[Any], Any]) -> Lifespan:
    """``@lifespan`` on ``async def f(server): ...; yield {...}; ...``: a composable lifespan."""
    return Lifespan(fn)
