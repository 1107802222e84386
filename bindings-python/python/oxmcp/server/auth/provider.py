"""``mcp.server.auth.provider``: ``AccessToken`` and the ``TokenVerifier`` protocol.

The authorization-server types of the SDK's module (``OAuthAuthorizationServerProvider``,
authorization codes, refresh tokens) are not provided: oxmcp does not host an authorization server.
"""

from __future__ import annotations

from typing import Any, Protocol

from pydantic import BaseModel

__all__ = ["AccessToken", "TokenVerifier", "principal_components"]


class AccessToken(BaseModel):
    """What a verified bearer token grants: the client, its scopes, when it expires (epoch seconds),
    the resource it was issued for (RFC 8707), its subject and any further claims (``iss``, ...)."""

    token: str
    client_id: str
    scopes: list[str]
    expires_at: int | None = None
    resource: str | None = None
    subject: str | None = None
    claims: dict[str, Any] | None = None


def principal_components(token: AccessToken) -> tuple[str, str | None, str | None]:
    """Who a token stands for, as the SDK names a principal: its client id, the ``iss`` claim and its
    subject (None where the verifier reported none)."""
    issuer = (token.claims or {}).get("iss")
    return token.client_id, None if issuer is None else str(issuer), token.subject


class TokenVerifier(Protocol):
    """Verifies a bearer token: the ``AccessToken`` it grants, or None when it is not valid."""

    async def verify_token(self, token: str) -> AccessToken | None: ...
