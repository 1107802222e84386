"""Return-value normalisation: whatever a handler returns becomes a spec-shaped result dict."""

from __future__ import annotations

import base64
import json
import mimetypes
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, ClassVar

import pydantic
from pydantic import BaseModel

__all__ = [
    "Audio", "EmbeddedResource", "File", "Image", "Message", "ResourceLink", "Text", "ToolResult",
    "to_jsonable",
]


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


class _Content:
    """Base of the content helpers: each knows its spec dict."""

    def to_content(self) -> dict[str, Any]:
        raise NotImplementedError


class Text(_Content):
    """A ``text`` content block (a plain ``str`` return does the same)."""

    def __init__(self, text: str, *, annotations: dict[str, Any] | None = None, meta: dict[str, Any] | None = None):
        self.text, self.annotations, self.meta = text, annotations, meta

    def to_content(self) -> dict[str, Any]:
        return _finish({"type": "text", "text": self.text}, self.annotations, self.meta)


class _Binary(_Content):
    _kind = ""
    _default_mime = "application/octet-stream"

    def __init__(self, path: str | Path | None = None, data: bytes | None = None, *, format: str | None = None,
                 mime_type: str | None = None, annotations: dict[str, Any] | None = None,
                 meta: dict[str, Any] | None = None) -> None:
        if (path is None) == (data is None):
            raise ValueError(f"{type(self).__name__} needs exactly one of path= or data=")
        self.path = Path(path) if path is not None else None
        self.data = data
        self.format = format
        self._mime = mime_type
        self.annotations, self.meta = annotations, meta

    @property
    def mime_type(self) -> str:
        if self._mime:
            return self._mime
        if self.format:
            return f"{self._kind}/{self.format.lower()}"
        if self.path is not None:
            guessed = mimetypes.guess_type(self.path.name)[0]
            if guessed:
                return guessed
        return self._default_mime

    def read(self) -> bytes:
        if self.data is not None:
            return self.data
        assert self.path is not None
        return self.path.read_bytes()

    def to_content(self) -> dict[str, Any]:
        return _finish({"type": self._kind, "data": _b64(self.read()), "mimeType": self.mime_type},
                       self.annotations, self.meta)


    def _model(self, cls_name: str, mime_type: str | None, annotations: Any) -> Any:
        """This block as an SDK content model (the frameworks' ``to_*_content`` methods)."""
        from ._fastmcp_client import model_types

        block = self.to_content()
        if mime_type is not None:
            if "resource" in block:
                block["resource"]["mimeType"] = mime_type
            else:
                block["mimeType"] = mime_type
        if annotations is not None:
            block["annotations"] = (annotations.model_dump(by_alias=True, exclude_none=True)
                                    if hasattr(annotations, "model_dump") else annotations)
        return getattr(model_types(), cls_name).model_validate(block)


class Image(_Binary):
    """An ``image`` content block from a file path or bytes (``format="png"`` or ``mime_type=``)."""

    _kind = "image"
    _default_mime = "image/png"

    def to_image_content(self, mime_type: str | None = None, annotations: Any = None) -> Any:
        return self._model("ImageContent", mime_type, annotations)


class Audio(_Binary):
    """An ``audio`` content block from a file path or bytes (``format="wav"`` or ``mime_type=``)."""

    _kind = "audio"
    _default_mime = "audio/wav"
    # The frameworks' own table (FastMCP's; the mcp SDK's is its subset), not the system's
    # mimetypes (which says audio/x-wav): a format outside it is audio/<format>, a suffix outside
    # it application/octet-stream.
    _TABLE: ClassVar[dict[str, str]] = {"wav": "audio/wav", "mp3": "audio/mpeg", "ogg": "audio/ogg", "m4a": "audio/mp4",
                                        "flac": "audio/flac", "opus": "audio/ogg", "aac": "audio/aac",
                                        "webm": "audio/webm", "aiff": "audio/aiff", "aif": "audio/aiff"}

    @property
    def mime_type(self) -> str:
        if self._mime:
            return self._mime
        if self.format:
            return self._TABLE.get(self.format.lower(), f"audio/{self.format.lower()}")
        if self.path is not None:
            return self._TABLE.get(self.path.suffix.lower().lstrip("."), "application/octet-stream")
        return self._default_mime

    def to_audio_content(self, mime_type: str | None = None, annotations: Any = None) -> Any:
        return self._model("AudioContent", mime_type, annotations)


_TEXT_FORMATS = {"plain": "text/plain", "txt": "text/plain", "text": "text/plain", "csv": "text/csv",
                 "html": "text/html", "htm": "text/html", "md": "text/markdown", "markdown": "text/markdown"}


class File(_Binary):
    """A file as an embedded ``resource`` block (base64 ``blob``, or ``text`` for text MIME types)."""

    _kind = "file"

    def __init__(self, path: str | Path | None = None, data: bytes | None = None, *, name: str | None = None,
                 format: str | None = None, mime_type: str | None = None, uri: str | None = None,
                 annotations: dict[str, Any] | None = None, meta: dict[str, Any] | None = None) -> None:
        super().__init__(path, data, format=format, mime_type=mime_type, annotations=annotations, meta=meta)
        self.name = name or (self.path.name if self.path else None)
        self.uri = uri

    @property
    def mime_type(self) -> str:
        # FastMCP's rule (File is FastMCP's helper): a format names the type (text formats as text/*),
        # else the path's extension does.
        if self._mime:
            return self._mime
        if self.format:
            fmt = self.format.lower()
            return _TEXT_FORMATS.get(fmt, f"application/{fmt}")
        return mimetypes.guess_type(self.name or "")[0] or "application/octet-stream"

    def _data_uri(self) -> str:
        """Bytes with no path: ``file:///<name>`` (the format's extension added when the name has none),
        ``file:///resource.<ext>`` without a name."""
        from urllib.parse import quote

        ext = f".{self.format.lower()}" if self.format else f".{self.mime_type.split('/')[1]}"
        if self.name:
            return f"file:///{quote(self.name if Path(self.name).suffix else self.name + ext)}"
        return f"file:///resource{ext}"

    def to_content(self) -> dict[str, Any]:
        uri = self.uri or (self.path.resolve().as_uri() if self.path else self._data_uri())
        resource: dict[str, Any] = {"uri": uri, "mimeType": self.mime_type}
        raw = self.read()
        if self.mime_type.startswith("text/") or self.mime_type in ("application/json",):
            try:
                resource["text"] = raw.decode("utf-8")
            except UnicodeDecodeError:
                resource["blob"] = _b64(raw)
        else:
            resource["blob"] = _b64(raw)
        return _finish({"type": "resource", "resource": resource}, self.annotations, self.meta)

    def to_resource_content(self, mime_type: str | None = None, annotations: Any = None) -> Any:
        return self._model("EmbeddedResource", mime_type, annotations)


class EmbeddedResource(_Content):
    """A ``resource`` content block with inline ``text`` or ``blob`` (bytes are base64-encoded)."""

    def __init__(self, uri: str, *, text: str | None = None, blob: bytes | None = None,
                 mime_type: str | None = None, annotations: dict[str, Any] | None = None,
                 meta: dict[str, Any] | None = None) -> None:
        if (text is None) == (blob is None):
            raise ValueError("EmbeddedResource needs exactly one of text= or blob=")
        self.uri, self.text, self.blob, self.mime_type = uri, text, blob, mime_type
        self.annotations, self.meta = annotations, meta

    def to_content(self) -> dict[str, Any]:
        resource: dict[str, Any] = {"uri": self.uri}
        if self.mime_type:
            resource["mimeType"] = self.mime_type
        if self.text is not None:
            resource["text"] = self.text
        else:
            assert self.blob is not None
            resource["blob"] = _b64(self.blob)
        return _finish({"type": "resource", "resource": resource}, self.annotations, self.meta)


class ResourceLink(_Content):
    """A ``resource_link`` content block: a pointer the client may read later."""

    def __init__(self, uri: str, name: str, *, title: str | None = None, description: str | None = None,
                 mime_type: str | None = None, size: int | None = None, icons: list[dict[str, Any]] | None = None,
                 annotations: dict[str, Any] | None = None, meta: dict[str, Any] | None = None) -> None:
        self.uri, self.name, self.title, self.description = uri, name, title, description
        self.mime_type, self.size, self.icons = mime_type, size, icons
        self.annotations, self.meta = annotations, meta

    def to_content(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": "resource_link", "uri": self.uri, "name": self.name}
        for key, value in (("title", self.title), ("description", self.description),
                           ("mimeType", self.mime_type), ("size", self.size), ("icons", self.icons)):
            if value is not None:
                out[key] = value
        return _finish(out, self.annotations, self.meta)


CONTENT_TYPES: tuple[type, ...] = (_Content,)


def _finish(block: dict[str, Any], annotations: dict[str, Any] | None, meta: dict[str, Any] | None) -> dict[str, Any]:
    if annotations:
        block["annotations"] = annotations
    if meta:
        block["_meta"] = meta
    return block


class ToolResult:
    """A full ``CallToolResult``: content blocks, optional structured content, error flag and ``_meta``."""

    def __init__(self, content: Any = None, structured_content: Any = None, *, is_error: bool = False,
                 meta: dict[str, Any] | None = None) -> None:
        self.content = content
        self.structured_content = structured_content
        self.is_error = is_error
        self.meta = meta

    def to_dict(self) -> dict[str, Any]:
        blocks = content_list(self.content) if self.content is not None else []
        out: dict[str, Any] = {"content": blocks}
        if self.structured_content is not None:
            out["structuredContent"] = to_jsonable(self.structured_content)
            if not blocks:
                out["content"] = [{"type": "text", "text": _dumps(out["structuredContent"])}]
        if self.is_error:
            out["isError"] = True
        if self.meta:
            out["_meta"] = self.meta
        return out


class Message:
    """A prompt message: ``role`` plus one content block (a ``str`` becomes text)."""

    def __init__(self, content: Any, role: str = "user") -> None:
        if role not in ("user", "assistant"):
            raise ValueError("role must be 'user' or 'assistant'")
        self.role = role
        self.content = content

    def to_dict(self) -> dict[str, Any]:
        blocks = content_list(self.content)
        if len(blocks) != 1:
            raise ValueError("a prompt message holds exactly one content block")
        return {"role": self.role, "content": blocks[0]}


def to_jsonable(value: Any) -> Any:
    """Plain JSON data from models, dataclasses, enums, tuples, sets, paths and datetimes."""
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    if isinstance(value, dict):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_jsonable(v) for v in value]
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json", by_alias=True)
    return pydantic.TypeAdapter(type(value)).dump_python(value, mode="json")


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


_BLOCK_TYPES = {"text", "image", "audio", "resource", "resource_link"}


def content_block(item: Any) -> dict[str, Any]:
    """One content block from a helper, a ``str``, a spec dict, or any data (as JSON text)."""
    if isinstance(item, _Content):
        return item.to_content()
    if isinstance(item, str):
        return {"type": "text", "text": item}
    if isinstance(item, dict) and item.get("type") in _BLOCK_TYPES:
        return item
    if _is_block_model(item):
        return item.model_dump(mode="json", by_alias=True, exclude_none=True)  # an SDK content model
    if isinstance(item, bytes):
        return {"type": "resource", "resource": {"uri": "data:application/octet-stream",
                                                 "mimeType": "application/octet-stream", "blob": _b64(item)}}
    return {"type": "text", "text": _dumps(to_jsonable(item))}


def _is_block_model(item: Any) -> bool:
    return isinstance(item, BaseModel) and getattr(item, "type", None) in _BLOCK_TYPES


def content_list(value: Any) -> list[dict[str, Any]]:
    if value is None:
        return []
    if isinstance(value, (list, tuple)):
        return [content_block(v) for v in value]
    return [content_block(value)]


def normalize_tool_result(value: Any, *, output_schema: dict[str, Any] | None, wrap: bool,
                          adapter: pydantic.TypeAdapter[Any] | None = None,
                          structured_objects: bool = False,
                          dump: Callable[[Any, Any], Any] | None = None) -> dict[str, Any] | CoreList:
    """What a tool returned → ``CallToolResult`` dict (``content``, ``structuredContent``, ``isError``).

    ``structured_objects``: a tool without an output schema whose value is a JSON object (a dict, a
    model, a dataclass) also answers it as ``structuredContent``, as FastMCP does. ``dump(value,
    adapter)``: a framework's own serialisation of a structured value (FastMCP's refuses non-finite
    floats), in place of the adapter's JSON mode; with it, a value without an output schema that cannot
    be structured is answered as its JSON text."""
    if isinstance(value, ToolResult):
        return value.to_dict()
    from .types import CallToolResult

    if isinstance(value, CallToolResult):  # the spec's whole result, as the tool formed it
        return value.model_dump(mode="json", by_alias=True, exclude_none=True)
    if isinstance(value, _Content) or (isinstance(value, (list, tuple)) and any(isinstance(v, _Content) for v in value)):
        # Content helpers are content whatever the annotation said (e.g. ``-> list[Any]``).
        return {"content": content_list(value)}
    if output_schema is None and isinstance(value, (list, tuple)) and any(_is_block_model(v) for v in value):
        # A list holding an SDK content model is one block per item (the other items as their JSON
        # text), as the SDKs and FastMCP answer it: not the whole list as one JSON text.
        return {"content": content_list(value)}
    if output_schema is not None:
        if dump is not None:
            data = dump(value, adapter)
        elif adapter is not None:
            data = adapter.dump_python(value, mode="json", by_alias=True)
        else:
            data = to_jsonable(value)
        structured = {"result": data} if wrap else data
        if data is None:  # nothing to show: no content block (structuredContent still says null)
            return {"content": [], "structuredContent": structured}
        if isinstance(value, (list, tuple)) and any(_is_block_model(v) for v in value):
            # A described list of content blocks (``-> list[ContentBlock]``): the blocks are the
            # content, their dump the structured result.
            return {"content": content_list(value), "structuredContent": structured}
        text = data if isinstance(data, str) else _dumps(data)
        return {"content": [{"type": "text", "text": text}], "structuredContent": structured}
    if value is None:
        return {"content": []}
    if structured_objects and not isinstance(value, (str, bytes, list, tuple)) and not (
            isinstance(value, dict) and value.get("type") in _BLOCK_TYPES) and not (
            isinstance(value, BaseModel) and getattr(value, "type", None) in _BLOCK_TYPES):
        try:
            data = to_jsonable(value)
        except Exception:
            if dump is None:
                raise
            # The framework answers a value it cannot structure as its JSON text (``str`` for
            # what JSON has no form for), not as a failure.
            import pydantic_core

            text = pydantic_core.to_json(value, fallback=str, inf_nan_mode="null").decode()
            return {"content": [{"type": "text", "text": text}]}
        if isinstance(data, dict):
            return {"content": [{"type": "text", "text": _dumps(data)}], "structuredContent": data}
    if isinstance(value, (_Content, str, bytes)) or _is_block_model(value):
        return {"content": [content_block(value)]}
    if isinstance(value, (list, tuple)):
        # Which lists become content blocks is the core's rule (ToolResult::from_list).
        return CoreList(to_jsonable(list(value)))
    if isinstance(value, dict) and value.get("type") in _BLOCK_TYPES:
        return {"content": [value]}
    return {"content": [{"type": "text", "text": _dumps(to_jsonable(value))}]}


class CoreList(list):  # type: ignore[type-arg]
    """A tool's list (no outputSchema), as JSON, for the core to turn into content."""


def error_result(message: str) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": message}], "isError": True}


# -- resources ---------------------------------------------------------------------------------

class ResourceContents:
    """One entry of ``resources/read`` contents, when a handler wants to set the MIME type or ``_meta``."""

    def __init__(self, *, text: str | None = None, blob: bytes | None = None, mime_type: str | None = None,
                 uri: str | None = None, meta: dict[str, Any] | None = None) -> None:
        if (text is None) == (blob is None):
            raise ValueError("ResourceContents needs exactly one of text= or blob=")
        self.text, self.blob, self.mime_type, self.uri, self.meta = text, blob, mime_type, uri, meta

    def to_dict(self, uri: str, default_mime: str | None) -> dict[str, Any]:
        out: dict[str, Any] = {"uri": self.uri or uri}
        mime = self.mime_type or default_mime
        if mime:
            out["mimeType"] = mime
        if self.text is not None:
            out["text"] = self.text
        else:
            assert self.blob is not None
            out["blob"] = _b64(self.blob)
        if self.meta:
            out["_meta"] = self.meta
        return out


def normalize_resource_result(value: Any, uri: str, mime_type: str | None,
                              native_json: Callable[[Any], str] | None = None) -> list[dict[str, Any]]:
    """What a resource function returned → a list of ``TextResourceContents``/``BlobResourceContents``.
    ``native_json``: how a framework writes a JSON-native value (dict, list, tuple, number, bool,
    None) as text, where it differs from oxmcp's compact JSON."""
    if isinstance(value, ResourceContents):
        return [value.to_dict(uri, mime_type)]
    if isinstance(value, (list, tuple)) and value and all(isinstance(v, ResourceContents) for v in value):
        return [v.to_dict(uri, mime_type) for v in value]
    if isinstance(value, str):
        return [{"uri": uri, "mimeType": mime_type or "text/plain", "text": value}]
    if isinstance(value, (bytes, bytearray)):
        return [{"uri": uri, "mimeType": mime_type or "application/octet-stream", "blob": _b64(bytes(value))}]
    if isinstance(value, (Image, Audio, File)):
        return [{"uri": uri, "mimeType": mime_type or value.mime_type, "blob": _b64(value.read())}]
    from .resources.base import ResourceContent, ResourceResult

    if isinstance(value, (ResourceResult, ResourceContent)):  # FastMCP's: each content as it was built
        items = value.contents if isinstance(value, ResourceResult) else [value]
        return [item._contents().to_dict(uri, None) for item in items]
    if isinstance(value, list) and value and all(isinstance(v, ResourceContent) for v in value):
        return [item._contents().to_dict(uri, None) for item in value]
    if native_json is not None and (value is None or isinstance(value, (dict, list, tuple, int, float, bool))):
        return [{"uri": uri, "mimeType": mime_type or "application/json", "text": native_json(value)}]
    return [{"uri": uri, "mimeType": mime_type or "application/json", "text": _dumps(to_jsonable(value))}]


# -- prompts -----------------------------------------------------------------------------------

def normalize_prompt_result(value: Any, description: str | None) -> dict[str, Any]:
    """What a prompt function returned → ``GetPromptResult`` dict (``description``, ``messages``)."""
    if isinstance(value, dict) and "messages" in value:
        return value
    items: Iterable[Any] = value if isinstance(value, (list, tuple)) else [value]
    messages: list[dict[str, Any]] = []
    for item in items:
        if isinstance(item, Message):
            messages.append(item.to_dict())
        elif isinstance(item, dict) and "role" in item and "content" in item:
            messages.append({"role": item["role"], "content": content_block(item["content"])})
        else:
            messages.append({"role": "user", "content": content_block(item)})
    out: dict[str, Any] = {"messages": messages}
    if description is not None:
        out["description"] = description
    return out
