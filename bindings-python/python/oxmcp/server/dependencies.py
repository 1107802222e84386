"""FastMCP's dependency functions: the current context, access token and HTTP request."""

from __future__ import annotations

import contextvars
from typing import Any

from .._compat_ctx import AttrDict

__all__ = ["get_access_token", "get_context", "get_http_headers", "get_http_request", "resolve_dependencies",
           "without_injected_parameters"]

from .._inject import resolve_dependencies, without_injected_parameters

#: FastMCP's dependency objects, also importable from here (``fastmcp.dependencies`` defines them).
_DEPENDENCY_NAMES = ("CurrentAccessToken", "CurrentContext", "CurrentFastMCP", "CurrentHeaders", "CurrentRequest")


def __getattr__(name: str) -> Any:
    if name in _DEPENDENCY_NAMES:
        from .. import dependencies

        return getattr(dependencies, name)
    if name == "get_session":  # FastMCP's place for it; fastmcp.server.sessions defines it
        from .sessions import get_session

        return get_session
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

#: The Context of the handler running in this thread/task (set by the entry that calls it).
current_context: contextvars.ContextVar[Any] = contextvars.ContextVar("oxmcp_context", default=None)


def get_context() -> Any:
    ctx = current_context.get()
    if ctx is None:
        raise RuntimeError("No active context found.")
    return ctx


def get_access_token() -> Any:
    """The verified caller of this request as FastMCP's ``AccessToken`` (``token``, ``client_id``, ``scopes``,
    ``claims``, ``expires_at``), or None when the request carried no verified credentials. ``token`` is the
    raw bearer token of the HTTP request, as in FastMCP (None for a caller the core verified without one).
    It is the server's own credential check that passed: never forward it to another service (the spec
    forbids token passthrough)."""
    ctx = current_context.get()
    caller = ctx.caller if ctx is not None else None
    if not caller:
        return None
    claims = dict(caller.get("claims") or {})
    return AttrDict({"token": _bearer(ctx), "client_id": caller.get("name"), "scopes": list(caller.get("scopes") or []),
                     "claims": claims, "expires_at": claims.get("exp"), "resource": None})


def _bearer(ctx: Any) -> str | None:
    info = _http_info(ctx)
    for name, value in (info or {}).get("headers", []):
        if name.lower() == "authorization" and value[:7].lower() == "bearer ":
            return value[7:].strip()
    return None


def _http_info(ctx: Any) -> dict[str, Any] | None:
    native = getattr(ctx, "_native", None) if ctx is not None else None
    return getattr(native, "http_request", None) if native is not None else None


def http_request_of(ctx: Any) -> Any:
    """The HTTP request that carried ``ctx``'s message (a Starlette ``Request`` when Starlette is
    installed), or None on stdio and in-process."""
    info = _http_info(ctx)
    if info is None:
        return None
    headers = [(k.encode("latin-1"), v.encode("latin-1", "replace")) for k, v in info["headers"]]
    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": info["method"],
             "scheme": "http", "path": info["path"], "raw_path": info["path"].encode(),
             "query_string": info["query"].encode("latin-1", "replace"), "root_path": "", "headers": headers,
             "client": tuple(info["client"]) if info.get("client") else None, "server": None}
    try:
        from starlette.requests import Request
    except ImportError:  # pragma: no cover  (starlette comes with the ASGI extra)
        return _PlainRequest(scope)
    return Request(scope)


class _PlainRequest:
    """What handlers read of a Starlette ``Request``, when Starlette is not installed."""

    def __init__(self, scope: dict[str, Any]) -> None:
        from collections import namedtuple
        from urllib.parse import parse_qsl

        self.scope = scope
        self.method: str = scope["method"]
        self.headers = _Headers((k.decode("latin-1"), v.decode("latin-1")) for k, v in scope["headers"])
        self.query_params = dict(parse_qsl(scope["query_string"].decode("latin-1")))
        client = scope.get("client")
        self.client = namedtuple("Address", "host port")(*client) if client else None
        host = self.headers.get("host", "localhost")
        query = scope["query_string"].decode("latin-1")
        self.url = f"http://{host}{scope['path']}" + (f"?{query}" if query else "")


class _Headers(dict):  # type: ignore[type-arg]
    """Case-insensitive header lookup (names are stored lower-case)."""

    def __init__(self, items: Any) -> None:
        super().__init__((k.lower(), v) for k, v in items)

    def get(self, key: str, default: Any = None) -> Any:
        return super().get(key.lower(), default)

    def __getitem__(self, key: str) -> Any:
        return super().__getitem__(key.lower())

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and super().__contains__(key.lower())


def _current_http_request() -> Any:
    return http_request_of(current_context.get())


def get_http_request() -> Any:
    """The HTTP request of the message being handled (a Starlette ``Request``: ``headers``, ``method``,
    ``url``, ``query_params``, ``client``); ``RuntimeError`` on stdio, as FastMCP."""
    request = _current_http_request()
    if request is None:
        raise RuntimeError("No active HTTP request found.")
    return request


#: What ``get_http_headers()`` leaves out unless ``include_all`` (FastMCP's list): hop-by-hop and
#: credential headers that must not be forwarded.
_EXCLUDED = {"host", "content-length", "content-type", "connection", "transfer-encoding", "upgrade", "te",
             "keep-alive", "expect", "accept", "authorization", "cookie", "proxy-authenticate",
             "proxy-authorization", "proxy-connection", "mcp-session-id"}


def get_http_headers(include_all: bool = False, include: Any = None) -> dict[str, str]:
    """The request's headers, lower-cased; ``{}`` outside HTTP. Without ``include_all``, FastMCP's
    credential and hop-by-hop headers are left out (``include`` puts some back)."""
    info = _http_info(current_context.get())
    if info is None:
        return {}
    excluded = set() if include_all else _EXCLUDED - {h.lower() for h in (include or ())}
    return {k.lower(): v for k, v in info["headers"] if k.lower() not in excluded}
