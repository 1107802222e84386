"""FastMCP's dependency functions: the current context, access token and HTTP request."""

from __future__ import annotations

import contextvars
from typing import Any

from .._compat_ctx import AttrDict

__all__ = ["get_access_token", "get_context", "get_http_headers", "get_http_request"]

#: The Context of the handler running in this thread/task (set by the entry that calls it).
current_context: contextvars.ContextVar[Any] = contextvars.ContextVar("oxmcp_context", default=None)


def get_context() -> Any:
    ctx = current_context.get()
    if ctx is None:
        raise RuntimeError("No active context found.")
    return ctx


def get_access_token() -> Any:
    """The verified caller of this request as FastMCP's ``AccessToken`` shape (``client_id``, ``scopes``,
    ``claims``), or None when the request carried no credentials. The raw token is never exposed."""
    ctx = current_context.get()
    caller = ctx.caller if ctx is not None else None
    if not caller:
        return None
    return AttrDict({"token": None, "client_id": caller.get("name"), "scopes": list(caller.get("scopes") or []),
                     "claims": dict(caller.get("claims") or {}), "expires_at": (caller.get("claims") or {}).get("exp"),
                     "resource": None})


def _current_http_request() -> Any:
    return None


def get_http_request() -> Any:
    """Not available on oxmcp: requests are parsed by the Rust core and the raw HTTP request never reaches
    Python. Use ``ctx.caller`` (verified identity), ``ctx.meta`` and ``ctx.transport`` instead."""
    raise RuntimeError("No active HTTP request found: oxmcp does not expose the raw HTTP request to handlers "
                       "(see docs/COMPATIBILITY.md); use ctx.caller, ctx.meta or ctx.transport")


def get_http_headers(include_all: bool = False, include: Any = None) -> dict[str, str]:
    """FastMCP returns ``{}`` outside HTTP; oxmcp never has the raw headers, so it is always ``{}``."""
    return {}
