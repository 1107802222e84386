"""``MCPServer(auth=AuthSettings(...), token_verifier=...)`` in the core's terms.

The SDK's settings become the core's ``oauth`` options (the protected resource, its authorization
server, the scopes every request needs, the SDK's wording of the 401/403 answers), and the
``TokenVerifier`` becomes the verifier the core asks about each bearer token: it answers the
``AccessToken`` it grants as a dict, and the core decides (expiry, the resource the token was
issued for, the scopes). The authorization-server side (``auth_server_provider``) is refused:
oxmcp hosts no authorization server.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

__all__ = ["take_auth"]

_NO_AS = ("auth_server_provider= is not supported by oxmcp: it hosts no OAuth authorization server "
          "(no /authorize, /token, /register); verify the tokens your authorization server issues with "
          "token_verifier=")


def take_auth(kwargs: dict[str, Any]) -> Callable[[str, Any], Awaitable[Any]] | None:
    """Pop ``auth``, ``token_verifier`` and ``auth_server_provider`` from an ``MCPServer``'s keywords,
    checked as the SDK checks them; put the core's ``oauth`` options in ``kwargs``; return the verifier
    entry the core calls (None without auth)."""
    auth = kwargs.pop("auth", None)
    verifier = kwargs.pop("token_verifier", None)
    provider = kwargs.pop("auth_server_provider", None)
    if auth is None:
        if provider or verifier:
            raise ValueError("Cannot specify auth_server_provider or token_verifier without auth settings")
        return None
    if provider and verifier:
        raise ValueError("Cannot specify both auth_server_provider and token_verifier")
    if not provider and not verifier:
        raise ValueError("Must specify either auth_server_provider or token_verifier when auth is enabled")
    if provider:
        raise TypeError(f"MCPServer(): {_NO_AS}")
    if kwargs.get("oauth") is not None or kwargs.get("tokens") is not None:
        raise TypeError("MCPServer(): give either auth=/token_verifier= or oxmcp's oauth=/tokens=, not both")
    kwargs["oauth"] = oauth_options(auth)
    verify_token = verifier.verify_token

    async def entry(token: str, _ctx: Any) -> Any:
        return ("ok", grant_of(await verify_token(token)))

    return entry


def oauth_options(auth: Any) -> dict[str, Any]:
    """The core's ``oauth`` options for an ``AuthSettings``."""
    from pydantic import AnyHttpUrl

    scopes = [str(s) for s in auth.required_scopes or ()]
    options: dict[str, Any] = {
        # The SDK's metadata spells the issuer as pydantic's AnyHttpUrl does (a path-less URL gets "/").
        "authorization_servers": [str(AnyHttpUrl(str(auth.issuer_url)))],
        "scopes": scopes,
        "required_scopes": scopes,
        "verifier": True,
        "answers": "mcp-python",
    }
    if auth.resource_server_url is not None:
        options["resource"] = str(auth.resource_server_url)
        options["verifier_resource_required"] = bool(auth.validate_token_resource)
    return options


def grant_of(token: Any) -> dict[str, Any] | None:
    """An ``AccessToken`` (or None) as the grant the core reads."""
    if token is None:
        return None
    claims = getattr(token, "claims", None)
    return {
        "client_id": token.client_id,
        "scopes": [str(s) for s in token.scopes],
        "expires_at": token.expires_at,
        "resource": None if token.resource is None else str(token.resource),
        "subject": None if token.subject is None else str(token.subject),
        "claims": _jsonable(dict(claims)) if claims else None,
    }


def _jsonable(claims: dict[str, Any]) -> dict[str, Any]:
    import json

    return json.loads(json.dumps(claims, default=str))
