"""``fastmcp.server.providers.Provider``: FastMCP's base class of a component provider.

oxmcp serves the components registered on the server itself (and skill providers), so a provider is
taken for its ``lifespan()`` only, entered after the server's own lifespan and left before it. A
provider that supplies components (overrides a ``list_*``/``get_*`` method) is refused when it is
added: its components would not be served.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

__all__ = ["Provider"]

_COMPONENT_METHODS = ("list_tools", "get_tool", "list_resources", "get_resource", "list_resource_templates",
                      "get_resource_template", "list_prompts", "get_prompt")


class Provider:
    """Subclass and override ``lifespan()`` for set-up and tear-down that lives as long as the server."""

    @asynccontextmanager
    async def lifespan(self) -> AsyncIterator[None]:
        yield

    def _oxmcp_tools(self) -> tuple[Callable[..., Any], ...]:
        """Functions the server registers as its own tools when the provider is added (none here)."""
        return ()

    def _check_servable(self) -> None:
        own = [m for m in _COMPONENT_METHODS if getattr(type(self), m, None) is not None]
        if own:
            raise TypeError(f"{type(self).__name__}: a provider's components ({', '.join(own)}) are not served by "
                            "oxmcp; register them on the server (tool/resource/prompt) instead")
