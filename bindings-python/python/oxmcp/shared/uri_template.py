"""``mcp.shared.uri_template``: ``InvalidUriTemplate``, the error of a malformed URI template.

Templates are parsed and matched by oxmcp's core; its parse errors reach a server as this class."""

from __future__ import annotations

__all__ = ["InvalidUriTemplate"]


class InvalidUriTemplate(ValueError):
    """A URI template that does not parse (``template``; ``position`` when known)."""

    def __init__(self, message: str, *, template: str, position: int | None = None) -> None:
        super().__init__(message)
        self.template = template
        self.position = position
