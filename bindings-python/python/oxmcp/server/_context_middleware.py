"""mcp 2.x's context-tier middleware: ``server.middleware.append(fn)`` on ``MCPServer`` and the
low-level ``Server``, where ``fn(ctx, call_next)`` wraps every request the server is sent.

The list is one link of the core's middleware chain, the outermost of the server's own links: the
link hands each middleware the SDK's ``ServerRequestContext`` (``method``, the raw ``params``,
``session``, ``lifespan_context``, ...), and the innermost ``call_next`` runs the rest of the core's
chain with the params the context then holds. What the chain answers is the result dict; what a
middleware returns instead (a model, a dict, or ``None`` for an empty result) is the answer, and an
``MCPError`` it raises is the JSON-RPC error the client gets. The core's own rules (the caller's
allow-list, limits, validation) still apply inside ``call_next``: a middleware can refuse more, never
let through what the core refuses.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from typing import TYPE_CHECKING, Any, SupportsIndex

from .._context import Context
from .._errors import InputRequired, RequestCancelled
from .middleware import failed_link, native_next

if TYPE_CHECKING:
    from typing_extensions import Self


class ContextTierLink:
    """The core-chain link that runs a server's context-tier middleware, outermost first."""

    is_async = True

    def __init__(self, chain: list[Any], server: Any, lifespan: Callable[[], Any]) -> None:
        self.chain = chain
        self.server = server
        self.lifespan = lifespan

    def hooks(self) -> None:
        return None  # every method, as the SDK's middleware wraps every inbound request

    def call_sync(self, payload: Any, native_ctx: Any = None) -> tuple[str, Any]:  # pragma: no cover
        import asyncio

        return asyncio.run(self.call_async(payload, native_ctx))

    async def call_async(self, payload: Any, native_ctx: Any = None) -> tuple[str, Any]:
        from .lowlevel.server import _dump, _LLRequestContext

        method = payload["method"]
        chain = list(self.chain)
        if not chain:
            return ("ok", await native_next(native_ctx, dict(payload.get("params") or {})))
        ctx = _LLRequestContext(Context(native_ctx, self.server), self.lifespan(), method,
                                payload.get("params"))

        def step(i: int) -> Callable[[Any], Awaitable[Any]]:
            async def call_next(c: Any) -> Any:
                if i == len(chain):
                    return await native_next(native_ctx, dict(getattr(c, "params", None) or {}))
                return await chain[i](c, step(i + 1))
            return call_next

        try:
            out = await step(0)(ctx)
        except (InputRequired, RequestCancelled, Exception) as exc:  # noqa: BLE001  the SDK answers a crash as an internal error
            return failed_link(exc, f"middleware for {method}")
        return ("ok", _dump(out) if out is not None else {})


class MiddlewareList(list[Any]):
    """``server.middleware``: a plain list to the server's code. The first middleware added puts the
    link in the core's chain, ahead of the server's other links; after the server has started
    serving, a new middleware is refused rather than left unapplied."""

    def __init__(self, core: Any, lifespan: Callable[[], Any], initial: Iterable[Any] = ()) -> None:
        super().__init__()
        self._core = core
        self._lifespan = lifespan
        self._linked = False
        self.extend(initial)

    def _link(self) -> None:
        if self._linked:
            return
        core = self._core
        with core._lock:
            if core._native is not None:
                raise RuntimeError("server.middleware: add middleware before the server starts serving; "
                                   "oxmcp builds its request chain once, when it starts")
            core._middleware.insert(0, ContextTierLink(self, core, self._lifespan))
        self._linked = True

    def append(self, item: Any) -> None:
        self._link()
        super().append(item)

    def extend(self, items: Iterable[Any]) -> None:
        items = list(items)
        if items:
            self._link()
        super().extend(items)

    def insert(self, index: SupportsIndex, item: Any) -> None:
        self._link()
        super().insert(index, item)

    def __iadd__(self, items: Iterable[Any]) -> Self:  # type: ignore[override,misc]
        self.extend(items)
        return self
