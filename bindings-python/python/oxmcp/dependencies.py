"""``fastmcp.dependencies``: dependency injection for tools, resources and prompts.

    from fastmcp.dependencies import CurrentContext, Depends

    def get_db() -> Database: ...

    @mcp.tool
    async def query(sql: str, db: Database = Depends(get_db), ctx: Context = CurrentContext()) -> str: ...

A parameter whose default (or ``Annotated`` metadata) is a dependency is not in the tool's schema:
its value is resolved for each call (``oxmcp/_inject.py``). ``Depends``, ``CallArgument``,
``Shared``, ``Dependency`` and ``CycleError`` are the ``uncalled-for`` engine's, as in FastMCP,
which is what this module needs installed (``pip install 'oxmcp[fastmcp]'``; FastMCP installs it too).
"""

from __future__ import annotations

from typing import Any

try:
    from uncalled_for import CallArgument, CycleError, Dependency, Depends, Provider, Shared
except ImportError as exc:  # pragma: no cover  (the `fastmcp` extra installs it)
    raise ImportError("fastmcp.dependencies needs the `uncalled-for` package (FastMCP's dependency "
                      "injection engine): pip install 'oxmcp[fastmcp]'") from exc

__all__ = [
    "CallArgument",
    "CurrentAccessToken",
    "CurrentContext",
    "CurrentFastMCP",
    "CurrentHeaders",
    "CurrentRequest",
    "CycleError",
    "Dependency",
    "Depends",
    "Shared",
]


class _CurrentContext(Provider[Any]):
    """The request's ``Context``."""

    async def __aenter__(self) -> Any:
        from .server.dependencies import get_context

        return get_context()


class _CurrentFastMCP(Provider[Any]):
    """The server serving the request."""

    async def __aenter__(self) -> Any:
        from .server.dependencies import get_context

        server = get_context().fastmcp
        if server is None:
            raise RuntimeError("No FastMCP server instance in context")
        return server


class _CurrentAccessToken(Provider[Any]):
    """The request's verified access token; a ``RuntimeError`` when it carried none."""

    async def __aenter__(self) -> Any:
        from .server.dependencies import get_access_token

        token = get_access_token()
        if token is None:
            raise RuntimeError("No access token found. Ensure authentication is configured and the request "
                               "is authenticated.")
        return token


class _CurrentHeaders(Provider[Any]):
    """The request's HTTP headers (``{}`` outside HTTP), as ``get_http_headers(include_all=True)``."""

    async def __aenter__(self) -> Any:
        from .server.dependencies import get_http_headers

        return get_http_headers(include_all=True)


class _CurrentRequest(Provider[Any]):
    """The HTTP request that carried the message; a ``RuntimeError`` outside HTTP."""

    async def __aenter__(self) -> Any:
        from .server.dependencies import get_http_request

        return get_http_request()


def CurrentContext() -> Any:
    """The request's ``Context`` as a dependency (``ctx: Context = CurrentContext()``)."""
    return _CurrentContext()


def CurrentFastMCP() -> Any:
    """The server as a dependency (``server: FastMCP = CurrentFastMCP()``)."""
    return _CurrentFastMCP()


def CurrentAccessToken() -> Any:
    """The verified access token as a dependency."""
    return _CurrentAccessToken()


def CurrentHeaders() -> Any:
    """The HTTP headers as a dependency."""
    return _CurrentHeaders()


def CurrentRequest() -> Any:
    """The HTTP request as a dependency."""
    return _CurrentRequest()
