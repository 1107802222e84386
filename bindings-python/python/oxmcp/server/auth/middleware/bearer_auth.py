"""``mcp.server.auth.middleware.bearer_auth``: ``AuthenticatedUser``, the ASGI ``scope["user"]`` of a
request a bearer token authenticated.

``BearerAuthBackend`` and ``RequireAuthMiddleware`` are not provided: on oxmcp who may call is
decided by the core's authenticator (``tokens=`` / ``oauth=``), not by Starlette middleware.
"""

from __future__ import annotations

from ..provider import AccessToken

try:  # Starlette's, when it is installed, so Starlette's own checks (``request.user``) know it
    from starlette.authentication import SimpleUser
except ImportError:  # oxmcp does not depend on Starlette
    class SimpleUser:  # type: ignore[no-redef]
        def __init__(self, username: str) -> None:
            self.username = username

        @property
        def is_authenticated(self) -> bool:
            return True

        @property
        def display_name(self) -> str:
            return self.username

__all__ = ["AuthenticatedUser"]


class AuthenticatedUser(SimpleUser):
    """The user a verified ``AccessToken`` stands for: named by its client id, with its scopes."""

    def __init__(self, auth_info: AccessToken) -> None:
        super().__init__(auth_info.client_id)
        self.access_token = auth_info
        self.scopes = auth_info.scopes
