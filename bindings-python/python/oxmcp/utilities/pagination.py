"""``fastmcp.utilities.pagination``: FastMCP's offset cursors, for servers that page their own lists.

A server on oxmcp does not need them for its registry (``list_page_size=`` pages tools, resources,
templates and prompts in the core, with the core's cursors); they are here for code that pages a
sequence of its own with FastMCP's helper. The cursor is FastMCP's: URL-safe base64 of ``{"o": offset}``.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypeVar

__all__ = ["CursorState", "paginate_sequence"]

T = TypeVar("T")


@dataclass
class CursorState:
    """The position a cursor stands for: an offset into the sequence."""

    offset: int

    def encode(self) -> str:
        return base64.urlsafe_b64encode(json.dumps({"o": self.offset}).encode()).decode()

    @classmethod
    def decode(cls, cursor: str) -> CursorState:
        """The state of ``cursor``; ``ValueError("Invalid cursor: ...")`` for anything this module
        did not make, including an offset that is not a whole non-negative number."""
        try:
            offset = json.loads(base64.urlsafe_b64decode(cursor.encode()).decode())["o"]
        except (ValueError, KeyError, TypeError, binascii.Error, UnicodeError) as exc:
            raise ValueError(f"Invalid cursor: {cursor}") from exc
        # bool is an int to Python; a float, a string or a negative offset would slice wrongly.
        if isinstance(offset, bool) or not isinstance(offset, int) or offset < 0:
            raise ValueError(f"Invalid cursor: {cursor}")
        return cls(offset=offset)


def paginate_sequence(items: Sequence[T], cursor: str | None, page_size: int) -> tuple[list[T], str | None]:
    """One page of ``items`` from ``cursor`` (``None``: the first), and the next page's cursor
    (``None`` after the last page)."""
    start = CursorState.decode(cursor).offset if cursor else 0
    end = start + page_size
    return list(items[start:end]), (CursorState(end).encode() if end < len(items) else None)
