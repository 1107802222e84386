"""FastMCP's rules for a component's listing and running, shared by ``@mcp.tool``/``@mcp.prompt`` on
FastMCP (``oxmcp/_fastmcp.py``) and its component classes (``Tool.from_function``,
``Prompt.from_function``), so that a component is listed as the decorator lists the same function."""

from __future__ import annotations

from typing import Any

__all__ = ["fastmcp_prompt_arguments", "fastmcp_tool_schemas", "inline"]


def inline(fn: Any, timeout: float | None) -> Any:
    """FastMCP's ``run_in_thread=False``: a sync tool runs on the event loop's thread (for libraries
    with thread affinity), as a coroutine function that calls it there. A timeout could not interrupt
    it, so the pair is refused, as FastMCP refuses it."""
    import functools
    import inspect

    if inspect.iscoroutinefunction(fn) or inspect.isasyncgenfunction(fn) \
            or inspect.iscoroutinefunction(type(fn).__call__):
        return fn
    if timeout is not None:
        raise ValueError("timeout cannot be enforced on a sync tool with run_in_thread=False: it runs "
                         "inline on the event loop, which a timeout cannot interrupt. Drop one of them.")

    @functools.wraps(fn)
    async def inline(*args: Any, **kwargs: Any) -> Any:
        return fn(*args, **kwargs)

    return inline


def fastmcp_tool_schemas(entry: Any) -> None:
    """A tool's listed schemas as FastMCP lists them (``@mcp.tool`` and ``Tool.from_function`` alike).

    FastMCP (2.x to 4.x) lists a function tool's input schema with ``additionalProperties: false``
    and refuses an argument the function does not take (pydantic's unexpected_keyword_argument); the
    core validates against the listed schema, so listing it refuses it too. An explicit
    ``input_schema`` is the author's, as given. A wrapped output schema carries FastMCP's marker
    (``x-fastmcp-wrap-result``), which FastMCP's client reads to unwrap ``result`` into ``.data``.
    New dicts: the built schemas may be shared (cached).
    """
    schema = entry.info.input_schema
    if not entry.info.raw_arguments and schema.get("type") == "object" and "additionalProperties" not in schema:
        entry.info.input_schema = {**schema, "additionalProperties": False}
    out = entry.info.output_schema
    if out is not None and "x-oxmcp-wrap-result" in out \
            and (out.get("properties") or {}).get("result") == {"items": {}, "type": "array"}:
        # FastMCP 4 infers no schema from a sequence with no item type (list, tuple, Sequence,
        # list[Any]): it constrains nothing, and would force a copy of the content blocks (an
        # image, say) into structured content.
        entry.info.output_schema, entry.info.wrap_result, entry.info.output_adapter = None, False, None
        return
    if out is not None and "x-oxmcp-wrap-result" in out:
        out = {k: v for k, v in out.items() if k != "x-oxmcp-wrap-result"}
        out["x-fastmcp-wrap-result"] = True
    if out is not None:
        # FastMCP lists an inferred output schema without pydantic's titles (a model's class name).
        entry.info.output_schema = _without_titles(out)


#: Schema keywords whose value maps names (properties, definitions) to schemas.
_NAME_MAPS = frozenset({"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"})


def _without_titles(node: Any, names: bool = False) -> Any:
    if isinstance(node, dict):
        if names:
            return {k: _without_titles(v) for k, v in node.items()}
        return {k: _without_titles(v, k in _NAME_MAPS) for k, v in node.items()
                if not (k == "title" and isinstance(v, str))}
    if isinstance(node, list):
        return [_without_titles(v) for v in node]
    return node


def fastmcp_prompt_arguments(entry: Any) -> None:
    """A prompt's listed arguments as FastMCP lists them: prompt arguments travel as strings, so an
    argument annotated other than ``str`` says the JSON Schema its value must match (FastMCP 4's
    note, which clients show to whoever fills the argument in). An explicit ``Field(title=...)`` is
    the argument's title."""
    import inspect
    import json
    import typing

    from pydantic import TypeAdapter

    fn = entry.info.fn
    try:
        params = inspect.signature(fn).parameters
        hints = typing.get_type_hints(fn if inspect.isroutine(fn) else type(fn).__call__, include_extras=True)
    except Exception:  # noqa: BLE001  unresolvable hints: the arguments are listed as they are
        return
    for arg in entry.arguments:
        param = params.get(arg["name"])
        if param is None or param.annotation is inspect.Parameter.empty:
            continue
        annotation = hints.get(arg["name"], param.annotation)
        title = _explicit_title(param.default, annotation)
        if title:
            arg["title"] = title
        if annotation is str:
            continue
        try:
            schema = json.dumps(TypeAdapter(annotation).json_schema(), separators=(",", ":"))
        except Exception:  # noqa: BLE001, S112  a type with no JSON Schema: no note
            continue
        note = f"Provide a value matching the following JSON schema: {schema}. Encode non-string values as JSON."
        arg["description"] = f"{arg['description']}\n\n{note}" if arg.get("description") else note


def _explicit_title(default: Any, annotation: Any) -> str | None:
    """The title a parameter's ``Field(title=...)`` gives (as its default or in ``Annotated``)."""
    import typing

    from pydantic.fields import FieldInfo

    extras = typing.get_args(annotation)[1:] if typing.get_origin(annotation) is typing.Annotated else ()
    for info in (default, *extras):
        if isinstance(info, FieldInfo) and info.title:
            return info.title
    return None
