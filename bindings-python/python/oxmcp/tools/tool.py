"""``fastmcp.tools.tool`` (FastMCP 2.x's path of ``ToolResult``)."""

from .._results import ToolResult

__all__ = ["ToolResult"]
