"""MCP Apps (``io.modelcontextprotocol/ui``): ``@server.ui_resource(...)`` serves a ``ui://`` HTML
page with MIME type ``text/html;profile=mcp-app`` and ``_meta.ui`` (csp, permissions, domain,
prefersBorder); ``app=`` on ``@server.tool`` links a tool to it (``_meta.ui.resourceUri``,
``visibility``). The core checks the spec's MUSTs (scheme, MIME type) at registration."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any

from ._results import ResourceContents

#: The MIME type of an MCP App's HTML.
RESOURCE_MIME_TYPE = "text/html;profile=mcp-app"


def ui_meta(*, connect_domains: list[str] | None = None, resource_domains: list[str] | None = None,
            frame_domains: list[str] | None = None, base_uri_domains: list[str] | None = None,
            permissions: dict[str, Any] | None = None, domain: str | None = None,
            prefers_border: bool | None = None) -> dict[str, Any]:
    """The ``_meta.ui`` object of a UI resource."""
    ui: dict[str, Any] = {}
    csp = {k: v for k, v in (("connectDomains", connect_domains), ("resourceDomains", resource_domains),
                             ("frameDomains", frame_domains), ("baseUriDomains", base_uri_domains)) if v}
    if csp:
        ui["csp"] = csp
    if permissions is not None:
        ui["permissions"] = permissions
    if domain is not None:
        ui["domain"] = domain
    if prefers_border is not None:
        ui["prefersBorder"] = prefers_border
    return ui


def tool_ui_meta(app: str | dict[str, Any], meta: dict[str, Any] | None) -> dict[str, Any]:
    """``meta`` with ``ui`` set from ``app=`` (a ``ui://`` URI, or ``{"resource_uri", "visibility"}``)."""
    if isinstance(app, str):
        ui: dict[str, Any] = {"resourceUri": app}
    else:
        ui = {"resourceUri": app.get("resource_uri", app.get("resourceUri"))}
        if app.get("visibility") is not None:
            ui["visibility"] = list(app["visibility"])
    return {**(meta or {}), "ui": ui}


def wrap_html(fn: Callable[..., Any], ui: dict[str, Any]) -> Callable[..., Any]:
    """A resource function returning HTML → one contents item with the app MIME type and ``_meta.ui``."""
    def item(value: Any) -> Any:
        if isinstance(value, str):
            return ResourceContents(text=value, mime_type=RESOURCE_MIME_TYPE, meta={"ui": ui} if ui else None)
        return value

    if inspect.iscoroutinefunction(fn):
        @functools.wraps(fn)
        async def async_wrapper(*args: Any, **kwargs: Any) -> Any:
            return item(await fn(*args, **kwargs))
        return async_wrapper

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        return item(fn(*args, **kwargs))
    return wrapper
