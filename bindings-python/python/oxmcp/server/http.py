"""``fastmcp.server.http``: FastMCP's app factories, as the server's own ``http_app()`` / ``sse_app()``.

``create_streamable_http_app(server, path, ...)`` and ``create_sse_app(server, message_path, sse_path,
...)`` give the Starlette app those methods give (the MCP endpoint served by the core, the server's
custom routes, the lifespan), with ``routes`` added to it and ``middleware`` around it. An auth
provider is not taken here: who may call is the core's (the server's ``tokens=`` / ``oauth=``), so a
provider given to a factory is refused rather than left unapplied, unless it is the
``StaticTokenVerifier`` the server already applies (``FastMCP(auth=verifier)``).
"""

from __future__ import annotations

import functools
from typing import Any

__all__ = ["create_sse_app", "create_streamable_http_app"]


@functools.cache
def starlette_with_lifespan() -> Any:
    """``StarletteWithLifespan``, made on first use (Starlette is imported only by a server that
    serves an ASGI app)."""
    from starlette.applications import Starlette

    class StarletteWithLifespan(Starlette):
        """The Starlette app a server's ``http_app()`` gives, with its lifespan (``app.lifespan``)
        to run when it is mounted in another app."""

        @property
        def lifespan(self) -> Any:
            return self.router.lifespan_context

    StarletteWithLifespan.__module__ = __name__
    return StarletteWithLifespan


def __getattr__(name: str) -> Any:
    if name == "StarletteWithLifespan":
        return starlette_with_lifespan()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _refuse(what: str, auth: Any, debug: bool) -> None:
    if auth is not None:
        raise TypeError(f"{what}(auth=...): give the server tokens= or oauth= (oxmcp's auth options, "
                        "docs/OPTIONS.md); an auth provider object is not applied here")
    if debug:
        raise TypeError(f"{what}(debug=True): oxmcp's apps do not answer with tracebacks; "
                        "give the server debug=True for detailed error texts")


def _unless_the_servers(server: Any, auth: Any) -> Any:
    """None when ``auth`` is a verifier whose tokens the server already applies (given as its
    ``auth=``), else ``auth`` itself, to be refused."""
    from .fastmcp_auth import StaticTokenVerifier

    options = getattr(server, "options", None) or {}
    if isinstance(auth, StaticTokenVerifier) and options.get("tokens") == auth._oxmcp_tokens():
        return None
    return auth


def _with_routes(app: Any, routes: list[Any] | None) -> Any:
    if routes:
        app.router.routes.extend(routes)
    return app


def _guard(kwargs: dict[str, Any], host_origin_protection: Any, allowed_hosts: Any,
           allowed_origins: Any) -> dict[str, Any]:
    """The host/origin options as given (left out at their defaults), for the server's app to
    apply or refuse."""
    for key, value, default in (("host_origin_protection", host_origin_protection, False),
                                ("allowed_hosts", allowed_hosts, None), ("allowed_origins", allowed_origins, None)):
        if value != default:
            kwargs[key] = value
    return kwargs


def create_streamable_http_app(server: Any, streamable_http_path: str, event_store: Any = None,
                               retry_interval: int | None = None, auth: Any = None, json_response: bool = False,
                               stateless_http: bool = False, debug: bool = False, routes: list[Any] | None = None,
                               middleware: list[Any] | None = None, host_origin_protection: Any = False,
                               allowed_hosts: Any = None, allowed_origins: Any = None,
                               session_idle_timeout: Any = "auto") -> Any:
    """The Streamable HTTP app of ``server`` at ``streamable_http_path`` (``server.http_app``)."""
    _refuse("create_streamable_http_app", _unless_the_servers(server, auth), debug)
    kwargs = _guard({}, host_origin_protection, allowed_hosts, allowed_origins)
    if event_store is not None:
        kwargs["event_store"] = event_store
    if retry_interval is not None:
        kwargs["retry_interval"] = retry_interval
    if session_idle_timeout != "auto":
        kwargs["session_idle_timeout"] = session_idle_timeout
    app = server.http_app(path=streamable_http_path, middleware=middleware, json_response=json_response or None,
                          stateless_http=stateless_http or None, **kwargs)
    return _with_routes(app, routes)


def create_sse_app(server: Any, message_path: str, sse_path: str, auth: Any = None, debug: bool = False,
                   routes: list[Any] | None = None, middleware: list[Any] | None = None,
                   host_origin_protection: Any = False, allowed_hosts: Any = None,
                   allowed_origins: Any = None) -> Any:
    """The 2024-11-05 HTTP+SSE app of ``server`` (``server.sse_app``)."""
    _refuse("create_sse_app", auth, debug)
    kwargs = _guard({}, host_origin_protection, allowed_hosts, allowed_origins)
    app = server.sse_app(message_path=message_path, sse_path=sse_path, middleware=middleware, **kwargs)
    return _with_routes(app, routes)
