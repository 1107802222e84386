"""``fastmcp.tools``: ``ToolResult``, the full result a tool may return (content, structured content, ``_meta``)."""

from .tool import ToolResult

__all__ = ["ToolResult"]
