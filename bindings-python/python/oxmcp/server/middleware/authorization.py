"""FastMCP's ``AuthMiddleware`` (``fastmcp.server.middleware.authorization``), refused.

Its checks would decide in Python which components a caller sees and uses; on oxmcp that decision
is the core's, made per caller at the one point every request passes. A server given this
middleware would otherwise serve every component to everyone, so building one raises.
"""

from __future__ import annotations

from typing import Any

from . import Middleware

__all__ = ["AuthMiddleware"]

_REFUSED = ("AuthMiddleware: oxmcp does not run auth checks in middleware; who may see and use a "
            "component is decided by the core: give each component auth=require_scopes(...), or "
            "restrict callers with the tokens= allow-lists (docs/SECURITY.md)")


class AuthMiddleware(Middleware):
    def __init__(self, auth: Any = None, **_: Any) -> None:
        raise TypeError(_REFUSED)
