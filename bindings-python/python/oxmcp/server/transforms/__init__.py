"""``oxmcp.server.transforms`` (``fastmcp.server.transforms``): the search transforms only.

Other FastMCP transforms rename, hide or guard components; oxmcp refuses them (register the
components as they should be served).
"""

from .search import BM25SearchTransform, RegexSearchTransform

__all__ = ["BM25SearchTransform", "RegexSearchTransform"]
