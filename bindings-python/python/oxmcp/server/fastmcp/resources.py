"""``mcp.server.fastmcp.resources`` of mcp 1.x: the resource component classes.

``FunctionResource``, ``TextResource``, ``BinaryResource``, ``FileResource``, ``DirectoryResource``,
``HttpResource`` and ``ResourceTemplate`` are pydantic models with the SDK's fields and validation;
``FastMCP.add_resource(resource)`` registers one with oxmcp's core, which reads it through
:meth:`Resource.read` (so a subclass with its own ``read`` works too). Reading is the class's own
work; who may read it is decided by the core, as for a decorated resource.
"""

from __future__ import annotations

import abc
import inspect
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import pydantic_core
from pydantic import (
    AnyUrl,
    BaseModel,
    ConfigDict,
    Field,
    UrlConstraints,
    ValidationInfo,
    field_validator,
    validate_call,
)

from ..._loops import run_sync
from ...types import Annotations, Icon

# A package to the import system, so that the SDK's submodule paths (``resources.templates``,
# ``resources.types``) resolve through the import hook to this one module.
__path__: list[str] = []

__all__ = ["BinaryResource", "DirectoryResource", "FileResource", "FunctionResource", "HttpResource",
           "Resource", "ResourceTemplate", "TextResource"]

_MIME = r"^[a-zA-Z0-9]+/[a-zA-Z0-9\-+.]+(;\s*[a-zA-Z0-9\-_.]+=[a-zA-Z0-9\-_.]+)*$"


def _as_text(value: Any) -> str | bytes:
    """A function's value as resource content: text and bytes as they are, anything else as JSON."""
    if isinstance(value, (str, bytes)):
        return value
    return pydantic_core.to_json(value, fallback=str, indent=2).decode()


def _describe(fn: Callable[..., Any], name: str) -> Any:
    """The function's parameters as oxmcp describes them (``input_schema``, ``context_param``). A
    ``*args`` / ``**kwargs`` parameter is left out of the description, as the SDK's is: a template's
    values arrive by name."""
    from ..._errors import DefinitionError
    from ..._schema import analyze_function

    try:
        return analyze_function(fn, name=name, output_schema=False)
    except DefinitionError:
        sig = inspect.signature(fn)
        named = [p for p in sig.parameters.values()
                 if p.kind not in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)]
        if len(named) == len(sig.parameters):
            raise

        def described(*args: Any, **kwargs: Any) -> Any:
            return fn(*args, **kwargs)

        described.__signature__ = sig.replace(parameters=named)  # type: ignore[attr-defined]
        described.__annotations__ = {k: v for k, v in getattr(fn, "__annotations__", {}).items()
                                     if k in {p.name for p in named} or k == "return"}
        return analyze_function(described, name=name, output_schema=False)


class Resource(BaseModel, abc.ABC):
    """A resource: its listing fields and an async :meth:`read` giving ``str`` (text) or ``bytes`` (blob)."""

    model_config = ConfigDict(validate_default=True)

    uri: Annotated[AnyUrl, UrlConstraints(host_required=False)] = Field(default=...)
    name: str | None = None
    title: str | None = None
    description: str | None = None
    mime_type: str = Field(default="text/plain", pattern=_MIME)
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
    """A resource read by calling ``fn()`` (sync or async) when a client reads it, not when it is listed."""

    fn: Callable[[], Any] = Field(exclude=True)

    async def read(self) -> str | bytes:
        try:
            value = self.fn()
            if inspect.iscoroutine(value):
                value = await value
            if isinstance(value, Resource):
                return await value.read()
            return _as_text(value)
        except Exception as exc:
            raise ValueError(f"Error reading resource {self.uri}: {exc}") from exc

    @classmethod
    def from_function(cls, fn: Callable[..., Any], uri: str, name: str | None = None, title: str | None = None,
                      description: str | None = None, mime_type: str | None = None,
                      icons: list[Icon] | None = None, annotations: Annotations | None = None,
                      meta: dict[str, Any] | None = None) -> FunctionResource:
        fn_name = name or fn.__name__
        if fn_name == "<lambda>":
            raise ValueError("You must provide a name for lambda functions")
        return cls(uri=AnyUrl(uri), name=fn_name, title=title, description=description or fn.__doc__ or "",
                   mime_type=mime_type or "text/plain", fn=validate_call(config=ConfigDict(arbitrary_types_allowed=True))(fn), icons=icons,
                   annotations=annotations, meta=meta)


def _absolute(path: Path) -> Path:
    if not path.is_absolute():
        raise ValueError("Path must be absolute")
    return path


class FileResource(Resource):
    """A file, read as text, or as bytes when ``is_binary`` or the MIME type is not ``text/*``."""

    path: Path
    is_binary: bool = False
    mime_type: str = "text/plain"

    _check_path = field_validator("path")(classmethod(lambda cls, p: _absolute(p)))

    @field_validator("is_binary")
    @classmethod
    def _binary_from_mime(cls, is_binary: bool, info: ValidationInfo) -> bool:
        return is_binary or not str(info.data.get("mime_type", "text/plain")).startswith("text/")

    async def read(self) -> str | bytes:
        try:
            reader = self.path.read_bytes if self.is_binary else self.path.read_text
            return await run_sync(reader)
        except Exception as exc:
            raise ValueError(f"Error reading file {self.path}: {exc}") from exc


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
        glob = self.path.rglob if self.recursive else self.path.glob
        try:
            return list(glob(self.pattern or "*"))
        except Exception as exc:
            raise ValueError(f"Error listing directory {self.path}: {exc}") from exc

    async def read(self) -> str:
        try:
            files = await run_sync(self.list_files)
            names = [str(f.relative_to(self.path)) for f in files if f.is_file()]
            return json.dumps({"files": names}, indent=2)
        except Exception as exc:
            raise ValueError(f"Error reading directory {self.path}: {exc}") from exc


class ResourceTemplate(BaseModel):
    """A URI template (``weather://{city}/current``) whose variables are the function's parameters."""

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

    @classmethod
    def from_function(cls, fn: Callable[..., Any], uri_template: str, name: str | None = None,
                      title: str | None = None, description: str | None = None, mime_type: str | None = None,
                      icons: list[Icon] | None = None, annotations: Annotations | None = None,
                      meta: dict[str, Any] | None = None, context_kwarg: str | None = None) -> ResourceTemplate:
        fn_name = name or fn.__name__
        if fn_name == "<lambda>":
            raise ValueError("You must provide a name for lambda functions")
        info = _describe(fn, fn_name)
        if context_kwarg is None:
            context_kwarg = info.context_param
        return cls(uri_template=uri_template, name=fn_name, title=title,
                   description=description or fn.__doc__ or "", mime_type=mime_type or "text/plain",
                   icons=icons, annotations=annotations, meta=meta, fn=validate_call(config=ConfigDict(arbitrary_types_allowed=True))(fn),
                   parameters=info.input_schema, context_kwarg=context_kwarg)

    def matches(self, uri: str) -> dict[str, Any] | None:
        """The variables of ``uri`` if it fits the template (each variable one path segment), else None."""
        pattern = "".join(f"(?P<{part[1:-1]}>[^/]+)" if part.startswith("{") else re.escape(part)
                          for part in re.split(r"(\{[^}]+\})", self.uri_template) if part)
        found = re.fullmatch(pattern, uri)
        return found.groupdict() if found else None

    async def create_resource(self, uri: str, params: dict[str, Any], context: Any = None) -> Resource:
        """The resource for one URI: the function's value for these variables, as a FunctionResource."""
        try:
            kwargs = dict(params)
            if self.context_kwarg is not None and context is not None:
                kwargs[self.context_kwarg] = context
            value = self.fn(**kwargs)
            if inspect.iscoroutine(value):
                value = await value
            return FunctionResource(uri=uri, name=self.name, title=self.title,  # type: ignore[arg-type]
                                    description=self.description, mime_type=self.mime_type, icons=self.icons,
                                    annotations=self.annotations, meta=self.meta, fn=lambda: value)
        except Exception as exc:
            raise ValueError(f"Error creating resource from template: {exc}") from exc
