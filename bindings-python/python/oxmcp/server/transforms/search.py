"""FastMCP's search transforms (``fastmcp.server.transforms.search``) on the core's tool search.

``mcp.add_transform(BM25SearchTransform())`` sets the core's ``tool_search`` options: ``tools/list``
then shows ``search_tools`` and ``call_tool`` instead of the catalog, with FastMCP's names,
arguments and result shapes. The index, the ranking and every access decision are the core's
(docs/SEARCH.md); this module only names the options.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = [
    "BM25SearchTransform",
    "RegexSearchTransform",
    "serialize_tools_for_output_json",
]


def serialize_tools_for_output_json(tools: Sequence[Any]) -> list[dict[str, Any]]:
    """FastMCP's default serializer: the definitions as ``list_tools`` gives them (what the core
    answers). Named so that passing it explicitly is accepted."""
    return [dict(t) for t in tools]


class _SearchTransform:
    _mode = ""

    def __init__(self, *, max_results: int = 5, always_visible: list[str] | None = None,
                 search_tool_name: str = "search_tools", call_tool_name: str = "call_tool",
                 search_result_serializer: Any = None) -> None:
        # A custom serializer would change what clients receive; the core renders the
        # definitions itself, so one it cannot honour fails here rather than being ignored.
        if search_result_serializer not in (None, serialize_tools_for_output_json):
            raise TypeError(f"{type(self).__name__}(search_result_serializer=...) is not supported by oxmcp: "
                            "search results are the tool definitions as tools/list gives them")
        self.max_results = max_results
        self.always_visible = list(always_visible or [])
        self.search_tool_name = search_tool_name
        self.call_tool_name = call_tool_name

    def _options(self) -> dict[str, Any]:
        """The core options this transform stands for."""
        return {
            "tool_search": self._mode,
            "tool_search_max_results": self.max_results,
            "tool_search_always_visible": self.always_visible,
            "search_tool_name": self.search_tool_name,
            "call_tool_name": self.call_tool_name,
        }


class BM25SearchTransform(_SearchTransform):
    """``search_tools(query)``: natural-language search ranked by BM25."""

    _mode = "bm25"


class RegexSearchTransform(_SearchTransform):
    """``search_tools(pattern)``: a case-insensitive regular expression (bounded in the core)."""

    _mode = "regex"
