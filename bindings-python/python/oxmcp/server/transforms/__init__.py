"""``oxmcp.server.transforms`` (``fastmcp.server.transforms``): the search transforms and
``ToolTransform`` (a tool's new name, title, description, ``_meta``).

Other FastMCP transforms hide, guard or rewrite components; oxmcp refuses them (register the
components as they should be served).
"""

from .search import BM25SearchTransform, RegexSearchTransform
from .tool_transform import ToolTransform

__all__ = ["BM25SearchTransform", "RegexSearchTransform", "ToolTransform"]
