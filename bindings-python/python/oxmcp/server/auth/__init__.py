"""``mcp.server.auth``: the resource-server side of the SDK's auth, as types.

oxmcp is an OAuth resource server whose checks are the core's (docs/SECURITY.md): bearer tokens,
JWTs against a JWKS, the RFC 9728 metadata, per-tool scopes. What a server author writes against
the SDK's module maps onto that:

- ``AccessToken``, ``TokenVerifier`` (``provider``), ``AuthSettings`` (``settings``) and
  ``AuthenticatedUser`` (``middleware.bearer_auth``) are the data types.
- ``MCPServer(token_verifier=..., auth=AuthSettings(...))`` (``_link``): the settings become the
  core's ``oauth`` options and the verifier a source the core's authenticator asks about each
  bearer token; the core applies expiry, resource and scopes and answers 401/403 as the SDK words
  them. ``get_access_token()`` (``middleware.auth_context``) gives the verified token to a tool.
- The authorization-server side (``OAuthAuthorizationServerProvider``, ``/authorize``, ``/token``,
  ``create_auth_routes``) is not something oxmcp serves: those names are not provided, so a server
  using them fails at import rather than serving without its authorization server.
- ``BearerAuthBackend``, ``RequireAuthMiddleware`` and ``AuthContextMiddleware`` (Starlette
  middleware deciding in Python who may call) are not provided: on oxmcp that decision is the core's.
"""
