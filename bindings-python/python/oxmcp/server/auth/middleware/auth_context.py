"""``mcp.server.auth.middleware.auth_context``: ``get_access_token()``, the ``AccessToken`` of the
request being served, as the core verified it (None without a verified caller: stdio, in-process).

``auth_context_var`` is the SDK's variable for the authenticated user. In a request the core's caller
is the one answer (the variable is not read there, so nothing set in Python can stand in for the
core's decision); outside a request (code run by the application itself, a test) ``get_access_token()``
reads the variable as the SDK does. ``AuthContextMiddleware`` is not provided: the core hands each
handler its caller, no Starlette middleware sets it.
"""

from __future__ import annotations

import contextvars
from typing import TYPE_CHECKING, Any

from ..provider import AccessToken

if TYPE_CHECKING:
    from .bearer_auth import AuthenticatedUser

__all__ = ["auth_context_var", "get_access_token"]

#: The authenticated user of code running outside a request (the SDK's name).
auth_context_var: contextvars.ContextVar[AuthenticatedUser | None] = contextvars.ContextVar(
    "auth_context", default=None)


def get_access_token() -> AccessToken | None:
    """The verified caller of this request as the SDK's ``AccessToken``: the client, the scopes the
    core checked, the expiry, resource and subject the token verifier reported, the rest of its claims."""
    from ...dependencies import _bearer, current_context

    ctx = current_context.get()
    if ctx is None or getattr(ctx, "_native", None) is None:
        user = auth_context_var.get()
        return None if user is None else user.access_token
    caller = ctx.caller
    if not caller:
        return None
    claims: dict[str, Any] = dict(caller.get("claims") or {})
    client_id = claims.pop("client_id", None) or caller.get("name")
    expires_at = claims.pop("exp", None)
    resource = claims.pop("aud", None)
    subject = claims.pop("sub", None)
    return AccessToken(token=_bearer(ctx) or "", client_id=str(client_id),
                       scopes=[str(s) for s in caller.get("scopes") or ()],
                       expires_at=int(expires_at) if isinstance(expires_at, (int, float)) else None,
                       resource=resource if isinstance(resource, str) else None,
                       subject=None if subject is None else str(subject), claims=claims or None)
