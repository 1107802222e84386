"""``mcp.server.mcpserver.resources`` of mcp 2.x: the resource component classes.

As mcp 1.x's (``oxmcp.server.fastmcp.resources``), with 2.x's differences: the URI is a plain string,
unknown fields are refused, a sync function runs on a worker thread, a function's error propagates
as it is, ``FileResource`` decodes by ``encoding`` (from the MIME type's ``charset``, UTF-8 for
textual types, bytes otherwise), and a template matches URIs by RFC 6570 through the core's matcher.

``ResourceSecurity`` is the SDK's policy for template values, handed to the core: the core matches
a URI by the template's structure and screens each extracted value by the policy (a relative path
climbing above its base, an absolute path, a NUL byte), as the SDK does; a refused value makes the
URI unknown, and no later template is tried in the refusing one's place.
"""

from __future__ import annotations

import abc
import inspect
import json
from collections.abc import Callable, Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator, validate_call

from ..._errors import McpError, ResourceError
from ..._loops import run_sync
from ...types import Annotations, Icon, InputRequiredResult
from ..fastmcp.resources import _absolute, _as_text, _describe

# A package to the import system, so that the SDK's submodule paths (``resources.templates``,
# ``resources.types``) resolve through the import hook to this one module.
__path__: list[str] = []

__all__ = ["DEFAULT_RESOURCE_SECURITY", "BinaryResource", "DirectoryResource", "FileResource", "FunctionResource",
           "HttpResource", "Resource", "ResourceSecurity", "ResourceSecurityError", "ResourceTemplate",
           "TextResource"]

_TEXTUAL = frozenset({"application/json", "application/xml"})


def _default_encoding(mime_type: str) -> str | None:
    """A declared ``charset`` wins; textual types (text/*, JSON, XML and their +json/+xml kin) are
    UTF-8 (a byte-order mark tolerated); anything else is read as bytes (None)."""
    essence, *params = (part.strip() for part in mime_type.split(";"))
    for param in params:
        key, _, value = param.partition("=")
        if key.strip().lower() == "charset" and value:
            return value.strip().strip('"')
    essence = essence.lower()
    textual = essence.startswith("text/") or essence.endswith(("+json", "+xml")) or essence in _TEXTUAL
    return "utf-8-sig" if textual else None


async def _call(fn: Callable[..., Any], **kwargs: Any) -> Any:
    """A function's value: awaited if async, else computed on a worker thread."""
    if inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(getattr(fn, "__wrapped__", None)):
        return await fn(**kwargs)
    value = await run_sync(partial(fn, **kwargs))
    return await value if inspect.iscoroutine(value) else value


class Resource(BaseModel, abc.ABC):
    """A resource: its listing fields and an async :meth:`read` giving ``str`` (text) or ``bytes`` (blob)."""

    model_config = ConfigDict(validate_default=True, extra="forbid")

    uri: str = Field(default=...)
    name: str | None = None
    title: str | None = None
    description: str | None = None
    mime_type: str = "text/plain"
    icons: list[Icon] | None = None
    annotations: Annotations | None = None
    meta: dict[str, Any] | None = None

    @field_validator("name", mode="before")
    @classmethod
    def _name_from_uri(cls, name: str | None, info: ValidationInfo) -> str:
        if name:
            return name
        uri = info.data.get("uri")
        if uri:
            return str(uri)
        raise ValueError("Either name or uri must be provided")

    @abc.abstractmethod
    async def read(self) -> str | bytes:
        """The resource's content."""


class TextResource(Resource):
    """A resource whose content is a fixed string."""

    text: str

    async def read(self) -> str:
        return self.text


class BinaryResource(Resource):
    """A resource whose content is fixed bytes."""

    data: bytes

    async def read(self) -> bytes:
        return self.data


class FunctionResource(Resource):
    """A resource read by calling ``fn()`` when a client reads it; its errors propagate."""

    fn: Callable[[], Any] = Field(exclude=True)

    async def read(self) -> str | bytes:
        value = await _call(self.fn)
        if isinstance(value, InputRequiredResult):
            # A static resource takes no Context, so it can never read the retry's answers (a
            # ValueError, as the SDK raises).
            raise ValueError("static resources cannot return InputRequiredResult; only resource "  # noqa: TRY004
                             "template functions participate in the multi-round-trip flow")
        if isinstance(value, Resource):
            return await value.read()
        return _as_text(value)

    @classmethod
    def from_function(cls, fn: Callable[..., Any], uri: str, name: str | None = None, title: str | None = None,
                      description: str | None = None, mime_type: str | None = None,
                      icons: list[Icon] | None = None, annotations: Annotations | None = None,
                      meta: dict[str, Any] | None = None) -> FunctionResource:
        fn_name = name or fn.__name__
        if fn_name == "<lambda>":
            raise ValueError("You must provide a name for lambda functions")
        return cls(uri=uri, name=fn_name, title=title, description=description or fn.__doc__ or "",
                   mime_type=mime_type or "text/plain", fn=validate_call(config=ConfigDict(arbitrary_types_allowed=True))(fn), icons=icons,
                   annotations=annotations, meta=meta)


class FileResource(Resource):
    """A file: decoded with ``encoding`` and served as text, or served as bytes when it is None."""

    path: Path
    encoding: str | None = Field(default_factory=lambda data: _default_encoding(data["mime_type"]))

    _check_path = field_validator("path")(classmethod(lambda cls, p: _absolute(p)))

    @field_validator("encoding")
    @classmethod
    def _text_codec(cls, encoding: str | None) -> str | None:
        # Checked now, so that a wrong name fails where the resource is declared, not at a read.
        if encoding is not None:
            try:
                b"x".decode(encoding)
            except LookupError as exc:
                raise ValueError(str(exc)) from exc
            except UnicodeError:
                pass  # a text codec that cannot decode the lone probe byte (UTF-16)
        return encoding

    async def read(self) -> str | bytes:
        if self.encoding is None:
            return await run_sync(self.path.read_bytes)
        return await run_sync(partial(self.path.read_text, encoding=self.encoding))


class HttpResource(Resource):
    """A resource fetched from ``url`` when read."""

    url: str
    mime_type: str = "application/json"

    async def read(self) -> str | bytes:
        import httpx

        async with httpx.AsyncClient() as client:
            response = await client.get(self.url)
            response.raise_for_status()
            return response.text


class DirectoryResource(Resource):
    """The file names under ``path`` (optionally a glob ``pattern``, ``recursive``) as a JSON listing."""

    path: Path
    recursive: bool = False
    pattern: str | None = None
    mime_type: str = "application/json"

    _check_path = field_validator("path")(classmethod(lambda cls, p: _absolute(p)))

    def list_files(self) -> list[Path]:
        if not self.path.exists():
            raise FileNotFoundError(f"Directory not found: {self.path}")
        if not self.path.is_dir():
            raise NotADirectoryError(f"Not a directory: {self.path}")
        return list((self.path.rglob if self.recursive else self.path.glob)(self.pattern or "*"))

    async def read(self) -> str:
        files = await run_sync(self.list_files)
        return json.dumps({"files": [str(f.relative_to(self.path)) for f in files if f.is_file()]}, indent=2)


@dataclass(frozen=True)
class ResourceSecurity:
    """Checks on the values a template extracts (after percent-decoding); ``exempt_params`` skips them."""

    reject_path_traversal: bool = True
    reject_absolute_paths: bool = True
    reject_null_bytes: bool = True
    exempt_params: AbstractSet[str] = field(default_factory=frozenset)

    def validate(self, params: Mapping[str, str | list[str]]) -> str | None:
        """The first parameter whose value (each item of a list) fails a check, or None: the core's
        screening decides (``oxmcp::uri_template::ValueScreen``)."""
        from ..._oxmcp import screen_path_value

        for name, value in params.items():
            if name in self.exempt_params:
                continue
            for v in value if isinstance(value, list) else [value]:
                if screen_path_value(v, self.reject_path_traversal, self.reject_absolute_paths,
                                     self.reject_null_bytes):
                    return name
        return None

    def screen(self) -> tuple[bool, bool, bool, list[str]]:
        """This policy as the core's value screen takes it."""
        return (self.reject_path_traversal, self.reject_absolute_paths, self.reject_null_bytes,
                sorted(self.exempt_params))


DEFAULT_RESOURCE_SECURITY = ResourceSecurity()


class ResourceSecurityError(ValueError):
    """A template value failed its :class:`ResourceSecurity` checks (raised, so that no later, laxer
    template is tried in its place)."""

    def __init__(self, template: str, param: str) -> None:
        super().__init__(f"Parameter {param!r} of template {template!r} failed security validation")
        self.template = template
        self.param = param


class ResourceTemplate(BaseModel):
    """An RFC 6570 URI template whose variables are the function's parameters."""

    uri_template: str
    name: str
    title: str | None = None
    description: str | None
    mime_type: str = "text/plain"
    icons: list[Icon] | None = None
    annotations: Annotations | None = None
    meta: dict[str, Any] | None = None
    fn: Callable[..., Any] = Field(exclude=True)
    parameters: dict[str, Any]
    context_kwarg: str | None = None
    security: ResourceSecurity = Field(default=DEFAULT_RESOURCE_SECURITY, exclude=True)

    @classmethod
    def from_function(cls, fn: Callable[..., Any], uri_template: str, name: str | None = None,
                      title: str | None = None, description: str | None = None, mime_type: str | None = None,
                      icons: list[Icon] | None = None, annotations: Annotations | None = None,
                      meta: dict[str, Any] | None = None, context_kwarg: str | None = None,
                      security: ResourceSecurity = DEFAULT_RESOURCE_SECURITY) -> ResourceTemplate:
        from ..._oxmcp import match_uri_template

        fn_name = name or fn.__name__
        if fn_name == "<lambda>":
            raise ValueError("You must provide a name for lambda functions")
        match_uri_template(uri_template, "")  # a malformed template fails here, with the core's reason
        info = _describe(fn, fn_name)
        return cls(uri_template=uri_template, name=fn_name, title=title,
                   description=description or fn.__doc__ or "", mime_type=mime_type or "text/plain",
                   icons=icons, annotations=annotations, meta=meta, fn=validate_call(config=ConfigDict(arbitrary_types_allowed=True))(fn),
                   parameters=info.input_schema,
                   context_kwarg=context_kwarg if context_kwarg is not None else info.context_param,
                   security=security)

    def matches(self, uri: str) -> dict[str, str | list[str]] | None:
        """The variables of ``uri``, or None when it does not have the template's structure; a value
        this template's policy refuses raises :class:`ResourceSecurityError`. The core matches
        and screens (``UriTemplate::match_screened``)."""
        from ..._oxmcp import match_uri_template_screened

        found = match_uri_template_screened(self.uri_template, uri, *self.security.screen())
        if found is None:
            return None
        outcome, value = found
        if outcome == "refused":
            raise ResourceSecurityError(self.uri_template, value)
        return dict(value)

    async def create_resource(self, uri: str, params: dict[str, Any], context: Any = None) -> Any:
        """The resource for one URI (or the function's ``InputRequiredResult``, passed as it is). A
        ``ResourceError`` or ``McpError`` propagates; any other failure is an ``UnexpectedResourceError``."""
        from .exceptions import UnexpectedResourceError

        kwargs = dict(params)
        if self.context_kwarg is not None and context is not None:
            kwargs[self.context_kwarg] = context
        try:
            value = await _call(self.fn, **kwargs)
        except (ResourceError, McpError):
            raise
        except Exception as exc:
            raise UnexpectedResourceError(f"Error creating resource from template {uri}") from exc
        if isinstance(value, InputRequiredResult):
            return value
        return FunctionResource(uri=uri, name=self.name, title=self.title, description=self.description,
                                mime_type=self.mime_type, icons=self.icons, annotations=self.annotations,
                                meta=self.meta, fn=lambda: value)
