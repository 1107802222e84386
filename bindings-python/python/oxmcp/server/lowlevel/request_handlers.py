"""mcp 1.x's ``server.request_handlers`` of the low-level ``Server``: its handlers by method, and by
request class (``server.request_handlers[types.ListToolsRequest]``), as 1.x keys them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["LIST_KEYS", "RequestHandlers", "request_model", "takes_argument"]

LIST_KEYS = {"tools/list": "tools", "resources/list": "resources",
             "resources/templates/list": "resourceTemplates", "prompts/list": "prompts"}
_REQUEST_NAMES = {
    "tools/list": ("ListToolsRequest", "ListToolsResult"), "tools/call": ("CallToolRequest", "CallToolResult"),
    "resources/list": ("ListResourcesRequest", "ListResourcesResult"),
    "resources/templates/list": ("ListResourceTemplatesRequest", "ListResourceTemplatesResult"),
    "resources/read": ("ReadResourceRequest", "ReadResourceResult"),
    "resources/subscribe": ("SubscribeRequest", "EmptyResult"),
    "resources/unsubscribe": ("UnsubscribeRequest", "EmptyResult"),
    "prompts/list": ("ListPromptsRequest", "ListPromptsResult"), "prompts/get": ("GetPromptRequest", "GetPromptResult"),
    "completion/complete": ("CompleteRequest", "CompleteResult"), "logging/setLevel": ("SetLevelRequest", "EmptyResult"),
}


def takes_argument(handler: Callable[..., Any]) -> bool:
    import inspect

    try:
        return bool(inspect.signature(handler).parameters)
    except (TypeError, ValueError):
        return False


def request_model(method: str, params: dict[str, Any]) -> Any:
    from ... import types

    cls = getattr(types, _REQUEST_NAMES[method][0])
    return cls.model_validate({"method": method, "params": params or None})


class RequestHandlers(dict):  # type: ignore[type-arg]
    """``server.request_handlers``: the handlers by method; mcp 1.x also keys them by request class
    (``server.request_handlers[types.ListToolsRequest]``), which gives the SDK's callable
    ``handler(request) -> ServerResult`` (the handler's answer, without a session)."""

    def __init__(self, server: Any) -> None:
        super().__init__()
        self._server = server

    @staticmethod
    def _method(key: Any) -> Any:
        from .server import _method_of

        return _method_of(key) if isinstance(key, type) else key

    def __contains__(self, key: object) -> bool:
        return super().__contains__(self._method(key))

    def get(self, key: Any, default: Any = None) -> Any:
        try:
            return self[key]  # dict.get would skip the class-keyed lookup
        except KeyError:
            return default

    def __getitem__(self, key: Any) -> Any:
        method = self._method(key)
        handler = super().__getitem__(method)
        if not isinstance(key, type):
            return handler
        server = self._server

        async def call(request: Any) -> Any:
            from ... import types
            from .server import _dump

            raw = getattr(request, "params", None)
            params = _dump(raw) if raw is not None else {}
            body = await server._answer_v1(method, handler, params, request)
            result = getattr(types, _REQUEST_NAMES[method][1]).model_validate(body)
            return types.ServerResult(result)
        return call
