"""A function tool's listing as the ``mcp`` SDK writes it (``MCPServer`` of mcp 2.x, ``FastMCP`` of
mcp 1.x): pydantic's JSON Schemas as they are (titles, ``$defs``), the arguments model named
``{function}Arguments``, a return that is not an object model wrapped as ``{function}Output`` with
one ``result`` field (a ``dict`` return too), and the docstring whole as the description.

oxmcp's own analysis (``oxmcp._schema``) lists the compressed form FastMCP lists; the SDK layers
rewrite the entry with this before it is registered, so the core lists and checks these schemas.
"""

from __future__ import annotations

import inspect
import types
import typing
from typing import Annotated, Any

import pydantic
import typing_extensions
from pydantic import BaseModel, ConfigDict, WithJsonSchema
from pydantic.fields import FieldInfo

from ..._schema import _is_content_annotation, _is_context


def _typed(fn: Any) -> tuple[inspect.Signature, dict[str, Any]]:
    target = fn if inspect.isroutine(fn) else type(fn).__call__
    try:
        hints = typing.get_type_hints(target, include_extras=True)
    except Exception:  # noqa: BLE001  an annotation that does not resolve: the signature's own
        hints = {}
    return inspect.signature(fn), hints


def arguments_schema(fn: Any) -> dict[str, Any]:
    """The SDK's ``func_metadata(fn).arg_model.model_json_schema(by_alias=True)``: an unannotated
    parameter is a string titled by its name; a ``Context`` parameter is left out."""
    sig, hints = _typed(fn)
    fields: dict[str, Any] = {}
    for p in sig.parameters.values():
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        annotation = hints.get(p.name, p.annotation)
        if _is_context(annotation):
            continue
        if annotation is inspect.Parameter.empty:
            annotation = Annotated[Any, WithJsonSchema({"title": p.name, "type": "string"})]
        elif annotation is None:
            annotation = Annotated[None, pydantic.Field(default=None)]
        default = pydantic.fields.PydanticUndefined if p.default is inspect.Parameter.empty else p.default
        fields[p.name] = (annotation, FieldInfo.from_annotated_attribute(annotation, default))
    name = getattr(fn, "__name__", type(fn).__name__)
    model = pydantic.create_model(  # type: ignore[call-overload]
        f"{name}Arguments", __config__=ConfigDict(arbitrary_types_allowed=True),
        **{k: (v[0], v[1]) for k, v in fields.items()})
    return dict(model.model_json_schema(by_alias=True))


def _output_model(annotation: Any, func_name: str) -> tuple[Any, bool]:
    """The SDK's output model of a return annotation and whether a result is wrapped as
    ``{"result": ...}``: ``None`` (and the SDK's warning path) for a class without type hints.
    A model is listed by its own schema, a TypedDict or an annotated class by a model of its
    fields, ``dict[str, T]`` (the builtin generic) as the dict itself; anything else (primitives,
    ``list[...]``, unions, ``typing.Dict``) is wrapped in ``{func_name}Output``."""
    type_expr = annotation
    while typing.get_origin(type_expr) is Annotated:
        type_expr = typing.get_args(type_expr)[0]

    def wrapped() -> tuple[Any, bool]:
        return pydantic.create_model(f"{func_name}Output", result=annotation), True

    if type_expr is None:
        return wrapped()
    if isinstance(type_expr, types.GenericAlias):
        args = typing.get_args(type_expr)
        if typing.get_origin(type_expr) is dict and len(args) == 2 and args[0] is str:
            # Named as the SDK names it: the title is the model's name.
            root = type(f"{func_name}DictOutput", (pydantic.RootModel[type_expr],), {})  # type: ignore[index,valid-type]
            return root, False
        return wrapped()
    if not isinstance(type_expr, type):
        return wrapped()
    if issubclass(type_expr, BaseModel):
        return type_expr, False
    if typing_extensions.is_typeddict(type_expr):  # typing's and typing_extensions' alike
        from ..._schema import _pydantic_typeddict

        return pydantic.TypeAdapter(_pydantic_typeddict(type_expr)), False
    if type_expr in (str, int, float, bool, bytes, type(None)):
        return wrapped()
    hints = typing.get_type_hints(type_expr)
    if not hints:
        return None, False
    fields: dict[str, Any] = {k: (v if getattr(type_expr, k, _NO_DEFAULT) is _NO_DEFAULT else (v, getattr(type_expr, k)))
              for k, v in hints.items() if not k.startswith("_")}
    return pydantic.create_model(type_expr.__name__, __config__=ConfigDict(from_attributes=True),  # type: ignore[call-overload]
                                 **fields), False


_NO_DEFAULT = object()


def output_schema(fn: Any) -> tuple[dict[str, Any] | None, bool]:
    """The SDK's output schema of ``fn``'s return annotation, and whether a result is wrapped as
    ``{"result": ...}``: ``(None, False)`` without an annotation, or for content blocks."""
    sig, hints = _typed(fn)
    ret = hints.get("return", sig.return_annotation)
    if ret is inspect.Signature.empty or (ret is not str and ret is not None and _is_content_annotation(ret)):
        return None, False
    name = getattr(fn, "__name__", type(fn).__name__)
    try:
        model, wrap = _output_model(ret, name)
        if model is None:
            return None, False
        schema = dict(model.json_schema() if isinstance(model, pydantic.TypeAdapter) else model.model_json_schema())
    except Exception:  # noqa: BLE001  a type pydantic cannot describe: no output schema, as the SDK
        return None, False
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        # A self-referential model's root is a bare reference: the definition goes to the root
        # (Tool.outputSchema needs type: object there), $defs stays for the nested references.
        schema = {**schema["$defs"][ref.removeprefix("#/$defs/")], **{k: v for k, v in schema.items() if k != "$ref"}}
    return schema, wrap


def _returns_result(fn: Any) -> bool:
    from ...types import CallToolResult

    try:
        sig, hints = _typed(fn)
    except Exception:  # noqa: BLE001  an annotation that does not resolve: not a result class
        return False
    ret = hints.get("return", sig.return_annotation)
    return isinstance(ret, type) and issubclass(ret, CallToolResult)


def adapt(entry: Any) -> None:
    """Rewrite a function tool's listing (``entry.info``) as the SDK writes it. A tool whose schema
    was given (``raw_arguments``) keeps it; so does a tool whose output schema was given or refused."""
    info = entry.info
    fn = info.fn
    if fn is None or info.raw_arguments:
        return
    doc = getattr(fn, "__doc__", None)
    if doc and info.description and inspect.cleandoc(doc).startswith(info.description):
        info.description = doc  # the docstring the description was read from, whole and as written
    info.input_schema = arguments_schema(fn)
    info.param_descriptions = {}
    if _returns_result(fn):
        # A function annotated to return a whole CallToolResult has no output schema: its result
        # is passed on as it is.
        info.output_schema, info.wrap_result = None, False
    elif info.output_schema is not None:
        schema, wrap = output_schema(fn)
        if schema is not None:
            info.output_schema, info.wrap_result = schema, wrap


def content_of(value: Any) -> list[dict[str, Any]] | None:
    """The SDK's content blocks for a tool's return value (its ``_convert_to_content``): a string as
    it is, a list or tuple item by item, anything else as pydantic's JSON indented by 2. ``None``
    for a value that is, or holds, content or a whole result, which oxmcp's own rule renders."""
    import pydantic_core

    from ..._results import _BLOCK_TYPES, ToolResult, _Content, content_block

    def is_block(item: Any) -> bool:
        return isinstance(item, _Content) or getattr(item, "type", None) in _BLOCK_TYPES \
            or (isinstance(item, dict) and item.get("type") in _BLOCK_TYPES)

    if value is None:
        return []
    if isinstance(value, ToolResult) or is_block(value) or hasattr(value, "isError"):
        return None
    if isinstance(value, (list, tuple)):
        # Item by item: a content block (or helper) as it is, anything else by the rule above.
        blocks: list[dict[str, Any]] = []
        for item in value:
            part = [content_block(item)] if is_block(item) else content_of(item)
            if part is None:
                return None
            blocks += part
        return blocks
    if isinstance(value, str):
        return [{"type": "text", "text": value}]
    return [{"type": "text", "text": pydantic_core.to_json(value, fallback=str, indent=2).decode()}]


def check_value(entry: Any, value: Any) -> None:
    """The SDK's conversion of a tool's return value for its output schema: a value its return
    annotation refuses raises pydantic's ``ValidationError`` (the tool's crash). A content block or
    a whole result, which the SDK passes on, is not checked."""
    from ... import types as mcp_types
    from ..._results import ToolResult

    if isinstance(value, (mcp_types.CallToolResult, ToolResult, *typing.get_args(mcp_types.ContentBlock))):
        return
    adapter = entry.__dict__.get("_sdk_return_adapter", _NO_DEFAULT)
    if adapter is _NO_DEFAULT:
        try:
            sig, hints = _typed(entry.info.fn)
            ret = hints.get("return", sig.return_annotation)
            adapter = None if ret is inspect.Signature.empty else pydantic.TypeAdapter(_pydantic_return(ret))
        except Exception:  # noqa: BLE001  a type pydantic cannot check: the value is not checked
            adapter = None
        entry.__dict__["_sdk_return_adapter"] = adapter
    if adapter is not None:
        adapter.validate_python(value)


def _pydantic_return(annotation: Any) -> Any:
    from ..._schema import _pydantic_typeddict

    return _pydantic_typeddict(annotation)
