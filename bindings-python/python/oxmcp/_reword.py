"""Links at the head of the core's chain that word some of the core's JSON-RPC errors as a
framework words them. The core decides every answer (data, what is refused); a link only rewrites
the message of an error the core gave (and its code, where the framework numbers it otherwise), for
the methods it hooks."""

from __future__ import annotations

from typing import Any


class RewordingLink:
    """A chain link that passes each request on and rewrites the message of a core error with
    ``_message`` (the message unchanged unless a subclass says otherwise)."""

    is_async = True

    def __init__(self, server: Any) -> None:
        self.server = server

    def hooks(self) -> list[str]:
        return []

    def call_sync(self, payload: Any, native_ctx: Any = None) -> tuple[str, Any]:  # pragma: no cover
        import asyncio

        return asyncio.run(self.call_async(payload, native_ctx))

    async def call_async(self, payload: Any, native_ctx: Any = None) -> tuple[str, Any]:
        from ._errors import InputRequired, McpError, RequestCancelled
        from .server.middleware import native_next

        params = dict(payload.get("params") or {})
        try:
            return ("ok", await native_next(native_ctx, params))
        except InputRequired:
            return ("input_required", None)  # the core keeps the request's input round
        except RequestCancelled:
            return ("cancelled", None)
        except McpError as exc:
            return ("mcp_error", (self._code(exc, payload.get("method")), self._message(exc, params), exc.data))

    def _message(self, exc: Any, params: dict[str, Any]) -> str:
        return str(exc.message)

    def _code(self, exc: Any, method: Any) -> int:
        return int(exc.code)


def missing_arguments_text(server: Any, exc: Any, params: dict[str, Any]) -> str | None:
    """The core's -32602 for a prompt read without a required argument, as FastMCP and the `mcp`
    SDK word it: ``Missing required arguments: {...}``, every one missing. None for any other error."""
    prompt = server._prompts.get(str(params.get("name")))
    if exc.code != -32602 or prompt is None or not str(exc.message).startswith("Missing required argument: "):
        return None
    given = params.get("arguments") or {}
    missing = {a["name"] for a in prompt.arguments if a.get("required") and a["name"] not in given}
    return f"Missing required arguments: {missing}"
