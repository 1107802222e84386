"""``mcp.server.lowlevel.helper_types``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass
class ReadResourceContents:
    """One item a ``read_resource`` handler may return: ``content`` (str or bytes) and its MIME type."""

    content: str | bytes
    mime_type: str | None = None
    meta: dict[str, Any] | None = None
