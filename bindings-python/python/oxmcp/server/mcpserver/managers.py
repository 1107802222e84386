"""``server._resource_manager`` and ``server._prompt_manager`` of the SDK's ``MCPServer`` (and mcp 1.x's
``FastMCP``): views over the server's one registry, as ``.tools.ToolManager`` is for tools.

What they return is built from the registered entries with the SDK generation's component classes
(``resources`` is that generation's module: ``oxmcp.server.mcpserver.resources`` for 2.x,
``oxmcp.server.fastmcp.resources`` for 1.x); adding through them registers with the server.
"""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import Any

from ..._errors import ResourceError
from ..fastmcp.prompts.base import Prompt

__all__ = ["PromptManager", "ResourceManager"]


def _fields(entry: Any) -> dict[str, Any]:
    return {"name": entry.name, "title": entry.title, "description": entry.info.description,
            "mime_type": entry.mime_type, "icons": entry.icons, "annotations": entry.annotations,
            "meta": entry.meta}


class ResourceManager:
    """The server's registered resources (``FunctionResource``) and templates (``ResourceTemplate``)."""

    def __init__(self, server: Any, resources: ModuleType) -> None:
        self._server = server
        self._module = resources

    def _entries(self, templates: bool) -> list[Any]:
        return [e for e in list(self._server._resources.values()) if e.is_template == templates]

    @property
    def _resources(self) -> dict[str, Any]:
        return {e.uri: self._module.FunctionResource.from_function(e.info.fn, e.uri, **_fields(e))
                for e in self._entries(False)}

    @property
    def _templates(self) -> dict[str, Any]:
        return {e.uri: self._module.ResourceTemplate.from_function(e.info.fn, e.uri, **_fields(e))
                for e in self._entries(True)}

    def list_resources(self) -> list[Any]:
        return list(self._resources.values())

    def list_templates(self) -> list[Any]:
        return list(self._templates.values())

    def add_resource(self, resource: Any) -> Any:
        self._server.add_resource(resource)
        return resource

    def add_template(self, fn: Callable[..., Any], uri_template: str, **kwargs: Any) -> Any:
        self._server.add_resource(fn, uri_template, **kwargs)
        return self._templates[uri_template]

    async def get_resource(self, uri: Any, context: Any = None) -> Any:
        """The resource at ``uri``: a static one, or a template's for the URI's values; an unknown
        URI raises ``ResourceError`` ("Unknown resource: ..."), as the SDK's manager does."""
        uri = str(uri)
        static = self._resources.get(uri)
        if static is not None:
            return static
        for template in self._templates.values():
            params = template.matches(uri)
            if params is not None:
                return await template.create_resource(uri, params, context)
        raise ResourceError(f"Unknown resource: {uri}")


class PromptManager:
    """The server's registered prompts, as ``Prompt`` components (``render`` calls the function)."""

    def __init__(self, server: Any) -> None:
        self._server = server

    @staticmethod
    def _prompt(entry: Any) -> Prompt:
        return Prompt.from_function(entry.info.fn, name=entry.name, title=entry.title,
                                    description=entry.info.description, icons=entry.icons)

    def list_prompts(self) -> list[Prompt]:
        return [self._prompt(e) for e in list(self._server._prompts.values())]

    def get_prompt(self, name: str) -> Prompt | None:
        entry = self._server._prompts.get(name)
        return None if entry is None else self._prompt(entry)

    def add_prompt(self, prompt: Any) -> Any:
        self._server.add_prompt(prompt.fn, name=prompt.name, title=prompt.title, description=prompt.description)
        return prompt

    def remove_prompt(self, name: str) -> None:
        self._server.remove_prompt(name)
