"""The low-level ``Server``'s link in the core's middleware chain: it answers the methods that have a
handler, and puts the low-level server's capabilities into ``initialize`` / ``server/discover``."""

from __future__ import annotations

from typing import Any

from .._context import Context
from .._errors import InputRequired, RequestCancelled
from .middleware import failed_link, native_next


class LowLevelLink:
    is_async = True

    def __init__(self, server: Any) -> None:
        self.server = server
        #: Set by ``Server.run`` from its initialization options; computed from the handlers otherwise.
        self.capabilities: dict[str, Any] | None = None

    def hooks(self) -> list[str]:
        return sorted(set(self.server.request_handlers) | {"initialize", "server/discover"} | self._unhandled())

    def _unhandled(self) -> set[str]:
        """Methods the core would answer for a capability the server declares but that the SDK leaves
        without a handler: a server with ``list_resources`` and no ``list_resource_templates``
        answers ``resources/templates/list`` with -32601, as the SDK's dispatcher does."""
        handlers = self.server.request_handlers
        if "resources/list" in handlers and "resources/templates/list" not in handlers:
            return {"resources/templates/list"}
        return set()

    def _caps(self) -> dict[str, Any]:
        if self.capabilities is None:
            from .lowlevel.server import _dump

            return _dump(self.server.get_capabilities())
        return self.capabilities

    def call_sync(self, payload: Any, native_ctx: Any = None) -> tuple[str, Any]:  # pragma: no cover
        import asyncio

        return asyncio.run(self.call_async(payload, native_ctx))

    async def call_async(self, payload: Any, native_ctx: Any = None) -> tuple[str, Any]:
        method = payload["method"]
        params = dict(payload.get("params") or {})
        try:
            if method in self._unhandled():
                return ("mcp_error", (-32601, "Method not found", None))
            if method in ("initialize", "server/discover"):
                raw = await native_next(native_ctx, params)
                if isinstance(raw, dict) and "capabilities" in raw:
                    raw["capabilities"] = self._caps()
                return ("ok", raw)
            if method in ("resources/subscribe", "resources/unsubscribe"):
                # The core answers first and records the session's subscription (so that
                # `notifications/resources/updated` reaches it), or refuses (modern requests have
                # no subscriptions); then the handler hears who subscribed to what.
                await native_next(native_ctx, params)
            ctx = Context(native_ctx, self.server._core)
            value = await self.server._invoke(method, params, ctx)
            if method == "logging/setLevel":
                await native_next(native_ctx, params)  # the core filters log notifications by it
            return ("ok", value)
        except (InputRequired, RequestCancelled, Exception) as exc:  # noqa: BLE001  each is an answer
            return failed_link(exc, f"low-level handler for {method}")
