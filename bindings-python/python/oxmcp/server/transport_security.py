"""``mcp.server.transport_security``: ``TransportSecuritySettings``, the SDK's DNS-rebinding options.

oxmcp's HTTP guard (the core's ``Host`` and ``Origin`` checks) is configured with the listener options
``allowed_hosts`` / ``allowed_origins`` / ``allow_any_host``; a server passing these settings gets the
same lists there. ``enable_dns_rebinding_protection=False`` asks for no ``Host`` check: that becomes
``allow_any_host``, which the core honours only where it allows it (off loopback), so the check is
never weaker than the core's rule. The SDK's any-port patterns are the core's too (``"localhost:*"``,
``"http://localhost:*"``: that host on any explicit port).
"""

from __future__ import annotations

from collections import deque
from typing import Any, Final

from pydantic import BaseModel, Field

__all__ = ["DEFAULT_MAX_REQUEST_BODY_SIZE", "RequestBodyLimitMiddleware", "TransportSecurityMiddleware",
           "TransportSecuritySettings", "listener_options", "loopback_settings"]

#: The HTTP transports' request body cap, in bytes (the SDK's; the core's ``max_body_bytes`` option).
DEFAULT_MAX_REQUEST_BODY_SIZE: Final = 4 * 1024 * 1024

_LOOPBACK = {"127.0.0.1": "127.0.0.1", "localhost": "localhost", "::1": "[::1]"}


class TransportSecuritySettings(BaseModel):
    """Which ``Host`` and ``Origin`` headers the HTTP transports accept."""

    enable_dns_rebinding_protection: bool = True
    allowed_hosts: list[str] = Field(default_factory=list)
    allowed_origins: list[str] = Field(default_factory=list)


class TransportSecurityMiddleware:
    """The SDK's per-request check for its HTTP transports: ``validate_request(request, is_post)`` is
    None, or the refusal to send (400 ``Invalid Content-Type header`` for a POST that is not JSON, 421
    ``Invalid Host header``, 403 ``Invalid Origin header``). The decisions are the core's
    (``_oxmcp.json_content_type``, ``_oxmcp.check_host_origin``: the allow-lists as the SDK spells
    them); no settings mean no Host/Origin check, as in the SDK."""

    def __init__(self, settings: TransportSecuritySettings | None = None) -> None:
        self.settings = settings or TransportSecuritySettings(enable_dns_rebinding_protection=False)

    async def validate_request(self, request: Any, is_post: bool = False) -> Any:
        from starlette.responses import Response

        from .. import _oxmcp

        if is_post and not _oxmcp.json_content_type(request.headers.get("content-type")):
            return Response("Invalid Content-Type header", status_code=400)
        if not self.settings.enable_dns_rebinding_protection:
            return None
        refused = _oxmcp.check_host_origin(request.headers.get("host"), request.headers.get("origin"),
                                           list(self.settings.allowed_hosts), list(self.settings.allowed_origins))
        if refused == "host":
            return Response("Invalid Host header", status_code=421)
        if refused == "origin":
            return Response("Invalid Origin header", status_code=403)
        return None


class RequestBodyLimitMiddleware:
    """ASGI middleware answering 413 ``Request body too large`` to a body over ``max_body_size`` bytes
    (declared by ``Content-Length`` or counted as it arrives), before the app runs; a body within it
    reaches the app as one message, and a disconnect as it came."""

    def __init__(self, app: Any, max_body_size: int) -> None:
        self.app = app
        self.max_body_size = max_body_size

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        for name, value in scope.get("headers", ()):
            if name.lower() == b"content-length" and value.strip().isdigit() and int(value) > self.max_body_size:
                await _too_large(scope, receive, send)
                return
        body = bytearray()
        got_body = complete = False
        trailing: Any = None
        while True:
            message = await receive()
            if message["type"] != "http.request":
                trailing = message
                break
            got_body = True
            chunk = message.get("body", b"")
            if len(body) + len(chunk) > self.max_body_size:
                await _too_large(scope, receive, send)
                return
            body.extend(chunk)
            if not message.get("more_body", False):
                complete = True
                break
        queued: deque[Any] = deque()
        if got_body:
            queued.append({"type": "http.request", "body": bytes(body), "more_body": not complete})
        if trailing is not None:
            queued.append(trailing)

        async def replay() -> Any:
            return queued.popleft() if queued else await receive()

        await self.app(scope, replay, send)


async def _too_large(scope: Any, receive: Any, send: Any) -> None:
    from starlette.responses import Response

    await Response("Request body too large", status_code=413)(scope, receive, send)


def loopback_settings(host: str | None) -> TransportSecuritySettings | None:
    """The settings the SDK derives for a server bound to a loopback host (any port of it, by each of
    its names), and None for any other host."""
    if host not in _LOOPBACK:
        return None
    names = ["127.0.0.1", "localhost"] if host != "::1" else ["[::1]"]
    return TransportSecuritySettings(allowed_hosts=[f"{n}:*" for n in names],
                                     allowed_origins=[f"http://{n}:*" for n in names])


def listener_options(settings: Any) -> dict[str, Any]:
    """The core listener options that stand for ``settings`` (a TransportSecuritySettings or alike)."""
    out: dict[str, Any] = {}
    if settings is None:
        return out
    if not getattr(settings, "enable_dns_rebinding_protection", True):
        out["allow_any_host"] = True
        return out
    hosts = getattr(settings, "allowed_hosts", None)
    origins = getattr(settings, "allowed_origins", None)
    if hosts:
        out["allowed_hosts"] = list(hosts)
    if origins:
        out["allowed_origins"] = list(origins)
    return out
