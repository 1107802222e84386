"""mcp 2.x's programmatic calls on a server: ``await mcp.call_tool(...)``, ``await mcp.read_resource(...)``
and ``ctx.read_resource(...)``, and the failures of a tool as the SDK words and records them.

The SDK runs these in process, on the function itself: no request goes out, no record is written
(the request handlers write them), and a failure is raised as the SDK's exception, chained to what
the function raised. They run here the same way, on the function oxmcp registered, with the same
argument conversion; what a client sends still goes through the core.
"""

from __future__ import annotations

import inspect
import logging
from typing import Any

from ..._errors import McpError, ResourceError, ToolError
from .exceptions import UnexpectedResourceError, UnexpectedToolError

__all__ = ["call_tool", "read_resource", "tool_failure"]

#: The logger the SDK's MCPServer writes its handler failures to.
_sdk_log = logging.getLogger("mcp.server.mcpserver.server")


def _wrapped(name: str, exc: BaseException) -> BaseException:
    """What the SDK's ``Tool.run`` raises for ``exc`` raised by tool ``name``, chained to it."""
    if isinstance(exc, (UnexpectedToolError, UnexpectedResourceError)):
        out: BaseException = UnexpectedToolError(f"Error executing tool {name}: {exc}")
    elif isinstance(exc, (ToolError, ResourceError)):
        out = ToolError(f"Error executing tool {name}: {exc}")
    else:
        out = UnexpectedToolError(f"Error executing tool {name}")
    out.__cause__ = exc
    return out


def tool_failure(name: str, exc: BaseException) -> str:
    """A tool call's failure as the SDK's request handler answers it: the text of its error result,
    after one record (INFO for a deliberate ``ToolError``/``ResourceError``, ERROR with the
    traceback for a crash)."""
    error = _wrapped(name, exc)
    if isinstance(error, UnexpectedToolError):
        _sdk_log.error("Tool %r raised an unexpected exception", name, exc_info=error)
    else:
        _sdk_log.info("Tool %r failed: %r", name, str(error))
    return str(error)


async def _run(entry: Any, payload: Any, native: Any) -> Any:
    """The function of ``entry`` on ``payload``; the caller's current context is kept."""
    from ..._handlers import _consumed
    from ..dependencies import current_context

    outer = current_context.get()
    try:
        value = entry.info.fn(**entry._prepare(payload, native))
        if inspect.isawaitable(value):
            value = await value
        return await _consumed(value)
    finally:
        current_context.set(outer)


async def call_tool(server: Any, name: str, arguments: dict[str, Any] | None, context: Any) -> Any:
    """``MCPServer.call_tool``: the tool's ``CallToolResult`` (or the ``InputRequiredResult`` it
    returned); ``ToolError`` / ``UnexpectedToolError`` as the SDK raises them."""
    import pydantic

    from ... import types
    from ..._handlers import _InvalidArguments

    entry = server._tools.get(name)
    if entry is None:
        raise ToolError(f"Unknown tool: {name}")
    native = getattr(context, "_native", None)
    try:
        value = await _run(entry, dict(arguments or {}), native)
    except _InvalidArguments as exc:  # the arguments' own conversion refused them
        cause = exc.__cause__ if isinstance(exc.__cause__, pydantic.ValidationError) else exc
        raise ToolError(f"Error executing tool {name}: {cause}") from cause
    except McpError:
        raise
    except Exception as exc:  # each failure becomes the SDK's error for it
        raise _wrapped(name, exc) from exc
    if isinstance(value, types.InputRequiredResult):
        return value
    kind, out = entry._finish(arguments or {}, value)
    if kind == "list":
        out = {"content": out}
    return types.CallToolResult.model_validate(out)


def _find(server: Any, uri: str) -> tuple[Any, dict[str, Any]]:
    from ..._inproc import find_resource

    entry, variables = find_resource(server, uri)
    if entry is None:
        from .exceptions import ResourceNotFoundError

        raise ResourceNotFoundError(f"Unknown resource: {uri}")
    return entry, variables


async def read_resource(server: Any, uri: str, context: Any) -> Any:
    """``MCPServer.read_resource``: the contents (``.content``, ``.mime_type``), or the
    ``InputRequiredResult`` a template returned; a ``ResourceError`` or ``McpError`` as raised,
    any other failure as ``UnexpectedResourceError`` chained to it."""
    from ... import types
    from ..._inproc import contents_of

    entry, variables = _find(server, uri)
    native = getattr(context, "_native", None)
    try:
        value = await _run(entry, {"uri": uri, "vars": variables}, native)
    except (ResourceError, McpError):
        raise
    except Exception as exc:  # a crash: the SDK's wrapper, chained to it
        what = "Error creating resource from template" if entry.is_template else "Error reading resource"
        raise UnexpectedResourceError(f"{what} {uri}") from exc
    if isinstance(value, types.InputRequiredResult):
        return value
    _, out = entry._finish({"uri": uri}, value)
    return contents_of(out)
