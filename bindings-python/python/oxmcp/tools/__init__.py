"""``fastmcp.tools``: FastMCP's tool component (``Tool``, ``FunctionTool``), the standalone ``@tool``
decorator, and ``ToolResult``, the full result a tool may return (content, structured content, ``_meta``)."""

from .base import Tool, ToolResult
from .function_tool import FunctionTool, tool

__all__ = ["FunctionTool", "Tool", "ToolResult", "tool"]
