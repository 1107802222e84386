"""``mcp.server.auth.middleware.auth_context``: ``get_access_token()``, the ``AccessToken`` of the
request being served, as the core verified it (None without a verified caller: stdio, in-process).

``AuthContextMiddleware`` is not provided: the core hands each handler its caller, no Starlette
middleware sets it.
"""

from __future__ import annotations

from typing import Any

from ..provider import AccessToken

__all__ = ["get_access_token"]


def get_access_token() -> AccessToken | None:
    """The verified caller of this request as the SDK's ``AccessToken``: the client, the scopes the
    core checked, the expiry, resource and subject the token verifier reported, the rest of its claims."""
    from ...dependencies import _bearer, current_context

    ctx = current_context.get()
    caller = ctx.caller if ctx is not None else None
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
