"""``fastmcp.tools.tool`` (FastMCP 2.x's path of ``Tool`` and ``ToolResult``)."""

from .base import Tool, ToolResult
from .function_tool import FunctionTool

__all__ = ["FunctionTool", "Tool", "ToolResult"]
