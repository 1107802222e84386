"""``mcp.server.auth.middleware``: ``AuthenticatedUser`` (``bearer_auth``)."""
