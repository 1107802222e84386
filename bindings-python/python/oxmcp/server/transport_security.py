"""``mcp.server.transport_security``: ``TransportSecuritySettings``, the SDK's DNS-rebinding options.

oxmcp's HTTP guard (the core's ``Host`` and ``Origin`` checks) is configured with the listener options
``allowed_hosts`` / ``allowed_origins`` / ``allow_any_host``; a server passing these settings gets the
same lists there. ``enable_dns_rebinding_protection=False`` asks for no ``Host`` check: that becomes
``allow_any_host``, which the core honours only where it allows it (off loopback), so the check is
never weaker than the core's rule. The SDK's any-port patterns translate: a host ``"localhost:*"`` is
the core's ``"localhost"`` (any port); an origin ``"http://localhost:*"`` has no core spelling (origins
are exact) and is left out, so such an origin is allowed only where the core allows it anyway (a
loopback origin to a loopback server, or the server's own authority): stricter, never looser.
"""

from __future__ import annotations

from typing import Any, Final

from pydantic import BaseModel, Field

__all__ = ["DEFAULT_MAX_REQUEST_BODY_SIZE", "TransportSecuritySettings", "listener_options", "loopback_settings"]

#: The HTTP transports' request body cap, in bytes (the SDK's; the core's ``max_body_bytes`` option).
DEFAULT_MAX_REQUEST_BODY_SIZE: Final = 4 * 1024 * 1024

_LOOPBACK = {"127.0.0.1": "127.0.0.1", "localhost": "localhost", "::1": "[::1]"}


class TransportSecuritySettings(BaseModel):
    """Which ``Host`` and ``Origin`` headers the HTTP transports accept."""

    enable_dns_rebinding_protection: bool = True
    allowed_hosts: list[str] = Field(default_factory=list)
    allowed_origins: list[str] = Field(default_factory=list)


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
        out["allowed_hosts"] = [h.removesuffix(":*") for h in hosts]
    exact = [o for o in origins or () if not o.endswith(":*")]
    if exact:
        out["allowed_origins"] = exact
    return out
