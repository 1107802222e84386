"""``mcp.server.mcpserver.resolve``: the SDK's ``Resolve(...)`` parameter marker.

``Annotated[str, Resolve(fn)]`` asks the SDK to compute a tool parameter on the server (never from the
client). oxmcp does not run resolvers, and dropping the marker would turn that parameter into one the
client supplies; so a function that uses one is refused when it is registered (``MCPServer``).
"""

from __future__ import annotations

import typing
from collections.abc import Callable
from typing import Any

__all__ = ["Resolve", "refuse_resolvers"]


class Resolve:
    """A parameter computed by ``resolver`` on the server: refused by oxmcp at registration."""

    def __init__(self, resolver: Callable[..., Any], **kwargs: Any) -> None:
        self.resolver = resolver
        self.options = kwargs


def refuse_resolvers(fn: Any) -> None:
    """Raise ``TypeError`` when a parameter of ``fn`` is annotated with ``Resolve(...)``."""
    try:
        hints = typing.get_type_hints(fn, include_extras=True)
    except (NameError, TypeError, AttributeError):
        return  # unresolvable hints fail where the schema is built, with that error
    for name, hint in hints.items():
        if typing.get_origin(hint) is typing.Annotated and any(isinstance(m, Resolve) for m in hint.__metadata__):
            raise TypeError(f"{getattr(fn, '__name__', fn)!r}: parameter {name!r} uses Resolve(...), which oxmcp "
                            "does not run (the value would come from the client instead)")
