"""JSON Schema 2020-12 from Python signatures, through pydantic.

Input schemas come from a pydantic model built from the parameters (``create_model``); output
schemas from a ``TypeAdapter`` of the return annotation. ``$defs`` are inlined unless a type is
recursive, so clients that do not resolve ``$ref`` still see the whole shape.
"""

from __future__ import annotations

import copy
import inspect
import typing
from dataclasses import dataclass
from typing import Any, Callable

import pydantic
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter
from pydantic.fields import FieldInfo
from pydantic.json_schema import GenerateJsonSchema

from ._docstring import parse_docstring
from ._errors import DefinitionError

__all__ = ["FunctionInfo", "analyze_function", "inline_defs", "schema_for_type"]


class _Generator(GenerateJsonSchema):
    """pydantic's generator without the auto-generated field titles ("A", "B", ...)."""

    def field_title_should_be_set(self, schema: Any) -> bool:  # noqa: D401
        return False


def schema_for_type(tp: Any, *, mode: str = "serialization") -> dict[str, Any]:
    """The inlined JSON Schema of one Python type (used for output schemas and elicitation)."""
    schema = TypeAdapter(tp).json_schema(mode=mode, schema_generator=_Generator)  # type: ignore[arg-type]
    return inline_defs(schema)


def inline_defs(schema: dict[str, Any]) -> dict[str, Any]:
    """Replace ``{"$ref": "#/$defs/X"}`` by the definition, keeping only recursive ones in ``$defs``."""
    defs: dict[str, Any] = schema.get("$defs", {})
    if not defs:
        return schema
    recursive = {name for name in defs if _reaches(name, defs[name], defs, set())}

    def walk(node: Any, stack: tuple[str, ...]) -> Any:
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and ref.startswith("#/$defs/"):
                name = ref[len("#/$defs/"):]
                if name in defs and name not in recursive and name not in stack:
                    siblings = {k: walk(v, stack) for k, v in node.items() if k != "$ref"}
                    body = walk(copy.deepcopy(defs[name]), stack + (name,))
                    if siblings:
                        body = {**body, **siblings}
                    return body
            return {k: walk(v, stack) for k, v in node.items() if k != "$defs"}
        if isinstance(node, list):
            return [walk(v, stack) for v in node]
        return node

    out = walk(schema, ())
    kept = {name: walk(defs[name], ()) for name in sorted(recursive)}
    if kept:
        out["$defs"] = kept
    return out


def _refs(node: Any) -> set[str]:
    found: set[str] = set()
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            found.add(ref[len("#/$defs/"):])
        for v in node.values():
            found |= _refs(v)
    elif isinstance(node, list):
        for v in node:
            found |= _refs(v)
    return found


def _reaches(target: str, node: Any, defs: dict[str, Any], seen: set[str]) -> bool:
    for name in _refs(node):
        if name == target:
            return True
        if name not in seen and name in defs:
            seen.add(name)
            if _reaches(target, defs[name], defs, seen):
                return True
    return False


@dataclass
class FunctionInfo:
    """What a decorated function turns into: its schemas and how to call it."""

    fn: Callable[..., Any]
    name: str
    description: str | None
    is_async: bool
    arg_model: type[BaseModel]
    input_schema: dict[str, Any]
    context_param: str | None
    param_names: list[str]
    param_descriptions: dict[str, str]
    return_annotation: Any
    output_schema: dict[str, Any] | None
    wrap_result: bool
    output_adapter: TypeAdapter[Any] | None
    raw_arguments: bool = False

    def convert_arguments(self, args: dict[str, Any]) -> dict[str, Any]:
        """Turn validated JSON arguments into the annotated Python types (models, enums, dataclasses)."""
        if self.raw_arguments:  # an explicit input_schema: the function gets the JSON values as they are
            return dict(args)
        model = self.arg_model.model_validate(args)
        return {name: getattr(model, name) for name in self.param_names}


def _is_context(annotation: Any) -> bool:
    from ._context import Context

    if annotation is Context:
        return True
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        return _is_context(typing.get_args(annotation)[0])
    if origin is typing.Union or (origin is not None and str(origin) == "<class 'types.UnionType'>"):
        return any(_is_context(a) for a in typing.get_args(annotation) if a is not type(None))
    return isinstance(annotation, type) and issubclass(annotation, Context)


# Return annotations that are content, not data: they never get an output schema.
def _is_content_annotation(annotation: Any) -> bool:
    from ._results import CONTENT_TYPES, ToolResult

    if annotation in (inspect.Signature.empty, None, type(None), Any, str, bytes):
        return True
    if typing.get_origin(annotation) in (list, tuple) and typing.get_args(annotation)[:1] == (Any,):
        return True  # list[Any]: anything goes, usually mixed content
    if isinstance(annotation, type) and issubclass(annotation, (ToolResult, *CONTENT_TYPES)):
        return True
    origin = typing.get_origin(annotation)
    if origin is list or origin is typing.Union or (origin is not None and str(origin) == "<class 'types.UnionType'>"):
        # list[Image], Image | None, list[Image | Audio]: content. list[str] is data (gets a schema).
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        return bool(args) and all(_is_content_class(a) for a in args)
    return False


def _is_content_class(annotation: Any) -> bool:
    from ._results import CONTENT_TYPES, ToolResult

    if isinstance(annotation, type) and issubclass(annotation, (ToolResult, *CONTENT_TYPES)):
        return True
    if typing.get_origin(annotation) is typing.Union or str(typing.get_origin(annotation)) == "<class 'types.UnionType'>":
        return all(_is_content_class(a) for a in typing.get_args(annotation) if a is not type(None))
    return False


def _is_object_schema(schema: dict[str, Any]) -> bool:
    return schema.get("type") == "object"


def analyze_function(
    fn: Callable[..., Any],
    *,
    name: str | None = None,
    description: str | None = None,
    output_schema: dict[str, Any] | None | bool = None,
    structured_output: bool | None = None,
    skip_params: tuple[str, ...] = (),
    input_schema: dict[str, Any] | None = None,
) -> FunctionInfo:
    """Inspect ``fn``: parameters → input schema, docstring → descriptions, return → output schema."""
    if not callable(fn):
        raise DefinitionError(f"{fn!r} is not callable")
    target = fn
    is_async = inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(getattr(fn, "__call__", None))
    try:
        hints = typing.get_type_hints(target, include_extras=True)
    except Exception as exc:  # unresolved forward refs: say which function
        raise DefinitionError(f"cannot resolve the type hints of {getattr(fn, '__qualname__', fn)!r}: {exc}") from exc
    sig = inspect.signature(target)
    doc = parse_docstring(inspect.getdoc(target))
    fields: dict[str, Any] = {}
    context_param: str | None = None
    param_names: list[str] = []
    for pname, param in sig.parameters.items():
        if input_schema is not None and param.kind is inspect.Parameter.VAR_KEYWORD:
            continue
        if param.kind in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD):
            raise DefinitionError(f"{fn.__name__}: *args/**kwargs cannot be described by a schema")
        annotation = hints.get(pname, Any)
        if _is_context(annotation):
            context_param = pname
            continue
        if pname in skip_params:
            continue
        if pname.startswith("_"):
            raise DefinitionError(f"{fn.__name__}: parameter {pname!r} starts with '_' (not allowed in a schema)")
        default = param.default if param.default is not inspect.Parameter.empty else ...
        doc_desc = doc.params.get(pname) or None
        # An explicit Field(description=...) (as default or in Annotated) wins over the docstring.
        if _annotated_description(annotation) is not None:
            doc_desc = None
        info: FieldInfo
        if isinstance(default, FieldInfo):
            info = default
            if doc_desc and info.description is None:
                info = FieldInfo.merge_field_infos(info, description=doc_desc)
        elif doc_desc:
            info = Field(default=default, description=doc_desc)
        else:
            info = Field(default=default)
        fields[pname] = (annotation, info)
        param_names.append(pname)
    model_name = f"{(name or fn.__name__)}Arguments"
    try:
        arg_model = pydantic.create_model(  # type: ignore[call-overload]
            model_name, __config__=ConfigDict(arbitrary_types_allowed=False), **fields
        )
        generated = arg_model.model_json_schema(mode="validation", schema_generator=_Generator)
    except Exception as exc:
        raise DefinitionError(f"{fn.__name__}: cannot build an input schema: {exc}") from exc
    raw_arguments = input_schema is not None
    if input_schema is None:
        input_schema = generated
        input_schema.pop("title", None)
        input_schema = inline_defs(input_schema)
        input_schema.setdefault("properties", {})

    ret = hints.get("return", sig.return_annotation)
    out_schema: dict[str, Any] | None = None
    wrap = False
    adapter: TypeAdapter[Any] | None = None
    if isinstance(output_schema, dict):
        out_schema = output_schema
        wrap = out_schema.get("type") != "object"
        if wrap:
            out_schema = _wrap(out_schema)
    elif structured_output is not False and output_schema is not False:
        want = structured_output is True or not _is_content_annotation(ret)
        if want and ret is not inspect.Signature.empty:
            try:
                adapter = TypeAdapter(ret)
                inner = schema_for_type(ret)
            except Exception as exc:
                if structured_output:
                    raise DefinitionError(f"{fn.__name__}: cannot build an output schema: {exc}") from exc
                inner = None
            if inner is not None:
                wrap = not _is_object_schema(inner)
                out_schema = _wrap(inner) if wrap else inner
        elif structured_output is True:
            raise DefinitionError(f"{fn.__name__}: structured_output=True needs a return annotation")
    if adapter is None and ret not in (inspect.Signature.empty,) and out_schema is not None:
        try:
            adapter = TypeAdapter(ret)
        except Exception:
            adapter = None
    return FunctionInfo(
        fn=fn,
        name=name or fn.__name__,
        description=description if description is not None else doc.summary,
        is_async=is_async,
        arg_model=arg_model,
        input_schema=input_schema,
        context_param=context_param,
        param_names=param_names,
        param_descriptions=doc.params,
        return_annotation=ret,
        output_schema=out_schema,
        wrap_result=wrap,
        output_adapter=adapter,
        raw_arguments=raw_arguments,
    )


def _wrap(inner: dict[str, Any]) -> dict[str, Any]:
    defs = inner.pop("$defs", None)
    out: dict[str, Any] = {"type": "object", "properties": {"result": inner}, "required": ["result"],
                           "x-oxmcp-wrap-result": True}
    if defs:
        out["$defs"] = defs
    return out


def _annotated_description(annotation: Any) -> str | None:
    if typing.get_origin(annotation) is typing.Annotated:
        for meta in typing.get_args(annotation)[1:]:
            if isinstance(meta, FieldInfo) and meta.description:
                return meta.description
    return None
