"""How a FastMCP-shaped server is served: its HTTP apps (``http_app``, ``sse_app``, custom routes) and
``run`` / ``run_async`` with the frameworks' keywords, mapped onto the core's listener and server
options (``FastMCP`` and ``MCPServer`` take it as a base, ahead of oxmcp's ``Server``)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING, Any

from ._server import Server, option_names

if TYPE_CHECKING:
    # To the type checker the mixin is the ``Server`` it is mixed into (its MRO's next class).
    _Base = Server
else:
    _Base = object

# HTTP keywords of run()/http_app() that oxmcp accepts and ignores.
_NOOP_RUN = {
    "show_banner", "log_level", "uvicorn_config", "event_store", "retry_interval", "sockets",
    "transport_security", "host_origin_protection", "sse_path", "message_path", "mount_path",
}


class Serving(_Base):
    """The serving half of ``FastMCP``; the state it reads (``_custom_routes``, ``_http_defaults``,
    ``_transport_security``, the lifespan) is set by ``FastMCP.__init__``."""

    _custom_routes: list[Any]
    _http_defaults: dict[str, Any]
    _transport_security: Any

    if TYPE_CHECKING:
        def _lifespan_running(self) -> contextlib.AbstractAsyncContextManager[Any]: ...

    # -- HTTP routes --------------------------------------------------------------------------------
    def custom_route(self, path: str, methods: list[str], name: str | None = None,
                     include_in_schema: bool = True) -> Callable[[Any], Any]:
        """``@server.custom_route("/health", methods=["GET"])``: a Starlette endpoint next to ``/mcp``.

        Routes are served by ``http_app()``; ``run(transport="http")`` serves through it (uvicorn) when
        any route exists.
        """
        def deco(fn: Any) -> Any:
            self._custom_routes.append((path, list(methods), fn, name))
            return fn
        return deco

    def http_app(self, path: str | None = None, middleware: list[Any] | None = None,
                 json_response: bool | None = None, stateless_http: bool | None = None,
                 transport: str = "http", **kwargs: Any) -> Any:
        """A Starlette ASGI app: the MCP endpoint at ``path`` (default ``/mcp``), the custom routes, the lifespan."""
        if transport == "sse":
            return self.sse_app(path, middleware=middleware, **kwargs)
        _fastmcp_allowed_hosts(kwargs, None)
        kwargs.setdefault("transport_security", self._transport_security)
        self._session_options(kwargs, "http_app")
        _check_http_kwargs(kwargs)
        # The listener options are the mount's, checked by the core (the SDK's no-op keywords aside).
        self._mount_options({k: v for k, v in kwargs.items() if k not in _NOOP_RUN})
        if stateless_http:
            self.options["legacy_stateless"] = True
        from starlette.routing import Route

        from ._asgi import AsgiApp

        path = path or self._http_defaults.get("path") or "/mcp"
        mcp_app = AsgiApp(self, path)
        routes = [Route(p, endpoint=fn, methods=m, name=n) for p, m, fn, n in self._custom_routes]
        routes.append(Route(path, endpoint=mcp_app, methods=["GET", "POST", "DELETE"]))
        routes += self._metadata_routes(path)
        return self._starlette(routes, middleware)

    def _metadata_routes(self, path: str) -> list[Any]:
        """With ``oauth.resource``, the route of its RFC 9728 metadata (path-inserted, as the SDK
        serves it), answered by the core."""
        from urllib.parse import urlsplit

        from starlette.routing import Route

        from ._asgi import AsgiApp

        resource = (self.options.get("oauth") or {}).get("resource")
        if not isinstance(resource, str):
            return []
        well_known = "/.well-known/oauth-protected-resource" + urlsplit(resource).path.rstrip("/")
        return [Route(well_known, endpoint=AsgiApp(self, path, routed=True), methods=["GET"])]

    def _starlette(self, routes: list[Any], middleware: list[Any] | None) -> Any:
        """A Starlette app of ``routes`` whose lifespan starts the core on the app's loop and runs the
        server's own lifespan."""
        from .server.http import starlette_with_lifespan

        server = self

        @contextlib.asynccontextmanager
        async def lifespan(app: Any) -> AsyncIterator[None]:
            server._build_native().set_loop(asyncio.get_running_loop())
            async with server._lifespan_running():
                yield

        return starlette_with_lifespan()(routes=routes, middleware=middleware or None, lifespan=lifespan)

    def streamable_http_app(self, path: str | None = None, **kwargs: Any) -> Any:
        return self.http_app(path=path, **kwargs)

    def sse_app(self, mount_path: str | None = None, *, middleware: list[Any] | None = None,
                message_path: str | None = None, sse_path: str | None = None, **kwargs: Any) -> Any:
        """A Starlette app serving the 2024-11-05 HTTP+SSE transport (``GET /sse``, ``POST /messages/``).

        As the SDK's ``sse_app()``: run it under uvicorn or ``Mount`` it; the endpoint event names the
        messages path under the mount. ``mount_path`` (the SDK's positional argument) is accepted: the
        mount's own prefix is read from the request, as Starlette passes it.
        """
        from starlette.routing import Route

        from ._asgi import AsgiApp

        sse_path = sse_path or self._http_defaults.get("sse_path") or "/sse"
        message_path = message_path or self._http_defaults.get("message_path") or "/messages/"
        kwargs.pop("path", None)
        _check_http_kwargs(kwargs)
        if kwargs:
            raise TypeError(f"{', '.join(sorted(kwargs))}: give these as server options to serve them under sse_app()")
        if self._native is not None:
            raise RuntimeError("sse_app(): call it before the server starts serving")
        self.options.update(sse=True, sse_path=sse_path, messages_path=message_path)
        app = AsgiApp(self, sse_path, routed=True)
        routes = [Route(p, endpoint=fn, methods=m, name=n) for p, m, fn, n in self._custom_routes]
        routes += [Route(sse_path, endpoint=app, methods=["GET"]), Route(message_path, endpoint=app, methods=["POST"])]
        return self._starlette(routes, middleware)

    # -- running -------------------------------------------------------------------------------------
    def run(self, transport: str | None = None, show_banner: bool | None = None,  # type: ignore[override]
            **kwargs: Any) -> None:
        """``run()`` (stdio), ``run("http", host=, port=, path=)``; every FastMCP/MCPServer keyword is accepted."""
        try:
            asyncio.run(self.run_async(transport, show_banner=show_banner, _signals=True, **kwargs))
        except KeyboardInterrupt:
            pass

    async def run_async(self, transport: str | None = None, show_banner: bool | None = None,  # type: ignore[override]
                        _signals: bool = False, **kwargs: Any) -> None:
        transport = transport or ("http" if self._http_defaults.get("port") else "stdio")
        if transport == "sse":
            # HTTP+SSE beside Streamable HTTP on the same port: FastMCP's `path` (and the SDK's
            # `sse_path`) is the stream's, `message_path` where messages are POSTed.
            kwargs.pop("mount_path", None)
            sse_path = kwargs.pop("path", None) or kwargs.pop("sse_path", None) \
                or self._http_defaults.get("sse_path") or "/sse"
            message_path = kwargs.pop("message_path", None) or self._http_defaults.get("message_path") \
                or "/messages/"
            kwargs.update(sse=True, sse_path=sse_path, messages_path=message_path,
                          path=self._http_defaults.get("path") or "/mcp")
            transport = "http"
        if transport not in ("stdio", "http", "streamable-http"):
            raise ValueError(f"Unknown transport: {transport}")
        async with self._lifespan_running():
            if transport == "stdio":
                await super().run_async("stdio", _signals=_signals)
                return
            # uvicorn's `uds` (FastMCP passes `uvicorn_config` to uvicorn) is the core's: the socket
            # replaces host and port, which FastMCP always sends and uvicorn then ignores.
            uds = (kwargs.get("uvicorn_config") or {}).get("uds")
            if uds is not None:
                kwargs.setdefault("uds", uds)
            if kwargs.get("uds") is not None:
                kwargs.pop("host", None)
                kwargs.pop("port", None)
                host = port = None
            else:
                host = kwargs.pop("host", None) or self._http_defaults.get("host") or "127.0.0.1"
                port = kwargs.pop("port", None) or self._http_defaults.get("port") or 8000
            path = kwargs.pop("path", None) or kwargs.pop("streamable_http_path", None) \
                or self._http_defaults.get("path") or "/mcp"
            stateless = kwargs.pop("stateless_http", None) or kwargs.pop("stateless", None)
            # Starlette middleware, as FastMCP applies it: the app is then served by uvicorn.
            middleware = kwargs.pop("middleware", None)
            kwargs.pop("json_response", None)
            kwargs.pop("max_request_body_size", None) if "max_body_bytes" in kwargs else None
            if "max_request_body_size" in kwargs:
                kwargs["max_body_bytes"] = kwargs.pop("max_request_body_size")
            _fastmcp_allowed_hosts(kwargs, host)
            kwargs.setdefault("transport_security", self._transport_security)
            self._session_options(kwargs, "run")
            _check_http_kwargs(kwargs)
            for k in list(kwargs):
                if k in _NOOP_RUN and not (k == "sse_path" and kwargs.get("sse")):
                    kwargs.pop(k)
            if stateless:
                self.options["legacy_stateless"] = True
            if self._custom_routes or middleware:
                await self._run_uvicorn(host or "127.0.0.1", int(port or 8000), path, kwargs, middleware)
            else:
                await super().run_async("http", host=host, port=None if port is None else int(port), path=path,
                                        _signals=_signals, **kwargs)

    def _session_options(self, kwargs: dict[str, Any], where: str) -> None:
        """``max_sessions`` and ``session_idle_timeout`` (seconds) of ``run()``/``http_app()``: the
        core's server options, checked by the core and taken out of ``kwargs``. ``None`` (FastMCP's
        "no limit") is refused: the core always bounds sessions."""
        from ._session_options import session_options

        given = session_options(kwargs, where)
        if not given:
            return
        from . import _oxmcp

        _oxmcp.check_listen_options({**self.options, **given}, {})
        if self._native is not None:
            raise RuntimeError(f"{where}(): max_sessions and session_idle_timeout must be given before the "
                               "server starts serving")
        self.options.update(given)

    async def _run_uvicorn(self, host: str, port: int, path: str, http_options: dict[str, Any],
                           middleware: list[Any] | None = None) -> None:
        import uvicorn

        if http_options.get("uds") is not None:
            raise TypeError("uds: custom routes and middleware are served by uvicorn on TCP; serve this server "
                            "on a Unix socket without them, or mount http_app() in an app of your own")
        if http_options:
            raise TypeError(f"{', '.join(sorted(http_options))}: with custom routes or middleware the server runs "
                            "under uvicorn; give these as server options instead")
        config = uvicorn.Config(self.http_app(path=path, middleware=middleware), host=host, port=port,
                                log_level="warning",
                                lifespan="on")
        server = uvicorn.Server(config)
        # The lifespan is already entered by run_async; http_app's enters it again (counted).
        await server.serve()


#: The Host names FastMCP's guard always accepts, to which its ``allowed_hosts`` are added.
_FASTMCP_DEFAULT_HOSTS = ("127.0.0.1", "localhost", "[::1]")


def _fastmcp_allowed_hosts(kwargs: dict[str, Any], bind_host: str | None) -> None:
    """FastMCP's ``allowed_hosts=`` as the core's list. FastMCP adds its entries to the loopback names
    and the address the server is bound to, where the core's list is complete: so those go into it.
    ``"*"`` (any host) is the core's ``allow_any_host``; any other wildcard pattern is refused, the
    core matching names exactly (a name, or ``name:port``)."""
    hosts = kwargs.get("allowed_hosts")
    if hosts is None or isinstance(hosts, str):
        return  # a string is the core's own spelling error to report
    hosts = list(hosts)
    if "*" in hosts:
        kwargs.pop("allowed_hosts")
        kwargs.setdefault("allow_any_host", True)
        return
    patterns = [h for h in hosts if isinstance(h, str) and any(c in h for c in "*?[")]
    if patterns:
        raise TypeError(f"allowed_hosts: {', '.join(patterns)}: oxmcp's Host check matches names exactly "
                        "(`name` or `name:port`); list each name")
    own = [] if bind_host in (None, "", "0.0.0.0", "::", "[::]") else \
        [f"[{bind_host}]" if ":" in bind_host and not bind_host.startswith("[") else bind_host]
    kwargs["allowed_hosts"] = list(dict.fromkeys([*hosts, *_FASTMCP_DEFAULT_HOSTS, *own]))


def _check_http_kwargs(kwargs: dict[str, Any]) -> None:
    if kwargs.get("transport_security") is not None:
        from .server.transport_security import listener_options

        for key, value in listener_options(kwargs.pop("transport_security")).items():
            kwargs.setdefault(key, value)
    known = set(option_names()[1]) | _NOOP_RUN
    unknown = sorted(set(kwargs) - known)
    if unknown:
        raise TypeError(f"run()/http_app(): unknown keyword argument(s): {', '.join(unknown)}")
