"""``fastmcp.resources.template``: ``ResourceTemplate``, a resource whose URI has parameters
(``user://{id}/profile``). Registering it goes the same way as ``@mcp.resource`` with that URI: the
core matches the URIs a client reads."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any, ClassVar

from ..utilities.components import dump, dump_all
from .base import Resource
from .function_resource import FunctionResource, _call

__all__ = ["ResourceTemplate"]


class ResourceTemplate:
    """FastMCP's resource template. ``ResourceTemplate.from_function(fn, uri_template, ...)`` takes a
    function whose parameters are the template's (they may have defaults, as query parameters)."""

    KEY_PREFIX: ClassVar[str] = "template"

    def __init__(self, *, uri_template: str, name: str, fn: Callable[..., Any] | None = None,
                 description: str | None = None, title: str | None = None, mime_type: str | None = None,
                 parameters: dict[str, Any] | None = None, icons: list[Any] | None = None,
                 tags: set[str] | None = None, annotations: Any = None, meta: dict[str, Any] | None = None,
                 enabled: bool = True, auth: Any = None, version: Any = None) -> None:
        self.uri_template = uri_template
        self.name = name
        self.fn = fn
        self.description = description
        self.title = title
        self.mime_type = mime_type or "text/plain"
        self.parameters = parameters or {"type": "object", "properties": {}}
        self.icons = icons
        self.tags = set(tags or ())
        self.annotations = annotations
        self.meta = meta
        self.enabled = enabled
        self.auth = auth
        self.version = None if version is None else str(version)

    @classmethod
    def from_function(cls, fn: Callable[..., Any], uri_template: str, *, name: str | None = None,
                      **kwargs: Any) -> ResourceTemplate:
        from .._fastmcp import FastMCP
        from .._handlers import ResourceEntry

        name = name or getattr(fn, "__name__", None) or type(fn).__name__
        if name == "<lambda>":
            raise ValueError("You must provide a name for lambda functions")
        for p in inspect.signature(fn).parameters.values():
            if p.kind is inspect.Parameter.VAR_POSITIONAL:
                raise ValueError("Functions with *args are not supported as resource templates")
        # The entry @mcp.resource builds for the same function and template (its checks apply).
        entry = ResourceEntry(fn, uri_template, FastMCP, name=name, description=kwargs.get("description"))
        if kwargs.get("description") is None:
            kwargs["description"] = entry.info.description
        return cls(uri_template=uri_template, name=name, fn=fn, parameters=entry.info.input_schema, **kwargs)

    @property
    def key(self) -> str:
        return f"{self.KEY_PREFIX}:{self.uri_template}@{self.version or ''}"

    def matches(self, uri: str) -> dict[str, Any] | None:
        """The template's parameters in ``uri``, or None when it does not match."""
        from .._inproc import _template_regex

        m = _template_regex(self.uri_template).match(uri)
        return m.groupdict() if m else None

    async def read(self, arguments: dict[str, Any]) -> Any:
        if self.fn is None:
            raise NotImplementedError("Subclasses must implement read()")
        return await _call(self.fn, arguments)

    async def create_resource(self, uri: str, params: dict[str, Any]) -> Resource:
        template = self

        class _Read(Resource):
            async def read(self) -> Any:
                return await template.read(params)

        return _Read(uri=uri, name=self.name, description=self.description, mime_type=self.mime_type,
                     meta=self.meta)

    def to_mcp_template(self, **overrides: Any) -> Any:
        from .._fastmcp_client import model_types

        spec: dict[str, Any] = {"uriTemplate": self.uri_template, "name": self.name, "title": self.title,
                                "description": self.description, "mimeType": self.mime_type,
                                "icons": dump_all(self.icons), "annotations": dump(self.annotations),
                                "_meta": self.meta}
        spec.update(overrides)
        return model_types().ResourceTemplate.model_validate({k: v for k, v in spec.items() if v is not None})

    def _registration(self) -> tuple[Callable[..., Any], str, dict[str, Any]]:
        if self.fn is None:
            raise TypeError(f"ResourceTemplate {self.name!r} has no function to register")
        reader = FunctionResource(fn=self.fn, uri=self.uri_template, name=self.name, mime_type=self.mime_type)
        fn, _, _ = reader._registration()
        out: dict[str, Any] = {"name": self.name, "title": self.title, "description": self.description,
                               "mime_type": self.mime_type, "icons": dump_all(self.icons),
                               "annotations": dump(self.annotations), "meta": self.meta, "tags": self.tags,
                               "enabled": self.enabled, "auth": self.auth}
        return fn, self.uri_template, {k: v for k, v in out.items() if v is not None}

    def __repr__(self) -> str:
        return f"ResourceTemplate(uri_template={self.uri_template!r}, name={self.name!r})"
