"""``mcp.server.elicitation``: the SDK's elicitation helpers and result types.

``elicit_with_validation(session, message, schema)`` asks the client to fill a form described by a
pydantic model (primitive fields only, as the SDK requires) and returns ``AcceptedElicitation(data=...)``,
``DeclinedElicitation()`` or ``CancelledElicitation()``; ``elicit_url(session, message, url,
elicitation_id)`` asks the client to visit a URL and returns ``AcceptedUrlElicitation()`` or one of the
other two. The requests go through the core (``ctx.session``), in either era: a legacy session's
``elicitation/create`` request, or a modern request's ``input_required`` round.
"""

from __future__ import annotations

import types
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal, Union, get_args, get_origin

from pydantic.json_schema import GenerateJsonSchema
from typing_extensions import TypeAliasType, TypeVar

from .._compat_ctx import AcceptedElicitation, CancelledElicitation, DeclinedElicitation

__all__ = ["AcceptedElicitation", "AcceptedUrlElicitation", "CancelledElicitation", "DeclinedElicitation",
           "ElicitationResult", "UrlElicitationResult", "elicit_url", "elicit_with_validation"]

_PRIMITIVES = (str, int, float, bool)


@dataclass
class AcceptedUrlElicitation:
    """The user accepted to visit the URL (the interaction itself happens out of band)."""

    action: Literal["accept"] = "accept"


_T = TypeVar("_T")
#: ``ElicitationResult[T]``: what a form elicitation shaped by ``T`` comes back as.
ElicitationResult = TypeAliasType("ElicitationResult", AcceptedElicitation[_T] | DeclinedElicitation
                                  | CancelledElicitation, type_params=(_T,))
UrlElicitationResult = AcceptedUrlElicitation | DeclinedElicitation | CancelledElicitation


def _is_string_choice(annotation: Any) -> bool:
    """``Literal["a", "b"]``: a choice of strings (the spec's enum schema)."""
    return get_origin(annotation) is Literal and all(isinstance(a, str) for a in get_args(annotation))


def _is_string_sequence(annotation: Any) -> bool:
    """``list[str]``, or ``list[Literal[...]]`` of strings (the spec's multi-select enum schema)."""
    origin, args = get_origin(annotation), get_args(annotation)
    try:
        return bool(origin) and issubclass(origin, Sequence) and len(args) == 1 \
            and (args[0] is str or _is_string_choice(args[0]))
    except TypeError:
        return False


def _is_primitive(annotation: Any) -> bool:
    if annotation in _PRIMITIVES or _is_string_choice(annotation):
        return True
    if get_origin(annotation) in (Union, types.UnionType):
        return all(a is types.NoneType or a in _PRIMITIVES or _is_string_sequence(a) for a in get_args(annotation))
    return False


class _FormSchema(GenerateJsonSchema):
    """mcp 2.x's rendering of a form's model: the spec's primitive schemas have no ``anyOf`` and
    no null type, so ``T | None`` is written as ``T`` (optional by being left out of ``required``)
    and a ``None`` default is not written."""

    def nullable_schema(self, schema: Any) -> Any:
        return self.generate_inner(schema["schema"])

    def default_schema(self, schema: Any) -> Any:
        out = super().default_schema(schema)
        if "default" in out and out["default"] is None:
            del out["default"]
        return out


def render_form_schema(schema: Any) -> dict[str, Any]:
    """The ``requestedSchema`` mcp 2.x sends for a form's model; ``TypeError`` for a field that
    renders as no primitive schema of the spec (a string list without choices, a union of types)."""
    out = dict(schema.model_json_schema(schema_generator=_FormSchema))
    for name, prop in (out.get("properties") or {}).items():
        kind = prop.get("type") if isinstance(prop, dict) else None
        items = prop.get("items") if isinstance(prop, dict) else None
        choices = isinstance(items, dict) and ("enum" in items or "anyOf" in items or "oneOf" in items)
        if kind not in ("string", "number", "integer", "boolean", "array") or (kind == "array" and not choices):
            raise TypeError(f"Elicitation schema field {name!r} rendered as {prop!r}, which is not a valid "
                            "PrimitiveSchemaDefinition")
    return out


def validate_elicitation_schema(schema: Any) -> None:
    """The SDK's rule for a form's model: each field a primitive, a sequence of strings, or an Optional of
    these (``TypeError`` otherwise)."""
    for name, field in schema.model_fields.items():
        annotation = field.annotation
        if annotation is None or annotation is types.NoneType or _is_primitive(annotation) \
                or _is_string_sequence(annotation):
            continue
        raise TypeError(f"Elicitation schema field '{name}' must be a primitive type {_PRIMITIVES}, a sequence "
                        "of strings (list[str], etc.), or Optional of these types. Nested models and complex "
                        "types are not allowed.")


async def elicit_with_validation(session: Any, message: str, schema: Any, related_request_id: Any = None) -> Any:
    """Ask for a form shaped by ``schema`` (a pydantic model); the answer validated into it."""
    validate_elicitation_schema(schema)
    result = await session.elicit_form(message=message, requestedSchema=schema.model_json_schema(),
                                       related_request_id=related_request_id)
    if result.action == "accept" and result.content is not None:
        return AcceptedElicitation(data=schema.model_validate(result.content))
    if result.action == "decline":
        return DeclinedElicitation()
    return CancelledElicitation()


async def elicit_url(session: Any, message: str, url: str, elicitation_id: str,
                     related_request_id: Any = None) -> Any:
    """Ask the user to visit ``url``: whether they accepted, declined or cancelled."""
    result = await session.elicit_url(message=message, url=url, elicitation_id=elicitation_id,
                                      related_request_id=related_request_id)
    if result.action == "accept":
        return AcceptedUrlElicitation()
    if result.action == "decline":
        return DeclinedElicitation()
    return CancelledElicitation()
