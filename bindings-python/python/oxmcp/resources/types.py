"""``fastmcp.resources.types``: resources with fixed contents (``TextResource``, ``BinaryResource``) and
resources read from the file system (``FileResource``, ``DirectoryResource``)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from .._errors import ResourceError
from .base import Resource, ResourceContent, ResourceResult

__all__ = ["BinaryResource", "DirectoryResource", "FileResource", "TextResource"]


class TextResource(Resource):
    """A resource whose contents are a fixed text."""

    def __init__(self, *, text: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.text = text

    async def read(self) -> ResourceResult:
        return ResourceResult([ResourceContent(self.text, mime_type=self.mime_type, meta=self.meta)])


class BinaryResource(Resource):
    """A resource whose contents are fixed bytes."""

    def __init__(self, *, data: bytes, **kwargs: Any) -> None:
        kwargs.setdefault("mime_type", "application/octet-stream")
        super().__init__(**kwargs)
        self.data = data

    async def read(self) -> ResourceResult:
        return ResourceResult([ResourceContent(self.data, mime_type=self.mime_type, meta=self.meta)])


def _absolute(path: Any) -> Path:
    path = Path(path)
    if not path.is_absolute():
        raise ValueError("Path must be absolute")
    return path


class FileResource(Resource):
    """A resource read from a file (an absolute path): as text (``encoding``), or as bytes when
    ``is_binary`` (by default: when the MIME type is not ``text/*``)."""

    def __init__(self, *, path: Any, is_binary: bool | None = None, encoding: str | None = "utf-8",
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.path = _absolute(path)
        self.is_binary = not self.mime_type.startswith("text/") if is_binary is None else is_binary
        self.encoding = encoding

    async def read(self) -> ResourceResult:
        try:
            if self.is_binary:
                content: str | bytes = await asyncio.to_thread(self.path.read_bytes)
            else:
                content = await asyncio.to_thread(self.path.read_text, encoding=self.encoding)
        except Exception as exc:
            raise ResourceError(f"Error reading file {self.path}: {exc}") from exc
        return ResourceResult([ResourceContent(content, mime_type=self.mime_type, meta=self.meta)])


class DirectoryResource(Resource):
    """A resource listing the files of a directory (an absolute path), as JSON."""

    def __init__(self, *, path: Any, recursive: bool = False, pattern: str | None = None, **kwargs: Any) -> None:
        kwargs.setdefault("mime_type", "application/json")
        super().__init__(**kwargs)
        self.path = _absolute(path)
        self.recursive = recursive
        self.pattern = pattern

    async def list_files(self) -> list[Path]:
        if not self.path.is_dir():
            raise ResourceError(f"Directory not found: {self.path}")
        glob = self.path.rglob if self.recursive else self.path.glob
        return sorted(p for p in glob(self.pattern or "*") if p.is_file())

    async def read(self) -> ResourceResult:
        try:
            files = await self.list_files()
        except ResourceError:
            raise
        except Exception as exc:
            raise ResourceError(f"Error reading directory {self.path}: {exc}") from exc
        listing = json.dumps([str(p.relative_to(self.path)) for p in files], indent=2)
        return ResourceResult([ResourceContent(listing, mime_type=self.mime_type, meta=self.meta)])
