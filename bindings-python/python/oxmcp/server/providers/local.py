"""``fastmcp.server.providers.LocalProvider``: a server's own tools, resources and prompts.

In FastMCP the decorators register into the server's ``LocalProvider``; on oxmcp they register into
the server's registry, and ``server.local_provider`` is a view of it: what it finds and removes is
what the core serves.
"""

from __future__ import annotations

from typing import Any

__all__ = ["LocalProvider"]


class LocalProvider:
    """The components registered on one server (``FastMCP.local_provider``)."""

    def __init__(self, server: Any) -> None:
        self._server = server

    async def get_tool(self, name: str, version: Any = None) -> Any:
        return self._server._tools.get(name)

    async def get_resource(self, uri: str, version: Any = None) -> Any:
        entry = self._server._resources.get(str(uri))
        return entry if entry is not None and not entry.is_template else None

    async def get_resource_template(self, uri_template: str, version: Any = None) -> Any:
        entry = self._server._resources.get(str(uri_template))
        return entry if entry is not None and entry.is_template else None

    async def get_prompt(self, name: str, version: Any = None) -> Any:
        return self._server._prompts.get(name)

    def remove_tool(self, name: str, version: str | None = None) -> None:
        """Unregister the tool (``KeyError`` when there is none, as FastMCP's provider raises)."""
        self._remove(version, self._server.remove_tool(name), f"Tool {name!r} not found")

    def remove_resource(self, uri: str, version: str | None = None) -> None:
        self._remove(version, self._server.remove_resource(str(uri)), f"Resource {uri!r} not found")

    def remove_prompt(self, name: str, version: str | None = None) -> None:
        self._remove(version, self._server.remove_prompt(name), f"Prompt {name!r} not found")

    @staticmethod
    def _remove(version: str | None, existed: bool, missing: str) -> None:
        if version is not None:
            # oxmcp keeps one version of a component: removing "one version" would remove them all.
            raise TypeError("LocalProvider.remove_*(version=...): oxmcp keeps one version per component; "
                            "remove it without version=")
        if not existed:
            raise KeyError(missing)
