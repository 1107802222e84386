"""``mcp.server.apps`` of mcp 2.x: the SDK's MCP Apps extension (``io.modelcontextprotocol/ui``) as an
``Extension`` on the core's MCP Apps.

``@apps.tool(resource_uri=...)`` is a ``ToolBinding`` whose ``_meta.ui`` names a ``ui://`` resource;
``add_html_resource`` (or ``add_resource`` with a pre-built resource) is a ``ResourceBinding`` served
as ``text/html;profile=mcp-app`` with ``_meta.ui`` (csp, permissions, domain, prefersBorder).
``MCPServer(extensions=[apps])`` registers both like the server's own, so the core checks the
extension's registration rules on them (a ``ui://`` resource has the app MIME type and that MIME
type a ``ui://`` URI; a tool's ``resourceUri`` is a ``ui://`` URI and its ``visibility`` is
``model``/``app``), and declares the extension with the instance's ``settings()``.

``visibility`` is metadata for the host, which renders the app and decides where a tool is shown:
the server lists an app-only tool like any other and serves its calls, as the SDK does.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel

from .._apps import RESOURCE_MIME_TYPE
from .extension import Extension, ResourceBinding, ToolBinding

__all__ = ["APP_MIME_TYPE", "EXTENSION_ID", "Apps", "ResourceCsp", "ResourcePermissions", "Visibility",
           "client_supports_apps"]

#: The MCP Apps extension's identifier.
EXTENSION_ID = "io.modelcontextprotocol/ui"

#: The MIME type of a ``ui://`` app resource.
APP_MIME_TYPE = RESOURCE_MIME_TYPE

#: Where a UI-bound tool is shown (``_meta.ui.visibility``).
Visibility = Literal["model", "app"]

_CallableT = TypeVar("_CallableT", bound=Callable[..., Any])


class ResourcePermissions(BaseModel):
    """The iframe permissions a ``ui://`` resource asks for (``_meta.ui.permissions``)."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True)

    camera: dict[str, Any] | None = None
    microphone: dict[str, Any] | None = None
    geolocation: dict[str, Any] | None = None
    clipboard_write: dict[str, Any] | None = None


class ResourceCsp(BaseModel):
    """The Content-Security-Policy origins of a ``ui://`` resource (``_meta.ui.csp``)."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True)

    connect_domains: list[str] | None = None
    resource_domains: list[str] | None = None
    frame_domains: list[str] | None = None
    base_uri_domains: list[str] | None = None


class Apps(Extension):
    """The MCP Apps extension: tools bound to ``ui://`` resources (``@apps.tool(resource_uri=...)``)
    and those resources (``add_html_resource``, ``add_resource``), given to
    ``MCPServer(extensions=[apps])``."""

    identifier = EXTENSION_ID

    def __init__(self) -> None:
        self._tools: list[tuple[ToolBinding, str]] = []
        self._resources: list[ResourceBinding] = []

    def tool(self, *, resource_uri: str, visibility: Sequence[Visibility] | None = None,
             meta: dict[str, Any] | None = None, **tool_kwargs: Any) -> Callable[[_CallableT], _CallableT]:
        """Register the decorated function as a tool whose ``_meta.ui`` names ``resource_uri`` (and
        ``visibility``, when given); ``meta`` adds other ``_meta`` keys, ``tool_kwargs`` go to
        ``MCPServer.add_tool``. ``ValueError`` for a URI that is not ``ui://`` or a ``meta`` with
        a ``ui`` key (the decorator writes ``_meta.ui``)."""
        _require_ui_scheme(resource_uri)
        if meta and "ui" in meta:
            raise ValueError("Apps.tool() owns _meta['ui']; pass resource_uri=/visibility= instead of a 'ui' meta key")
        ui: dict[str, Any] = {"resourceUri": resource_uri}
        if visibility is not None:
            ui["visibility"] = list(visibility)

        def decorator(fn: _CallableT) -> _CallableT:
            self._tools.append((ToolBinding(fn=fn, meta={**(meta or {}), "ui": ui}, kwargs=tool_kwargs),
                                resource_uri))
            return fn

        return decorator

    def add_html_resource(self, uri: str, html: str, *, name: str | None = None, title: str | None = None,
                          description: str | None = None, csp: ResourceCsp | None = None,
                          permissions: ResourcePermissions | None = None, domain: str | None = None,
                          prefers_border: bool | None = None) -> None:
        """Serve ``html`` at the ``ui://`` ``uri`` as ``text/html;profile=mcp-app``; ``csp``,
        ``permissions``, ``domain`` and ``prefers_border`` are its ``_meta.ui``."""
        from .mcpserver.resources import TextResource

        ui: dict[str, Any] = {}
        if csp is not None:
            ui["csp"] = csp.model_dump(by_alias=True, exclude_none=True)
        if permissions is not None:
            ui["permissions"] = permissions.model_dump(by_alias=True, exclude_none=True)
        if domain is not None:
            ui["domain"] = domain
        if prefers_border is not None:
            ui["prefersBorder"] = prefers_border
        self.add_resource(TextResource(uri=uri, name=name or uri, title=title, description=description,
                                       mime_type=APP_MIME_TYPE, meta={"ui": ui} if ui else None, text=html))

    def add_resource(self, resource: Any) -> None:
        """Serve a pre-built ``ui://`` resource (a ``FileResource``, ...): one that does not set its
        MIME type is served as ``text/html;profile=mcp-app``; ``ValueError`` for another URI scheme
        or another explicit MIME type."""
        _require_ui_scheme(resource.uri)
        if "mime_type" not in resource.model_fields_set:
            resource = resource.model_copy(update={"mime_type": APP_MIME_TYPE})
        elif resource.mime_type != APP_MIME_TYPE:
            raise ValueError(f"MCP Apps resources are served as {APP_MIME_TYPE!r}, got {resource.mime_type!r}")
        self._resources.append(ResourceBinding(resource=resource))

    def tools(self) -> Sequence[ToolBinding]:
        """The bound tools; ``ValueError`` when one names a ``resource_uri`` that no resource of this
        instance serves (its UI would be unknown to ``resources/read``)."""
        registered = {binding.resource.uri for binding in self._resources}
        for tool, uri in self._tools:
            if uri not in registered:
                raise ValueError(
                    f"Apps tool {tool.fn.__name__!r} binds resource_uri {uri!r}, but no such resource "
                    "is registered; add it with add_html_resource() or add_resource()")
        return [tool for tool, _ in self._tools]

    def resources(self) -> Sequence[ResourceBinding]:
        return self._resources


def client_supports_apps(ctx: Any) -> bool:
    """Whether the client declared the extension with ``text/html;profile=mcp-app`` among its
    ``mimeTypes`` (an ``MCPServer`` ``Context`` or a low-level request context)."""
    session = getattr(ctx, "session", None)
    capabilities = getattr(session, "client_capabilities", None)
    extensions = getattr(capabilities, "extensions", None) if capabilities is not None else None
    settings = extensions.get(EXTENSION_ID) if extensions else None
    if settings is None:
        return False
    mime_types = settings.get("mimeTypes")
    return isinstance(mime_types, list | tuple) and APP_MIME_TYPE in mime_types


def _require_ui_scheme(uri: str) -> None:
    if not uri.startswith("ui://"):
        raise ValueError(f"MCP Apps URIs must use the ui:// scheme, got {uri!r}")
