"""``mcp.server.request_state``: ``RequestStateSecurity``, how the 2026-07-28 ``requestState`` is protected.

oxmcp's core seals the state it hands a client (``state_key=`` / ``state_ttl_ms=`` in docs/OPTIONS.md;
without a key, a random one per process). ``RequestStateSecurity.ephemeral()`` is that default. A
policy with the SDK's own keys, codec or principal binding is refused, since oxmcp would not apply
it: give the core its ``state_key`` instead.
"""

from __future__ import annotations

from typing import Any

__all__ = ["RequestStateSecurity"]


class RequestStateSecurity:
    """The core's request-state sealing: only :meth:`ephemeral` (its default) is available."""

    ttl: float

    def __init__(self, **kwargs: Any) -> None:
        raise TypeError("RequestStateSecurity(keys=/codec=...) is not supported by oxmcp: the core seals "
                        "requestState; configure state_key= and state_ttl_ms= (docs/OPTIONS.md)")

    @classmethod
    def ephemeral(cls, *, ttl: float = 600.0, audience: str | None = None) -> RequestStateSecurity:
        """A random key per process: the core's default. ``ttl`` must be the core's (600 s) and no
        ``audience`` is bound; other values are refused rather than ignored."""
        if ttl != 600.0 or audience is not None:
            raise TypeError("RequestStateSecurity.ephemeral(ttl=, audience=) is not supported by oxmcp: "
                            "configure state_ttl_ms= (docs/OPTIONS.md)")
        policy = object.__new__(cls)
        policy.ttl = ttl
        return policy
