"""``fastmcp.utilities.tests``: FastMCP's test helpers, as far as they apply on oxmcp.

``asgi_server(server, **http_app_kwargs)`` builds the server's HTTP app (its options: ``stateless_http``,
``json_response``, ...) and yields an :class:`ASGIServer` whose ``client()`` is FastMCP's client with
no socket: its requests go to the core's HTTP handler, the one the app's MCP route serves. What sits
around that route in the Starlette app (``middleware=``, custom routes) is not on that path, so
``middleware=`` is refused, as are the SSE transport and client ``headers``/``auth`` it cannot carry.

``temporary_settings`` changes FastMCP's global settings object; oxmcp has none (a server's options
are its constructor's and ``run()``'s keywords, or ``OXMCP_*`` variables), so it is refused with
that explanation rather than accepted and ignored.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from typing import Any

__all__ = ["ASGIServer", "asgi_server", "temporary_settings"]


@dataclass
class ASGIServer:
    """A server's HTTP app served in-process: ``url``, ``app``, ``transport_type``, ``client()``."""

    url: str
    app: Any
    transport_type: str
    server: Any

    def client(self, **kwargs: Any) -> Any:
        """FastMCP's ``Client`` of this server (``mode=``, ``timeout=``, ... as ``Client`` takes them)."""
        from .._fastmcp_client import Client

        for key in ("headers", "auth"):
            if kwargs.get(key) is not None:
                raise TypeError(f"ASGIServer.client({key}=...): oxmcp's in-process client sends no HTTP "
                                "headers of the caller's; serve the app (uvicorn) and use an HTTP client")
        return Client(self.server, **kwargs)


@contextlib.asynccontextmanager
async def asgi_server(server: Any, transport: str = "http", path: str | None = None,
                      **http_app_kwargs: Any) -> AsyncIterator[ASGIServer]:
    if transport not in ("http", "streamable-http"):
        raise TypeError(f"asgi_server(transport={transport!r}): oxmcp's in-process client speaks "
                        "Streamable HTTP only; serve the SSE app (uvicorn) and use an SSE client")
    if http_app_kwargs.get("middleware"):
        raise TypeError("asgi_server(middleware=...): the in-process client reaches the MCP route "
                        "without the app's Starlette middleware; serve the app (uvicorn) to test it")
    path = path or "/mcp"
    app = server.http_app(transport=transport, path=path, **http_app_kwargs)
    yield ASGIServer(url=f"http://127.0.0.1{path}", app=app, transport_type=transport, server=server)


@contextlib.contextmanager
def temporary_settings(**settings: Any) -> Iterator[None]:
    raise TypeError(f"temporary_settings({', '.join(sorted(settings))}): oxmcp has no FastMCP settings "
                    "object; give the option to the server (FastMCP(...), run(...)) or set OXMCP_* "
                    "variables (docs/OPTIONS.md)")
    yield  # pragma: no cover  (a generator, so that it is a context manager)
