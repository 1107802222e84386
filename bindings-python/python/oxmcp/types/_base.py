"""The base of every generated ``oxmcp.types`` model: both SDK generations' field spellings.

mcp 1.x's ``mcp.types`` names fields as the wire does (``inputSchema``, ``isError``); mcp 2.x's
(``mcp_types``) spells them in snake_case (``input_schema``, ``is_error``) with the wire names as
aliases. A server written for either builds these models unchanged: a snake_case keyword is taken
as the wire field it spells, and read back under either name. Dumps (``by_alias=True``, what oxmcp
sends) are the wire's either way.

A dump by field name (``model_dump()``) names ``_meta`` ``meta``, as both SDKs do, and the other
fields as the generation the process serves names them (``GENERATION``, which the import hook
sets from the ``mcp`` it stands for): the wire's spelling for mcp 1.x, snake_case for mcp 2.x.
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar

from pydantic import (
    AnyUrl,
    BaseModel,
    PlainSerializer,
    SerializationInfo,
    SerializerFunctionWrapHandler,
    ValidatorFunctionWrapHandler,
    WrapValidator,
    model_serializer,
    model_validator,
)

__all__ = ["GENERATION", "SpecModel", "Uri"]


class _Generation:
    """The ``mcp`` generation whose reading of the models this process serves (1 or 2)."""

    major = 1


GENERATION = _Generation()


def _uri_in(value: Any, handler: ValidatorFunctionWrapHandler) -> Any:
    if GENERATION.major == 2 and isinstance(value, (str, AnyUrl)):
        return str(value)
    return handler(value)


def _uri_out(value: Any, info: SerializationInfo) -> Any:
    return str(value) if info.mode_is_json() else value


#: A resource's URI: a pydantic ``AnyUrl`` in mcp 1.x's types, the string as given in mcp 2.x's.
Uri = Annotated[AnyUrl, WrapValidator(_uri_in), PlainSerializer(_uri_out)]


def _camel(name: str) -> str:
    if name == "meta":  # both SDKs' name for `_meta` (the generator's is `field_meta`)
        return "field_meta"
    head, *rest = name.split("_")
    return head + "".join(w[:1].upper() + w[1:] for w in rest)


def _other_name(name: str) -> bool:
    return name == "meta" or "_" in name.strip("_")


def _keep_given(model: BaseModel, data: dict[str, Any], info: SerializationInfo) -> None:
    """A 2026-07-28 field left out of dumps at its default (``resultType`` "complete", ``ttlMs`` 0:
    what a result a handler returns leaves to the core) is dumped when the result was given it, as
    one read from the wire is: mcp 2.x's models dump those fields."""
    if info.exclude_defaults or info.exclude_unset:
        return
    fields = type(model).__pydantic_fields__
    for name in model.model_fields_set:
        field = fields.get(name)
        if field is not None and field.exclude_if is not None and name not in data \
                and not (info.exclude and name in info.exclude):
            data[name] = getattr(model, name)


def _python_name(field: str, snake: bool) -> str:
    if field == "field_meta":
        return "meta"
    return _snake(field) if snake else field


def _snake(name: str) -> str:
    return "".join("_" + c.lower() if c.isupper() else c for c in name)


class SpecModel(BaseModel):
    #: Wire members a model that does not declare them drops when they hold these values (a
    #: ``Result`` subclass reads the 2026-07-28 defaults as absent, as mcp 2.x's results do).
    undeclared_defaults: ClassVar[dict[str, Any]] = {}

    @model_validator(mode="before")
    @classmethod
    def _wire_names(cls, data: Any) -> Any:
        """``input_schema=`` (mcp 2.x) is ``inputSchema`` (the wire's, mcp 1.x's); and the wire's
        ``receiptToken`` is the ``receipt_token`` field of a server's or client's own subclass
        (mcp 2.x's models take their fields' camelCase spelling from the wire)."""
        if not isinstance(data, dict):
            return data
        fields = cls.model_fields
        renamed: dict[str, Any] | None = None
        for key in data:
            if isinstance(key, str) and _other_name(key) and key not in fields:
                wire = _camel(key)
                if wire in fields and wire not in data and fields[wire].alias not in data:
                    if renamed is None:
                        renamed = dict(data)
                    renamed[wire] = renamed.pop(key)
            elif isinstance(key, str) and key not in fields and key[:1].islower() and not key.islower():
                snake = _snake(key)
                if snake in fields and snake not in data and fields[snake].alias is None:
                    if renamed is None:
                        renamed = dict(data)
                    renamed[snake] = renamed.pop(key)
        for key, default in cls.undeclared_defaults.items():
            if key not in fields and key in data and data[key] == default:
                if renamed is None:
                    renamed = dict(data)
                del renamed[key]
        return data if renamed is None else renamed

    @model_serializer(mode="wrap")
    def _field_names(self, handler: SerializerFunctionWrapHandler, info: SerializationInfo):  # type: ignore[no-untyped-def]
        """A dump by field name: ``meta`` for ``_meta``, and mcp 2.x's snake_case under its generation.
        Only this model's own fields are renamed (its extras and dict values keep their keys). No
        return annotation: the serialization JSON schema stays the model's."""
        data = handler(self)
        snake = GENERATION.major == 2
        if (info.by_alias and not snake) or not isinstance(data, dict):
            return data  # the wire's dump under mcp 1.x: as the schema writes it
        if snake:
            _keep_given(self, data, info)
            if info.by_alias:
                return data
        fields = type(self).__pydantic_fields__
        return {(_python_name(key, snake) if key in fields else key): value for key, value in data.items()}

    def __getattr__(self, name: str) -> Any:
        try:
            return super().__getattr__(name)  # type: ignore[misc]
        except AttributeError:
            wire = _camel(name) if _other_name(name) else None
            if wire is not None and wire in type(self).model_fields:
                return getattr(self, wire)
            raise

    def __setattr__(self, name: str, value: Any) -> None:
        """``result.meta = None`` (mcp 2.x) sets ``_meta``, as reading it does."""
        fields = type(self).model_fields
        if name not in fields and _other_name(name):
            wire = _camel(name)
            if wire in fields:
                name = wire
        super().__setattr__(name, value)
