"""``mcp.server.request_state``: ``RequestStateSecurity``, how the 2026-07-28 ``requestState`` is protected.

oxmcp's core seals the state it hands a client. ``RequestStateSecurity(keys=[...], ttl=, audience=)``
is the core's key ring (``state_keys=``: the first key seals, every key opens), its
``state_ttl_ms=`` and its ``state_audience=`` (the server's name by default), see docs/OPTIONS.md;
the core checks the keys (each at least 32 bytes). ``RequestStateSecurity.ephemeral()`` is the
core's default, a random key per process. A policy oxmcp would not apply (its own ``codec=``, a
``bind_principal=`` other than the caller's identity, which the core always binds) is refused.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import Any

__all__ = ["RequestStateSecurity"]

_SHORT = re.compile(r"state_keys\[(\d+)\] must be at least (\d+) bytes of secret randomness; it is (\d+) bytes")


class RequestStateSecurity:
    """The core's request-state sealing: a key ring (``keys=``), or :meth:`ephemeral` (its default)."""

    ttl: float
    audience: str | None
    _keys: list[bytes | str]

    def __init__(self, *, keys: Sequence[bytes | bytearray | str] | None = None, codec: Any = None,
                 ttl: float = 600.0, audience: str | None = None, **kwargs: Any) -> None:
        if codec is not None or kwargs:
            refused = "codec=" if codec is not None else "=, ".join(sorted(kwargs)) + "="
            raise TypeError(f"RequestStateSecurity({refused}) is not supported by oxmcp: the core seals "
                            "requestState with its key ring; configure keys= (state_keys=, docs/OPTIONS.md)")
        if keys is None:
            raise ValueError("RequestStateSecurity takes exactly one of keys= or codec=")
        if not (math.isfinite(ttl) and ttl > 0):
            raise ValueError(f"request-state ttl must be a positive finite number, got {ttl!r}")
        for i, key in enumerate(keys):
            if not isinstance(key, bytes | bytearray | str):
                raise TypeError(f"request-state keys must be bytes, bytearray, or str; keys[{i}] is "
                                f"{type(key).__name__}")
        self._keys = [bytes(k) if isinstance(k, bytearray) else k for k in keys]
        self.ttl = ttl
        self.audience = audience
        from .. import _oxmcp

        try:
            _oxmcp.check_options(self.core_options())
        except ValueError as e:
            short = _SHORT.search(str(e))
            if short is None:
                raise
            index, least, size = short.groups()
            raise ValueError(f"request-state keys must be at least {least} bytes of secret randomness; keys[{index}] "
                             f'is {size} bytes. Generate one with: python -c "import secrets; '
                             f'print(secrets.token_hex(32))"') from None

    @classmethod
    def ephemeral(cls, *, ttl: float = 600.0, audience: str | None = None) -> RequestStateSecurity:
        """A random key per process: the core's default. ``ttl`` must be the core's (600 s) and no
        ``audience`` is bound; other values are refused rather than ignored."""
        if ttl != 600.0 or audience is not None:
            raise TypeError("RequestStateSecurity.ephemeral(ttl=, audience=) is not supported by oxmcp: "
                            "configure state_ttl_ms= (docs/OPTIONS.md)")
        policy = object.__new__(cls)
        policy._keys = []
        policy.ttl = ttl
        policy.audience = None
        return policy

    def core_options(self) -> dict[str, Any]:
        """The core's options for this policy (none for :meth:`ephemeral`, the core's default)."""
        if not self._keys:
            return {}
        options: dict[str, Any] = {"state_keys": list(self._keys), "state_ttl_ms": round(self.ttl * 1000)}
        if self.audience is not None:
            options["state_audience"] = self.audience
        return options
