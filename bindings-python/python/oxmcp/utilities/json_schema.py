"""``fastmcp.utilities.json_schema``: ``compress_schema``, FastMCP's clean-up of a JSON Schema it
lists (a root ``$ref`` resolved, titles and unused ``$defs`` pruned, parameters removed)."""

from __future__ import annotations

import copy
from typing import Any

__all__ = ["compress_schema", "is_object_schema", "resolve_root_ref"]


def resolve_root_ref(schema: dict[str, Any]) -> dict[str, Any]:
    """A root ``$ref`` to a local definition replaced by that definition (the ``$defs`` kept): MCP
    wants ``type: object`` at the root of a tool's schema."""
    from .._schema import _deref_root

    return _deref_root(schema)


def is_object_schema(schema: dict[str, Any]) -> bool:
    return resolve_root_ref(schema).get("type") == "object"


def compress_schema(schema: dict[str, Any], prune_params: list[str] | None = None,
                    prune_additional_properties: bool = False, prune_titles: bool = False,
                    dereference: bool = False) -> dict[str, Any]:
    if dereference:
        raise TypeError("compress_schema(dereference=True) is not supported by oxmcp")
    schema = resolve_root_ref(copy.deepcopy(schema))
    for param in prune_params or ():
        schema.get("properties", {}).pop(param, None)
        if param in schema.get("required", []):
            schema["required"] = [r for r in schema["required"] if r != param]
            if not schema["required"]:
                del schema["required"]

    def walk(node: Any, in_properties: bool = False) -> Any:
        if isinstance(node, dict):
            out = {}
            for key, value in node.items():
                if not in_properties and prune_titles and key == "title" and isinstance(value, str):
                    continue
                if not in_properties and prune_additional_properties and key == "additionalProperties" \
                        and value is False:
                    continue
                out[key] = walk(value, in_properties=(key in ("properties", "$defs") and not in_properties))
            return out
        if isinstance(node, list):
            return [walk(v) for v in node]
        return node

    schema = walk(schema)
    defs = schema.get("$defs")
    if isinstance(defs, dict):
        # Unused definitions pruned: the ones no $ref (outside their own body) reaches.
        used: set[str] = set()

        def refs(node: Any) -> None:
            if isinstance(node, dict):
                ref = node.get("$ref")
                if isinstance(ref, str) and ref.startswith("#/$defs/") and ref[8:] not in used:
                    used.add(ref[8:])
                    refs(defs.get(ref[8:]))
                for key, value in node.items():
                    if key != "$defs":
                        refs(value)
            elif isinstance(node, list):
                for v in node:
                    refs(v)

        refs({k: v for k, v in schema.items() if k != "$defs"})
        kept = {k: v for k, v in defs.items() if k in used}
        if kept:
            schema["$defs"] = kept
        else:
            del schema["$defs"]
    return schema
