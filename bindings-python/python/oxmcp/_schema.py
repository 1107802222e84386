"""JSON Schema 2020-12 from Python signatures, through pydantic.

Input schemas come from a pydantic model built from the parameters (``create_model``); output
schemas from a ``TypeAdapter`` of the return annotation. ``$defs`` are inlined unless a type is
recursive, so clients that do not resolve ``$ref`` still see the whole shape.
"""

from __future__ import annotations

import collections.abc
import copy
import functools
import inspect
import sys
import typing
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pydantic
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter
from pydantic.fields import FieldInfo
from pydantic.json_schema import GenerateJsonSchema

from ._docstring import parse_docstring
from ._errors import DefinitionError
from ._inject import without_injected_parameters

__all__ = ["FunctionInfo", "analyze_function", "inline_defs", "schema_for_type"]


class _Generator(GenerateJsonSchema):
    """pydantic's generator without the auto-generated field titles ("A", "B", ...)."""

    def field_title_should_be_set(self, schema: Any) -> bool:
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


# Parameters of these exact types (with no default or a default of the type) make a "plain"
# signature: its schema is written directly and its arguments need no conversion, so no pydantic
# model is built for it unless something asks for one (``FunctionInfo.arg_model``). A pydantic
# model class costs ~10 KB of Python objects plus its compiled validator, per tool: most of what
# a generated server with thousands of `tool_i(a: int, b: int, note: str = "")` tools held.
_PLAIN_TYPES: dict[Any, str] = {int: "integer", float: "number", str: "string", bool: "boolean"}


def _plain_default(annotation: Any, default: Any) -> bool:
    if default is ...:
        return True
    if annotation is float:
        return type(default) in (int, float)
    return type(default) is annotation


# One shared dict per distinct plain input schema (generated tools share a few shapes); treat the
# schemas of a FunctionInfo as read-only.
_SHARED_SCHEMAS: dict[str, dict[str, Any]] = {}


def _shared(schema: dict[str, Any]) -> dict[str, Any]:
    import json

    key = json.dumps(schema)
    hit = _SHARED_SCHEMAS.get(key)
    if hit is None:
        if len(_SHARED_SCHEMAS) < 4096:
            _SHARED_SCHEMAS[key] = schema
        hit = schema
    return hit


def _plain_schema(params: list[tuple[str, Any, Any, str | None]]) -> dict[str, Any]:
    """The schema pydantic generates for these plain parameters, key for key."""
    props: dict[str, Any] = {}
    required: list[str] = []
    for pname, annotation, default, desc in params:
        prop: dict[str, Any] = {}
        if default is not ...:
            prop["default"] = default
        else:
            required.append(pname)
        if desc:
            prop["description"] = desc
        prop["type"] = _PLAIN_TYPES[annotation]
        props[pname] = prop
    out: dict[str, Any] = {"properties": props}
    if required:
        out["required"] = required
    out["type"] = "object"
    return _shared(out)


def _plain_value(annotation: Any, v: Any) -> tuple[bool, Any]:
    """``(ok, value)``: the value pydantic's lax mode gives for a JSON value of the schema's type."""
    t = type(v)
    if annotation is str:
        return t is str, v
    if annotation is bool:
        return t is bool, v
    if annotation is int:
        if t is int:
            return True, v
        return (t is float and v.is_integer()), (int(v) if t is float and v.is_integer() else v)
    if annotation is float:
        if t is float:
            return True, v
        return t is int, (float(v) if t is int else v)
    return False, v


# Output schemas of plain return types, shared (schema dict + TypeAdapter) by every tool.
_PLAIN_OUTPUTS: dict[Any, tuple[dict[str, Any], TypeAdapter[Any]]] = {}


@dataclass(slots=True)
class FunctionInfo:
    """What a decorated function turns into: its schemas and how to call it."""

    fn: Callable[..., Any]
    name: str
    description: str | None
    is_async: bool
    _model: type[BaseModel] | None
    input_schema: dict[str, Any]
    context_param: str | None
    param_names: list[str]
    param_descriptions: dict[str, str]
    return_annotation: Any
    output_schema: dict[str, Any] | None
    wrap_result: bool
    output_adapter: TypeAdapter[Any] | None
    raw_arguments: bool = False
    #: For a plain signature: ``(name, annotation, default or ...)`` per parameter; the model is
    #: then built on first use only (from ``_fields``).
    _plain: tuple[tuple[str, Any, Any, str | None], ...] | None = None
    #: With an explicit input schema: the parameters' fields, for a model built on first use.
    _fields: dict[str, Any] | None = None

    @property
    def arg_model(self) -> type[BaseModel]:
        """The pydantic model of the parameters (built on first use for a plain signature or an
        explicit input schema)."""
        if self._model is None:
            fields = self._fields if self._fields is not None else {
                p: (a, Field(default=d, description=desc) if desc else Field(default=d))
                for p, a, d, desc in self._plain or ()}
            self._model = _create_model(self.name, fields)
        return self._model

    def convert_arguments(self, args: dict[str, Any], by_name: bool = False) -> dict[str, Any]:
        """Turn validated JSON arguments into the annotated Python types (models, enums, dataclasses).
        ``by_name``: the keys are the parameters' names, not their pydantic aliases."""
        if self.raw_arguments:  # an explicit input_schema: the function gets the JSON values as they are
            return dict(args)
        if self._plain is not None:
            out: dict[str, Any] = {}
            for pname, annotation, default, _ in self._plain:
                if pname in args:
                    v = args[pname]
                    if type(v) is not annotation:  # (the exact type: what _plain_value keeps as is)
                        ok, v = _plain_value(annotation, v)
                        if not ok:
                            break  # not what the schema allows: let pydantic say why
                    out[pname] = v
                elif default is ...:
                    break
                else:
                    out[pname] = default
            else:
                return out
        model = self.arg_model.model_validate(args, by_alias=False, by_name=True) if by_name \
            else self.arg_model.model_validate(args)
        return {name: getattr(model, _field_name(name)) for name in self.param_names}


_PLAIN_NAMES: dict[str, Any] = {"int": int, "float": float, "str": str, "bool": bool, "None": None}


def _plain_hints(fn: Any) -> dict[str, Any] | None:
    """The type hints of a function annotated with plain types only (as types, or as the strings
    ``from __future__ import annotations`` makes of them), without ``typing.get_type_hints``,
    which compiles every string annotation (most of the time of registering such a tool).
    ``None`` when anything else is there."""
    ann = getattr(fn, "__annotations__", None)
    if not isinstance(ann, dict) or not inspect.isfunction(fn):
        return None
    glb = getattr(fn, "__globals__", {})
    out: dict[str, Any] = {}
    for k, v in ann.items():
        if isinstance(v, str):
            if v not in _PLAIN_NAMES or v in glb:  # a module may shadow a builtin name
                return None
            v = _PLAIN_NAMES[v]
        elif v not in _PLAIN_TYPES and v is not None:
            return None
        out[k] = type(None) if v is None else v
    return out


# Generated servers define thousands of functions from a few templates: the same code, defaults,
# annotations and docstring. Their signatures and parsed docstrings are computed once.
@functools.lru_cache(maxsize=1024)
def _parsed_doc(raw: str) -> Any:
    return parse_docstring(raw)  # shared between tools: read-only


_SIGNATURES: dict[Any, inspect.Signature] = {}


def _signature(fn: Any) -> inspect.Signature:
    """``inspect.signature(fn)``, from a cache for plain functions (a signature is a function of
    the code, the defaults and the annotations)."""
    if not inspect.isfunction(fn) or hasattr(fn, "__wrapped__") or hasattr(fn, "__signature__"):
        return inspect.signature(fn)
    try:
        # Defaults by identity (1 == True, yet they are different defaults); the cached
        # signature holds them, so their ids cannot be reused while it is cached.
        kw = fn.__kwdefaults__
        key = (fn.__code__, tuple(map(id, fn.__defaults__ or ())), tuple((k, id(v)) for k, v in kw.items()) if kw else None,
               tuple(fn.__annotations__.items()))
        hit = _SIGNATURES.get(key)
    except TypeError:  # an unhashable default or annotation
        return inspect.signature(fn)
    if hit is None:
        hit = inspect.signature(fn)
        if len(_SIGNATURES) < 1024:
            _SIGNATURES[key] = hit
    return hit


def _field_name(pname: str) -> str:
    """The model field of a parameter: pydantic keeps a leading ``_`` for private attributes, so a
    parameter ``_a`` is the field ``u_a`` whose alias (what the schema and the arguments say) is ``_a``."""
    return "u" + pname if pname.startswith("_") else pname


def _create_model(name: str, fields: dict[str, Any]) -> type[BaseModel]:
    named: dict[str, Any] = {}
    for pname, (annotation, info) in fields.items():
        if pname.startswith("_"):
            if _field_name(pname) in fields:
                raise DefinitionError(f"{name}: parameters {pname!r} and {_field_name(pname)!r} cannot both be described")
            info = FieldInfo.merge_field_infos(info, Field(alias=pname))
        named[_field_name(pname)] = (annotation, info)
    return pydantic.create_model(  # type: ignore[call-overload, no-any-return]
        f"{name}Arguments", __config__=ConfigDict(arbitrary_types_allowed=False), **named
    )


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
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if (origin is list and args[:1] == (Any,)) or (origin is tuple and args == (Any, Ellipsis)):
        return True  # list[Any], tuple[Any, ...]: anything goes, usually mixed content (tuple[Any] is one value)
    if isinstance(annotation, type) and issubclass(annotation, (ToolResult, *CONTENT_TYPES)):
        return True
    if _is_sdk_content_model(annotation) or _is_call_tool_result(annotation):
        return True
    if origin is list or origin is typing.Union or (origin is not None and str(origin) == "<class 'types.UnionType'>"):
        # list[Image], Image | None, list[Image | Audio]: content. list[str] is data (gets a schema).
        members = [a for a in args if a is not type(None)]
        return bool(members) and all(_is_content_class(a) for a in members)
    return False


def _sdk_output_wanted(annotation: Any) -> bool:
    """The SDKs' rule (mcp's ``func_metadata``) for which return annotations get an output schema:
    a class gets one when it is a model, a TypedDict, a primitive or a class with annotated fields,
    and any other annotation (``list[...]``, a union, ``None``) whenever pydantic can describe it; a
    bare class such as ``list`` or ``dict``, and ``CallToolResult``, get none."""
    from ._results import CONTENT_TYPES, ToolResult

    if annotation is inspect.Signature.empty or _is_call_tool_result(annotation):
        return False
    if annotation is None or annotation is type(None):
        return True
    if not isinstance(annotation, type) or typing.get_origin(annotation) is not None:
        return True
    if issubclass(annotation, (ToolResult, *CONTENT_TYPES)):
        return False  # oxmcp's own content helpers (Image, Audio, File) are not data
    if issubclass(annotation, (BaseModel, str, int, float, bool, bytes)) or typing.is_typeddict(annotation):
        return True
    try:
        return bool(typing.get_type_hints(annotation))
    except Exception:  # noqa: BLE001  a class whose hints cannot be resolved: no schema, as in the SDK
        return False


def _sdk_returns_content(annotation: Any) -> bool:
    """mcp 2.x's exception to that rule: an annotation that names a content block or a content helper,
    bare or as an item of a list or tuple or an arm of a union, gets no output schema."""
    origin = typing.get_origin(annotation)
    if origin is None:
        return _is_content_class(annotation)
    if origin is typing.Annotated:
        return _sdk_returns_content(typing.get_args(annotation)[0])
    if origin in (list, tuple, typing.Union, collections.abc.Sequence) or str(origin) == "<class 'types.UnionType'>":
        return any(_sdk_returns_content(a) for a in typing.get_args(annotation))
    return False


def _is_content_class(annotation: Any) -> bool:
    from ._results import CONTENT_TYPES, ToolResult

    if isinstance(annotation, type) and issubclass(annotation, (ToolResult, *CONTENT_TYPES)) \
            or _is_sdk_content_model(annotation):
        return True
    if typing.get_origin(annotation) is typing.Union or str(typing.get_origin(annotation)) == "<class 'types.UnionType'>":
        return all(_is_content_class(a) for a in typing.get_args(annotation) if a is not type(None))
    return False


def _deref_root(schema: dict[str, Any]) -> dict[str, Any]:
    """A schema whose root is a ``$ref`` (a recursive model) with the definition at the root, the
    ``$defs`` kept for the inner references: an output schema's root must say ``type: object``."""
    ref = schema.get("$ref")
    defs = schema.get("$defs") or {}
    if not isinstance(ref, str) or not ref.startswith("#/$defs/") or ref[8:] not in defs:
        return schema
    out = {**defs[ref[8:]], **{k: v for k, v in schema.items() if k not in ("$ref", "$defs")}}
    out["$defs"] = defs
    return out


def _is_sdk_content_model(annotation: Any) -> bool:
    """A content block model of either SDK generation (``mcp.types``, ``mcp_types``): a pydantic
    model whose ``type`` is one of the content block types."""
    if not (isinstance(annotation, type) and issubclass(annotation, BaseModel)):
        return False
    field = annotation.model_fields.get("type")
    return field is not None and field.default in ("text", "image", "audio", "resource", "resource_link")


def _is_call_tool_result(annotation: Any) -> bool:
    """The SDK's whole ``CallToolResult``: the function answers the result itself, so there is no
    output schema to infer (as the SDKs and FastMCP infer none)."""
    if not (isinstance(annotation, type) and issubclass(annotation, BaseModel)):
        return False
    from .types import CallToolResult

    return issubclass(annotation, CallToolResult)


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
    str_is_data: bool = False,
    sdk_outputs: int | None = None,
    underscore_params: bool = False,
) -> FunctionInfo:
    """Inspect ``fn``: parameters → input schema, docstring → descriptions, return → output schema."""
    if not callable(fn):
        raise DefinitionError(f"{fn!r} is not callable")
    # Parameters a dependency supplies (FastMCP's ``Depends``) are resolved per call, not listed.
    fn = without_injected_parameters(fn)
    unwrapped: Any = fn
    while isinstance(unwrapped, functools.partial):
        unwrapped = unwrapped.func
    # A partial given its own __name__/__doc__ (they are its attributes) is described by them.
    fn_name = vars(fn).get("__name__") if isinstance(fn, functools.partial) else None
    fn_name = fn_name or getattr(unwrapped, "__name__", None) or type(unwrapped).__name__
    target = fn
    if not (inspect.isroutine(fn) or inspect.isclass(fn) or isinstance(fn, functools.partial)):
        # A callable object: its ``__call__`` (bound) has the signature and the hints.
        target = type(fn).__call__.__get__(fn)
    # (An async generator function runs on the loop too: what it yields is consumed there.)
    is_async = inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(type(fn).__call__) \
        or inspect.iscoroutinefunction(unwrapped) or inspect.isasyncgenfunction(unwrapped)
    try:
        # A partial: the wrapped function's hints (its signature, below, is the partial's own).
        hints = _plain_hints(unwrapped if unwrapped is not fn else target)
        if hints is None:
            hints = typing.get_type_hints(unwrapped if unwrapped is not fn else target, include_extras=True)
    except Exception as exc:  # unresolved forward refs: say which function
        raise DefinitionError(f"cannot resolve the type hints of {getattr(fn, '__qualname__', fn)!r}: {exc}") from exc
    sig = _signature(target)
    doc_of = unwrapped if unwrapped is not fn and "__doc__" not in vars(fn) else target
    raw_doc = doc_of.__doc__ if inspect.isfunction(doc_of) or doc_of is fn else None
    doc = _parsed_doc(raw_doc) if isinstance(raw_doc, str) else parse_docstring(inspect.getdoc(doc_of))
    fields: dict[str, Any] = {}
    context_param: str | None = None
    param_names: list[str] = []
    # (name, annotation, default, description) while the signature is plain; None once it is not.
    plain: list[tuple[str, Any, Any, str | None]] | None = [] if input_schema is None else None
    for pname, param in sig.parameters.items():
        if input_schema is not None and param.kind is inspect.Parameter.VAR_KEYWORD:
            continue
        if param.kind in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD):
            raise DefinitionError(f"{fn_name}: *args/**kwargs cannot be described by a schema")
        annotation = hints.get(pname, Any)
        if _is_context(annotation):
            context_param = pname
            continue
        if pname in skip_params:
            continue
        if pname.startswith("_") and not underscore_params:
            raise DefinitionError(f"{fn_name}: parameter {pname!r} starts with '_' (not allowed in a schema)")
        default = param.default if param.default is not inspect.Parameter.empty else ...
        doc_desc = doc.params.get(pname) or None
        param_names.append(pname)
        if plain is not None:
            if annotation in _PLAIN_TYPES and _plain_default(annotation, default):
                plain.append((pname, annotation, default, doc_desc))
                continue  # no FieldInfo: the model, if ever needed, is built from `plain`
            # not plain after all: the parameters before this one need their fields now
            for p, a, d, desc in plain:
                fields[p] = (a, Field(default=d, description=desc) if desc else Field(default=d))
            plain = None
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
        extend = _description_extension(annotation)
        if extend is not None:
            info = FieldInfo.merge_field_infos(
                info, description=extend(info.description or _annotated_description(annotation)))
        fields[pname] = (annotation, info)
    arg_model: type[BaseModel] | None = None
    raw_arguments = input_schema is not None
    if plain is not None:
        input_schema = _plain_schema(plain)
    elif raw_arguments:
        # The schema is given and the function gets the JSON values as they are: no model is
        # needed to describe or convert them, and building one costs more than the rest of a
        # registration (a generated catalog registers thousands this way).
        pass
    else:
        try:
            arg_model = _create_model(name or fn_name, fields)
            generated = arg_model.model_json_schema(mode="validation", schema_generator=_Generator)
        except Exception as exc:
            raise DefinitionError(f"{fn_name}: cannot build an input schema: {exc}") from exc
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
        elif out_schema.get("x-fastmcp-wrap-result") is True:
            # An object schema with FastMCP's marker describes the result already wrapped under
            # `result` (FastMCP wraps the return value, as its client unwraps it).
            wrap = True
    elif structured_output is None and output_schema is None and ret in _PLAIN_OUTPUTS_OF:
        if ret not in _PLAIN_OUTPUTS:
            _PLAIN_OUTPUTS[ret] = (_wrap(schema_for_type(ret)), TypeAdapter(ret))
        out_schema, adapter = _PLAIN_OUTPUTS[ret]
        wrap = True
    elif structured_output is not False and output_schema is not False:
        want = structured_output is True or (
            _sdk_output_wanted(ret) and not (sdk_outputs >= 2 and _sdk_returns_content(ret)) if sdk_outputs
            else not _is_content_annotation(ret) or (str_is_data and ret is str))
        if want and ret is not inspect.Signature.empty:
            try:
                ret = _pydantic_typeddict(ret)
                adapter = TypeAdapter(ret)
                inner = schema_for_type(ret)
            except Exception as exc:
                if structured_output:
                    raise DefinitionError(f"{fn_name}: cannot build an output schema: {exc}") from exc
                inner = None
            if inner is not None:
                inner = _deref_root(inner)
                wrap = not _is_object_schema(inner)
                out_schema = _wrap(inner) if wrap else inner
        elif structured_output is True:
            raise DefinitionError(f"{fn_name}: structured_output=True needs a return annotation")
    if adapter is None and ret not in (inspect.Signature.empty,) and out_schema is not None:
        try:
            adapter = TypeAdapter(ret)
        except Exception:  # noqa: BLE001  a type pydantic cannot adapt: the result is converted without it
            adapter = None
    return FunctionInfo(
        fn=fn,
        name=name or fn_name,
        description=description if description is not None else doc.summary,
        is_async=is_async,
        _model=arg_model,
        input_schema=input_schema,
        context_param=context_param,
        param_names=param_names,
        param_descriptions=doc.params,
        return_annotation=ret,
        output_schema=out_schema,
        wrap_result=wrap,
        output_adapter=adapter,
        raw_arguments=raw_arguments,
        _plain=None if plain is None else tuple(plain),
        _fields=fields if raw_arguments else None,
    )


# Return types whose output schema (``{"result": ...}``, wrapped) and adapter every tool shares.
_PLAIN_OUTPUTS_OF = (int, float, bool)


def _pydantic_typeddict(tp: Any) -> Any:
    """pydantic refuses ``typing.TypedDict`` before Python 3.12: rebuild it as ``typing_extensions.TypedDict``."""
    if sys.version_info >= (3, 12) or not typing.is_typeddict(tp) or type(tp).__module__ == "typing_extensions":
        return tp
    import typing_extensions

    hints = typing.get_type_hints(tp, include_extras=True)
    fields: dict[str, Any] = {}
    for key, hint in hints.items():
        if key in getattr(tp, "__required_keys__", set(hints)):
            fields[key] = typing_extensions.Required[hint]
        else:
            fields[key] = typing_extensions.NotRequired[hint]
    # A TypedDict built at run time from another's hints: mypy checks only literal TypedDict calls.
    rebuilt = typing_extensions.TypedDict(tp.__name__, fields)  # type: ignore[misc]
    rebuilt.__doc__ = tp.__doc__
    return rebuilt


def _wrap(inner: dict[str, Any]) -> dict[str, Any]:
    defs = inner.pop("$defs", None)
    out: dict[str, Any] = {"type": "object", "properties": {"result": inner}, "required": ["result"],
                           "x-oxmcp-wrap-result": True}
    if defs:
        out["$defs"] = defs
    return out


def _description_extension(annotation: Any) -> Any:
    """The ``extend_description(given) -> str`` of a marker in ``annotation``'s metadata, if any: a
    marker that adds to a parameter's description (FastMCP's ``SessionId`` says how to get an id),
    after the author's own (a ``Field``, the docstring)."""
    if typing.get_origin(annotation) is typing.Annotated:
        for meta in typing.get_args(annotation)[1:]:
            extend = getattr(type(meta), "extend_description", None)
            if extend is not None:
                return meta.extend_description
    return None


def _annotated_description(annotation: Any) -> str | None:
    if typing.get_origin(annotation) is typing.Annotated:
        for meta in typing.get_args(annotation)[1:]:
            if isinstance(meta, FieldInfo) and meta.description:
                return meta.description
    return None
