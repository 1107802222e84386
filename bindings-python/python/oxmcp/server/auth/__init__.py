"""``mcp.server.auth``: the resource-server side of the SDK's auth, as types.

oxmcp is an OAuth resource server whose checks are the core's (docs/SECURITY.md): bearer tokens,
JWTs against a JWKS, the RFC 9728 metadata, per-tool scopes. What a server author writes against
the SDK's module maps onto that:

- ``AccessToken``, ``TokenVerifier`` (``provider``), ``AuthSettings`` (``settings``) and
  ``AuthenticatedUser`` (``middleware.bearer_auth``) are the data types.
- ``MCPServer(token_verifier=..., auth=AuthSettings(...))`` is refused with a clear error: a
  server that asked for auth must not serve without it, and a Python verifier is not yet a hook of
  the core's authenticator (give the core's ``tokens=`` / ``oauth=`` options).
- The authorization-server side (``OAuthAuthorizationServerProvider``, ``/authorize``, ``/token``,
  ``create_auth_routes``) is not something oxmcp serves: those names are not provided, so a server
  using them fails at import rather than serving without its authorization server.
- ``BearerAuthBackend`` and ``RequireAuthMiddleware`` (Starlette middleware deciding in Python
  who may call) are not provided either: on oxmcp that decision is the core's.
"""
