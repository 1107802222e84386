"""``mcp.shared``: exceptions."""
