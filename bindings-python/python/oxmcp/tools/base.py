"""``fastmcp.tools.base``: FastMCP's tool component (``Tool``, ``Tool.from_function``) and ``ToolResult``.

A ``Tool`` is a definition a server registers with ``mcp.add_tool(tool)``; registering it goes the
same way as ``@mcp.tool`` (a ``ToolEntry`` in the server's table, the core's registry). Its schemas
are the ones ``@mcp.tool`` would list for the same function.

``await tool.run(arguments)`` runs the tool outside any server's request, as FastMCP allows in tests:
it is registered on a private server and called through the core's dispatch, so argument
validation and result conversion are the core's, as for a client's ``tools/call``.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from datetime import timedelta
from typing import TYPE_CHECKING, Any, ClassVar

from .._errors import ToolError
from .._results import ToolResult as _CoreToolResult
from .._results import content_list, to_jsonable
from ..utilities.components import FastMCPComponent, dump_all

if TYPE_CHECKING:
    from .function_tool import FunctionTool

__all__ = ["Tool", "ToolResult", "default_serializer"]


class _NotSet:
    def __repr__(self) -> str:
        return "NotSet"


#: FastMCP's marker for "not given" (``output_schema=NotSet`` infers it from the return annotation).
NotSet: Any = _NotSet()


def _types() -> Any:
    from .._fastmcp_client import model_types

    return model_types()


def _content_models(blocks: list[dict[str, Any]]) -> list[Any]:
    """Wire content blocks as the SDK's models (``mcp_types``' when installed, as FastMCP's are)."""
    from pydantic import TypeAdapter

    t = _types()
    adapter = TypeAdapter(t.ContentBlock) if hasattr(t, "ContentBlock") else None
    out = []
    for block in blocks:
        if adapter is not None:
            out.append(adapter.validate_python(block))
        else:
            cls = {"text": "TextContent", "image": "ImageContent", "audio": "AudioContent",
                   "resource": "EmbeddedResource", "resource_link": "ResourceLink"}[block["type"]]
            out.append(getattr(t, cls).model_validate(block))
    return out


def _serialize_to_jsonable(data: Any, annotation: Any = Any) -> Any:
    """A structured value as the JSON it goes on the wire as (through the annotation's serializer when
    pydantic has one). JSON has no NaN or Infinity: a non-finite float left after serialization is a
    :class:`ToolError` rather than a silent ``null``."""
    from pydantic import PydanticSchemaGenerationError, TypeAdapter

    try:
        adapter = TypeAdapter(Any if annotation in (None, Ellipsis, inspect.Signature.empty)
                              or isinstance(annotation, str) else annotation)
    except PydanticSchemaGenerationError:
        adapter = TypeAdapter(Any)
    return serialize_checked(data, adapter)


def serialize_checked(data: Any, adapter: Any) -> Any:
    """:func:`_serialize_to_jsonable` with the return annotation's ``TypeAdapter`` (None: any value):
    serialized with non-finite floats kept as JSON's NaN/Infinity tokens, then refused where any is
    left (a model's own policy, or a custom serializer, may have turned them into valid JSON)."""
    import json

    serializer = _checked_serializer(adapter)
    payload = serializer.to_json(data)
    value = json.loads(payload)
    if b"NaN" in payload or b"Infinity" in payload:
        _reject_nonfinite(value, "$")
    return value


def _checked_serializer(adapter: Any) -> Any:
    """The adapter's serializer keeping non-finite floats as tokens, built once per adapter."""
    import pydantic_core

    if adapter is None:
        adapter = _any_adapter()
    cached = getattr(adapter, "_oxmcp_checked", None)
    if cached is None:
        cached = pydantic_core.SchemaSerializer(adapter.core_schema, config={"ser_json_inf_nan": "constants"})
        try:
            adapter._oxmcp_checked = cached
        except AttributeError:  # pragma: no cover  (an adapter that takes no attributes: built per call)
            pass
    return cached


@functools.lru_cache(maxsize=1)
def _any_adapter() -> Any:
    from pydantic import TypeAdapter

    return TypeAdapter(Any)


def _reject_nonfinite(node: Any, path: str) -> None:
    import math

    if isinstance(node, float) and not math.isfinite(node):
        raise ToolError(f"Tool result contains a non-finite float ({node!r}) at {path}; "
                        "JSON cannot represent NaN or Infinity")
    if isinstance(node, dict):
        for key, item in node.items():
            _reject_nonfinite(item, f"{path}.{key}")
    elif isinstance(node, list):
        for index, item in enumerate(node):
            _reject_nonfinite(item, f"{path}[{index}]")


def default_serializer(data: Any) -> str:
    """FastMCP's JSON text for a value shown as content (compact, non-JSON values as ``str``)."""
    import pydantic_core

    return pydantic_core.to_json(data, fallback=str, inf_nan_mode="null").decode()


class ToolResult(_CoreToolResult):
    """A tool's full result: ``content`` (the SDK's content models), ``structured_content``, ``meta``,
    ``is_error``. Given content is converted as FastMCP converts it (strings and helpers to blocks,
    other data to JSON text); ``structured_content`` alone also gives the content."""

    def __init__(self, content: Any = None, structured_content: Any = None, meta: dict[str, Any] | None = None,
                 is_error: bool = False) -> None:
        if content is None and structured_content is None:
            raise ValueError("Either content or structured_content must be provided")
        if structured_content is not None:
            structured_content = serialize_checked(to_jsonable(structured_content), None)
            if not isinstance(structured_content, dict):
                raise ValueError("structured_content must be a dict or None. Got "
                                 f"{type(structured_content).__name__}: {structured_content!r}. Tools should "
                                 "wrap non-dict values based on their output_schema.")
        if content is None:
            content = structured_content
        super().__init__(_convert_to_content(content), structured_content, is_error=is_error, meta=meta)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, _CoreToolResult):
            return NotImplemented
        return self.to_dict() == other.to_dict()

    def __repr__(self) -> str:
        return (f"ToolResult(content={self.content!r}, structured_content={self.structured_content!r}, "
                f"meta={self.meta!r}, is_error={self.is_error!r})")

    @classmethod
    def _from_wire(cls, result: dict[str, Any]) -> ToolResult:
        out = cls.__new__(cls)
        _CoreToolResult.__init__(out, _content_models(result.get("content") or []), result.get("structuredContent"),
                                 is_error=bool(result.get("isError")), meta=result.get("_meta"))
        return out


def _is_block(item: Any) -> bool:
    from pydantic import BaseModel

    from .._results import _Content

    return isinstance(item, _Content) or (isinstance(item, BaseModel) and getattr(item, "type", None) in
                                          ("text", "image", "audio", "resource", "resource_link"))


def _convert_to_content(result: Any) -> list[Any]:
    """A value as content blocks (the SDK's models), by FastMCP's rule: a list holding any block keeps
    one block per item, a list of plain data is one JSON text."""
    return _content_models(_content_dicts(result))


def _content_dicts(result: Any) -> list[dict[str, Any]]:
    if result is None:
        return []
    if isinstance(result, (list, tuple)):
        if not result:
            return []
        if any(_is_block(item) for item in result):
            return [content_list(item)[0] if _is_block(item) or isinstance(item, str)
                    else {"type": "text", "text": default_serializer(to_jsonable(item))} for item in result]
        return [{"type": "text", "text": default_serializer(to_jsonable(list(result)))}]
    if _is_block(result) or isinstance(result, (str, bytes)) or (isinstance(result, dict) and "type" in result):
        return content_list(result)
    return [{"type": "text", "text": default_serializer(to_jsonable(result))}]


def _dump_value(value: Any, mode: str, exclude_none: bool, by_alias: bool) -> Any:
    if hasattr(value, "model_dump") and not isinstance(value, type):
        return value.model_dump(mode=mode, exclude_none=exclude_none, by_alias=by_alias)
    if isinstance(value, list):
        return [_dump_value(v, mode, exclude_none, by_alias) for v in value]
    if isinstance(value, dict):
        return {k: _dump_value(v, mode, exclude_none, by_alias) for k, v in value.items()}
    if mode == "json" and isinstance(value, (set, frozenset)):
        return list(value)
    if mode == "json" and isinstance(value, timedelta):
        return f"PT{value.total_seconds():g}S"
    return value


def _default_title(name: str) -> str:
    return name.replace("_", " ").replace("-", " ").title()


class Tool(FastMCPComponent):
    """FastMCP's tool definition. ``Tool.from_function(fn, ...)`` gives a :class:`FunctionTool`;
    a subclass may define ``async run(arguments) -> ToolResult`` itself (it then takes the arguments
    as ``parameters``, its JSON Schema, describes)."""

    KEY_PREFIX: ClassVar[str] = "tool"

    def __init__(self, *, name: str, parameters: dict[str, Any] | None = None, description: str | None = None,
                 title: str | None = None, output_schema: dict[str, Any] | None = None, annotations: Any = None,
                 meta: dict[str, Any] | None = None, icons: list[Any] | None = None, tags: set[str] | None = None,
                 enabled: bool = True, timeout: float | None = None, auth: Any = None, version: Any = None,
                 execution: Any = None, **extra: Any) -> None:
        if extra:
            raise TypeError(f"Tool() got unexpected keyword argument(s): {', '.join(sorted(extra))}")
        from ..shared.tool_name_validation import validate_and_warn_tool_name

        validate_and_warn_tool_name(name)
        self.name = name
        self.parameters = parameters if parameters is not None else {"type": "object", "properties": {}}
        self.description = description
        self.title = title
        self.output_schema = output_schema
        if isinstance(annotations, dict):
            annotations = _types().ToolAnnotations(**annotations)
        self.annotations = annotations
        self.meta = meta
        self.icons = icons
        self.tags = set(tags or ())
        self.enabled = enabled
        self.timeout = timeout
        self.auth = auth
        self.version = None if version is None else str(version)
        self.execution = execution

    # -- FastMCP's surface ----------------------------------------------------------------------------
    @classmethod
    def from_function(cls, fn: Callable[..., Any], **kwargs: Any) -> FunctionTool:
        from .function_tool import FunctionTool

        return FunctionTool.from_function(fn, **kwargs)

    @property
    def key(self) -> str:
        return f"{self.KEY_PREFIX}:{self.name}@{self.version or ''}"

    #: The fields ``model_dump`` gives, in FastMCP's order (its ``Tool`` is a pydantic model of them).
    _DUMP_FIELDS: ClassVar[tuple[str, ...]] = ("name", "version", "title", "description", "icons", "tags", "meta",
                                               "task_config", "parameters", "output_schema", "annotations",
                                               "execution", "timeout")

    @property
    def task_config(self) -> dict[str, Any]:
        """How the tool runs as a task, as FastMCP's ``TaskConfig`` dumps: its mode (``forbidden`` when
        the tool takes no ``task=``, ``optional`` for ``task=True``) and the poll interval."""
        task = getattr(self, "task", None)
        if task is None or isinstance(task, bool):
            mode = "optional" if task else "forbidden"
            return {"mode": mode, "poll_interval": timedelta(seconds=5)}
        return {"mode": getattr(task, "mode", "optional"),
                "poll_interval": getattr(task, "poll_interval", timedelta(seconds=5))}

    def _dumped(self, name: str) -> Any:
        return getattr(self, name, None)

    def model_dump(self, *, mode: str = "python", include: Any = None, exclude: Any = None,
                   exclude_none: bool = False, by_alias: bool = False, **_: Any) -> dict[str, Any]:
        """The tool's fields as a dict, as pydantic dumps FastMCP's ``Tool`` (a nested model is
        dumped too; ``include``/``exclude`` take field names)."""
        out: dict[str, Any] = {}
        for name in self._DUMP_FIELDS:
            if (include is not None and name not in include) or (exclude is not None and name in exclude):
                continue
            value = self._dumped(name)
            if value is None and exclude_none:
                continue
            out[name] = _dump_value(value, mode, exclude_none, by_alias)
        return out

    @property
    def input_schema(self) -> dict[str, Any]:
        return self.parameters

    def to_mcp_tool(self, **overrides: Any) -> Any:
        """The tool as the SDK's ``Tool`` model: what ``tools/list`` lists for it. The title follows
        the effective (overridden) name and annotations."""
        name = overrides.pop("name", self.name)
        annotations = overrides.pop("annotations", self.annotations)
        if annotations is not None and hasattr(annotations, "model_dump"):
            annotations = annotations.model_dump(by_alias=True, exclude_none=True, mode="json")
        title = self.title or (annotations or {}).get("title") or _default_title(name)
        icons = dump_all(self.icons)
        spec = {"name": name, "title": title, "description": self.description, "inputSchema": self.parameters,
                "outputSchema": self.output_schema, "icons": icons, "annotations": annotations or None,
                "_meta": self.meta, "execution": self.execution}
        for key, value in overrides.items():
            spec[{"input_schema": "inputSchema", "output_schema": "outputSchema", "meta": "_meta"}.get(key, key)] = value
        return _types().Tool.model_validate({k: v for k, v in spec.items() if v is not None})

    async def run(self, arguments: dict[str, Any]) -> ToolResult:
        raise NotImplementedError("Subclasses must implement run()")

    # -- registration (oxmcp) -------------------------------------------------------------------------
    def _registration(self) -> tuple[Callable[..., Any], dict[str, Any]]:
        """The function and ``add_tool`` keywords that register this tool (the same path as ``@mcp.tool``).
        A subclass's ``run`` takes the raw arguments its ``parameters`` describe."""
        tool = self

        async def call(**arguments: Any) -> Any:
            return await tool.run(arguments)

        call.__name__ = self.name
        return call, {**self._common_kwargs(), "input_schema": self.parameters,
                      "output_schema": self.output_schema if self.output_schema is not None else False}

    def _common_kwargs(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "title": self.title, "description": self.description,
                               "annotations": self.annotations, "meta": self.meta, "timeout": self.timeout,
                               "tags": self.tags, "enabled": self.enabled, "auth": self.auth}
        if self.icons:
            out["icons"] = dump_all(self.icons)
        if self.version is not None:
            out["version"] = self.version
        return {k: v for k, v in out.items() if v is not None}

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r}, title={self.title!r}, description={self.description!r})"



async def run_on_private_server(tool: Tool, arguments: dict[str, Any]) -> ToolResult:
    """``tool.run`` outside a request: register the tool on a private server and call it through the
    core's dispatch (its validation, its timeout). As FastMCP's ``run``, what the body raised is
    raised as it is, and a call that outlived the tool's timeout is the ``MCPError`` (-32000)
    FastMCP raises for it."""
    from .._fastmcp import FastMCP
    from ..server.middleware import Middleware
    from ..shared.exceptions import MCPError

    raised: list[BaseException] = []

    class _Raised(Middleware):
        async def on_call_tool(self, context: Any, call_next: Any) -> Any:
            try:
                return await call_next(context)
            except Exception as exc:
                raised.append(exc)
                raise

    server = FastMCP("tool-run")
    server.add_tool(tool)
    server.add_middleware(_Raised())
    try:
        return await call_through_core(server, tool.name, arguments)
    except ToolError as exc:
        if raised:
            error = raised[-1]
            raise (error.__cause__ if isinstance(error, ToolError) and error.__cause__ is not None
                   else error)
        timeout = getattr(tool, "timeout", None)
        deadline = f"Tool {tool.name!r} execution timed out after {timeout!r}s"
        if timeout is not None and str(exc) == f"Error calling tool {tool.name!r}: {deadline}":
            raise MCPError(code=-32000, message=deadline) from None
        raise


async def call_through_core(server: Any, name: str, arguments: dict[str, Any] | None,
                            meta: dict[str, Any] | None = None) -> ToolResult:
    """A ``tools/call`` of ``server``'s tool as a client's (with ``meta`` as its ``_meta``),
    answered as a :class:`ToolResult`; an ``isError`` answer raises :class:`ToolError` with its text."""
    from .._client import Client

    async with Client(server) as client:
        params: dict[str, Any] = {"name": name, "arguments": arguments or {}}
        if meta:
            params["_meta"] = meta
        result = await client.request("tools/call", params)
    if result.get("isError"):
        first = (result.get("content") or [{}])[0]
        raise ToolError(first.get("text") or f"Tool {name!r} returned an error")
    meta = {k: v for k, v in (result.get("_meta") or {}).items() if not k.startswith("io.modelcontextprotocol/")}
    return ToolResult._from_wire({**result, "_meta": meta or None})


def _check_signature(fn: Callable[..., Any]) -> None:
    """FastMCP's refusals of a signature a schema cannot describe, in its words."""
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return
    for p in params:
        if p.kind is inspect.Parameter.VAR_POSITIONAL:
            raise ValueError("Functions with *args are not supported as tools")
        if p.kind is inspect.Parameter.VAR_KEYWORD:
            raise ValueError("Functions with **kwargs are not supported as tools")
        if p.kind is inspect.Parameter.POSITIONAL_ONLY:
            # Arguments are passed by name: a positional-only parameter could never be given.
            raise ValueError("Functions with positional-only parameters are not supported as tools; "
                             "use standard parameters")

