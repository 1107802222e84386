"""What mcp 1.x's low-level ``Server`` does around a ``tools/call`` handler, on the core's schema check.

The SDK checks a call's arguments against the ``inputSchema`` of the tool as its last ``tools/list``
listed it, and a structured result against its ``outputSchema``, with python-jsonschema
(``jsonschema.validate``). oxmcp checks with the core's JSON Schema validator and words the failure
as ``jsonschema.validate`` reports it: the best-matching error (python-jsonschema's ``best_match``:
the shallowest, then the latest sibling, then not an ``anyOf``/``oneOf``), in python-jsonschema's
text (values as Python ``repr``s). A keyword whose text is not python-jsonschema's common one keeps
the core's text.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

__all__ = ["error_result", "problem", "tool_result"]

#: python-jsonschema's weak keywords: an error of one loses to a sibling of another keyword.
_WEAK = ("anyOf", "oneOf")


def problem(schema: Any, instance: Any) -> str | None:
    """The text of the best-matching violation of ``instance`` against ``schema``, or None if valid."""
    from ... import _oxmcp

    failures = _extras_together(schema, instance, _oxmcp.schema_failures(schema, instance))
    if not failures:
        return None
    best = max(failures, key=_relevance)  # the first of equals, as max() keeps it
    return _text(best, schema)


def _extras_together(schema: Any, instance: Any, failures: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The core fails what ``additionalProperties: false`` refuses as its false schema; python-jsonschema
    reports one ``additionalProperties`` error on the object, naming every unexpected property."""
    out: list[dict[str, Any]] = []
    seen: set[str] = set()
    for f in failures:
        if f["keyword"] == "falseSchema":
            for parent in (f["pointer"].rpartition("/")[0], f["pointer"]):
                node, value = _node(schema, parent), _value(instance, parent)
                if isinstance(node, dict) and node.get("additionalProperties") is False \
                        and "patternProperties" not in node and isinstance(value, dict):
                    extras = [k for k in value if k not in (node.get("properties") or {})]
                    if extras:
                        if parent in seen:
                            f = {}
                        else:
                            seen.add(parent)
                            f = {**f, "pointer": parent, "keyword": "additionalProperties", "argument": extras}
                        break
        if f:
            out.append(f)
    return out


def _value(instance: Any, pointer: str) -> Any:
    for seg in pointer.split("/")[1:]:
        seg = seg.replace("~1", "/").replace("~0", "~")
        if isinstance(instance, dict):
            instance = instance.get(seg)
        elif isinstance(instance, list) and seg.isdigit() and int(seg) < len(instance):
            instance = instance[int(seg)]
        else:
            return None
    return instance


def _relevance(failure: dict[str, Any]) -> tuple[Any, ...]:
    path = [int(s) if s.isdigit() else s for s in failure["pointer"].split("/")[1:]]
    return (-len(path), _Path(path), failure["keyword"] not in _WEAK)


class _Path(list):  # type: ignore[type-arg]
    """A path compared as python-jsonschema compares two (a key and an index never tie-break)."""

    def __gt__(self, other: object) -> bool:
        try:
            return list(self) > list(other)  # type: ignore[call-overload]
        except TypeError:
            return False

    def __lt__(self, other: object) -> bool:
        try:
            return list(self) < list(other)  # type: ignore[call-overload]
        except TypeError:
            return False


def _text(f: dict[str, Any], schema: Any) -> str:
    kw, inst, arg = f["keyword"], f["instance"], f["argument"]
    simple = {
        "required": f"{arg!r} is a required property",
        "enum": f"{inst!r} is not one of {arg!r}",
        "const": f"{arg!r} was expected",
        "minimum": f"{inst!r} is less than the minimum of {arg!r}",
        "maximum": f"{inst!r} is greater than the maximum of {arg!r}",
        "exclusiveMinimum": f"{inst!r} is less than or equal to the minimum of {arg!r}",
        "exclusiveMaximum": f"{inst!r} is greater than or equal to the maximum of {arg!r}",
        "multipleOf": f"{inst!r} is not a multiple of {arg}",
        "uniqueItems": f"{inst!r} has non-unique elements",
        "pattern": f"{inst!r} does not match {arg!r}",
        "format": f"{inst!r} is not a {arg!r}",
        "not": f"{inst!r} should not be valid under {arg!r}",
        "anyOf": f"{inst!r} is not valid under any of the given schemas",
        "oneOf": f"{inst!r} is not valid under any of the given schemas",
        "falseSchema": f"False schema does not allow {inst!r}",
    }
    if kw in simple:
        return simple[kw]
    if kw == "type":
        types = [arg] if isinstance(arg, str) else list(arg or ())
        return f"{inst!r} is not of type {', '.join(repr(t) for t in types)}"
    sized = {"minItems": ("should be non-empty", 1, "is too short"),
             "minLength": ("should be non-empty", 1, "is too short"),
             "maxItems": ("is expected to be empty", 0, "is too long"),
             "maxLength": ("is expected to be empty", 0, "is too long"),
             "minProperties": ("should be non-empty", 1, "does not have enough properties"),
             "maxProperties": ("is expected to be empty", 0, "has too many properties")}
    if kw in sized:
        edge, at, other = sized[kw]
        limit = _at(schema, f["pointer"], kw)
        return f"{inst!r} {edge if limit == at else other}"
    if kw == "additionalProperties" and isinstance(arg, list) and arg:
        extras = sorted(arg, key=str)
        verb = "was" if len(extras) == 1 else "were"
        return f"Additional properties are not allowed ({', '.join(repr(e) for e in extras)} {verb} unexpected)"
    return str(f["message"])


def _at(schema: Any, pointer: str, keyword: str) -> Any:
    """The keyword's value in the schema that applies at ``pointer`` (None off its properties/items)."""
    node = _node(schema, pointer)
    return node.get(keyword) if isinstance(node, dict) else None


def _node(schema: Any, pointer: str) -> Any:
    """The subschema that applies at ``pointer``, followed through ``properties`` and ``items``."""
    node = schema
    for seg in pointer.split("/")[1:]:
        seg = seg.replace("~1", "/").replace("~0", "~")
        props = node.get("properties") if isinstance(node, dict) else None
        if isinstance(props, dict) and seg in props:
            node = props[seg]
        elif isinstance(node, dict) and isinstance(node.get("items"), dict):
            node = node["items"]
        else:
            return None
    return node


def error_result(text: str) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": text}], "isError": True}


def tool_result(out: Any, dump: Any) -> dict[str, Any]:
    """A handler's return value as mcp 1.x shapes it: a ``CallToolResult`` as given; a tuple
    ``(content, structured)``; a dict as its JSON text and the structured content; an iterable of
    content; anything else an ``isError`` result naming its type."""
    if hasattr(out, "model_dump") and hasattr(out, "content") and not hasattr(out, "type"):
        return dump(out)  # type: ignore[no-any-return]  # a CallToolResult
    structured: Any = None
    if isinstance(out, tuple) and len(out) == 2:
        unstructured, structured = out
    elif isinstance(out, dict):
        unstructured, structured = [{"type": "text", "text": json.dumps(out, indent=2)}], out
    elif isinstance(out, Iterable) and not isinstance(out, (str, bytes)):
        unstructured = out
    else:
        return error_result(f"Unexpected return type from tool: {type(out).__name__}")
    result: dict[str, Any] = {"content": dump(list(unstructured)), "isError": False}
    if structured is not None:
        result["structuredContent"] = dump(structured)
    return result
