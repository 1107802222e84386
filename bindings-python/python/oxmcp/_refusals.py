"""The words of a refusal of a tool's arguments, as a framework says them.

The core decides whether a call's arguments are refused (its compiled input schema, with pydantic's
lax scalars for the compatibility layers) and says why. A compatibility layer only supplies the text:
each of its tools carries a :class:`Refusal` (``ToolEntry.refusal``), which the core calls with the
arguments as sent and its violations. The text is what the framework's own validation says of them
(pydantic's ``ValidationError``, in the framework's framing); if that validation would accept them,
the wording gives ``None`` and the core's own text is sent: the refusal stands either way.
"""

from __future__ import annotations

import inspect
import logging
import typing
from collections.abc import Callable
from typing import Any

import pydantic

_log = logging.getLogger("oxmcp")


class Refusal:
    """A tool's wording entry, as the native core calls it (the handler protocol: ``call_sync``
    gets ``{arguments, violations}`` and returns ``("ok", text | None)``; it never raises)."""

    is_async = False

    def __init__(self, entry: Any, word: Callable[[dict[str, Any], list[dict[str, str]]], str | None]) -> None:
        self.entry = entry
        self.word = word

    def call_sync(self, payload: Any, native_ctx: Any = None) -> tuple[str, Any]:
        try:
            text = self.word(dict(payload.get("arguments") or {}), list(payload.get("violations") or []))
            if text is not None and not isinstance(text, str):
                raise TypeError(f"a refusal's text must be a str or None, not {type(text).__name__}")
            if text is not None:  # a FastMCP middleware watching the call sees the ValidationError FastMCP raises
                from ._faults import note
                from .exceptions import ValidationError

                note(native_ctx, ValidationError(text), lambda exc: exc)
            return ("ok", text)
        except Exception as exc:  # noqa: BLE001  # the core keeps its own text
            _log.warning("wording the refused arguments of tool %r failed", self.entry.name, exc_info=exc)
            return ("ok", None)

    async def call_async(self, payload: Any, native_ctx: Any = None) -> tuple[str, Any]:
        return self.call_sync(payload, native_ctx)


def refusal_for(entry: Any, server: Any, refusal_text: Callable[..., Any] | None) -> Refusal | None:
    """A tool's wording: its own ``refusal_text(arguments, violations)``, else its server's compatibility
    layer's (``_argument_refusal(entry, arguments)``), else None (the core's text)."""
    if refusal_text is not None:
        if not callable(refusal_text):
            raise TypeError("refusal_text must be a function (arguments, violations) -> str | None")
        return Refusal(entry, refusal_text)
    layer = getattr(server, "_argument_refusal", None)
    if layer is None:
        return None
    return Refusal(entry, lambda arguments, violations: layer(entry, arguments))


def model_refusal(entry: Any, arguments: dict[str, Any]) -> pydantic.ValidationError | None:
    """The tool's argument model's refusal of ``arguments`` (pydantic's lax mode), or None."""
    info = entry.info
    if info.raw_arguments:
        return None
    try:
        info.arg_model.model_validate(arguments)
    except pydantic.ValidationError as exc:
        return exc
    return None


def call_refusal(entry: Any, arguments: dict[str, Any]) -> pydantic.ValidationError | None:
    """pydantic's refusal of ``arguments`` as a call of the tool's function (the errors and title a
    ``TypeAdapter`` of the function gives: ``missing_argument``, ``call[name]``), or None. The
    function is not called: the adapter is built on a stand-in with the parameters the client fills."""
    info = entry.info
    if info.raw_arguments:
        return None
    fn = info.fn
    sig = inspect.signature(fn, eval_str=True)
    names = set(info.param_names)
    params = [p for p in sig.parameters.values() if p.name in names]

    def stand_in(*args: Any, **kwargs: Any) -> None:
        return None

    stand_in.__name__ = stand_in.__qualname__ = getattr(fn, "__name__", entry.name)
    stand_in.__module__ = getattr(fn, "__module__", __name__)
    stand_in.__signature__ = sig.replace(  # type: ignore[attr-defined]
        parameters=params, return_annotation=inspect.Signature.empty)
    stand_in.__annotations__ = {p.name: p.annotation for p in params if p.annotation is not inspect.Parameter.empty}
    try:
        pydantic.TypeAdapter(stand_in).validate_python(arguments)  # type: ignore[arg-type]  # a call schema
    except pydantic.ValidationError as exc:
        return exc
    return None


def retitled(exc: pydantic.ValidationError, title: str) -> str:
    """``str(exc)`` under another model title (its first line: ``N validation error(s) for T``)."""
    head, sep, rest = str(exc).partition("\n")
    return f"{head.rsplit(' for ', 1)[0]} for {title}{sep}{rest}"


def validation_summary(exc: pydantic.ValidationError) -> dict[str, Any]:
    """What FastMCP logs of a refusal: the count and the built-in error codes, none of the client's data."""
    from pydantic_core import ErrorType

    builtin = frozenset(typing.get_args(ErrorType))
    kinds = {d["type"] if d["type"] in builtin else "custom_error"
             for d in exc.errors(include_url=False, include_context=False, include_input=False)}
    return {"error_count": exc.error_count(), "error_types": sorted(kinds)}



def fastmcp_refusal(server: Any, entry: Any, arguments: dict[str, Any]) -> str | None:
    """FastMCP's words: pydantic's text for the call of the function, and its warning (the count
    and codes only) on ``fastmcp.server.server``."""
    exc = call_refusal(entry, arguments)
    if exc is None:
        return None
    logging.getLogger("fastmcp.server.server").warning("Invalid arguments for tool %r: %s", entry.name,
                                                       validation_summary(exc))
    return str(exc)


def sdk_refusal(server: Any, entry: Any, arguments: dict[str, Any]) -> str | None:
    """The ``mcp`` SDK's words (1.x FastMCP, 2.x MCPServer): ``Error executing tool <name>: `` and
    pydantic's text for the ``<function>Arguments`` model (2.x logs the names of the refused fields)."""
    exc = model_refusal(entry, arguments)
    if exc is None:
        return None
    text = retitled(exc, f"{getattr(entry.info.fn, '__name__', entry.name)}Arguments")
    if getattr(server, "_sdk2", False):
        return str(server._tool_arguments_rejected(entry.name, exc, text))
    return f"Error executing tool {entry.name}: {text}"
