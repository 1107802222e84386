"""``fastmcp.server.auth.providers``."""
