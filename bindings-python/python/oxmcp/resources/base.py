"""``fastmcp.resources.base``: FastMCP's resource component (``Resource``), ``ResourceContent`` and
``ResourceResult``.

A ``Resource`` is a definition a server registers with ``mcp.add_resource(resource)``, the same way as
``@mcp.resource`` (a ``ResourceEntry``, the core's registry): its ``_read()`` is the handler, and its
contents go out as oxmcp's ``ResourceContents``.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any, ClassVar

from .._results import ResourceContents
from ..utilities.components import FastMCPComponent, dump, dump_all

__all__ = ["Resource", "ResourceContent", "ResourceResult"]


def _json(value: Any) -> str:
    import pydantic_core

    return pydantic_core.to_json(value, fallback=str).decode()


class ResourceContent:
    """One content of a read: ``str`` is text (``text/plain``), ``bytes`` a blob
    (``application/octet-stream``), other data its JSON text (``application/json``)."""

    def __init__(self, content: Any, mime_type: str | None = None, meta: dict[str, Any] | None = None) -> None:
        if isinstance(content, str):
            default = "text/plain"
        elif isinstance(content, (bytes, bytearray)):
            content, default = bytes(content), "application/octet-stream"
        else:
            content, default = _json(content), "application/json"
        self.content = content
        self.mime_type = mime_type or default
        self.meta = meta

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ResourceContent):
            return NotImplemented
        return (self.content, self.mime_type, self.meta) == (other.content, other.mime_type, other.meta)

    def __repr__(self) -> str:
        return f"ResourceContent(content={self.content!r}, mime_type={self.mime_type!r}, meta={self.meta!r})"

    def to_mcp_resource_contents(self, uri: Any) -> Any:
        """This content as the SDK's ``TextResourceContents`` / ``BlobResourceContents``."""
        from .._fastmcp_client import model_types

        t = model_types()
        wire = self._contents().to_dict(str(uri), None)
        return (t.BlobResourceContents if "blob" in wire else t.TextResourceContents).model_validate(wire)

    def _contents(self) -> ResourceContents:
        if isinstance(self.content, bytes):
            return ResourceContents(blob=self.content, mime_type=self.mime_type, meta=self.meta)
        return ResourceContents(text=self.content, mime_type=self.mime_type, meta=self.meta)


class ResourceResult:
    """A read's full result: ``contents`` (a ``str`` or ``bytes`` is one content) and ``meta``."""

    def __init__(self, contents: str | bytes | list[ResourceContent], meta: dict[str, Any] | None = None) -> None:
        if isinstance(contents, (str, bytes)):
            contents = [ResourceContent(contents)]
        elif isinstance(contents, list):
            for i, item in enumerate(contents):
                if not isinstance(item, ResourceContent):
                    raise TypeError(f"contents[{i}] must be ResourceContent, got {type(item).__name__}. "
                                    f"Use ResourceContent({item!r}) to wrap the value.")
        else:
            raise TypeError(f"contents must be str, bytes, or list[ResourceContent], got {type(contents).__name__}")
        self.contents = contents
        self.meta = meta

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ResourceResult):
            return NotImplemented
        return (self.contents, self.meta) == (other.contents, other.meta)

    def __repr__(self) -> str:
        return f"ResourceResult(contents={self.contents!r}, meta={self.meta!r})"


class Resource(FastMCPComponent):
    """FastMCP's resource definition. ``Resource.from_function(fn, uri, ...)`` gives a
    :class:`FunctionResource`; a subclass defines ``async read()`` (str, bytes or a ResourceResult)."""

    KEY_PREFIX: ClassVar[str] = "resource"

    def __init__(self, *, uri: Any, name: str | None = None, description: str | None = None,
                 title: str | None = None, mime_type: str | None = None, icons: list[Any] | None = None,
                 tags: set[str] | None = None, annotations: Any = None, meta: dict[str, Any] | None = None,
                 enabled: bool = True, auth: Any = None, version: Any = None, size: int | None = None) -> None:
        self.uri = str(uri)
        self.name = name or self.uri
        self.description = description
        self.title = title
        self.mime_type = mime_type or "text/plain"
        self.icons = icons
        self.tags = set(tags or ())
        self.annotations = annotations
        self.meta = meta
        self.enabled = enabled
        self.auth = auth
        self.version = None if version is None else str(version)
        self.size = size

    @classmethod
    def from_function(cls, fn: Callable[..., Any], uri: str, **kwargs: Any) -> Any:
        from .function_resource import FunctionResource

        return FunctionResource.from_function(fn, uri, **kwargs)

    @property
    def key(self) -> str:
        return f"{self.KEY_PREFIX}:{self.uri}@{self.version or ''}"

    async def read(self) -> Any:
        raise NotImplementedError("Subclasses must implement read()")

    def convert_result(self, raw_value: Any) -> ResourceResult:
        """A read's return as a :class:`ResourceResult`: str, bytes, a list of ``ResourceContent``,
        or JSON data (dict, list) as JSON text."""
        if isinstance(raw_value, ResourceResult):
            return raw_value
        if isinstance(raw_value, ResourceContent):
            return ResourceResult([raw_value])
        if isinstance(raw_value, (str, bytes)):
            return ResourceResult([ResourceContent(raw_value, mime_type=self._mime_for(raw_value))])
        if isinstance(raw_value, list) and all(isinstance(v, ResourceContent) for v in raw_value):
            return ResourceResult(raw_value)
        if isinstance(raw_value, (dict, list)):
            return ResourceResult([ResourceContent(_json(raw_value), mime_type="application/json")])
        raise TypeError(f"A resource read result must be str, bytes, or list[ResourceContent] (or a ResourceResult), "
                        f"got {type(raw_value).__name__}")

    def _mime_for(self, value: Any) -> str | None:
        if isinstance(value, bytes) and self.mime_type == "text/plain":
            return "application/octet-stream"
        return self.mime_type

    async def _read(self) -> ResourceResult:
        value = self.read()
        if inspect.isawaitable(value):
            value = await value
        return self.convert_result(value)

    def to_mcp_resource(self, **overrides: Any) -> Any:
        from .._fastmcp_client import model_types

        spec: dict[str, Any] = {"uri": self.uri, "name": self.name, "title": self.title,
                                "description": self.description, "mimeType": self.mime_type, "size": self.size,
                                "icons": dump_all(self.icons), "annotations": dump(self.annotations),
                                "_meta": self.meta}
        for key, value in overrides.items():
            spec[{"mime_type": "mimeType", "meta": "_meta"}.get(key, key)] = value
        return model_types().Resource.model_validate({k: v for k, v in spec.items() if v is not None})

    # -- registration (oxmcp) -------------------------------------------------------------------------
    def _registration(self) -> tuple[Callable[..., Any], str, dict[str, Any]]:
        """The function, URI and ``add_resource`` keywords that register this resource (as
        ``@mcp.resource``): the function answers the read's contents."""
        resource = self

        async def read() -> Any:
            result = await resource._read()
            return [c._contents() for c in result.contents]

        read.__name__ = self.name
        return read, self.uri, self._common_kwargs()

    def _common_kwargs(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "title": self.title, "description": self.description,
                               "mime_type": self.mime_type, "icons": dump_all(self.icons),
                               "annotations": dump(self.annotations), "meta": self.meta, "tags": self.tags,
                               "enabled": self.enabled, "auth": self.auth}
        return {k: v for k, v in out.items() if v is not None}

    def __repr__(self) -> str:
        return f"{type(self).__name__}(uri={self.uri!r}, name={self.name!r}, description={self.description!r})"
