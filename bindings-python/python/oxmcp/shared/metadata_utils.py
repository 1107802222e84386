"""``mcp.shared.metadata_utils``: ``get_display_name``, the name a client shows for a listed object."""

from __future__ import annotations

from typing import Any

__all__ = ["get_display_name"]


def get_display_name(obj: Any) -> str:
    """A tool's ``title``, else its annotations' ``title``, else its ``name``; any other object's
    (resource, template, prompt, implementation) ``title``, else its ``name``."""
    title = getattr(obj, "title", None)
    if title is not None:
        return str(title)
    from ..types import Tool

    if isinstance(obj, Tool) and obj.annotations is not None and obj.annotations.title is not None:
        return str(obj.annotations.title)
    return str(obj.name)
